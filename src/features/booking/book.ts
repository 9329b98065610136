import { and, eq, exists, sql } from "drizzle-orm";
import { sha256Hex, randomToken } from "../../platform/crypto/digest";
import type { Db } from "../../platform/db/client";
import { isCheckViolation, isForeignKeyViolation, isUniqueViolation } from "../../platform/db/constraint";
import { ApiError } from "../../platform/http/api-error";
import { success } from "../../platform/http/envelope";
import { isReplayedError, replayHeaders, withIdempotency } from "../../platform/idempotency/idempotency";
import {
  SupplierFailure,
  SupplierRefusal,
  type BookAnswer,
  type ProviderTransaction,
  type Supplier,
  type SupplierBooking,
  hasLocalWrites,
  accommodationByCode,
  type Rate,
  sellingTotal,
  type PaymentType,
  callSupplier,
  supplyOptionsOf,
  type SupplyOptions,
  type BookingGuest,
} from "../supply";
import { isChargeable } from "../../platform/money";
import { bookedRate } from "./booked-rate";
import { cardById, cardUsableAt } from "../payments";
import { paymentTypeMismatch } from "./quote";
import { type ChangedBooking, logBookingChange } from "./booking-events";
import { scheduleSettling } from "./booking-timers";
import { applyChange, bookedWrites, holdAnsweredWrites, withEvent } from "./booking-writes";
import {
  holdLimitRefusal,
  holdMinutesFor,
  partnerHoldGiveBacks,
  partnerHoldTakes,
  readHoldLimits,
} from "./hold-limits";
import { stayNights } from "../../platform/time/zoned-time";
import type { CoreConnection } from "../connections";
import { connectionSupplier, type BookingDeps, type SandboxScenario } from "./deps";
import { quoteStore, type StoredQuote } from "./quote-store";
import type { BookRequest } from "./schemas";
import { type BookingRecord, bookingRecord, type NewBooking, newBookingColumns } from "./record";
import { type BookingStatus, bookings } from "./tables";
import { amountJson, rateJson } from "./wire";

export type BookResult = {
  bookingReference: string;
  partnerReference: string;
  status: BookingStatus;
  chargeTotal: number;
  currency: string;
  paymentType: PaymentType;
  exchange?: { currency: string; rate: number };
  /** The booked rate, itemized: the same breakdown as the search option, the quote and the booking read (wire.ts). */
  rate: Rate;
  hotelConfirmationNumber?: string;
  /** The supplier that booked it (its code in Edgestay: `embedded` for our own inventory). */
  supplierCode: string;
  /** The supplier's own code of the hotel, when it is not ours. */
  supplierHotelCode?: string;
  /** A hold: when its rooms go back unless committed first. */
  holdExpiresAt?: string;
  requestId: string;
  responseTime: number;
  providerTransactions?: ProviderTransaction[];
};

const QUOTE_INVALID = () =>
  new ApiError("quote_expired_or_invalid", "Quote reference expired or invalid. Please quote again.");
const NOT_SUCCESSFUL = (reason: string, headers?: Record<string, string>) =>
  new ApiError("booking_failed", "The booking was not successful.", { reason }, headers);

const HOLD_NOT_SUPPORTED = () =>
  new ApiError(
    "hold_not_supported",
    "This option's supplier cannot hold rooms: book it without bookCriteria.hold (nothing was booked)",
  );

/** A hold lasts this long unless bookCriteria.holdMinutes says otherwise (1 to 30). */
export const DEFAULT_HOLD_MINUTES = 15;

/** An unguessable booking reference: 15 random bytes. */
const newBookingReference = () => `BK${randomToken(15).toUpperCase().replace(/[-_]/g, "Z")}`;

const byPartnerReference = (db: Db, partnerId: string, partnerReference: string) =>
  db
    .select()
    .from(bookings)
    .where(and(eq(bookings.partnerId, partnerId), eq(bookings.partnerReference, partnerReference)))
    .limit(1);

