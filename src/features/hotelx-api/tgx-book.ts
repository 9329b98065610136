import { ApiError } from "../../platform/http/api-error";
import { isReplayedError, withIdempotency } from "../../platform/idempotency/idempotency";
import type { SupplyOptions } from "../supply";
import type { CoreConnection } from "../connections";
import {
  type BookingDeps,
  bookOnce,
  type BookOrder,
  type BookResult,
  consumeRateLimit,
  findBookingByPartnerReference,
  NO_PRICE_RISE,
  partnerBooking,
  quoteOption,
  storedQuote,
  readOptionId,
  type SandboxScenario,
} from "../booking";
import { isQuoteId } from "./hotelx-access";
import {
  auditDataOf,
  bookingDetailOf,
  flowSupplyOf,
  hotelxErrorOf,
  languageWarnings,
  priceChangeOf,
} from "./tgx-answers";
import type { TgxBookingDetail, TgxBookRequest, TgxBookResponse } from "./tgx-flow-schemas";
import { searchedOptionQuery } from "./tgx-quote";
import { amountPrice } from "./tgx-search";

type Meta = { requestId: string; startedAt: number; scenario: SandboxScenario | null };
type Input = TgxBookRequest["input"];
type Booked = { status: number; body: unknown; replayed: boolean };

/** What every Hotel-X book asks of the core book besides the quote and the stay. */
const orderTerms = (input: Input, currency: string | undefined, supply: SupplyOptions) => ({
  partnerReference: input.clientReference,
  holder: { name: input.holder.name, surName: input.holder.surname },
  // The core book's guests: names as /api/book spells them, one entry per quoted occupancy.
  occupancies: input.rooms.map((room) => ({
    occupancyId: room.occupancyRefId,
    paxes: room.paxes.map((p) => ({ age: p.age, name: p.name, surName: p.surname })),
  })),
  currency,
  supply,
  ...(input.remarks ? { remarks: input.remarks } : {}),
});

/**
 * A quote's optionRefId: POST /api/book's `bookOnce` (the same Idempotency-Key, partnerReference
 * retries, pending answers and webhooks) at the quoted price, which cannot rise: deltaPrice has
 * nothing to allow. Hotel and stay come from the quote, or, once it has expired, from the booking
 * a retry under the same clientReference finds, so that retry is still answered with it.
 */
const bookQuoted = async (
  deps: BookingDeps,
  connection: CoreConnection,
  request: TgxBookRequest,
  supply: SupplyOptions,
  meta: Meta,
  key: string | undefined,
  now: number,
): Promise<Booked> => {
  const { input, settings } = request;
  const stored = await storedQuote(deps, input.optionRefId, now);
  const made = stored
    ? null
    : await findBookingByPartnerReference(deps.db, connection.partnerId, input.clientReference);
  const order: BookOrder = {
    quoteId: input.optionRefId,
    // Neither: the core book refuses the quote as expired or invalid.
    accommodationCode: stored?.accommodationCode ?? made?.accommodationCode ?? "",
    checkIn: stored?.stay.checkIn ?? made?.checkIn ?? "",
    checkOut: stored?.stay.checkOut ?? made?.checkOut ?? "",
    ...orderTerms(input, settings.currency, supply),
  };
  return bookOnce(deps, connection, order, meta, { key, request }, now);
};

/**
 * A search option's id: quoted and booked in one request (Hotel-X's book that values the option
 * again), the quote allowed to rise above the searched price only as far as deltaPrice says (none
 * without it). The whole is one idempotent unit under the Idempotency-Key, so a replay neither
 * quotes nor books again. Without the key a clientReference already booked is refused
 * (DUPLICATED_CLIENT_REFERENCE), as Hotel-X does: no quote names the earlier request to compare with.
 */
