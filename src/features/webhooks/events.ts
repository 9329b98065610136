import { and, asc, isNull, lte, eq, sql } from "drizzle-orm";
import { database, type Db } from "../../platform/db/client";
import type { PartnerEvent } from "./event-log";
import { webhookDeliveries } from "./tables";

/** What travels through the queue: a pointer; the body and secret are read from D1 at delivery. */
export type WebhookMessage = { eventId: string; endpointId: string };

/** The bindings that publishing an event needs (BookingDeps carries both). */
export type WebhookOutbox = { db: Db; webhookQueue: Queue<WebhookMessage> };

/** Deliveries recorded but not enqueued for this long are picked up by the upkeep task. */
export const REENQUEUE_AFTER_MS = 60_000;

const log = (level: "error" | "warn", message: string, fields: Record<string, unknown>) =>
  console[level](JSON.stringify({ level, message, ...fields }));

const pairKey = (m: WebhookMessage) => `${m.endpointId} ${m.eventId}`;

/**
 * Hands deliveries to the queue and marks them enqueued. A refusal is logged and left for the
 * upkeep task (the rows stay `enqueued_at is null`); it never throws. Returns how many were marked.
 */
export const enqueueDeliveries = async (
  db: Db,
  queue: Queue<WebhookMessage>,
  messages: WebhookMessage[],
  now: number,
): Promise<number> => {
  if (messages.length === 0) return 0;
  try {
    await queue.sendBatch(messages.map((body) => ({ body, contentType: "json" as const })));
  } catch (error) {
    log("warn", "webhook deliveries not enqueued; the upkeep task retries", {
      events: [...new Set(messages.map((m) => m.eventId))],
      error: String(error),
    });
    return 0;
  }
  const marked = await db
    .update(webhookDeliveries)
    .set({ enqueuedAt: new Date(now).toISOString() })
    .where(
      sql`(${webhookDeliveries.endpointId} || ' ' || ${webhookDeliveries.eventId}) IN (SELECT value FROM json_each(${JSON.stringify(messages.map(pairKey))}))`,
    )
    .returning({ eventId: webhookDeliveries.eventId });
  return marked.length;
};

/**
 * Once the batch that logged `event` has committed: hands its deliveries (recorded in that batch,
 * one per subscribed endpoint) to the queue. It never throws, so a webhook problem cannot fail the
 * change; what it could not enqueue the upkeep task `webhook-reenqueue` sends later. Partners
 * without a subscribed endpoint cost one indexed read.
 */
export const publishEvent = async (
  outbox: WebhookOutbox,
  event: Pick<PartnerEvent, "id" | "type" | "bookingReference">,
  now = Date.now(),
): Promise<void> => {
  try {
    const due = await outbox.db
      .select({ eventId: webhookDeliveries.eventId, endpointId: webhookDeliveries.endpointId })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.eventId, event.id), isNull(webhookDeliveries.enqueuedAt)));
    await enqueueDeliveries(outbox.db, outbox.webhookQueue, due, now);
  } catch (error) {
    log("error", "webhook deliveries not published", {
      type: event.type,
      eventId: event.id,
      bookingReference: event.bookingReference,
      error: String(error),
    });
  }
};

/** One Queue.sendBatch holds at most 100 messages. */
const REENQUEUE_BATCH = 100;

/** Upkeep: re-enqueues deliveries recorded but never accepted by the queue. Returns how many. */
export const webhookReenqueue = {
  name: "webhook-reenqueue",
  run: async (env: Env, now: Date): Promise<number> => {
    const db = database(env.DB);
    const due = await db
      .select({ eventId: webhookDeliveries.eventId, endpointId: webhookDeliveries.endpointId })
      .from(webhookDeliveries)
      // nextAttemptAt is when it was recorded (or redelivered): the grace runs from then.
      .where(
        and(
          isNull(webhookDeliveries.enqueuedAt),
          eq(webhookDeliveries.status, "pending"),
          lte(webhookDeliveries.nextAttemptAt, new Date(now.getTime() - REENQUEUE_AFTER_MS).toISOString()),
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(REENQUEUE_BATCH);
    return enqueueDeliveries(db, env.WEBHOOK_QUEUE as Queue<WebhookMessage>, due, now.getTime());
  },
};
