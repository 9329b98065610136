import type { Keyring } from "../../platform/crypto/keyring";
import { openCompact, openToken, signCompact } from "../../platform/crypto/signed-token";
import { toMinor } from "../../platform/money";
import { addDays, stayNights } from "../../platform/time/zoned-time";
import { ApiError } from "../../platform/http/api-error";
import { type RateAccess, rateAccessFromText } from "../supply";

/** Option ids live about 24 hours (spec 3.2). */
export const OPTION_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Longer than any id a search makes (nine mixed rooms of eight guests, long supplier codes). */
export const MAX_OPTION_ID_LENGTH = 2048;

/**
 * What a search option carries into quote. It is a self-contained signed token, so search
 * writes nothing per option and any edge location can check it without a shared store.
 */
export type OptionSnapshot = {
  partnerId: string;
  accommodationCode: string;
  roomCode: string;
  ratePlanCode: string;
  checkIn: string;
  checkOut: string;
  /** Per room, the guests' ages in the order searched. */
  rooms: number[][];
  /** Whole minor units of `currency`. */
  chargeTotal: number;
  /** The currency `chargeTotal` is in: the one the search asked for. */
  currency: string;
  /** Per room, the partner's occupancy id (positions 1..n when none was sent). */
  occupancyRefIds: number[];
  expiresAt: number;
  /** The supplier that priced it, when not the embedded inventory (ids of the embedded one stay as they were). */
  supplier?: string;
  /** Which restricted rates the search could show (`rateAccessText`); absent: public rates only. */
  rateAccess?: string;
};

const SEPARATOR = "~";

/** What every option of one search shares: the signed part of an option id. */
type StaySnapshot = Pick<OptionSnapshot, "partnerId" | "checkIn" | "checkOut" | "rooms" | "expiresAt"> &
  Partial<Pick<OptionSnapshot, "currency" | "occupancyRefIds" | "rateAccess">>;
type ProductSnapshot = Pick<
  OptionSnapshot,
  "accommodationCode" | "roomCode" | "ratePlanCode" | "chargeTotal" | "supplier"
>;

/**
 * Version 5, signed once per search and currency (`signCompact`): `5.<checkIn>.<nights>.<rooms>.<currency>.
 * <occupancy ids>.<rate access>.<partner>` then `.<expiry>.<signature>`. Rooms are ages joined by "-",
 * rooms by "_"; the rate access is `rateAccessText` with "-" and "+" for "." and "|", empty for public
 * rates only; the partner (lower-case letters, digits, "-" and "_") comes last. No field holds a ".".
 */
const STAY_VERSION = "5";
const stayText = (o: StaySnapshot) =>
  [
    STAY_VERSION,
    o.checkIn,
    stayNights(o.checkIn, o.checkOut).length,
    o.rooms.map((r) => r.join("-")).join("_"),
    o.currency ?? "USD",
    (o.occupancyRefIds ?? o.rooms.map((_, i) => i + 1)).join("-"),
    o.rateAccess === undefined ? "" : o.rateAccess.replaceAll(".", "-").replace("|", "+"),
    o.partnerId,
  ].join(".");

/**
 * `<signed stay>~<accommodation>~<room>~<rate plan>~<total>[~<supplier>]`, the total in whole minor
 * units of the stay's currency (29114 for 291.14 USD). The signature binds partner, dates,
 * occupancy and expiry; a search signs it once, not once per option (a 1,000-hotel search has
 * thousands of options and an HMAC each cost most of its time). Hotel, room, plan and total need
 * no signature: quote re-prices them from live inventory, so an altered value can only ask about
 * another room of the same stay or change whether `Price changed` is reported to its sender. The
 * supplier is unsigned too: quote accepts only a supplier of the caller's connection, which re-prices.
 * Which restricted rates the search could show is signed (`rateAccess`): quote sells none beyond it,
 * so changing the plan to a package or mobile rate gets no further than the search did.
 */
const optionIdOf = (signedStay: string, o: ProductSnapshot) =>
  `${signedStay}${SEPARATOR}${o.accommodationCode}${SEPARATOR}${o.roomCode}${SEPARATOR}${o.ratePlanCode}${SEPARATOR}${o.chargeTotal}${o.supplier ? `${SEPARATOR}${o.supplier}` : ""}`;

/** Signs a search's stay once; the ids of its options are then made without any crypto. */
export const optionIdsFor = async (
  keys: Keyring,
  stay: StaySnapshot,
): Promise<(product: ProductSnapshot) => string> => {
  const signedStay = await signCompact(keys, "booking-option", stayText(stay), stay.expiresAt);
  return (product) => optionIdOf(signedStay, product);
};

/** The signed part of an option id: the same for every option of one search in one currency. */
export const signedStayOf = (optionId: string) => optionId.split(SEPARATOR, 1)[0]!;

export const issueOptionId = async (keys: Keyring, o: StaySnapshot & ProductSnapshot): Promise<string> =>
  (await optionIdsFor(keys, o))(o);

/**
 * A Hotel-X option id names the access it was searched on, as Hotel-X's optionRefId does (issue 40):
 * `<connection code>@<option id>`, so a quote or book needs no connection code. A core id starts
 * with its signed stay (`5.` or `eyJ`), never with digits and "@"; the prefix is not signed (any
 * code is judged as settings.access.code is), and POST /api/quote reads the id without it.
 */
