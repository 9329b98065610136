import { and, asc, eq, exists, lte, sql } from "drizzle-orm";
import { SupplierFailure, type BookingLookup, callSupplier } from "../supply";
import { holdAnswered } from "./book";
import { logBookingChange } from "./booking-events";
import { bookingLookupOf, heldCountRelease } from "./cancel";
import { bookingDeps, type BookingDeps } from "./deps";
import { expireHold } from "./hold";
import { type BookingRecord, bookingRecord } from "./record";
import { bookings } from "./tables";

/** A pending booking is asked about once it is this old: its supplier has had time to finish it. */
export const SETTLE_PENDING_AFTER_MS = 60_000;
/** Bookings asked about per run; the rest wait for the next run. */
const SETTLE_BATCH = 50;

const log = (event: string, booking: BookingRecord, detail: string) =>
  console.error(
    JSON.stringify({ level: "warn", event, reference: booking.reference, supplier: booking.supplier, detail }),
  );

/**
 * Asks the supplier of a pending booking about it by our client reference (the booking reference)
 * and settles it: found and confirmed is `success` (logged as `booking.confirmed`, as a booking
 * confirmed at once is); not found or cancelled there is `failed` (`booking.failed`; nothing was
 * taken here, so nothing is given back). A hold whose answer was lost, found held or confirmed
 * before its end, is `held` as its answer in time would have made it (holdAnswered); once past its
 * end it is not asked about but ended as any hold (expireHold: cancelled upstream, `expired`). True
 * when this call settled it; a supplier that cannot be asked or cannot answer now leaves it pending
 * (false), and so does a settler that lost the race.
 */
export const settleBooking = async (deps: BookingDeps, booking: BookingRecord, now: number): Promise<boolean> => {
  if (booking.holdExpiresAt !== null && Date.parse(booking.holdExpiresAt) <= now)
    return endLostHold(deps, booking, now);
  const supplier = await deps.supply.named(booking.supplier);
  if (!supplier?.bookingByReference) {
    log("pending_booking_unsettleable", booking, "the supplier cannot be asked by client reference");
    return false;
  }
  let found: BookingLookup;
  try {
    found = await callSupplier(supplier, {}, undefined, (call) =>
      supplier.bookingByReference!(booking.reference, call, bookingLookupOf(booking)),
    );
  } catch (error) {
    log("pending_booking_not_settled", booking, error instanceof SupplierFailure ? error.code : String(error));
    return false;
  }
  const db = deps.db;
  // Asked to hold and the supplier has it: the partner commits it or it ends, never booked by settling.
  if (booking.holdExpiresAt !== null && (found.status === "held" || found.status === "confirmed")) {
    const { logged, changed } = await holdAnswered(db, booking, found, now);
    if (changed) await logged.announce(deps);
    return changed;
  }
  if (found.status === "held") {
    log("pending_booking_not_settled", booking, "held by its supplier, though not asked as a hold");
    return false;
  }
  // Guarded on `pending`: of two settlers at once, one changes the row, and only its batch logs the event.
  const stillPending = and(eq(bookings.reference, booking.reference), eq(bookings.status, "pending"));
  const change =
    found.status === "confirmed"
      ? {
          status: "success" as const,
          supplierReference: found.supplierReference,
          hotelConfirmationNumber: found.hotelConfirmationNumber,
          // The id the book answer gave, unless the upstream names one now.
          upstreamBookingId: found.upstreamBookingId ?? booking.upstreamBookingId,
        }
      : // Nothing was booked: the quote was not spent, so it may be booked again while it lasts.
        { status: "failed" as const, quoteId: null };
  const logged = logBookingChange(
    db,
    change.status === "success" ? "booking.confirmed" : "booking.failed",
    { ...booking, ...change },
    now,
  );
  const update = db.update(bookings).set(change).where(stillPending).returning({ reference: bookings.reference });
  // A hold whose answer was lost is counted for its partner until it ends (book.ts): settled `failed`
  // (the supplier has none), it ends; one its supplier has became `held` above.
  const unheld = heldCountRelease(db, supplier, booking, [], "released");
  const before = unheld ? unheld(exists(db.select({ one: sql`1` }).from(bookings).where(stillPending))) : [];
  const results = await db.batch([...before, update, ...logged.writes] as [typeof update]);
  const changed = results[before.length] as unknown[];
  if (changed.length !== 1) return false;
  await logged.announce(deps);
  return true;
};

/**
 * A hold whose answer was lost, past its end: its supplier may hold it, so it ends as a hold ends
 * (never `failed`, even when the supplier has none). A supplier that cannot take the cancel now
 * leaves it pending, asked again by the next timer or upkeep.
 */
const endLostHold = async (deps: BookingDeps, booking: BookingRecord, now: number): Promise<boolean> => {
  try {
    return (await expireHold(deps, booking.reference, now)) === "expired";
  } catch (error) {
    log("hold_not_expired", booking, error instanceof SupplierFailure ? error.code : String(error));
    return false;
  }
};

/**
 * Settles each pending booking older than `olderThanMs` (settleBooking), oldest first; the queue's
 * timers (booking-timers.ts) ask sooner, this hourly run goes on after them. Returns how many settled.
 */
export const settlePendingBookings = async (
  deps: BookingDeps,
  now: number,
  olderThanMs = SETTLE_PENDING_AFTER_MS,
): Promise<number> => {
  const pending = await deps.db
    .select()
    .from(bookings)
    .where(and(eq(bookings.status, "pending"), lte(bookings.createdAt, new Date(now - olderThanMs).toISOString())))
    .orderBy(asc(bookings.createdAt))
    .limit(SETTLE_BATCH);
  let settled = 0;
  for (const row of pending) if (await settleBooking(deps, bookingRecord(row), now)) settled += 1;
  return settled;
};

/** Upkeep: settles pending bookings (see settlePendingBookings). */
export const settlePendingBookingsTask = {
  name: "settle-pending-bookings",
  run: (env: Env, now: Date): Promise<number> => settlePendingBookings(bookingDeps(env), now.getTime()),
};
