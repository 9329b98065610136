import type { Db } from "../../platform/db/client";
import type { Rate } from "../supply";
import {
  eventWrites,
  newEvent,
  publishEvent,
  type EventType,
  type PartnerEvent,
  type WebhookOutbox,
} from "../webhooks";
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

/** The booking row as it is after the change (what the event reports). */
export type ChangedBooking = Pick<
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
  | "rate"
> & { cancelPrice?: number | null };

/** The event of a change of a booking row; `extra` adds what a type reports beside the booking. */
export const bookingEvent = (
  type: EventType,
  row: ChangedBooking,
  now: number,
  extra: Record<string, unknown> = {},
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
    ...(type === "booking.cancelled" && row.cancelPrice != null ? { cancelPrice: row.cancelPrice } : {}),
  };
  return newEvent(
    {
      type,
      partnerId: row.partnerId,
      bookingReference: row.reference,
      partnerReference: row.partnerReference,
      data: { ...data, ...extra },
    },
    now,
  );
};

/**
 * Records a booking state change in its partner's event log (issue 28), in the batch that makes it:
 *
 *     const logged = logBookingChange(db, "booking.cancelled", { ...booking, status: "cancelled" }, now);
 *     await db.batch([...inventoryWrites, guardedUpdateOfTheBooking, ...logged.writes]);
 *     await logged.announce(deps);
 *
 * `writes` go directly after the statement that changes the booking row (eventWrites): the event is
 * appended only when that statement changed a row, so a guarded update that lost a race to another
 * request logs nothing, and a batch that fails logs nothing. `row` is the booking as it is after the
 * change; `extra` adds type-specific data (a modification's `before` and `after`, the rooms
 * cancelled). `announce`, once the batch has committed, hands the event to the partner's webhook
 * endpoints; it never throws.
 */
export const logBookingChange = (
  db: Db,
  type: EventType,
  row: ChangedBooking,
  now: number,
  extra: Record<string, unknown> = {},
) => {
  const event = bookingEvent(type, row, now, extra);
  return {
    event,
    writes: eventWrites(db, event),
    announce: (outbox: WebhookOutbox) => publishEvent(outbox, event, now),
  };
};
