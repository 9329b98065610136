import type { Keyring } from "../../platform/crypto/keyring";
import { openToken, signToken } from "../../platform/crypto/signed-token";
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

// Version 4: the expiry moved to the shared token envelope (signed-token.ts).
const stayPayload = (o: StaySnapshot) => [
  4,
  o.partnerId,
  o.checkIn,
  o.checkOut,
  o.rooms.map((r) => r.join(".")).join("_"),
  o.currency ?? "USD",
  (o.occupancyRefIds ?? o.rooms.map((_, i) => i + 1)).join("."),
  // Only a search that may show restricted rates signs what it may show: other ids are as they were.
  ...(o.rateAccess === undefined ? [] : [o.rateAccess]),
];

/**
 * `<signed stay>~<accommodation>~<room>~<rate plan>~<total>[~<supplier>]`. The signature binds partner, dates,
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
  // Whole seconds, as before: every option of a search carries the same signed part.
  const signedStay = await signToken(
    keys,
    "booking-option",
    stayPayload(stay),
    Math.floor(stay.expiresAt / 1000) * 1000,
  );
  return (product) => optionIdOf(signedStay, product);
};

/** The signed part of an option id: the same for every option of one search in one currency. */
export const signedStayOf = (optionId: string) => optionId.split(SEPARATOR, 1)[0]!;

export const issueOptionId = async (keys: Keyring, o: StaySnapshot & ProductSnapshot): Promise<string> =>
  (await optionIdsFor(keys, o))(o);

const EXPIRED_OR_INVALID = () => new ApiError("option_expired_or_invalid", "Option reference expired or invalid");

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
  const parts = token.split(SEPARATOR);
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
  const chargeTotal = Number(total);
  if (!Number.isFinite(chargeTotal) || chargeTotal < 0) throw EXPIRED_OR_INVALID();
  const opened = await openToken(keys, "booking-option", signedStay, now);
  if (opened.kind !== "ok" || opened.expiresAt === null || !Array.isArray(opened.payload)) throw EXPIRED_OR_INVALID();
  const [version, partner, checkIn, checkOut, rooms, currency, refIds, rateAccess, ...rest] =
    opened.payload as unknown[];
  const access = typeof rateAccess === "string" || rateAccess === undefined ? rateAccessFromText(rateAccess) : null;
  if (
    version !== 4 ||
    access === null ||
    rest.length > 0 ||
    typeof partner !== "string" ||
    typeof checkIn !== "string" ||
    typeof checkOut !== "string" ||
    typeof rooms !== "string" ||
    typeof currency !== "string" ||
    typeof refIds !== "string"
  ) {
    throw EXPIRED_OR_INVALID();
  }
  if (partner !== partnerId) throw new ApiError("option_invalid", "Option reference invalid");
  const roomAges = rooms.split("_").map((r) => r.split(".").map(Number));
  return {
    partnerId: partner,
    accommodationCode,
    roomCode,
    ratePlanCode,
    checkIn,
    checkOut,
    rooms: roomAges,
    chargeTotal,
    currency,
    occupancyRefIds: refIds.split(".").map(Number),
    expiresAt: opened.expiresAt,
    ...(supplier ? { supplier } : {}),
    ...(typeof rateAccess === "string" ? { rateAccess } : {}),
    access,
  };
};
