import { timingSafeEqual } from "hono/utils/buffer";
import { fromBase64url, base64url } from "./digest";

// Workers' WebCrypto caps PBKDF2 at 100,000 iterations.
const ITERATIONS = 100_000;
const encoder = new TextEncoder();

const derive = async (secret: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> => {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
};

/**
 * Salted PBKDF2-SHA-256 of the password string the client sends (an MD5 hex string per the spec),
 * stored as `pbkdf2-sha256$iterations$salt$hash`.
 */
export const hashPassword = async (clientPassword: string): Promise<string> => {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(clientPassword, salt, ITERATIONS);
  return `pbkdf2-sha256$${ITERATIONS}$${base64url(salt)}$${base64url(hash)}`;
};

export const verifyPassword = async (clientPassword: string, stored: string): Promise<boolean> => {
  const [scheme, iterations, salt, hash] = stored.split("$");
  const saltBytes = salt ? fromBase64url(salt) : null;
  if (scheme !== "pbkdf2-sha256" || !saltBytes || !hash) return false;
  const derived = await derive(clientPassword, saltBytes, Number(iterations));
  return timingSafeEqual(base64url(derived), hash);
};
