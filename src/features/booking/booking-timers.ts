import { loggableError } from "../../platform/observability/loggable-error";
import { bookingByReference } from "./bookings";
import { bookingDeps, type BookingDeps } from "./deps";
import { settleBooking } from "./settle-pending";

/** The queue of booking timers (wrangler.toml): delayed messages that come back to a booking later. */
export const BOOKING_TIMERS_QUEUE = "edgestay-booking-timers";

/**
 * A booking to look at again. `settle-pending`: ask the supplier of a pending booking about it, as
 * attempt `attempt` of SETTLE_SCHEDULE_MINUTES. (Another kind, such as a hold's expiry, adds its
 * own variant and its case in `onTimer`.)
 */
export type BookingTimer = { kind: "settle-pending"; reference: string; attempt: number };

/**
 * When a booking answered pending (the supplier's answer was lost, or it is not confirmed yet) is
 * asked about, in minutes after it was answered; after the last, the hourly upkeep
 * (`settle-pending-bookings`) goes on asking.
 */
export const SETTLE_SCHEDULE_MINUTES = [1, 2, 5, 10, 30] as const;

/** The wait before attempt `attempt` (from 1): from the previous attempt, or from the answer for the first. */
export const settleDelaySeconds = (attempt: number): number =>
  ((SETTLE_SCHEDULE_MINUTES[attempt - 1] ?? 0) - (SETTLE_SCHEDULE_MINUTES[attempt - 2] ?? 0)) * 60;

const log = (level: "warn" | "error", event: string, fields: Record<string, unknown>) =>
  console[level](JSON.stringify({ level, event, ...fields }));

/**
 * Asks for attempt `attempt` of the schedule about a pending booking (nothing past the last). It
 * never throws: a timer the queue refuses leaves the booking to the hourly upkeep, as before.
 */
export const scheduleSettling = async (
  timers: Queue<BookingTimer>,
  reference: string,
  attempt: number,
): Promise<void> => {
  if (attempt > SETTLE_SCHEDULE_MINUTES.length) return;
  try {
    await timers.send(
      { kind: "settle-pending", reference, attempt },
      { contentType: "json", delaySeconds: settleDelaySeconds(attempt) },
    );
  } catch (error) {
    log("warn", "settle_timer_not_enqueued", { reference, attempt, error: String(error) });
  }
};

/** One timer: a booking still pending is asked about; unsettled, the next attempt is scheduled. */
const onTimer = async (deps: BookingDeps, timer: BookingTimer, now: number) => {
  if (timer?.kind !== "settle-pending") return log("warn", "booking_timer_unknown", { timer });
  const booking = await bookingByReference(deps.db, timer.reference);
  // Settled meanwhile (by an earlier timer or the upkeep), or gone: nothing to do.
  if (booking?.status !== "pending") return;
  if (await settleBooking(deps, booking, now)) return;
  await scheduleSettling(deps.timers, booking.reference, timer.attempt + 1);
};

/** The Worker's queue handler for BOOKING_TIMERS_QUEUE: each message in turn, acknowledged once handled. */
export const runBookingTimers = async (batch: MessageBatch<BookingTimer>, env: Env): Promise<void> => {
  const deps = bookingDeps(env);
  for (const message of batch.messages) {
    try {
      await onTimer(deps, message.body, Date.now());
      message.ack();
    } catch (error) {
      // D1 itself failed: the queue tries again; past its retries the upkeep still settles the booking.
      log("error", "booking_timer_failed", { timer: message.body, error: loggableError(error, { stack: false }) });
      message.retry({ delaySeconds: 60 });
    }
  }
};
