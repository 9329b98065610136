import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { partners } from "../../platform/db/schema";

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`;

/** A partner's webhook endpoint. The signing secret is kept sealed (AES-GCM), never in clear. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    url: text("url").notNull(),
    // JSON array of subscribed event types.
    events: text("events").notNull(),
    // `v1.<iv>.<ciphertext>` from platform/crypto/secret-box.ts, bound to this row's id.
    sealedSecret: text("sealed_secret").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("webhook_endpoints_partner").on(t.partnerId)],
);

/** One booking change, with the exact JSON body every endpoint receives (and is signed). */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    type: text("type", { enum: ["booking.confirmed", "booking.cancelled"] }).notNull(),
    bookingReference: text("booking_reference").notNull(),
    body: text("body").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [index("webhook_events_partner").on(t.partnerId, t.createdAt)],
);

/** One event for one endpoint: its attempts and where it stands. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: text("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    // pending: waiting for (another) attempt; delivered: a 2xx came back; failed: parked in the dead-letter queue.
    status: text("status", { enum: ["pending", "delivered", "failed"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    lastAttemptAt: text("last_attempt_at"),
    nextAttemptAt: text("next_attempt_at"),
    // Null until the queue accepted the message; the re-enqueue upkeep task picks these up.
    enqueuedAt: text("enqueued_at"),
    deliveredAt: text("delivered_at"),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.endpointId, t.eventId] }),
    // Newest-first keyset pages per endpoint.
    index("webhook_deliveries_endpoint_page").on(t.endpointId, t.createdAt, t.eventId),
    // The re-enqueue upkeep task's scan: pending deliveries the queue never accepted.
    index("webhook_deliveries_not_enqueued").on(t.nextAttemptAt).where(sql`enqueued_at is null and status = 'pending'`),
  ],
);

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
export type WebhookEventType = (typeof webhookEvents.$inferSelect)["type"];
export const WEBHOOK_EVENT_TYPES = [
  "booking.confirmed",
  "booking.cancelled",
] as const satisfies readonly WebhookEventType[];
