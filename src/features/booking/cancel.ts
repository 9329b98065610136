import { ApiError } from "../../platform/http/api-error";
import { hasLocalWrites } from "../supply/inventory-supplier";
import {
  SupplierFailure,
  type BookedStay,
  type CancelPolicy,
  type ProviderTransaction,
  type Supplier,
} from "../supply/supplier";
import { localDate } from "../supply/zoned-time";
import { announceBookingChange, bookingChangeOf } from "../webhooks/events";
import type { RawBooking } from "./book";
import type { BookingDeps } from "./deps";
import { callSupplier, supplierFailureError, type SupplyOptions } from "./supplier-deadline";

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

export const parsePolicy = (text: string | null): CancelPolicy | null => {
  if (!text) return null;
  try {
    const policy = JSON.parse(text) as CancelPolicy;
    return typeof policy?.refundable === "boolean" && Array.isArray(policy.cancelPenalties) ? policy : null;
  } catch {
    return null;
  }
};

/** "Before the check-in date" on the hotel's own calendar: from then on a booking cannot be cancelled. */
export const isOnOrAfterCheckIn = (booking: Pick<RawBooking, "timezone" | "check_in">, now: number) =>
  localDate(now, booking.timezone) >= booking.check_in;

/** POST /api/cancel, with the rules of sections 3.1, 4.6 and 7 in that order. */
export const cancelBooking = async (
  deps: BookingDeps,
  partnerId: string,
  bookingReference: string,
  now = Date.now(),
  options: SupplyOptions = {},
) => {
  const booking = await deps.d1
    .prepare("SELECT * FROM bookings WHERE reference = ?")
    .bind(bookingReference)
    .first<RawBooking>();
  if (!booking) throw new ApiError("booking_not_found", `Booking not found with bookingReference: ${bookingReference}`);
  if (booking.partner_id !== partnerId)
    throw new ApiError("booking_not_owned", "This booking does not belong to the current partner");
  const cannot = (status: string) =>
    new ApiError("booking_not_cancellable", `Booking cannot be cancelled. Current status: ${status}`);
  // Not yet known to exist at the supplier: it settles to success or failed first (settle-pending.ts).
  if (booking.status === "pending") {
    throw new ApiError(
      "booking_pending",
      "Booking is pending: the supplier has not confirmed it yet. Retry the cancellation once it is confirmed.",
    );
  }
  if (booking.status !== "success") throw cannot(booking.status);
  if (isOnOrAfterCheckIn(booking, now)) {
    throw new ApiError("after_check_in", "This booking can no longer be cancelled after the check-in date");
  }
  const policy = parsePolicy(booking.cancel_policy);
  if (!policy) throw new ApiError("cancel_policy_not_found", "Cancellation policy not found for this booking");
  if (!policy.refundable)
    throw new ApiError("not_refundable", "This booking is not refundable according to the cancellation policy");

  const cancelPrice = cancelPenaltyAt(policy, now);
  const cancelledAt = new Date(now).toISOString();
  const supplier = await supplierOfBooking(deps, booking.supplier);
  const stay: BookedStay = {
    accommodationCode: booking.accommodation_code,
    roomCode: booking.room_code,
    ratePlanCode: booking.rate_plan_code,
    checkIn: booking.check_in,
    checkOut: booking.check_out,
    roomCount: booking.room_count,
    supplierReference: booking.supplier_reference,
  };
  const transactions = options.includeProviderTransactions ? ([] as ProviderTransaction[]) : undefined;
  // A supplier outside our D1 cannot join the batch: it is told first, and a failure changes nothing here.
  if (!hasLocalWrites(supplier)) {
    try {
      await callSupplier(supplier, options, transactions, (call) => supplier.cancel(stay, call));
    } catch (error) {
      if (error instanceof SupplierFailure) throw supplierFailureError(error);
      throw error;
    }
  }
  // One batch (one transaction): the rooms go back only while the booking is still live, then its status
  // changes. A failure keeps neither; of two concurrent cancels only one changes the row and gives rooms back.
  const live = {
    sql: "EXISTS (SELECT 1 FROM bookings WHERE reference = ? AND status = 'success')",
    params: [booking.reference],
  };
  const results = await deps.d1.batch([
    ...(hasLocalWrites(supplier) ? supplier.localWrites.cancelWrites(stay, live) : []),
    deps.d1
      .prepare(
        "UPDATE bookings SET status = 'cancelled', cancelled_at = ?1, cancel_price = ?2 WHERE reference = ?3 AND status = 'success'",
      )
      .bind(cancelledAt, cancelPrice, booking.reference),
  ]);
  if (results.at(-1)!.meta.changes !== 1) throw cannot("cancelled");
  await announceBookingChange(
    deps,
    bookingChangeOf("booking.cancelled", { ...booking, status: "cancelled", cancel_price: cancelPrice }),
    now,
  );
  return {
    status: "cancelled" as const,
    cancelledAt,
    cancelLocator: booking.supplier_reference,
    reference: {
      bookingReference: booking.reference,
      partnerReference: booking.partner_reference,
      hotelConfirmationNumber: booking.hotel_confirmation_number,
    },
    bookPrice: { currency: booking.currency, amount: booking.charge_total },
    cancelPrice: { currency: booking.currency, amount: cancelPrice },
    ...(transactions ? { providerTransactions: transactions } : {}),
  };
};
