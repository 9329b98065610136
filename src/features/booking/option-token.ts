import { openToken, signToken, tokenSigner } from "../../platform/crypto/signed-token";
import { ApiError } from "../../platform/http/api-error";

/** Option ids live about 24 hours (spec 3.2). */
export const OPTION_LIFETIME_MS = 24 * 60 * 60 * 1000;

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
  expiresAt: number;
};

// Key separation: options are signed with a key derived for this purpose, never the page-token key itself.
const optionKey = (secret: string) => `option-token:v1:${secret}`;

const payloadOf = (o: OptionSnapshot) =>
  [1, o.partnerId, o.accommodationCode, o.roomCode, o.ratePlanCode, o.checkIn, o.checkOut, o.rooms.map((r) => r.join(".")).join("_"), o.chargeTotal, Math.floor(o.expiresAt / 1000)];

/** Compact positional payload: a 1,000-hotel search signs thousands of these. */
export const issueOptionId = (secret: string, o: OptionSnapshot): Promise<string> => signToken(optionKey(secret), payloadOf(o));

/** Issues many option ids with one imported key (search signs one per option). */
export const optionIdIssuer = async (secret: string) => {
  const sign = await tokenSigner(optionKey(secret));
  return (o: OptionSnapshot) => sign(payloadOf(o));
};

const EXPIRED_OR_INVALID = () => new ApiError(400, "Option reference expired or invalid", "option_expired_or_invalid");

/**
 * Opens an option id. Unreadable, forged or expired: `Option reference expired or invalid`.
 * Genuine but issued to another partner: `Option reference invalid`.
 */
export const readOptionId = async (secret: string, token: string, partnerId: string, now: number): Promise<OptionSnapshot> => {
  const opened = await openToken(optionKey(secret), token);
  if (opened.kind !== "ok" || !Array.isArray(opened.payload)) throw EXPIRED_OR_INVALID();
  const [version, partner, accommodationCode, roomCode, ratePlanCode, checkIn, checkOut, rooms, chargeTotal, expires] = opened.payload as unknown[];
  if (
    version !== 1 || typeof partner !== "string" || typeof accommodationCode !== "string" || typeof roomCode !== "string" ||
    typeof ratePlanCode !== "string" || typeof checkIn !== "string" || typeof checkOut !== "string" || typeof rooms !== "string" ||
    typeof chargeTotal !== "number" || typeof expires !== "number"
  ) {
    throw EXPIRED_OR_INVALID();
  }
  if (now >= expires * 1000) throw EXPIRED_OR_INVALID();
  if (partner !== partnerId) throw new ApiError(400, "Option reference invalid", "option_invalid");
  return {
    partnerId: partner,
    accommodationCode,
    roomCode,
    ratePlanCode,
    checkIn,
    checkOut,
    rooms: rooms.split("_").map((r) => r.split(".").map(Number)),
    chargeTotal,
    expiresAt: expires * 1000,
  };
};
