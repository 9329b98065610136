import { eq } from "drizzle-orm";
import { ApiError } from "../../platform/http/api-error";
import { splitMinor, sumMinor } from "../../platform/money";
import {
  hasLocalWrites,
  itemizedRate,
  SupplierFailure,
  type BookedStay,
  type CancelPolicy,
  type ProviderTransaction,
  type Rate,
  type Supplier,
  callSupplier,
  sellingTotal,
  sumRates,
  supplierFailureError,
  type SupplyOptions,
} from "../supply";
import type { Db } from "../../platform/db/client";
import { localDate, stayNights } from "../../platform/time/zoned-time";
import { logHoldOutcome, partnerHoldGiveBacks } from "./hold-limits";
import { isLiveRoom, type StoredRoom } from "./booked-rate";
import { logBookingChange } from "./booking-events";
import { applyChange, type RoomRelease, roomsCancelledWrites, withEvent } from "./booking-writes";
import { bookingView } from "./bookings";
import type { BookingDeps } from "./deps";
import { type BookingRecord, bookingColumns, bookingRecord } from "./record";
import { bookings } from "./tables";
import { amountJson } from "./wire";

/** What cancelling costs at `now`: the highest penalty whose deadline has passed, else nothing. */
export const cancelPenaltyAt = (policy: CancelPolicy, now: number): number =>
  policy.cancelPenalties.reduce((cost, p) => (Date.parse(p.deadline) <= now ? Math.max(cost, p.value) : cost), 0);

/** The supplier that holds a stored booking. */
export const supplierOfBooking = async (deps: BookingDeps, name: string): Promise<Supplier> => {
  const supplier = await deps.supply.named(name);
  // Every stored booking names a supplier this code knows; anything else is a server fault, not a feature gap.
  if (!supplier) throw new Error(`No supplier named ${name} is connected`);
  return supplier;
};

/** "Before the check-in date" on the hotel's own calendar: from then on a booking cannot be cancelled. */
export const isOnOrAfterCheckIn = (booking: Pick<BookingRecord, "timezone" | "checkIn">, now: number) =>
  localDate(now, booking.timezone) >= booking.checkIn;

/** A stored booking as its supplier knows it. */
export const bookedStayOf = (booking: BookingRecord): BookedStay => ({
  accommodationCode: booking.accommodationCode,
  roomCode: booking.roomCode,
  ratePlanCode: booking.ratePlanCode,
  checkIn: booking.checkIn,
  checkOut: booking.checkOut,
  roomCount: booking.roomCount,
  supplierReference: booking.supplierReference,
  supplierHotelCode: booking.supplierHotelCode,
  clientReference: booking.reference,
  ...(booking.upstreamAccessCode ? { upstreamAccessCode: booking.upstreamAccessCode } : {}),
  upstreamBookingId: booking.upstreamBookingId,
});

/**
 * A stored booking as its supplier looks it up by our reference (`bookingByReference`). A hold keeps
 * its end on the row from the request on: one whose answer was lost is never committed by a look-up.
 */
export const bookingLookupOf = (booking: BookingRecord) => ({
  accommodationCode: booking.accommodationCode,
  upstreamAccessCode: booking.upstreamAccessCode,
  supplierHotelCode: booking.supplierHotelCode,
  commitPending: booking.holdExpiresAt === null,
});

/**
 * How the rooms of a booking go back to its supplier, inside the change's batch: on the embedded
 * inventory one room of each code listed (every room of the stay for a booking that keeps no rooms
 * of its own); a supplier outside our D1 is told before the batch, so nothing here.
 */
