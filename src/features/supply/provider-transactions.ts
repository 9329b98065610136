import { passesLuhn } from "../../platform/card-number";
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

/** Where a network supplier records one exchange: redacted here, so no supplier can forget to. */
export const recordProviderTransaction = (call: SupplierCall | undefined, transaction: ProviderTransaction): void => {
  call?.transactions?.push({
    ...transaction,
    request: redactTransactionText(transaction.request),
    response: redactTransactionText(transaction.response),
  });
};
