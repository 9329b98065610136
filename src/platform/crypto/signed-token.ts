import { base64url, fromBase64url } from "./digest";
import { verifyWithKeyring, type Keyring } from "./keyring";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const hmacKey = (secret: string) =>
  crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);

/** `base64url(JSON payload).base64url(HMAC-SHA-256)`: compact, tamper-evident, not secret. Signed with the current secret. */
export const signToken = async (keys: Keyring, payload: unknown): Promise<string> => {
  const body = base64url(encoder.encode(JSON.stringify(payload)));
  const signature = await crypto.subtle.sign("HMAC", await hmacKey(keys.current), encoder.encode(body));
  return `${body}.${base64url(new Uint8Array(signature))}`;
};

export type OpenedToken = { kind: "malformed" } | { kind: "bad_signature" } | { kind: "ok"; payload: unknown };

/** Checks shape first, then the signature against the keyring (WebCrypto verify compares in constant time). */
export const openToken = async (keys: Keyring, token: string): Promise<OpenedToken> => {
  const parts = token.split(".");
  if (parts.length !== 2) return { kind: "malformed" };
  const [body, sig] = parts as [string, string];
  const bodyBytes = fromBase64url(body);
  const sigBytes = fromBase64url(sig);
  if (!bodyBytes || !sigBytes || bodyBytes.length === 0) return { kind: "malformed" };
  let payload: unknown;
  try {
    payload = JSON.parse(decoder.decode(bodyBytes));
  } catch {
    return { kind: "malformed" };
  }
  const signed = encoder.encode(body);
  const valid = await verifyWithKeyring(keys, async (secret) =>
    (await crypto.subtle.verify("HMAC", await hmacKey(secret), sigBytes, signed)) ? true : null,
  );
  return valid ? { kind: "ok", payload } : { kind: "bad_signature" };
};
