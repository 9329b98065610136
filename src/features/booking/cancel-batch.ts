// Raw SQL: the cancel's status change shares one D1 batch (one transaction) with the inventory's raw allotment writes
import type { WriteGuard } from "../supply";

/** The guard of the inventory's give-back: the booking is still live (not cancelled by a concurrent request). */
export const stillLive = (reference: string): WriteGuard => ({
  sql: "EXISTS (SELECT 1 FROM bookings WHERE reference = ? AND status = 'success')",
  params: [reference],
});

/** Cancels a live booking; changes no row when it is no longer live (the batch's last statement). */
export const markCancelled = (d1: D1Database, reference: string, cancelledAt: string, cancelPrice: number) =>
  d1
    .prepare(
      "UPDATE bookings SET status = 'cancelled', cancelled_at = ?1, cancel_price = ?2 WHERE reference = ?3 AND status = 'success'",
    )
    .bind(cancelledAt, cancelPrice, reference);