export const roomRelease = (
  db: Db,
  supplier: Supplier,
  booking: BookingRecord,
  rooms: StoredRoom[],
): RoomRelease | null => {
  // A hold's rooms going back are no longer its partner's held rooms either; every room left: the hold ends.
  const whole = rooms.length === 0 || rooms.length === booking.rooms.filter(isLiveRoom).length;
  const unheld = heldCountRelease(db, supplier, booking, rooms, whole ? "released" : null);
  if (!hasLocalWrites(supplier)) return unheld;
  const stay = bookedStayOf(booking);
  const codes = rooms.length > 0 ? rooms.map((r) => r.code) : undefined;
  return (guard) => [...supplier.localWrites.cancelWrites(stay, guard, codes), ...(unheld ? unheld(guard) : [])];
};

/**
 * A hold no longer counted for its partner (hold-limits.ts), inside the change's batch: `rooms`
 * (every room when none are listed) and, when `ended`, the hold itself; on the embedded inventory
 * its rooms' share of each night too. A hold whose book answer was lost (`pending` with a hold end)
 * is counted too (book.ts). Null for a booking that is not a hold.
 */
export const heldCountRelease = (
  db: Db,
  supplier: Supplier,
  booking: BookingRecord,
  rooms: StoredRoom[],
  ended: "committed" | "released" | null,
): RoomRelease | null => {
  const lostHold = booking.status === "pending" && booking.holdExpiresAt !== null;
  if (booking.status !== "held" && !lostHold) return null;
  const stay = bookedStayOf(booking);
  const codes = rooms.length > 0 ? rooms.map((r) => r.code) : undefined;
  const roomNights = (rooms.length || booking.roomCount) * stayNights(booking.checkIn, booking.checkOut).length;
  return (guard) => [
    ...(hasLocalWrites(supplier) ? supplier.localWrites.unholdWrites(stay, booking.partnerId, guard, codes) : []),
    ...partnerHoldGiveBacks(db, booking.partnerId, { roomNights, ended }, guard),
  ];
};

/** A change computed from a version that moved on is computed again, this many times at most. */
export const CHANGE_ATTEMPTS = 5;
export const bookingKeptChanging = () =>
  new ApiError("booking_changed", "The booking changed while this request ran; retry it");

/**
 * Cancelling some rooms (`asked`, occupancyRefIds) or every room still booked (undefined) at a
 * penalty (null: free, a hold), as data: what the booking becomes. The penalty is the booking's at
 * that moment, on what the whole booking was charged, shared over all its rooms (cancelled ones
 * too) by what each was charged, by largest remainder: rooms cancelled one by one at one moment cost
 * what cancelling them together costs, and every room cancelled costs the policy's penalty exactly.
 */
export const roomsCancellation = (
  booking: BookingRecord,
  asked: number[] | undefined,
  field: string,
  penalty: number | null,
) => {
  const rooms = booking.rooms;
  const live = rooms.filter(isLiveRoom);
  const removed = asked === undefined ? live : asked.map((id) => askedRoom(rooms, id, field));
  const whole = removed.length === live.length;
  const held = booking.status === "held";
  const rateOf = (room: StoredRoom): Rate => itemizedRate(room.rate, booking.checkIn, booking.checkOut);
  const removedCharge = sumMinor(removed.map((room) => rateOf(room).chargeTotal));
  // What the rooms going were charged (a hold: nothing yet).
  const bookPrice = whole ? booking.chargeTotalMinor : held ? 0 : removedCharge;
  const weights = rooms.map((room) => sellingTotal(rateOf(room), booking.paymentType));
  const shares =
    penalty === null || rooms.length === 0
      ? rooms.map(() => 0)
      : splitMinor(penalty, weights.some((w) => w > 0) ? weights : rooms.map(() => 1));
  const going = new Set(removed.map((room) => room.occupancyRefId));
  const cancelPrice =
    penalty === null
      ? 0
      : rooms.length === 0
        ? penalty
        : sumMinor(rooms.flatMap((room, i) => (going.has(room.occupancyRefId) ? [shares[i]!] : [])));
  const left = live.filter((room) => !going.has(room.occupancyRefId));
  const rate = left.length > 0 ? sumRates(left.map(rateOf)) : null;
  return {
    rooms: removed.map((room) => room.occupancyRefId),
    removed,
    whole,
    cancelPrice,
    bookPrice,
    /** The rooms as the booking keeps them after (each cancelled one with its share of the penalty). */
    after: (cancelledAt: string) =>
      rooms.map((room, i) =>
        going.has(room.occupancyRefId) ? { ...room, cancelledAt, cancelPrice: shares[i]! } : room,
      ),
    /** The booking left: the remaining rooms' rates summed (null when every room goes). */
    remaining: whole || !rate ? null : { rate, chargeTotalMinor: held ? 0 : rate.chargeTotal, roomCount: left.length },
    /**
     * The last rooms of a booking cancelled room by room: the booking reads again what all its rooms
     * were charged, as a booking cancelled whole at once does (not what the last room was; issue 37).
     */
    restored:
      whole && !held && removed.length < rooms.length
        ? (() => {
            const all = sumRates(rooms.map(rateOf));
            return { rate: all, chargeTotalMinor: all.chargeTotal, roomCount: rooms.length };
          })()
        : null,
  };
};