export const findBookingByPartnerReference = async (
  db: Db,
  partnerId: string,
  partnerReference: string,
): Promise<BookingRecord | null> => {
  const [row] = await byPartnerReference(db, partnerId, partnerReference);
  return row ? bookingRecord(row) : null;
};

/** The booking made with a quote: a quote books once (issue 28), so a second booking of it is refused. */
const byQuote = (db: Db, quoteId: string) =>
  db.select({ reference: bookings.reference }).from(bookings).where(eq(bookings.quoteId, quoteId)).limit(1);

const quoteBooked = async (db: Db, quoteId: string) => (await byQuote(db, quoteId)).length > 0;

export const resultOf = (row: BookingRecord, meta: { requestId: string; startedAt: number }): BookResult => {
  const rate = bookedRate(row);
  return {
    bookingReference: row.reference,
    partnerReference: row.partnerReference,
    status: row.status,
    chargeTotal: amountJson(row.chargeTotalMinor, row.currency),
    currency: row.currency,
    paymentType: row.paymentType,
    ...(rate.exchange ? { exchange: { currency: rate.exchange.currency, rate: rate.exchange.rate } } : {}),
    rate: rateJson(rate),
    ...(row.hotelConfirmationNumber ? { hotelConfirmationNumber: row.hotelConfirmationNumber } : {}),
    supplierCode: row.supplier,
    ...(row.supplierHotelCode ? { supplierHotelCode: row.supplierHotelCode } : {}),
    ...(row.status === "held" && row.holdExpiresAt ? { holdExpiresAt: row.holdExpiresAt } : {}),
    requestId: meta.requestId,
    responseTime: Math.max(0, Date.now() - meta.startedAt),
  };
};

/** What a booking asks, as data: the quote, the partner's reference, the holder and (optionally) named guests. */
export type BookOrder = {
  quoteId: string;
  accommodationCode: string;
  checkIn: string;
  checkOut: string;
  partnerReference: string;
  holder: { name: string; surName: string };
  /** Per quoted occupancy (by the partner's occupancy id), its guests with names; the quoted guests when absent. */
  occupancies?: Array<{ occupancyId: number; paxes: Array<Record<string, unknown> & { age: number }> }>;
  /** `settings.currency` or `bookCriteria.currency` as sent: must be the quoted currency when present. */
  currency?: string;
  /** `bookCriteria.paymentType` as sent: must be the quoted option's when present. */
  paymentType?: PaymentType;
  /** A saved card of the partner's end user: the guarantee a PayAtProperty booking requires. */
  paymentCard?: { actorId: string; paymentMethodId: string };
  /** The partner's words for the hotel (Hotel-X `remarks`): kept on the booking and sent to the supplier. */
  remarks?: string;
  /** `bookCriteria.hold`: take the rooms and charge nothing until POST /api/bookings/:ref/commit, for `minutes`. */
  hold?: { minutes: number };
  supply?: SupplyOptions;
};

/** The guests of every room, each with a name and surname; null when any is unnamed (the holder's name goes instead). */
const namedGuests = (
  rooms: Array<{ paxes: Array<Record<string, unknown> & { age: number }> }>,
): BookingGuest[][] | undefined => {
  const named = rooms.map((room) =>
    room.paxes.map((p) =>
      typeof p.name === "string" && typeof p.surName === "string"
        ? { name: p.name, surname: p.surName, age: p.age }
        : null,
    ),
  );
  return named.every((room) => room.every((g) => g !== null)) ? (named as BookingGuest[][]) : undefined;
};

/** The data a POST /api/book body stands for. */
export const bookOrderOf = (request: BookRequest): BookOrder => {
  const criteria = request.bookCriteria;
  return {
    quoteId: criteria.quoteId,
    accommodationCode: criteria.accommodation.code,
    checkIn: criteria.checkIn,
    checkOut: criteria.checkOut,
    partnerReference: criteria.partnerReference,
    holder: { name: criteria.holder.name, surName: criteria.holder.surName },
    ...(criteria.occupancies ? { occupancies: criteria.occupancies } : {}),
    currency: request.settings.currency ?? criteria.currency,
    ...(criteria.paymentType ? { paymentType: criteria.paymentType } : {}),
    ...(criteria.paymentCard ? { paymentCard: criteria.paymentCard } : {}),
    ...(criteria.hold ? { hold: { minutes: criteria.holdMinutes ?? DEFAULT_HOLD_MINUTES } } : {}),
    supply: supplyOptionsOf(request.settings),
  };
};

