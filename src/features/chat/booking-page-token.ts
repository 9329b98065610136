import type { Keyring } from "../../platform/crypto/keyring";
import { openToken, signToken } from "../../platform/crypto/signed-token";

/**
 * The booking page's link carries a token signed under the page-token keyring with its own purpose:
 * a booking reference alone, which appears in e-mails and logs, opens nothing. It does not expire
 * (a confirmation link), so it lives as long as the secret that signed it.
 */
export const bookingPageToken = (keys: Keyring, bookingReference: string): Promise<string> =>
  signToken(keys, "chat-booking-page", { r: bookingReference }, null);

export const opensBookingPage = async (
  keys: Keyring,
  token: string,
  bookingReference: string,
  now = Date.now(),
): Promise<boolean> => {
  const opened = await openToken(keys, "chat-booking-page", token, now);
  if (opened.kind !== "ok") return false;
  const payload = opened.payload as { r?: unknown } | null;
  return payload?.r === bookingReference;
};