const askedRoom = (rooms: StoredRoom[], id: number, field: string): StoredRoom => {
  const room = rooms.find((r) => r.occupancyRefId === id);
  if (!room)
    throw new ApiError(
      "room_not_found",
      rooms.length === 0
        ? `${field}: this booking keeps no rooms of its own; cancel it whole, without ${field}`
        : `${field}: no room ${id} in this booking (its occupancyRefIds: ${rooms.map((r) => r.occupancyRefId).join(", ")})`,
      { field, occupancyRefId: id },
    );
  if (!isLiveRoom(room))
    throw new ApiError("room_already_cancelled", `Room ${id} of this booking is already cancelled`, {
      occupancyRefId: id,
      cancelledAt: room.cancelledAt,
    });
  return room;
};

/** How a cancel reaches the supplier, `settings.currency` as sent (must be the booking's), and `input.rooms`. */
export type CancelOptions = SupplyOptions & { currency?: string; rooms?: number[] };

/**
 * The penalty cancelling a booking costs at `now` under the rules of sections 3.1, 4.6 and 7 in that
 * order (null: free, a hold released), or the error the cancel answers.
 */
const penaltyOrRefusal = (booking: BookingRecord, now: number): number | null => {
  // Not yet known to exist at the supplier: it settles to success or failed first (settle-pending.ts).
  if (booking.status === "pending") {
    throw new ApiError(
      "booking_pending",
      "Booking is pending: the supplier has not confirmed it yet. Retry the cancellation once it is confirmed.",
    );
  }
  // A hold is released with no penalty: nothing was charged.
  if (booking.status === "held") return null;
  if (booking.status !== "success")
    throw new ApiError("booking_not_cancellable", `Booking cannot be cancelled. Current status: ${booking.status}`);
  if (isOnOrAfterCheckIn(booking, now)) {
    throw new ApiError("after_check_in", "This booking can no longer be cancelled after the check-in date");
  }
  const policy = booking.cancelPolicy;
  if (!policy) throw new ApiError("cancel_policy_not_found", "Cancellation policy not found for this booking");
  if (!policy.refundable)
    throw new ApiError("not_refundable", "This booking is not refundable according to the cancellation policy");
  return cancelPenaltyAt(policy, now);
};

/**
 * POST /api/cancel: the whole booking, or with `input.rooms` some of its rooms (every room left is
 * the whole booking). One batch per change: the rooms go back and the row changes under the version
 * read, so of parallel cancels of one booking each lands once on what the others left, and the same
 * room is never given back twice. A supplier outside our D1 is told first and cancels whole bookings only.
 */