/** What a retry under the same partnerReference must repeat. */
const bookRequestHash = (criteria: BookOrder) =>
  sha256Hex(
    JSON.stringify([
      criteria.quoteId,
      criteria.accommodationCode,
      criteria.checkIn,
      criteria.checkOut,
      criteria.holder.name,
      criteria.holder.surName,
      criteria.occupancies ?? null,
      // Only when sent, so the hash of a booking without a card is what it was before issue 27.
      ...(criteria.paymentCard ? [criteria.paymentCard.actorId, criteria.paymentCard.paymentMethodId] : []),
      // Likewise a hold: holding and booking outright are different requests under one partnerReference.
      ...(criteria.hold ? ["hold", criteria.hold.minutes] : []),
    ]),
  );

/** The same partnerReference again: the first booking if the request is the same, else 409. */
const retried = (existing: BookingRecord, requestHash: string, meta: { requestId: string; startedAt: number }) => {
  if (existing.requestHash !== requestHash) {
    throw new ApiError("partner_reference_conflict", "partnerReference is already used by a different booking", {
      bookingReference: existing.reference,
    });
  }
  return resultOf(existing, meta);
};

/**
 * POST /api/book. Retry-safe on partnerReference: the same request returns the first booking and
 * never takes allotment twice. A quote books once: another partnerReference booking it again is
 * refused as an expired quote (the unique index on bookings.quote_id settles parallel requests).
 * Allotment is taken for every night in one transaction, on the embedded inventory together with
 * the booking row.
 */
export const bookQuote = async (
  deps: BookingDeps,
  connection: CoreConnection,
  criteria: BookOrder,
  meta: { requestId: string; startedAt: number; scenario: SandboxScenario | null },
  now = Date.now(),
): Promise<BookResult> => {
  // Metasearch connections show prices publicly: they search and quote, they never book.
  if (connection.connectionType === "metasearch")
    throw new ApiError("booking_not_allowed", "Booking is not available on metasearch connections");
  const partnerId = connection.partnerId;
  const requestHash = await bookRequestHash(criteria);
  // One round trip: a retry under this partnerReference answers its booking; else a booked quote is spent.
  const [[existing], [spent]] = await deps.db.batch([
    byPartnerReference(deps.db, partnerId, criteria.partnerReference),
    byQuote(deps.db, criteria.quoteId),
  ]);
  if (existing) return retried(bookingRecord(existing), requestHash, meta);
  if (spent) throw QUOTE_INVALID();

  const stored = await quoteStore(deps.quotes, deps.db).get(criteria.quoteId, now);
  if (!stored || stored.partnerId !== partnerId) throw QUOTE_INVALID();
  return bookStoredQuote(deps, connection, criteria, stored, requestHash, meta, now);
};

/** Books a quote in hand, for the caller that priced it (chat) or read it back (POST /api/book). */
export const bookPricedQuote = async (
  deps: BookingDeps,
  connection: CoreConnection,
  criteria: BookOrder,
  stored: StoredQuote,
  meta: { requestId: string; startedAt: number; scenario: SandboxScenario | null },
  now = Date.now(),
): Promise<BookResult> => {
  if (connection.connectionType === "metasearch")
    throw new ApiError("booking_not_allowed", "Booking is not available on metasearch connections");
  const requestHash = await bookRequestHash(criteria);
  const existing = await findBookingByPartnerReference(deps.db, connection.partnerId, criteria.partnerReference);
  if (existing) return retried(existing, requestHash, meta);
  if (stored.partnerId !== connection.partnerId) throw QUOTE_INVALID();
  return bookStoredQuote(deps, connection, criteria, stored, requestHash, meta, now);
};

