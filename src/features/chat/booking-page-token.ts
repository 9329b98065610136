import type { Keyring } from "../../platform/crypto/keyring";
import { openToken, signToken } from "../../platform/crypto/signed-token";

/**
 * The booking page's link carries a token signed with PAGE_TOKEN_SECRET (the page-token secret):
 * a booking reference alone, which appears in e-mails and logs, opens nothing. The kind field keeps
 * it from ever passing as a content page token, and the reverse.
 */
const KIND = "chat-booking-page";

export const bookingPageToken = (keys: Keyring, bookingReference: string): Promise<string> =>
  signToken(keys, { k: KIND, r: bookingReference });

export const opensBookingPage = async (keys: Keyring, token: string, bookingReference: string): Promise<boolean> => {
  const opened = await openToken(keys, token);
  if (opened.kind !== "ok") return false;
  const payload = opened.payload as { k?: unknown; r?: unknown } | null;
  return payload?.k === KIND && payload.r === bookingReference;
};
