import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { success } from "../../platform/http/envelope";
import { isReplayedError, withIdempotency } from "../../platform/idempotency/idempotency";
import type { CoreConnection } from "../connections";
import { findBookingByPartnerReference } from "./book";
import { partnerBooking } from "./bookings";
import { cancelBooking } from "./cancel";
import type { BookingDeps } from "./deps";
import {
  auditDataOf,
  bookingDetailOf,
  flowSupplyOf,
  hotelxErrorOf,
  languageWarnings,
  namesBooking,
} from "./tgx-answers";
import type { TgxCancelRequest, TgxCancelResponse } from "./tgx-flow-schemas";
import { amountPrice } from "./tgx-search";
import type { BookingRecord } from "./record";

type Input = TgxCancelRequest["input"];
type Cancelled = Awaited<ReturnType<typeof cancelBooking>>;

/**
 * The partner's booking a Hotel-X cancel names: by `bookingID` (our bookingReference), else by
 * `reference.client` (the partner's clientReference) at `hotelCode` through `accessCode`. Every
 * other field sent must be the booking's (`namesBooking`); whatever does not match, another
 * partner's booking included, is not found.
 */
const bookingNamed = async (db: Db, connection: CoreConnection, input: Input): Promise<BookingRecord> => {
  const client = input.reference?.client;
  const notFound = () =>
    new ApiError(
      "booking_not_found",
      input.bookingID !== undefined
        ? `Booking not found with bookingReference: ${input.bookingID}`
        : `Booking not found with clientReference: ${client} at hotel ${input.hotelCode} through access ${input.accessCode}`,
    );
  const row =
    input.bookingID !== undefined
      ? await partnerBooking(db, connection.partnerId, input.bookingID)
      : await findBookingByPartnerReference(db, connection.partnerId, client!);
  if (!row || !namesBooking(row, connection, input)) throw notFound();
  return row;
};

const answer = (cancel: TgxCancelResponse["data"]["hotelX"]["cancel"]): TgxCancelResponse => ({
  data: { hotelX: { cancel } },
});

/**
 * POST /api/cancel/tgx: Hotel-X's `cancel`, through the core cancel (`cancelBooking` under the same
 * Idempotency-Key scope as POST /api/cancel: rules, supplier, webhooks). The answer is the
 * cancellation and the booking as it is now; a refusal is a Hotel-X error in the payload (HTTP 200);
 * `cancelled` says whether a cancellation is answered (for usage).
 */
export const cancelTgx = async (
  deps: BookingDeps,
  connection: CoreConnection,
  request: TgxCancelRequest,
  key: string | undefined,
  startedAt: number,
  now = Date.now(),
): Promise<{ body: TgxCancelResponse; replayed: boolean; cancelled: boolean }> => {
  const { input, settings } = request;
  const warnings = languageWarnings(input.language);
  let response: Awaited<ReturnType<typeof withIdempotency>>;
  try {
    response = await withIdempotency(
      deps.db,
      { scope: "cancel", partnerId: connection.partnerId, key, request },
      async () => {
        const booking = await bookingNamed(deps.db, connection, input);
        const cancelled = await cancelBooking(deps, connection.partnerId, booking.reference, now, {
          ...flowSupplyOf(settings),
          currency: settings.currency,
        });
        return { status: 200, body: success(cancelled) };
      },
    );
  } catch (error) {
    const problem = hotelxErrorOf(error);
    if (!problem) throw error;
    return {
      body: answer({ cancellation: null, errors: [problem], warnings }),
      replayed: isReplayedError(error),
      cancelled: false,
    };
  }
  const result = (response.body as { data: Cancelled }).data;
  const booking = bookingDetailOf(
    await partnerBooking(deps.db, connection.partnerId, result.reference.bookingReference),
  );
  return {
    body: answer({
      cancellation: {
        reference: booking.reference,
        cancelReference: result.cancelLocator || null,
        status: "CANCELLED",
        price: amountPrice(result.cancelPrice.amount, result.cancelPrice.currency),
        booking,
      },
      errors: [],
      warnings,
      ...auditDataOf(result.providerTransactions, startedAt),
    }),
    replayed: response.replayed,
    cancelled: true,
  };
};
