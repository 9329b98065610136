import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { passesLuhn } from "./luhn";
import { ApiError } from "../http/api-error";
import type { ErrorCode } from "../http/errors";
import { MAX_BODY_BYTES, MAX_BODY_DEPTH } from "../http/json-body";

// Field names that only ever hold raw card data.
const CARD_FIELDS = new Set([
  "number",
  "cardnumber",
  "card_number",
  "pan",
  "primaryaccountnumber",
  "cvc",
  "cvv",
  "cvv2",
  "cvc2",
  "securitycode",
  "security_code",
  "track",
  "trackdata",
]);
// 13 to 19 digits, each pair split by at most three separators such as " - " (spaces, dashes, dots, after NFKC
// folding of full-width forms): the shape of a primary account number however it is written.
// A run glued to letters is part of an identifier (a PSP token such as pm_1Nf4x...), not a card
// number; after a separator such as "pm_" it is still refused.
const SEPARATOR = "[\\s.\\-\\u2010-\\u2015\\u2212]";
const PAN_SHAPE = new RegExp(`(?:^|[^\\dA-Za-z])(\\d(?:${SEPARATOR}{0,3}\\d){12,18})(?=[^\\dA-Za-z]|$)`, "g");
const NOT_DIGIT = /\D/g;
// A dot is a separator like any other: "4242.424242424242" is a card number written with one dot
// (issue 37), and each side of a dot is looked at alone too, so a decimal tail cannot hide one.
const DOT = /\./;
/** Scan budget: never more than a maximal body's worth of characters, never deeper than a body may nest. */
export const CARD_SCAN_BUDGET = { depth: MAX_BODY_DEPTH, chars: 2 * MAX_BODY_BYTES };

const ISSUED = /^[2-6]/;
/**
 * A card number: 13 to 19 digits passing Luhn, issued by a network, so starting with 2 to 6 (Visa,
 * Mastercard, American Express, Discover, JCB, Diners, UnionPay, Maestro), or 1 with 15 digits
 * (UATP). A run starting with 1 otherwise is a time (a Unix time in milliseconds such as
 * `1764623456789`, or Slack's `1700000000.000100`), and with 0, 7, 8 or 9 no card number.
 */
const isPan = (digits: string) =>
  digits.length >= 13 &&
  digits.length <= 19 &&
  (ISSUED.test(digits) || (digits[0] === "1" && digits.length === 15)) &&
  passesLuhn(digits);

const SEPARATORS = new RegExp(`${SEPARATOR}+`);
/**
 * Whether a digit run is grouped as people write a card number: not at all, split once by a dot
 * anywhere (424242424242.4242), in fours (the last group shorter: 4242 4242 4242 4242,
 * 4242-424242424242), American Express's and Diners' 4-6-5 and 4-6-4, or digit by digit. A reference made of a date and a number
 * ("2026-12-01-12345675", "money-3-1764623456781") is grouped otherwise, so it is never mistaken for
 * one, however its digits add up under Luhn (one run in ten passes).
 */
const groupedAsCard = (run: string) => {
  const groups = run.split(SEPARATORS);
  return (
    groups.length === 1 ||
    (groups.length === 2 && /^\d+\.\d+$/.test(run)) ||
    groups.every((g) => g.length === 1) ||
    groups.slice(0, -1).every((g) => g.length === 4) ||
    (groups.length === 3 && groups[0]!.length === 4 && groups[1]!.length === 6)
  );
};

const looksLikePan = (value: string) => {
  // NFKC turns full-width digits, spaces, dots and dashes into their ASCII forms.
  const folded = value.normalize("NFKC");
  for (const m of folded.matchAll(PAN_SHAPE)) {
    const digits = m[1]!.replace(NOT_DIGIT, "");
    // "+" and at most 15 digits is an international phone number (E.164); a card number is never written so.
    if (m[0].startsWith("+") && digits.length <= 15) continue;
    if (isPan(digits) && groupedAsCard(m[1]!)) return true;
    // A card number with a decimal tail ("4242424242424242.0"): each side of a dot is looked at alone too.
    if (DOT.test(m[1]!) && m[1]!.split(DOT).some((part) => isPan(part.replace(NOT_DIGIT, "")))) return true;
  }
  return false;
};

const tooComplex = () =>
  new ApiError("body_too_complex", "Request body is too large or nests too deeply to be checked for card data");

/**
 * Where in a JSON value raw card data appears (a field path), or null; strings, numbers and object
 * keys are all looked at. The value itself is never returned. Walks without recursion, within
 * CARD_SCAN_BUDGET: past it the value is refused rather than let through unchecked.
 */
export const findCardData = (value: unknown, budget = CARD_SCAN_BUDGET): string | null => {
  let chars = 0;
  const spend = (text: string) => {
    chars += text.length;
    if (chars > budget.chars) throw tooComplex();
  };
  const pending: Array<{ node: unknown; path: string; depth: number }> = [{ node: value, path: "", depth: 0 }];
  while (pending.length > 0) {
    const { node, path, depth } = pending.pop()!;
    if (typeof node === "string") {
      spend(node);
      if (looksLikePan(node)) return path || "body";
    } else if (typeof node === "number") {
      // A JSON number is read as a number: its whole part is looked at (4242424242424242.5), never its
      // fraction, so prices, rates and coordinates with many decimals are not mistaken for card numbers.
      const whole = Math.trunc(Math.abs(node));
      if (Number.isSafeInteger(whole) && looksLikePan(String(whole))) return path || "body";
    } else if (node !== null && typeof node === "object") {
      if (depth >= budget.depth) throw tooComplex();
      // Pushed in reverse so that values are looked at in document order.
      const children: typeof pending = [];
      if (Array.isArray(node)) {
        for (const [i, inner] of node.entries())
          children.push({ node: inner, path: `${path}[${i}]`, depth: depth + 1 });
      } else {
        for (const [key, inner] of Object.entries(node)) {
          const here = path ? `${path}.${key}` : key;
          spend(key);
          if (CARD_FIELDS.has(key.toLowerCase())) return here;
          // A key that is itself a card number is named by its parent only, so the number is never echoed.
          if (looksLikePan(key)) return path ? `${path}.<key>` : "<key>";
          children.push({ node: inner, path: here, depth: depth + 1 });
        }
      }
      for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
    }
  }
  return null;
};

/** 400 for any request carrying a card number or security code; the message names the field only. */
export const refuseCardData = (body: unknown) => {
  const field = findCardData(body);
  if (field) {
    throw new ApiError(
      "raw_card_data_refused",
      "Raw card data (card number or security code) must never be sent; send only the payment method token, brand, last 4 digits and expiry",
      { field },
    );
  }
};

/**
 * Route middleware: the whole JSON body is checked (every string, number and key at any depth),
 * before validation, so a card number is refused even in a field the schema would drop or reject.
 */
/** The codes `noRawCardData()` answers: a route that takes it lists them in its `errors`. */
export const cardDataGuardErrors = [
  "raw_card_data_refused",
  "body_too_complex",
] as const satisfies readonly ErrorCode[];

export const noRawCardData = (): MiddlewareHandler<AppEnv> =>
  async function noRawCardData(c, next) {
    refuseCardData(await c.req.json());
    await next();
  };
