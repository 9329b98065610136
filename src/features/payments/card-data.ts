import { ApiError } from "../../platform/http/api-error";

// Field names that only ever hold raw card data.
const CARD_FIELDS = new Set(["number", "cardnumber", "card_number", "pan", "primaryaccountnumber", "cvc", "cvv", "cvv2", "cvc2", "securitycode", "security_code", "track", "trackdata"]);
// 13 to 19 digits, optionally grouped by spaces or dashes: the shape of a primary account number.
// A run glued to letters is part of an identifier (a PSP token such as pm_1Nf4x...), not a card
// number; after a separator such as "pm_" it is still refused.
const PAN_SHAPE = /(?:^|[^\dA-Za-z])(\d(?:[ -]?\d){12,18})(?:[^\dA-Za-z]|$)/;

/** The Luhn checksum every card number satisfies; it keeps long ids and timestamps from being mistaken for one. */
const passesLuhn = (digits: string) => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
};

const looksLikePan = (value: string) => {
  for (const m of value.matchAll(new RegExp(PAN_SHAPE, "g"))) {
    const digits = m[1]!.replace(/[ -]/g, "");
    if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) return true;
  }
  return false;
};

/** Where in a JSON value raw card data appears (a field path), or null. The value itself is never returned. */
export const findCardData = (value: unknown, path = ""): string | null => {
  if (typeof value === "string") return looksLikePan(value) ? path || "body" : null;
  if (typeof value === "number") return Number.isSafeInteger(value) && looksLikePan(String(Math.abs(value))) ? path || "body" : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findCardData(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (CARD_FIELDS.has(key.toLowerCase())) return here;
      const found = findCardData(inner, here);
      if (found) return found;
    }
  }
  return null;
};

/** 400 for any request carrying a card number or security code; the message names the field only. */
export const refuseCardData = (body: unknown) => {
  const field = findCardData(body);
  if (field) {
    throw new ApiError(400, "Raw card data (card number or security code) must never be sent; send only the payment method token, brand, last 4 digits and expiry", "raw_card_data_refused", { field });
  }
};
