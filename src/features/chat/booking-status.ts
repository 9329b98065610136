import type { BookingStatus } from "../booking";

export type { BookingStatus };

type StatusWords = {
  /** The booking page's heading. */
  title: string;
  /** Completes "Your booking BK... at <hotel> ..." in the assistant's text. */
  sentence: string;
  /** What the traveller should do, in words that fit both the page and a chat message ("" for none). */
  advice: string;
};

/**
 * How chat's messages and its booking page name a booking's status: one wording for both. A
 * `pending` booking (the supplier's answer was lost) is never called confirmed or cancelled: it
 * may still be confirmed, and a traveller told otherwise would book again.
 */
export const BOOKING_STATUS_WORDS: Record<BookingStatus, StatusWords> = {
  success: { title: "Booking confirmed", sentence: "is confirmed", advice: "" },
  pending: {
    title: "Booking being confirmed",
    sentence: "is being confirmed by the supplier",
    advice: "The supplier has not answered yet and may still confirm it: please do not book again meanwhile.",
  },
  failed: {
    title: "Not booked",
    sentence: "was not booked: the supplier did not confirm it",
    advice: "Nothing was booked or charged; you can book again.",
  },
  cancelled: { title: "Booking cancelled", sentence: "is cancelled", advice: "" },
  // Chat never holds; a partner's API hold of the same booking reads the same everywhere.
  held: {
    title: "Rooms on hold",
    sentence: "is on hold: the rooms are kept but the booking is not confirmed yet",
    advice: "Nothing is charged until the booking is confirmed; the hold ends by itself if it is not.",
  },
  expired: {
    title: "Hold expired",
    sentence: "was a hold that expired before it was confirmed",
    advice: "Nothing was booked or charged; you can book again.",
  },
};
