import type { z } from "@hono/zod-openapi";
import type { Db } from "../../platform/db/client";
import {
  eventWrites,
  newEvent,
  publishEvent,
  webhookOf,
  type EventType,
  type PartnerEvent,
  type WebhookOutbox,
} from "../webhooks";
import { toMajor } from "../../platform/money";
import { bookedRate } from "./booked-rate";
import { bookingChange, type bookingChangeSchema, bookingModified, roomsCancelled } from "./schemas";
import type { BookingRecord } from "./record";

/** A committed booking change, as partners receive it in an event's `data` (the rate itemized, as every read shows). */
export type BookingChange = z.infer<typeof bookingChangeSchema>;

/** The document's `webhooks`: each booking event and its `data`, for partners building an endpoint. */
export const bookingWebhooks = [
  webhookOf("booking.confirmed", bookingChange("success"), "Booked, at once or once pending settles."),
  webhookOf("booking.pending", bookingChange("pending"), "POST /api/book answered 202; confirmed or failed follows."),
  webhookOf("booking.failed", bookingChange("failed"), "A pending booking was not made."),
  webhookOf("booking.held", bookingChange("held", { chargeTotal: 0 }), "A hold (bookCriteria.hold): nothing charged."),
  webhookOf("booking.hold_expired", bookingChange("expired", { chargeTotal: 0 }), "A hold ran out uncommitted."),
  webhookOf("booking.committed", bookingChange("success"), "A hold committed, at the held price."),
  webhookOf("booking.modified", bookingModified, "A previewed change committed."),
  webhookOf("booking.room_cancelled", roomsCancelled, "Some rooms cancelled; the booking keeps the rest."),
  webhookOf("booking.cancelled", bookingChange("cancelled", { cancelPrice: 0 }), "Cancelled (a hold: released free)."),
];

/** The booking as it is after the change (what the event reports). */
export type ChangedBooking = Pick<
  BookingRecord,
  | "partnerId"
  | "reference"
  | "partnerReference"
  | "status"
  | "chargeTotalMinor"
  | "currency"
  | "accommodationCode"
  | "checkIn"
  | "checkOut"
  | "rate"
> & { cancelPriceMinor?: number | null };

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
    chargeTotal: toMajor(row.chargeTotalMinor, row.currency),
    currency: row.currency,
    accommodationCode: row.accommodationCode,
    checkIn: row.checkIn,
    checkOut: row.checkOut,
    rate: bookedRate(row),
    ...(type === "booking.cancelled" && row.cancelPriceMinor != null
      ? { cancelPrice: toMajor(row.cancelPriceMinor, row.currency) }
      : {}),
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
