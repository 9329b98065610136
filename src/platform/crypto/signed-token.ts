import { timingSafeEqual } from "hono/utils/buffer";
import { base64url, fromBase64url } from "./digest";
import { deriveKeyring, verifyWithKeyring, type Keyring } from "./keyring";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * What a token is for. Each purpose signs under its own key derived from the keyring, so a token
 * of one purpose never opens as another (a page token is not an option id, nor a booking link).
 */
export type TokenPurpose =
  | "content-page"
  | "booking-option"
  | "booking-list-cursor"
  | "chat-booking-page"
  | "card-setup";

const purposeKeys = (keys: Keyring, purpose: TokenPurpose) =>
  deriveKeyring(keys, (secret) => `${purpose}:v1:${secret}`);

const hmacKey = (secret: string) =>
  crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);

/**
 * `base64url(JSON {d: payload, e: expiry}).base64url(HMAC-SHA-256)`: compact, tamper-evident, not
 * secret. Signed with the keyring's current secret under the purpose's key. `expiresAt` is epoch ms,
 * or null for a token that lives as long as its key (a confirmation link).
 */
export const signToken = async (
  keys: Keyring,
  purpose: TokenPurpose,
  payload: unknown,
  expiresAt: number | null,
): Promise<string> => {
  const body = base64url(encoder.encode(JSON.stringify({ d: payload, e: expiresAt })));
  const signature = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(purposeKeys(keys, purpose).current),
    encoder.encode(body),
  );
  return `${body}.${base64url(new Uint8Array(signature))}`;
};

/** `expired` still carries the payload, so a caller can report ownership before expiry when its contract says so. */
export type OpenedToken =
  | { kind: "malformed" }
  | { kind: "bad_signature" }
  | { kind: "ok" | "expired"; payload: unknown; expiresAt: number | null };

/**
 * Checks shape, then the signature against the purpose's keyring (current, then previous; WebCrypto
 * verify compares in constant time), then the expiry against `now`.
 */
export const openToken = async (
  keys: Keyring,
  purpose: TokenPurpose,
  token: string,
  now: number,
): Promise<OpenedToken> => {
  const parts = token.split(".");
  if (parts.length !== 2) return { kind: "malformed" };
  const [body, sig] = parts as [string, string];
  const bodyBytes = fromBase64url(body);
  const sigBytes = fromBase64url(sig);
  if (!bodyBytes || !sigBytes || bodyBytes.length === 0) return { kind: "malformed" };
  let envelope: unknown;
  try {
    envelope = JSON.parse(decoder.decode(bodyBytes));
  } catch {
    return { kind: "malformed" };
  }
  if (envelope === null || typeof envelope !== "object" || !("d" in envelope) || !("e" in envelope))
    return { kind: "malformed" };
  const { d: payload, e: expiresAt } = envelope as { d: unknown; e: unknown };
  if (expiresAt !== null && (typeof expiresAt !== "number" || !Number.isFinite(expiresAt)))
    return { kind: "malformed" };
  const signed = encoder.encode(body);
  const valid = await verifyWithKeyring(purposeKeys(keys, purpose), async (secret) =>
    (await crypto.subtle.verify("HMAC", await hmacKey(secret), sigBytes, signed)) ? true : null,
  );
  if (!valid) return { kind: "bad_signature" };
  return { kind: expiresAt !== null && now >= expiresAt ? "expired" : "ok", payload, expiresAt };
};

/** 128 bits of HMAC-SHA-256 (RFC 2104 section 5 allows truncation to half the output and more). */
const COMPACT_SIGNATURE_BYTES = 16;
const compactSignature = async (secret: string, signed: string) =>
  base64url(
    new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(signed))).subarray(
      0,
      COMPACT_SIGNATURE_BYTES,
    ),
  );

/**
 * `<text>.<expiry in whole seconds, base 36>.<base64url(HMAC-SHA-256) cut to 128 bits>`: the form of a
 * token repeated thousands of times in one answer (an option id's signed stay), about a third of
 * `signToken`'s length. `text` is signed as it is (the caller makes it unambiguous and URL-safe, and
 * may use "."): no JSON, no base64. Expiry is whole seconds, rounded down.
 */
export const signCompact = async (
  keys: Keyring,
  purpose: TokenPurpose,
  text: string,
  expiresAt: number,
): Promise<string> => {
  const signed = `${text}.${Math.floor(expiresAt / 1000).toString(36)}`;
  return `${signed}.${await compactSignature(purposeKeys(keys, purpose).current, signed)}`;
};

/** Opens what `signCompact` made: its text and expiry once the signature (current key, then previous) holds. */
export const openCompact = async (
  keys: Keyring,
  purpose: TokenPurpose,
  token: string,
  now: number,
): Promise<
  { kind: "malformed" } | { kind: "bad_signature" } | { kind: "ok" | "expired"; text: string; expiresAt: number }
> => {
  const cut = token.lastIndexOf(".");
  const expiryAt = token.lastIndexOf(".", cut - 1);
  if (expiryAt <= 0) return { kind: "malformed" };
  const signed = token.slice(0, cut);
  const sig = token.slice(cut + 1);
  const expiry = token.slice(expiryAt + 1, cut);
  if (!/^[0-9a-z]{1,10}$/.test(expiry) || !/^[A-Za-z0-9_-]{22}$/.test(sig)) return { kind: "malformed" };
  const valid = await verifyWithKeyring(purposeKeys(keys, purpose), async (secret) =>
    (await timingSafeEqual(await compactSignature(secret, signed), sig)) ? true : null,
  );
  if (!valid) return { kind: "bad_signature" };
  const expiresAt = Number.parseInt(expiry, 36) * 1000;
  return { kind: now >= expiresAt ? "expired" : "ok", text: token.slice(0, expiryAt), expiresAt };
};
