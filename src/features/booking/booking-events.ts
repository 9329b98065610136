import type { PartnerEvent, WebhookEventType } from "../webhooks";
import type { Rate } from "../supply";
import { bookedRate } from "./booked-rate";
import type { BookingRow } from "./tables";

/** A committed booking change, as partners receive it in an event's `data`. */
export type BookingChange = {
  bookingReference: string;
  partnerReference: string;
  status: string;
  chargeTotal: number;
  currency: string;
  accommodationCode: string;
  checkIn: string;
  checkOut: string;
  /** The booked rate, itemized (the breakdown every read shows). */
  rate: Rate;
  cancelPrice?: number;
};

/** The event announcing a change of a stored booking row. */
export const bookingChangeOf = (
  type: WebhookEventType,
  row: Pick<
    BookingRow,
    | "partnerId"
    | "reference"
    | "partnerReference"
    | "status"
    | "chargeTotal"
    | "currency"
    | "accommodationCode"
    | "checkIn"
    | "checkOut"
    | "cancelPrice"
    | "rate"
  >,
): PartnerEvent => {
  const data: BookingChange = {
    bookingReference: row.reference,
    partnerReference: row.partnerReference,
    status: row.status,
    chargeTotal: row.chargeTotal,
    currency: row.currency,
    accommodationCode: row.accommodationCode,
    checkIn: row.checkIn,
    checkOut: row.checkOut,
    rate: bookedRate(row),
    ...(type === "booking.cancelled" && row.cancelPrice !== null ? { cancelPrice: row.cancelPrice } : {}),
  };
  return { type, partnerId: row.partnerId, bookingReference: row.reference, data };
};
