import { and, asc, eq, lte } from "drizzle-orm";
import { SupplierFailure, type BookingLookup, callSupplier } from "../supply";
import { announceEvent } from "../webhooks";
import { bookingChangeOf } from "./booking-events";
import { bookingDeps, type BookingDeps } from "./deps";
import { type BookingRow, bookings } from "./tables";

/** A pending booking is asked about once it is this old: its supplier has had time to finish it. */
export const SETTLE_PENDING_AFTER_MS = 60_000;
/** Bookings asked about per run; the rest wait for the next run. */
const SETTLE_BATCH = 50;

const log = (event: string, booking: BookingRow, detail: string) =>
  console.error(
    JSON.stringify({ level: "warn", event, reference: booking.reference, supplier: booking.supplier, detail }),
  );

/**
 * Asks the supplier of each pending booking older than `olderThanMs` for it by our client reference
 * (the booking reference) and settles it: found and confirmed is `success` (announced as a normal
 * booking is); not found or cancelled there is `failed` (nothing was taken here, so nothing is given
 * back). A supplier that cannot answer now leaves the booking pending for the next run.
 */
export const settlePendingBookings = async (
  deps: BookingDeps,
  now: number,
  olderThanMs = SETTLE_PENDING_AFTER_MS,
): Promise<number> => {
  const db = deps.db;
  const pending = await db
    .select()
    .from(bookings)
    .where(and(eq(bookings.status, "pending"), lte(bookings.createdAt, new Date(now - olderThanMs).toISOString())))
    .orderBy(asc(bookings.createdAt))
    .limit(SETTLE_BATCH);
  let settled = 0;
  for (const booking of pending) {
    const supplier = await deps.supply.named(booking.supplier);
    if (!supplier?.bookingByReference) {
      log("pending_booking_unsettleable", booking, "the supplier cannot be asked by client reference");
      continue;
    }
    let found: BookingLookup;
    try {
      found = await callSupplier(supplier, {}, undefined, (call) =>
        supplier.bookingByReference!(booking.reference, call, {
          accommodationCode: booking.accommodationCode,
          upstreamAccessCode: booking.upstreamAccessCode,
        }),
      );
    } catch (error) {
      log("pending_booking_not_settled", booking, error instanceof SupplierFailure ? error.code : String(error));
      continue;
    }
    // Guarded on `pending`: of two runs at once, one settles it and only that one announces it.
    if (found.status === "confirmed") {
      const row = await db
        .update(bookings)
        .set({
          status: "success",
          supplierReference: found.supplierReference,
          hotelConfirmationNumber: found.hotelConfirmationNumber,
          // The id the book answer gave, unless the upstream names one now.
          upstreamBookingId: found.upstreamBookingId ?? booking.upstreamBookingId,
        })
        .where(and(eq(bookings.reference, booking.reference), eq(bookings.status, "pending")))
        .returning()
        .get();
      if (!row) continue;
      await announceEvent(deps, bookingChangeOf("booking.confirmed", row), now);
    } else {
      const { meta } = await db
        .update(bookings)
        .set({ status: "failed" })
        .where(and(eq(bookings.reference, booking.reference), eq(bookings.status, "pending")))
        .run();
      if (meta.changes !== 1) continue;
    }
    settled += 1;
  }
  return settled;
};

/** Upkeep: settles pending bookings (see settlePendingBookings). */
export const settlePendingBookingsTask = {
  name: "settle-pending-bookings",
  run: (env: Env, now: Date): Promise<number> => settlePendingBookings(bookingDeps(env), now.getTime()),
};
