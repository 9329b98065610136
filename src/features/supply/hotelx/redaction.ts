import type { ProviderTransaction } from "./client";

const REDACTED = "[redacted]";
/** Credentials (the apiKey header and any key-like field) and every card field, at any depth. */
const SECRET_KEYS = /^(authorization|api-?key|apikey|password|secret|token|paymentcard|card|cardnumber|number|cvc|cvv|cvv2|expire|expiry|expiration)$/i;

const redactValue = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) ? REDACTED : redactValue(v)]));
  }
  return value;
};

/** The response is parsed when it is JSON (so its fields can be redacted) and kept as text otherwise. */
const redactBody = (body: unknown): unknown => {
  if (typeof body !== "string") return redactValue(body);
  try {
    return redactValue(JSON.parse(body));
  } catch {
    return body;
  }
};

export const redactTransaction = (t: ProviderTransaction): ProviderTransaction => ({
  ...t,
  request: redactValue(t.request),
  response: t.response === null ? null : redactBody(t.response),
});
