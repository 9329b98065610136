import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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

/**
 * The partner's event log (issue 28): one row per event (today every one a booking state change), appended in the change's own
 * batch, numbered by `sequence` (per partner, from `partner_event_sequences`, gap-free). `body` is the
 * event as `GET /api/events` lists it and every webhook endpoint receives it (signed), byte for byte.
 * The table keeps the name it had when only webhooks read it: deliveries point at its rows.
 */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    // 0 only on rows written before the log, until migration 0027 numbers them.
    sequence: integer("sequence").notNull().default(0),
    // A name of the event catalogue app.ts gives webhooks (booking's today); not a list of webhooks' own.
    type: text("type").notNull(),
    // Null for an event about no booking (none is declared yet).
    bookingReference: text("booking_reference"),
    partnerReference: text("partner_reference").notNull().default(""),
    body: text("body").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [
    index("webhook_events_partner").on(t.partnerId, t.createdAt),
    // Pages of the log, and the guarantee that no number is given twice.
    uniqueIndex("webhook_events_partner_sequence").on(t.partnerId, t.sequence),
    // One booking's events in order (GET /api/events?bookingReference=, the console's booking page).
    index("webhook_events_partner_booking").on(t.partnerId, t.bookingReference, t.sequence),
  ],
);

/** The last sequence given to each partner's events: kept when upkeep deletes old events, so none is reused. */
export const partnerEventSequences = sqliteTable("partner_event_sequences", {
  partnerId: text("partner_id")
    .primaryKey()
    .references(() => partners.id),
  lastSequence: integer("last_sequence").notNull(),
});

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
    // An event's deliveries: enqueued after its batch commits, and deleted with it (the cascade of retention).
    index("webhook_deliveries_event").on(t.eventId),
  ],
);

export type WebhookEndpoint = typeof webhookEndpoints.$inferSelect;
