import type { z } from "@hono/zod-openapi";
import type { Db } from "../../platform/db/client";
import {
  type EventCatalogue,
  eventWrites,
  newEvent,
  type PartnerEvent,
  publishEvent,
  type WebhookOutbox,
} from "../webhooks";
import { bookedRate } from "./booked-rate";
import { amountJson, rateJson } from "./wire";
import { bookingChange, type bookingChangeSchema, bookingModified, roomsCancelled } from "./schemas";
import type { BookingRecord } from "./record";

/** A committed booking change, as partners receive it in an event's `data` (the rate itemized, as every read shows). */
export type BookingChange = z.infer<typeof bookingChangeSchema>;

/**
 * Every booking event, once: its name, the schema and an example of its `data`, and what it means.
 * The document's `webhooks`, the event log's types (subscriptions, the `types` filter) and
 * `logBookingChange`'s typing all derive from it (app.ts hands it to webhooks), and every emitted
 * `data` is checked against its schema. A new booking event is an entry here and its emit call.
 */
export const bookingEvents = {
  "booking.confirmed": { ...bookingChange("success"), description: "Booked, at once or once pending settles." },
  "booking.pending": {
    ...bookingChange("pending"),
    description: "POST /api/book answered 202; confirmed or failed follows.",
  },
  "booking.failed": { ...bookingChange("failed"), description: "A pending booking was not made." },
  "booking.held": {
    ...bookingChange("held", { chargeTotal: 0 }),
    description: "A hold (bookCriteria.hold): nothing charged.",
  },
  "booking.hold_expired": {
    ...bookingChange("expired", { chargeTotal: 0 }),
    description: "A hold ran out uncommitted.",
  },
  "booking.committed": { ...bookingChange("success"), description: "A hold committed, at the held price." },
  "booking.modified": { ...bookingModified, description: "A previewed change committed." },
  "booking.room_cancelled": { ...roomsCancelled, description: "Some rooms cancelled; the booking keeps the rest." },
  "booking.cancelled": {
    ...bookingChange("cancelled", { cancelPrice: 0 }),
    description: "Cancelled (a hold: released free).",
  },
} satisfies EventCatalogue;

export type BookingEventType = keyof typeof bookingEvents;

/** What an event of `type` reports beside the booking: a modification's change and amounts, the rooms cancelled. */
type ExtraOf<T extends BookingEventType> = Omit<z.input<(typeof bookingEvents)[T]["payload"]>, keyof BookingChange>;
/** `extra` is required where the type declares more than the booking, and refused where it does not. */
type ExtraArgs<T extends BookingEventType> = [keyof ExtraOf<T>] extends [never] ? [] : [extra: ExtraOf<T>];

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
const bookingEvent = (
  type: BookingEventType,
  row: ChangedBooking,
  now: number,
  extra: Partial<z.input<(typeof bookingEvents)[BookingEventType]["payload"]>> = {},
): PartnerEvent => {
  const data: BookingChange = {
    bookingReference: row.reference,
    partnerReference: row.partnerReference,
    status: row.status,
    chargeTotal: amountJson(row.chargeTotalMinor, row.currency),
    currency: row.currency,
    accommodationCode: row.accommodationCode,
    checkIn: row.checkIn,
    checkOut: row.checkOut,
    rate: rateJson(bookedRate(row)),
    ...(type === "booking.cancelled" && row.cancelPriceMinor != null
      ? { cancelPrice: amountJson(row.cancelPriceMinor, row.currency) }
      : {}),
  };
  return newEvent(
    bookingEvents,
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
 * change; `extra` adds what the type's catalogue entry declares beside the booking (a modification's
 * `before` and `after`, the rooms cancelled): typed by `bookingEvents`, so a missing or wrong one does
 * not compile, and checked against its schema when the event is made (a mismatch throws before
 * anything is written). `announce`, once the batch has committed, hands the event to the partner's
 * webhook endpoints; it never throws.
 */
export const logBookingChange = <T extends BookingEventType>(
  db: Db,
  type: T,
  row: ChangedBooking,
  now: number,
  ...[extra]: ExtraArgs<T>
) => {
  const event = bookingEvent(type, row, now, extra);
  return {
    event,
    writes: eventWrites(db, event),
    announce: (outbox: WebhookOutbox) => publishEvent(outbox, event, now),
  };
};
