import { base64url, fromBase64url } from "./digest";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const VERSION = "v1";

/** AES-256-GCM key derived (HKDF-SHA-256) from the deploy's key material, one key per purpose. */
const boxKey = async (keyMaterial: string, purpose: string) => {
  if (!keyMaterial) throw new Error("secret-box: key material is not configured");
  const base = await crypto.subtle.importKey("raw", encoder.encode(keyMaterial), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(`edgestay ${purpose}`) },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
};

/**
 * Encrypts a secret the server must read back later (unlike API keys, which are only hashed).
 * `context` (e.g. the owning row's id) is authenticated data: a sealed value copied to another
 * row does not open there.
 */
export const sealSecret = async (
  keyMaterial: string,
  purpose: string,
  context: string,
  secret: string,
): Promise<string> => {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await boxKey(keyMaterial, purpose);
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    key,
    encoder.encode(secret),
  );
  return `${VERSION}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
};

/** The secret sealed by `sealSecret`; throws when the value, key or context does not match. */
export const openSecret = async (
  keyMaterial: string,
  purpose: string,
  context: string,
  sealed: string,
): Promise<string> => {
  const [version, ivText, bodyText] = sealed.split(".");
  const iv = ivText ? fromBase64url(ivText) : null;
  const body = bodyText ? fromBase64url(bodyText) : null;
  if (version !== VERSION || !iv || !body) throw new Error("secret-box: malformed sealed value");
  const key = await boxKey(keyMaterial, purpose);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    key,
    body,
  );
  return decoder.decode(plain);
};