/**
 * The saved card guaranteeing a PayAtProperty booking (the partner's own end user's, not expired),
 * masked as the booking keeps it: 400 when none is named or it is not a usable saved card.
 */
const guaranteeCard = async (db: Db, partnerId: string, criteria: BookOrder, now: number) => {
  const named = criteria.paymentCard;
  if (!named)
    throw new ApiError(
      "payment_card_required",
      "bookCriteria.paymentCard is required for a PayAtProperty option: a saved card's actorId and paymentMethodId",
    );
  const card = await cardById(db, partnerId, named.actorId, named.paymentMethodId);
  if (!card)
    throw new ApiError(
      "payment_card_not_found",
      "bookCriteria.paymentCard: no saved card with this paymentMethodId for this actorId",
    );
  if (!cardUsableAt(card, now)) throw new ApiError("card_expired", "The card has expired");
  return { paymentMethodId: card.paymentMethodId, brand: card.brand, last4: card.last4 };
};

const bookStoredQuote = async (
  deps: BookingDeps,
  connection: CoreConnection,
  criteria: BookOrder,
  stored: StoredQuote,
  requestHash: string,
  meta: { requestId: string; startedAt: number; scenario: SandboxScenario | null },
  now: number,
): Promise<BookResult> => {
  const partnerId = connection.partnerId;
  const db = deps.db;
  if (criteria.accommodationCode !== stored.accommodationCode)
    throw new ApiError("accommodation_mismatch", "Accommodation code mismatch");
  if (criteria.checkIn !== stored.stay.checkIn || criteria.checkOut !== stored.stay.checkOut)
    throw new ApiError("stay_dates_mismatch", "Stay dates mismatch");

  // Optional occupancy override: each must name a quoted occupancy (by the partner's occupancy id) and match its adult, child and pax counts.
  const quotedRooms = stored.stay.rooms;
  const refIds = stored.occupancyRefIds ?? quotedRooms.map((_, i) => i + 1);
  let paxes = quotedRooms.map((ages, i) => ({
    occupancyId: refIds[i]!,
    paxes: ages.map((age) => ({ age })) as Array<Record<string, unknown> & { age: number }>,
  }));
  if (criteria.occupancies) {
    const counts = (ages: number[]) =>
      [ages.filter((a) => a >= 18).length, ages.filter((a) => a < 18).length, ages.length].join("/");
    for (const occupancy of criteria.occupancies) {
      const quoted = quotedRooms[refIds.indexOf(occupancy.occupancyId)];
      if (!quoted)
        throw new ApiError("occupancy_not_found", `Occupancy ${occupancy.occupancyId} not found in cached quote`);
      if (counts(quoted) !== counts(occupancy.paxes.map((p) => p.age)))
        throw new ApiError("occupancy_mismatch", "Occupancy details mismatch");
    }
    const ids = new Set(criteria.occupancies.map((o) => o.occupancyId));
    if (ids.size !== criteria.occupancies.length || ids.size !== quotedRooms.length)
      throw new ApiError("occupancy_mismatch", "Occupancy details mismatch");
    const byId = new Map(criteria.occupancies.map((o) => [o.occupancyId, o]));
    paxes = refIds.map((id) => ({ occupancyId: id, paxes: byId.get(id)!.paxes }));
  }
  const rate = stored.quote.rate;
  // What KV or D1 gave back is checked, whatever the type says: it was written by another request.
  if (!rate || typeof rate.chargeTotal !== "number")
    throw new ApiError("missing_rate_snapshot", "Missing rate snapshot for booking");
  // A quote stored before payment types (issue 27) was MerchantPay.
  const paymentType: PaymentType = stored.quote.paymentType ?? "MerchantPay";
  // Quote keeps no such price (a rate far from 1 could make one); a quote stored before that rule is not booked at it.
  if (!isChargeable(sellingTotal(rate, paymentType))) throw QUOTE_INVALID();
  if (criteria.paymentType !== undefined && criteria.paymentType !== paymentType)
    throw paymentTypeMismatch(paymentType, criteria.paymentType);
  // The booking charges the quoted currency at the quoted rate; asking for another one is refused, not converted.
  const currency = criteria.currency;
  if (currency !== undefined && currency !== rate.currency) {
    throw new ApiError("currency_mismatch", "Currency mismatch", {
      quoteCurrency: rate.currency,
      requestedCurrency: currency,
    });
  }
  const product = stored.supplier;
  if (!product?.name || !product.roomCode || !product.ratePlanCode)
    throw new ApiError("missing_supplier_metadata", "Missing supplier metadata for booking");

  const paymentCard = paymentType === "PayAtProperty" ? await guaranteeCard(db, partnerId, criteria, now) : null;

  const accommodation = await accommodationByCode(deps.db, stored.accommodationCode);
  if (!accommodation) throw new ApiError("accommodation_not_found", "Accommodation not found");
  if (meta.scenario === "booking_failed") throw NOT_SUCCESSFUL("sandbox");

  const supplier = await connectionSupplier(deps, connection, product.name);
  // The supplier that quoted no longer serves this connection: the quote cannot be booked.
  if (!supplier) throw QUOTE_INVALID();
  if (criteria.hold && !supplier.capabilities.twoStepBooking) throw HOLD_NOT_SUPPORTED();
  // Our reference is the supplier's client reference: a booking whose answer is lost can be found by it.
  const reference = newBookingReference();
  const options = criteria.supply ?? {};
  const transactions = options.includeProviderTransactions ? ([] as ProviderTransaction[]) : undefined;
  const withTransactions = (result: BookResult): BookResult =>
    transactions ? { ...result, providerTransactions: transactions } : result;
  // A hold is within the operator's limits (hold-limits.ts): how far ahead, how long, how much.
  const limits = criteria.hold ? await readHoldLimits(db) : null;
  const hold =
    criteria.hold && limits
      ? {
          expiresAt:
            now +
            holdMinutesFor(
              limits,
              { checkIn: stored.stay.checkIn, timezone: accommodation.timezone },
              criteria.hold.minutes,
              now,
            ) *
              60_000,
          limits,
        }
      : null;
  // Each pax under their own name upstream, when the partner named every one (issue 40).
  const guests = namedGuests(paxes);
  const askSupplier = () =>
    askToBook(supplier, options, transactions, (call) =>
      supplier.book(
        accommodation,
        product,
        stored.stay,
        reference,
        call,
        { name: criteria.holder.name, surname: criteria.holder.surName },
        {
          hold: hold !== null,
          ...(guests ? { guests } : {}),
          ...(criteria.remarks ? { remarks: criteria.remarks } : {}),
        },
      ),
    );
  const bookingRow = (status: "success" | "pending" | "held", confirmed: SupplierBooking | null): NewBooking => ({
    reference,
    partnerId,
    connectionId: connection.id,
    partnerReference: criteria.partnerReference,
    requestHash,
    status,
    accommodationCode: accommodation.code,
    accommodationName: accommodation.name,
    timezone: accommodation.timezone,
    checkIn: stored.stay.checkIn,
    checkOut: stored.stay.checkOut,
    roomCode: product.roomCode,
    ratePlanCode: product.ratePlanCode,
    upstreamOptionId: product.upstreamOptionId ?? null,
    upstreamAccessCode: product.upstreamAccessCode ?? null,
    upstreamBookingId: confirmed?.upstreamBookingId ?? null,
    roomCount: stored.stay.rooms.length,
    boardCode: stored.quote.boardCode,
    currency: rate.currency,
    // A hold charges nothing until it is committed (at this rate).
    chargeTotalMinor: status === "held" ? 0 : rate.chargeTotal,
    paymentType,
    paymentCard,
    rate,
    rooms: stored.quote.rooms ?? [],
    cancelPolicy: stored.quote.cancelPolicy ?? null,
    holder: { name: criteria.holder.name, surName: criteria.holder.surName },
    occupancies: paxes,
    supplier: supplier.name,
    supplierHotelCode: product.supplierHotelCode ?? null,
    supplierReference: confirmed?.supplierReference ?? "",
    hotelConfirmationNumber: confirmed?.hotelConfirmationNumber ?? null,
    createdAt: new Date(now).toISOString(),
    holdExpiresAt: hold ? new Date(hold.expiresAt).toISOString() : null,
    remarks: criteria.remarks ?? null,
    quoteId: criteria.quoteId,
  });
  /**
   * Another request stored its booking first: under the same partnerReference this is a retry of it;
   * under another one it booked the same quote, which books once.
   */
  const answerAsRetry = async (error: unknown) => {
    // The connection was deleted while this request ran: the same answer its check would give now.
    if (isForeignKeyViolation(error)) throw new ApiError("invalid_connection_code", "Invalid connection code.");
    if (!isUniqueViolation(error)) throw error;
    const winner = await findBookingByPartnerReference(deps.db, partnerId, criteria.partnerReference);
    if (winner) return withTransactions(retried(winner, requestHash, meta));
    if (isUniqueViolation(error, "bookings.quote_id")) throw QUOTE_INVALID();
    throw error;
  };
  /** The booking as stored, once the batch that logged its event committed (its webhooks are told then). */
  const storedBooking = async (logged: ReturnType<typeof logBookingChange>) => {
    const row = await db.select().from(bookings).where(eq(bookings.reference, reference)).get();
    await logged.announce(deps);
    return withTransactions(resultOf(bookingRecord(row!), meta));
  };

  // What a hold counts against its partner's limit of held room-nights.
  const roomNights = stored.stay.rooms.length * stayNights(stored.stay.checkIn, stored.stay.checkOut).length;
  // The hold's end is set before anything is taken: an alarm with no hold behind it does nothing.
  if (hold) await deps.holdTimers.schedule(reference, hold.expiresAt);

  if (hasLocalWrites(supplier)) {
    // The embedded inventory: the booking row and the rooms in one batch (one transaction), the row
    // first. Of parallel retries under one partnerReference one commits both; every other one breaks
    // the unique index (answered as a retry of the winner) or, with no room left, the allotment CHECK
    // (the winner may have committed by then: answered by it, else refused). Nothing is left to undo.
    const refused = async (reason: string) => {
      const winner = await findBookingByPartnerReference(deps.db, partnerId, criteria.partnerReference);
      if (winner) return withTransactions(retried(winner, requestHash, meta));
      // The room went to a booking of this same quote: the quote is spent, whatever the allotment says.
      if (await quoteBooked(deps.db, criteria.quoteId)) throw QUOTE_INVALID();
      throw NOT_SUCCESSFUL(reason);
    };
    let taking: Awaited<ReturnType<typeof supplier.localWrites.bookWrites>>;
    try {
      taking = await supplier.localWrites.bookWrites(
        accommodation,
        product,
        stored.stay,
        undefined,
        hold ? { partnerId, maxSharePercent: hold.limits.maxSharePercent } : undefined,
      );
    } catch (error) {
      if (error instanceof SupplierRefusal) return refused(error.reason);
      throw error;
    }
    const row = bookingRow(hold ? "held" : "success", taking.booking);
    const logged = logBookingChange(db, hold ? "booking.held" : "booking.confirmed", row, now);
    // A hold is counted for its partner first, then takes its share of each night and its rooms.
    const holdTakes = hold ? partnerHoldTakes(db, partnerId, roomNights, hold.limits) : [];
    try {
      await db.batch(bookedWrites(db, newBookingColumns(row), logged.writes, [...holdTakes, ...taking.writes]));
    } catch (error) {
      const overLimit = hold && holdLimitRefusal(error, hold.limits);
      if (overLimit) throw overLimit;
      if (isCheckViolation(error)) return refused("unavailable");
      return answerAsRetry(error);
    }
    return storedBooking(logged);
  }

  // A supplier outside our D1: the partnerReference and the quote are reserved (a pending row) before it
  // is asked, so parallel first requests under one partnerReference, or of one quote, reach it once; the
  // others answer as retries (or as a spent quote).
  // Not logged yet: a refusal deletes it. Its event is `booking.pending` or `booking.confirmed`, below.
  const reservation = bookingRow("pending", null);
  // A hold is counted for its partner with its reservation, before the supplier is asked; given back
  // (while the reservation is still pending) when it does not become a hold.
  const stillReserved = exists(
    db
      .select({ one: sql`1` })
      .from(bookings)
      .where(and(eq(bookings.reference, reference), eq(bookings.status, "pending"))),
  );
  const uncounted = () =>
    hold ? partnerHoldGiveBacks(db, partnerId, { roomNights, ended: "released" }, stillReserved) : [];
  try {
    const insert = db.insert(bookings).values(newBookingColumns(reservation));
    await db.batch([insert, ...(hold ? partnerHoldTakes(db, partnerId, roomNights, hold.limits) : [])]);
  } catch (error) {
    const overLimit = hold && holdLimitRefusal(error, hold.limits);
    if (overLimit) throw overLimit;
    return answerAsRetry(error);
  }
  let answer: BookAnswer;
  try {
    answer = await askSupplier();
  } catch (error) {
    // Refused: nothing was booked, so the reservation goes and the reference is free again.
    const remove = db.delete(bookings).where(and(eq(bookings.reference, reference), eq(bookings.status, "pending")));
    await db.batch([...uncounted(), remove] as [typeof remove]);
    throw error;
  }
  // Asked to hold, the supplier holds (or booked it outright, which holds it all the same).
  if (hold && answer.status !== "unknown")
    return storedBooking((await holdAnswered(db, reservation, answer, now)).logged);
  // Each outcome changes the reserved row only while it is still pending (settling may have got there
  // first, and logged the change itself), and logs its event in the same batch.
  const stillPending = and(eq(bookings.reference, reference), eq(bookings.status, "pending"));
  if (answer.status !== "confirmed") {
    // Unknown (the answer was lost), or booked upstream but not confirmed yet (ON_REQUEST,
    // PENDING_COMMIT its commit did not confirm): its upstream id, when given, is kept for cancel.
    const upstreamBookingId = answer.upstreamBookingId ?? null;
    const logged = logBookingChange(db, "booking.pending", reservation, now);
    const update = db
      .update(bookings)
      .set({ upstreamBookingId })
      .where(stillPending)
      .returning({ reference: bookings.reference });
    // Asked to hold, the answer was lost: its supplier may hold the room until the hold's end, so it
    // stays counted for its partner until it ends (expireHold, or settled before its end). Given back
    // here, a partner could hold rooms past its limits by sending holds with a tiny settings.timeout.
    const [changed] = await db.batch([update, ...logged.writes] as [typeof update]);
    // Asked about in a minute, then on the schedule, rather than at the next hourly upkeep.
    if (changed.length === 1) await scheduleSettling(deps.timers, reference, 1);
    return storedBooking(logged);
  }
  const confirmed = {
    status: "success" as const,
    supplierReference: answer.supplierReference,
    hotelConfirmationNumber: answer.hotelConfirmationNumber ?? null,
    upstreamBookingId: answer.upstreamBookingId ?? null,
  };
  const logged = logBookingChange(db, "booking.confirmed", { ...reservation, ...confirmed }, now);
  const update = db.update(bookings).set(confirmed).where(stillPending);
  await db.batch([update, ...logged.writes]);
  return storedBooking(logged);
};

