import { toHex } from "../../platform/crypto/digest";

const encoder = new TextEncoder();

/** The headers of every delivery (delivery.ts sends them; the document's `webhooks` describe them). */
export const SIGNATURE_HEADER = "Edgestay-Signature";
export const EVENT_ID_HEADER = "Edgestay-Event-Id";

/**
 * `Edgestay-Signature: t=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<raw body>">`, keyed with the
 * whole `whsec_...` string (as Stripe does). Each attempt is signed afresh with its own `t`, so
 * receivers can refuse stale timestamps (replays).
 */
export const signatureHeader = async (secret: string, body: string, unixSeconds: number): Promise<string> => {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${unixSeconds}.${body}`));
  return `t=${unixSeconds},v1=${toHex(mac)}`;
};