const bookSearched = async (
  deps: BookingDeps,
  connection: CoreConnection,
  request: TgxBookRequest,
  supply: SupplyOptions,
  meta: Meta,
  key: string | undefined,
  now: number,
): Promise<Booked> =>
  withIdempotency(deps.db, { scope: "book", partnerId: connection.partnerId, key, request }, async () => {
    const { input, settings } = request;
    const taken = await findBookingByPartnerReference(deps.db, connection.partnerId, input.clientReference);
    if (taken)
      throw new ApiError(
        "partner_reference_conflict",
        "clientReference is already used by a booking; a book from a search option is retried with its Idempotency-Key",
        { bookingReference: taken.reference },
      );
    const option = await readOptionId(deps.keys, input.optionRefId, connection.partnerId, now);
    // The quote counts against the connection's rate limit, as POST /api/quote and chat's quotes do.
    await consumeRateLimit(deps.rateLimiter, connection);
    const quote = await quoteOption(
      deps,
      connection,
      {
        ...searchedOptionQuery(input.optionRefId, option),
        currency: settings.currency,
        supply,
        priceRise: input.deltaPrice ?? NO_PRICE_RISE,
      },
      meta,
      now,
    );
    const booked = await bookOnce(
      deps,
      connection,
      {
        quoteId: quote.id,
        accommodationCode: option.accommodationCode,
        checkIn: option.checkIn,
        checkOut: option.checkOut,
        ...orderTerms(input, settings.currency, supply),
      },
      meta,
      // This unit holds the key: the book inside runs once per reservation of it.
      { key: undefined, request },
      now,
    );
    return { status: booked.status, body: booked.body };
  });

/** A price change refused: Hotel-X's KO booking with today's price and the price the option had (`quotePrice`). */
const refusedByPrice = (error: unknown, clientReference: string): TgxBookingDetail | null => {
  const change = error instanceof ApiError ? priceChangeOf(error) : null;
  if (!change) return null;
  return {
    reference: { client: clientReference, supplier: null, hotel: null, bookingID: null },
    holder: null,
    hotel: null,
    price: amountPrice(change.currentTotal, change.currency),
    quotePrice: { currency: change.currency, net: change.previousTotal, gross: change.previousTotal, binding: false },
    cancelPolicy: null,
    remarks: null,
    // Nothing was booked: nothing is payable.
    payable: null,
    status: "KO",
  };
};

const answer = (book: TgxBookResponse["data"]["hotelX"]["book"]): TgxBookResponse => ({ data: { hotelX: { book } } });

/**
 * POST /api/book/tgx: Hotel-X's `book`, through the core book. The answer is the booking as it is
 * now (read after the book, or after a replay: a pending booking may have settled). A refusal is a
 * Hotel-X error in the payload (HTTP 200); `booked` says whether a booking is answered (for usage).
 */
export const bookTgx = async (
  deps: BookingDeps,
  connection: CoreConnection,
  request: TgxBookRequest,
  meta: Meta,
  key: string | undefined,
  now = Date.now(),
): Promise<{ body: TgxBookResponse; replayed: boolean; booked: boolean }> => {
  const { input, settings } = request;
  const warnings = languageWarnings(input.language);
  const supply = flowSupplyOf(settings);
  let booked: Booked;
  try {
    const book = isQuoteId(input.optionRefId) ? bookQuoted : bookSearched;
    booked = await book(deps, connection, request, supply, meta, key, now);
  } catch (error) {
    const problem = hotelxErrorOf(error);
    if (!problem) throw error;
    return {
      body: answer({ booking: refusedByPrice(error, input.clientReference), errors: [problem], warnings }),
      replayed: isReplayedError(error),
      booked: false,
    };
  }
  const result = (booked.body as { data: BookResult }).data;
  const row = await partnerBooking(deps.db, connection.partnerId, result.bookingReference);
  return {
    body: answer({
      booking: bookingDetailOf(row),
      errors: [],
      warnings,
      ...auditDataOf(result.providerTransactions, meta.startedAt),
    }),
    replayed: booked.replayed,
    booked: true,
  };
};
