import { ApiError } from "../../platform/http/api-error";
import { success } from "../../platform/http/envelope";
import { isReplayedError, withIdempotency } from "../../platform/idempotency/idempotency";
import {
  bookingBySupplierReference,
  type BookingDeps,
  type BookingRecord,
  cancelBooking,
  findBookingByPartnerReference,
  partnerBooking,
} from "../booking";
import { accessIdOf, type HotelxRouting } from "./hotelx-access";
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

type Input = TgxCancelRequest["input"];
type Cancelled = Awaited<ReturnType<typeof cancelBooking>>;

/**
 * The partner's booking a Hotel-X cancel names: by `bookingID` (our bookingReference), else by
 * `reference.client` (the partner's clientReference) or `reference.supplier` at `hotelCode` through
 * `accessCode`. Every other field sent must be the booking's (`namesBooking`); whatever does not
 * match, another partner's booking included, is not found.
 */
const bookingNamed = async (routing: HotelxRouting, input: Input): Promise<BookingRecord> => {
  const { db, partnerId } = routing;
  const { client, supplier } = input.reference ?? {};
  const notFound = () =>
    new ApiError(
      "booking_not_found",
      input.bookingID !== undefined
        ? `Booking not found with bookingReference: ${input.bookingID}`
        : `Booking not found with ${client !== undefined ? `clientReference: ${client}` : `supplier reference: ${supplier}`} at hotel ${input.hotelCode} through access ${input.accessCode}`,
    );
  const row =
    input.bookingID !== undefined
      ? await partnerBooking(db, partnerId, input.bookingID)
      : client !== undefined
        ? await findBookingByPartnerReference(db, partnerId, client)
        : await bookingBySupplierReference(db, partnerId, supplier!);
  if (!row || !namesBooking(row, await accessIdOf(routing, input.accessCode), input)) throw notFound();
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
  routing: HotelxRouting,
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
      { scope: "cancel", partnerId: routing.partnerId, key, request },
      async () => {
        const booking = await bookingNamed(routing, input);
        const cancelled = await cancelBooking(deps, routing.partnerId, booking.reference, now, {
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
  const booking = bookingDetailOf(await partnerBooking(deps.db, routing.partnerId, result.reference.bookingReference));
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