/**
 * A booking asked as a hold, still pending, that its supplier holds: `held`, nothing charged until
 * the commit (at its rate), its end and its count for the partner kept, `booking.held` logged in the
 * same batch. A supplier that booked it outright holds it all the same (a Hotel-X commit of an `OK`
 * booking answers OK again): the partner asked for a hold, so it commits or lets it end. Only while
 * still pending, so of the book's answer and settlers at once one changes it (`changed`) and logs it.
 */
export const holdAnswered = async (
  db: Db,
  booking: ChangedBooking & { upstreamBookingId?: string | null },
  answer: SupplierBooking,
  now: number,
) => {
  const held = {
    supplierReference: answer.supplierReference,
    hotelConfirmationNumber: answer.hotelConfirmationNumber ?? null,
    // The id the supplier names now, else the one a book answer gave before.
    upstreamBookingId: answer.upstreamBookingId ?? booking.upstreamBookingId ?? null,
  };
  const logged = logBookingChange(
    db,
    "booking.held",
    { ...booking, ...held, status: "held", chargeTotalMinor: 0 },
    now,
  );
  const changed = await applyChange(db, withEvent(holdAnsweredWrites(db, booking.reference, held), logged.writes));
  return { logged, changed };
};

/**
 * The supplier's answer to a booking. A refusal, or a circuit that kept the request from leaving,
 * books nothing (400). A request that went out without a usable answer (late, broken) may have
 * booked: `unknown`, kept pending until settled, never a 5xx that a partner would retry as a new booking.
 */