const OPTION_ACCESS = /^(\d{1,15})@/;
export const hotelxOptionId = (accessCode: number | string, optionId: string) => `${accessCode}@${optionId}`;
/** The access a Hotel-X option id carries; undefined for a core id. */
export const accessOfOptionId = (optionId: string) => OPTION_ACCESS.exec(optionId)?.[1];
/** The core id of a Hotel-X option id (a core id as it is). */
export const coreOptionId = (optionId: string) => optionId.replace(OPTION_ACCESS, "");

const EXPIRED_OR_INVALID = () => new ApiError("option_expired_or_invalid", "Option reference expired or invalid");

/** What the signed stay of an option id holds, whatever its version. */
type OpenedStay = {
  partner: string;
  checkIn: string;
  checkOut: string;
  rooms: number[][];
  currency: string;
  occupancyRefIds: number[];
  rateAccess: string | undefined;
  expiresAt: number;
};

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const WHOLE = /^\d{1,15}$/;

/** Version 5 (`stayText`); null when it does not read as one. */
const openStay = async (keys: Keyring, signedStay: string, now: number): Promise<OpenedStay | null> => {
  const opened = await openCompact(keys, "booking-option", signedStay, now);
  if (opened.kind !== "ok") return null;
  const fields = opened.text.split(".");
  if (fields.length < 8) return null;
  const [version, checkIn, nights, rooms, currency, refIds, access] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  // Last, so that whatever a partner id holds cannot shift another field.
  const partner = fields.slice(7).join(".");
  if (version !== STAY_VERSION || !ISO_DATE.test(checkIn) || !WHOLE.test(nights)) return null;
  const roomAges = rooms.split("_").map((r) => r.split("-"));
  const ids = refIds.split("-");
  if ([...roomAges.flat(), ...ids].some((n) => !WHOLE.test(n))) return null;
  return {
    partner,
    checkIn,
    checkOut: addDays(checkIn, Number(nights)),
    rooms: roomAges.map((r) => r.map(Number)),
    currency,
    occupancyRefIds: ids.map(Number),
    rateAccess: access === "" ? undefined : access.replaceAll("-", ".").replace("+", "|"),
    expiresAt: opened.expiresAt,
  };
};

/**
 * Version 4, issued before option ids were cut (base64url JSON envelope of `signToken`, the total in
 * major units): still read until the last of them expires, 24 hours after the deploy.
 */
const openStayV4 = async (keys: Keyring, signedStay: string, now: number): Promise<OpenedStay | null> => {
  const opened = await openToken(keys, "booking-option", signedStay, now);
  if (opened.kind !== "ok" || opened.expiresAt === null || !Array.isArray(opened.payload)) return null;
  const [version, partner, checkIn, checkOut, rooms, currency, refIds, rateAccess, ...rest] =
    opened.payload as unknown[];
  if (
    version !== 4 ||
    rest.length > 0 ||
    typeof partner !== "string" ||
    typeof checkIn !== "string" ||
    typeof checkOut !== "string" ||
    typeof rooms !== "string" ||
    typeof currency !== "string" ||
    typeof refIds !== "string" ||
    (rateAccess !== undefined && typeof rateAccess !== "string")
  )
    return null;
  return {
    partner,
    checkIn,
    checkOut,
    rooms: rooms.split("_").map((r) => r.split(".").map(Number)),
    currency,
    occupancyRefIds: refIds.split(".").map(Number),
    rateAccess,
    expiresAt: opened.expiresAt,
  };
};

/** A version 4 signed stay is `signToken`'s base64url JSON: it opens with `{"` (`eyJ`). */
const isV4 = (signedStay: string) => signedStay.startsWith("eyJ");

/**
 * Opens an option id. Unreadable, forged or expired: `Option reference expired or invalid`.
 * Genuine but issued to another partner: `Option reference invalid`.
 */
export const readOptionId = async (
  keys: Keyring,
  token: string,
  partnerId: string,
  now: number,
): Promise<OptionSnapshot & { access: RateAccess }> => {
  const parts = coreOptionId(token).split(SEPARATOR);
  // Mixed products join one code per room with "+": up to 9 rooms of codes up to 12 characters.
  if ((parts.length !== 5 && parts.length !== 6) || parts.slice(1).some((p) => p.length === 0 || p.length > 128))
    throw EXPIRED_OR_INVALID();
  const [signedStay, accommodationCode, roomCode, ratePlanCode, total, supplier] = parts as [
    string,
    string,
    string,
    string,
    string,
    string | undefined,
  ];
  const v4 = isV4(signedStay);
  // Version 5 carries whole minor units; version 4 the major-unit number.
  if (v4 ? !Number.isFinite(Number(total)) || Number(total) < 0 : !/^\d{1,15}$/.test(total)) throw EXPIRED_OR_INVALID();
  const stay = await (v4 ? openStayV4 : openStay)(keys, signedStay, now);
  const access = stay ? rateAccessFromText(stay.rateAccess) : null;
  if (stay === null || access === null) throw EXPIRED_OR_INVALID();
  if (stay.partner !== partnerId) throw new ApiError("option_invalid", "Option reference invalid");
  return {
    partnerId: stay.partner,
    accommodationCode,
    roomCode,
    ratePlanCode,
    checkIn: stay.checkIn,
    checkOut: stay.checkOut,
    rooms: stay.rooms,
    // Version 4 is an old stored form: its major-unit total is read into minor units here, once.
    chargeTotal: v4 ? toMinor(Number(total), stay.currency) : Number(total),
    currency: stay.currency,
    occupancyRefIds: stay.occupancyRefIds,
    expiresAt: stay.expiresAt,
    ...(supplier ? { supplier } : {}),
    ...(stay.rateAccess !== undefined ? { rateAccess: stay.rateAccess } : {}),
    access,
  };
};
