export { bookOnce, bookPricedQuote, findBookingByPartnerReference } from "./book";
export type { BookOrder, BookResult } from "./book";
export { bookedRate, bookedRooms } from "./booked-rate";
export { BOOKING_TIMERS_QUEUE, runBookingTimers } from "./booking-timers";
export type { BookingTimer } from "./booking-timers";
export {
  bookingByReference,
  bookingBySupplierReference,
  bookingsByDates,
  eraseChatBookingHolders,
  partnerBooking,
  supplierHasBookings,
} from "./bookings";
export { cancelBooking } from "./cancel";
export { previewCancellation } from "./cancellation-preview";
export { bookingDeps, meteredCall, sandboxScenario } from "./deps";
export { commitOnce, expiredHoldsTask } from "./hold";
export { DEFAULT_HOLD_LIMITS, readHoldLimits, replaceHoldLimits } from "./hold-limits";
export type { HoldLimits } from "./hold-limits";
export { HoldExpiry } from "./hold-expiry";
export type { BookingDeps, SandboxScenario } from "./deps";
export { accessOfOptionId, hotelxOptionId, MAX_OPTION_ID_LENGTH, readOptionId } from "./option-token";
export type { OptionSnapshot } from "./option-token";
export { expiredModificationPreviews } from "./modification";
export { expiredQuotes, storedQuote } from "./quote-store";
export { priceQuote, quoteOption } from "./quote";
export type { QuoteQuery } from "./quote";
export { NO_PRICE_RISE } from "./price-rise";
export { consumeRateLimit } from "./rate-limit";
export { bookingEvents } from "./booking-events";
export type { BookingEventType } from "./booking-events";
export { bookingRoutes } from "./routes";
export { DEFAULT_RADIUS_KM, offerTerms, searchAvailability, searchQueryOf } from "./search";
export type { CodeStatus, SearchQuery, SupplierWarning } from "./search";
export {
  distributionContext,
  idempotencyHeader,
  MAX_PAXES_PER_ROOM,
  MAX_ROOMS,
  MAX_SEARCH_CODES,
  oneCurrency,
  sandboxHeader,
  searchErrors,
  settingsSchema,
} from "./schemas";
export type { AccommodationStatus, SearchRequest } from "./schemas";
export { admit, afterAnswer, billed, connectionOf, metered, supplierTimedOut } from "./metering";
export type { BookingEnv } from "./metering";
export { settlePendingBookingsTask } from "./settle-pending";
export type { BookingRecord } from "./record";
export type { BookingStatus } from "./tables";
export { amountJson, policyJson, rateJson } from "./wire";
