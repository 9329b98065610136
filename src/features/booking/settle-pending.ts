import { SupplierFailure, type BookingLookup } from "../supply/supplier";
import { announceBookingChange, bookingChangeOf } from "../webhooks/events";
import type { RawBooking } from "./book";
import { bookingDeps, type BookingDeps } from "./deps";
import { callSupplier } from "./supplier-deadline";

/** A pending booking is asked about once it is this old: its supplier has had time to finish it. */
export const SETTLE_PENDING_AFTER_MS = 60_000;
/** Bookings asked about per run; the rest wait for the next run. */
const SETTLE_BATCH = 50;

const log = (event: string, booking: RawBooking, detail: string) =>
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
  const { results } = await deps.d1
    .prepare("SELECT * FROM bookings WHERE status = 'pending' AND created_at <= ? ORDER BY created_at LIMIT ?")
    .bind(new Date(now - olderThanMs).toISOString(), SETTLE_BATCH)
    .all<RawBooking>();
  let settled = 0;
  for (const booking of results) {
    const supplier = await deps.supply.named(booking.supplier);
    if (!supplier?.bookingByReference) {
      log("pending_booking_unsettleable", booking, "the supplier cannot be asked by client reference");
      continue;
    }
    let found: BookingLookup;
    try {
      found = await callSupplier(supplier, {}, undefined, (call) =>
        supplier.bookingByReference!(booking.reference, call, { accommodationCode: booking.accommodation_code }),
      );
    } catch (error) {
      log("pending_booking_not_settled", booking, error instanceof SupplierFailure ? error.code : String(error));
      continue;
    }
    // Guarded on `pending`: of two runs at once, one settles it and only that one announces it.
    if (found.status === "confirmed") {
      const row = await deps.d1
        .prepare(
          "UPDATE bookings SET status = 'success', supplier_reference = ?2, hotel_confirmation_number = ?3 WHERE reference = ?1 AND status = 'pending' RETURNING *",
        )
        .bind(booking.reference, found.supplierReference, found.hotelConfirmationNumber)
        .first<RawBooking>();
      if (!row) continue;
      await announceBookingChange(deps, bookingChangeOf("booking.confirmed", row), now);
    } else {
      const { meta } = await deps.d1
        .prepare("UPDATE bookings SET status = 'failed' WHERE reference = ? AND status = 'pending'")
        .bind(booking.reference)
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
