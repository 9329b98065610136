import { passesLuhn } from "../../platform/card-data/luhn";
import type { ProviderTransaction, SupplierCall } from "./supplier";

export const REDACTED = "[REDACTED]";

/** Field names whose values never leave in a provider transaction: credentials and card data. */
const SECRET_FIELDS = [
  "password",
  "passwd",
  "apikey",
  "api_key",
  "api-key",
  "x-api-key",
  "authorization",
  "token",
  "access_token",
  "refresh_token",
  "secret",
  "client_secret",
  "credentials",
  "cardnumber",
  "card_number",
  "pan",
  "cvc",
  "cvv",
  "cvv2",
  "securitycode",
  "security_code",
  "expiry",
  "expire",
  "expirymonth",
  "expiryyear",
  "expmonth",
  "expyear",
];
const names = SECRET_FIELDS.map((f) => f.replace(/[-_]/g, "[-_]?")).join("|");
// "name": "value" / "name": 123 / "name": {...one level...} in JSON or GraphQL variables, any case.
const JSON_FIELD = new RegExp(
  `("(?:${names})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|-?\\d[\\d.eE+-]*|\\{[^{}]*\\}|\\[[^\\[\\]]*\\])`,
  "gi",
);
// name: "value" (GraphQL literals), name=value (query strings, form bodies), Name: value (headers, one line).
const GRAPHQL_FIELD = new RegExp(`(\\b(?:${names})\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*")`, "gi");
const PAIR_FIELD = new RegExp(`(\\b(?:${names})=)([^&\\s"]+)`, "gi");
const HEADER_LINE = new RegExp(`^((?:${names})\\s*:\\s*)(.+)$`, "gim");
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
// 13 to 19 digits, spaces or dashes between them allowed: a card number when Luhn says so.
const DIGIT_RUN = /\b\d(?:[ -]?\d){12,18}\b/g;

/** A request or response text with credentials and card data replaced by [REDACTED], whatever its format. */
export const redactTransactionText = (text: string): string =>
  text
    .replace(JSON_FIELD, (_, name: string) => `${name}"${REDACTED}"`)
    .replace(GRAPHQL_FIELD, (_, name: string) => `${name}"${REDACTED}"`)
    .replace(PAIR_FIELD, (_, name: string) => `${name}${REDACTED}`)
    .replace(HEADER_LINE, (_, name: string) => `${name}${REDACTED}`)
    .replace(BEARER, (_, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(DIGIT_RUN, (run) => (passesLuhn(run.replace(/[ -]/g, "")) ? REDACTED : run));

/** What names the operator's account at an upstream: its address and the Hotel-X `client` and `context`. */
export type UpstreamIdentity = { url: string; client: string; context: string };

/**
 * A request or response text without the operator's upstream identity, which a partner never sees:
 * the URL (then its host, wherever the text repeats it) becomes [REDACTED], and so does every JSON
 * string whose whole value is the `client` or the `context` (in the request: `settings.client` and
 * `settings.context`). Whole values only, so a short client name never cuts into other words.
 */
export const hideUpstreamIdentity = (text: string, identity: UpstreamIdentity): string => {
  let shown = text.replaceAll(identity.url, REDACTED);
  const host = URL.canParse(identity.url) ? new URL(identity.url).host : "";
  if (host) shown = shown.replaceAll(host, REDACTED);
  for (const value of [identity.client, identity.context]) {
    if (value) shown = shown.replaceAll(JSON.stringify(value), `"${REDACTED}"`);
  }
  return shown;
};

/** Where a network supplier records one exchange: redacted here, so no supplier can forget to. */
export const recordProviderTransaction = (call: SupplierCall | undefined, transaction: ProviderTransaction): void => {
  call?.transactions?.push({
    ...transaction,
    request: redactTransactionText(transaction.request),
    response: redactTransactionText(transaction.response),
  });
};
