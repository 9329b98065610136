import { eq } from "drizzle-orm";
import { ApiError } from "../../platform/http/api-error";
import {
  hasLocalWrites,
  SupplierFailure,
  type BookedStay,
  type CancelPolicy,
  type ProviderTransaction,
  type Supplier,
  callSupplier,
  supplierFailureError,
  type SupplyOptions,
} from "../supply";
import { localDate } from "../../platform/time/zoned-time";
import { logBookingChange } from "./booking-events";
import { markCancelled, stillLive } from "./live-booking";
import type { BookingDeps } from "./deps";
import { type BookingRow, bookings } from "./tables";

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
export const isOnOrAfterCheckIn = (booking: Pick<BookingRow, "timezone" | "checkIn">, now: number) =>
  localDate(now, booking.timezone) >= booking.checkIn;

/** How a cancel reaches the supplier, and `settings.currency` as sent (must be the booking's when present). */
export type CancelOptions = SupplyOptions & { currency?: string };

/** POST /api/cancel, with the rules of sections 3.1, 4.6 and 7 in that order. */
export const cancelBooking = async (
  deps: BookingDeps,
  partnerId: string,
  bookingReference: string,
  now = Date.now(),
  options: CancelOptions = {},
) => {
  const booking = await deps.db.select().from(bookings).where(eq(bookings.reference, bookingReference)).get();
  if (!booking) throw new ApiError("booking_not_found", `Booking not found with bookingReference: ${bookingReference}`);
  if (booking.partnerId !== partnerId)
    throw new ApiError("booking_not_owned", "This booking does not belong to the current partner");
  // The prices of a cancel are the booking's: another currency would be a conversion nobody agreed to.
  const currency = options.currency;
  if (currency !== undefined && currency !== booking.currency)
    throw new ApiError("currency_mismatch", "Currency mismatch", {
      bookingCurrency: booking.currency,
      requestedCurrency: currency,
    });
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
  const policy = parsePolicy(booking.cancelPolicy);
  if (!policy) throw new ApiError("cancel_policy_not_found", "Cancellation policy not found for this booking");
  if (!policy.refundable)
    throw new ApiError("not_refundable", "This booking is not refundable according to the cancellation policy");

  const cancelPrice = cancelPenaltyAt(policy, now);
  const cancelledAt = new Date(now).toISOString();
  const supplier = await supplierOfBooking(deps, booking.supplier);
  const stay: BookedStay = {
    accommodationCode: booking.accommodationCode,
    roomCode: booking.roomCode,
    ratePlanCode: booking.ratePlanCode,
    checkIn: booking.checkIn,
    checkOut: booking.checkOut,
    roomCount: booking.roomCount,
    supplierReference: booking.supplierReference,
    clientReference: booking.reference,
    ...(booking.upstreamAccessCode ? { upstreamAccessCode: booking.upstreamAccessCode } : {}),
    upstreamBookingId: booking.upstreamBookingId,
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
  const db = deps.db;
  const cancelled = markCancelled(db, booking.reference, cancelledAt, cancelPrice);
  const giveBacks = hasLocalWrites(supplier)
    ? supplier.localWrites.cancelWrites(stay, stillLive(db, booking.reference))
    : [];
  const logged = logBookingChange(db, "booking.cancelled", { ...booking, status: "cancelled", cancelPrice }, now);
  const results = await db.batch([...giveBacks, cancelled, ...logged.writes] as [typeof cancelled]);
  if ((results[giveBacks.length] as Awaited<typeof cancelled>).length !== 1) throw cannot("cancelled");
  await logged.announce(deps);
  return {
    status: "cancelled" as const,
    cancelledAt,
    cancelLocator: booking.supplierReference,
    reference: {
      bookingReference: booking.reference,
      partnerReference: booking.partnerReference,
      hotelConfirmationNumber: booking.hotelConfirmationNumber,
    },
    bookPrice: { currency: booking.currency, amount: booking.chargeTotal },
    cancelPrice: { currency: booking.currency, amount: cancelPrice },
    ...(transactions ? { providerTransactions: transactions } : {}),
  };
};