export const cancelBooking = async (
  deps: BookingDeps,
  partnerId: string,
  bookingReference: string,
  now = Date.now(),
  options: CancelOptions = {},
) => {
  const db = deps.db;
  const transactions = options.includeProviderTransactions ? ([] as ProviderTransaction[]) : undefined;
  for (let attempt = 1; attempt <= CHANGE_ATTEMPTS; attempt++) {
    const row = await db.select().from(bookings).where(eq(bookings.reference, bookingReference)).get();
    const booking = row ? bookingRecord(row) : null;
    if (!booking)
      throw new ApiError("booking_not_found", `Booking not found with bookingReference: ${bookingReference}`);
    if (booking.partnerId !== partnerId)
      throw new ApiError("booking_not_owned", "This booking does not belong to the current partner");
    // The prices of a cancel are the booking's: another currency would be a conversion nobody agreed to.
    const currency = options.currency;
    if (currency !== undefined && currency !== booking.currency)
      throw new ApiError("currency_mismatch", "Currency mismatch", {
        bookingCurrency: booking.currency,
        requestedCurrency: currency,
      });
    const penalty = penaltyOrRefusal(booking, now);
    const plan = roomsCancellation(booking, options.rooms, "input.rooms", penalty);
    const supplier = await supplierOfBooking(deps, booking.supplier);
    if (!plan.whole && !hasLocalWrites(supplier))
      throw new ApiError(
        "partial_cancel_not_supported",
        "This booking's supplier cancels whole bookings only: cancel every room (without input.rooms)",
      );
    // A supplier outside our D1 cannot join the batch: it is told first, and a failure changes nothing here.
    if (!hasLocalWrites(supplier)) {
      try {
        await callSupplier(supplier, options, transactions, (call) => supplier.cancel(bookedStayOf(booking), call));
      } catch (error) {
        if (error instanceof SupplierFailure) throw supplierFailureError(error);
        throw error;
      }
    }
    const cancelledAt = new Date(now).toISOString();
    // The booking's penalties so far, in minor units (each cancellation's penalty added).
    const totalPenalty = (booking.cancelPriceMinor ?? 0) + plan.cancelPrice;
    const rooms = plan.after(cancelledAt);
    const change: Partial<BookingRecord> = plan.remaining
      ? {
          rooms,
          rate: plan.remaining.rate,
          chargeTotalMinor: plan.remaining.chargeTotalMinor,
          roomCount: plan.remaining.roomCount,
          cancelPriceMinor: totalPenalty,
        }
      : { rooms, status: "cancelled" as const, cancelledAt, cancelPriceMinor: totalPenalty, ...plan.restored };
    const after: BookingRecord = { ...booking, ...change, version: booking.version + 1 };
    const logged = plan.whole
      ? logBookingChange(db, "booking.cancelled", after, now)
      : logBookingChange(db, "booking.room_cancelled", after, now, {
          rooms: plan.rooms,
          roomsCancelPrice: amountJson(plan.cancelPrice, booking.currency),
        });
    const applied = await applyChange(
      db,
      withEvent(
        roomsCancelledWrites(db, booking, bookingColumns(change), roomRelease(db, supplier, booking, plan.removed)),
        logged.writes,
      ),
    );
    // Another change of this booking landed first: computed again from what it left.
    if (!applied) continue;
    await logged.announce(deps);
    if (booking.status === "held" && plan.whole) await logHoldOutcome(db, partnerId, booking.reference, "released");
    return {
      status: "cancelled" as const,
      cancelledAt,
      cancelLocator: booking.supplierReference,
      reference: {
        bookingReference: booking.reference,
        partnerReference: booking.partnerReference,
        hotelConfirmationNumber: booking.hotelConfirmationNumber,
      },
      bookPrice: { currency: booking.currency, amount: amountJson(plan.bookPrice, booking.currency) },
      cancelPrice: { currency: booking.currency, amount: amountJson(plan.cancelPrice, booking.currency) },
      rooms: plan.rooms,
      booking: bookingView(after),
      ...(transactions ? { providerTransactions: transactions } : {}),
    };
  }
  throw bookingKeptChanging();
};