const askToBook = async (
  supplier: Supplier,
  options: SupplyOptions,
  transactions: ProviderTransaction[] | undefined,
  book: Parameters<typeof callSupplier<BookAnswer>>[3],
): Promise<BookAnswer> => {
  try {
    return await callSupplier(supplier, options, transactions, book);
  } catch (error) {
    if (error instanceof SupplierRefusal) throw NOT_SUCCESSFUL(error.reason);
    if (error instanceof SupplierFailure && error.code === "supplier_unavailable") throw NOT_SUCCESSFUL(error.code);
    if (!(error instanceof SupplierFailure) && !supplier.remote) throw error;
    console.error(
      JSON.stringify({
        level: "warn",
        event: "booking_answer_unknown",
        supplier: supplier.name,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    return { status: "unknown" };
  }
};

const answerOf = (result: BookResult) => ({
  status: result.status === "pending" ? (202 as const) : (200 as const),
  body: success(result),
});

/**
 * POST /api/book under an optional Idempotency-Key: 200 when booked, 202 while pending. A replay
 * of a pending answer reads the booking as it is now (it may have settled), not the stored 202. A
 * replay of a stored refusal (4xx) answers the booking of the same request when one exists by now
 * (made under another key, or once a room came free): a stored answer never denies a booking.
 */
export const bookOnce = async (
  deps: BookingDeps,
  connection: CoreConnection,
  order: BookOrder,
  meta: { requestId: string; startedAt: number; scenario: SandboxScenario | null },
  idempotency: { key: string | undefined; request: unknown },
  now = Date.now(),
) => {
  let response: Awaited<ReturnType<typeof withIdempotency>>;
  try {
    response = await withIdempotency(
      deps.db,
      { scope: "book", partnerId: connection.partnerId, key: idempotency.key, request: idempotency.request },
      async () => answerOf(await bookQuote(deps, connection, order, meta, now)),
    );
  } catch (error) {
    if (!isReplayedError(error)) throw error;
    const booking = await findBookingByPartnerReference(deps.db, connection.partnerId, order.partnerReference);
    // Another request's booking under this partnerReference leaves this request's refusal as it was.
    if (!booking || booking.requestHash !== (await bookRequestHash(order))) throw error;
    return { ...answerOf(resultOf(booking, meta)), replayed: true };
  }
  const stored = (response.body as { data?: BookResult }).data;
  if (!response.replayed || stored?.status !== "pending")
    return {
      status: response.status as 200 | 202,
      body: response.body as ReturnType<typeof answerOf>["body"],
      replayed: response.replayed,
    };
  const row = await deps.db
    .select()
    .from(bookings)
    .where(and(eq(bookings.reference, stored.bookingReference), eq(bookings.partnerId, connection.partnerId)))
    .get();
  if (row) return { ...answerOf(resultOf(bookingRecord(row), meta)), replayed: true };
  // The pending row this answer named was another request's reservation, and its supplier refused:
  // the booking of this request made since, if any, else the refusal the winner got.
  const since = await findBookingByPartnerReference(deps.db, connection.partnerId, order.partnerReference);
  if (!since || since.requestHash !== (await bookRequestHash(order)))
    throw NOT_SUCCESSFUL("failed", replayHeaders({ replayed: true }));
  return { ...answerOf(resultOf(since, meta)), replayed: true };
};
