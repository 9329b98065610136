import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { partners, timestamps } from "../../platform/db/schema";

export const connections = sqliteTable(
  "connections",
  {
    id: text("id").primaryKey(),
    code: integer("code").notNull().unique(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    apiType: text("api_type", { enum: ["public", "b2b", "cug", "mobile"] }).notNull(),
    connectionType: text("connection_type", { enum: ["direct", "tgx", "metasearch"] }).notNull(),
    rateName: text("rate_name"),
    rateLimit: integer("rate_limit").notNull(),
    rateLimitWindowMs: integer("rate_limit_window_ms").notNull(),
    netMarkups: real("net_markups").notNull().default(0),
    currentInUse: integer("current_in_use", { mode: "boolean" }).notNull().default(false),
    notificationEmail: text("notification_email"),
    ...timestamps,
  },
  (t) => [
    index("connections_partner").on(t.partnerId),
    // The database itself keeps at most one connection in use per partner, apiType and connectionType.
    uniqueIndex("connections_one_in_use").on(t.partnerId, t.apiType, t.connectionType).where(sql`current_in_use = 1`),
  ],
);

/**
 * A connection served by an upstream supplier instead of (or, with `with_embedded`, beside) the
 * embedded inventory. `sealed_credentials` is AES-GCM under UPSTREAM_CREDENTIALS_KEY, bound to the
 * connection id (secret-box), with a fresh IV on every write; the plain key is never stored.
 */
export const connectionUpstreams = sqliteTable("connection_upstreams", {
  connectionId: text("connection_id")
    .primaryKey()
    .references(() => connections.id, { onDelete: "cascade" }),
  kind: text("kind", { enum: ["hotelx"] }).notNull(),
  url: text("url").notNull(),
  client: text("client").notNull(),
  context: text("context").notNull(),
  sealedCredentials: text("sealed_credentials").notNull(),
  withEmbedded: integer("with_embedded", { mode: "boolean" }).notNull().default(false),
  // The supplier behind the access books in two steps (Hotel-X settings.commitRequired, then commit): holds are sold.
  twoStepBooking: integer("two_step_booking", { mode: "boolean" }).notNull().default(false),
  createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

export type Connection = typeof connections.$inferSelect;

/**
 * A connection's billable calls per UTC day, operation and outcome (`success` or the error code),
 * rolled up from its `ConnectionUsage` Durable Object at most once a minute (usage-counter.ts).
 * `supplier_timeouts`: the searches among them in which a supplier did not answer in time.
 */
export const connectionUsage = sqliteTable(
  "connection_usage",
  {
    // No foreign key: a partner's usage outlives a connection the operator deletes.
    connectionId: text("connection_id").notNull(),
    partnerId: text("partner_id").notNull(),
    date: text("date").notNull(),
    operation: text("operation").notNull(),
    outcome: text("outcome").notNull(),
    count: integer("count").notNull(),
    supplierTimeouts: integer("supplier_timeouts").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.connectionId, t.date, t.operation, t.outcome] }),
    index("connection_usage_partner_date").on(t.partnerId, t.date),
  ],
);

/**
 * Each roll-up a connection's usage object applied, by its sequence number: inserted in the batch
 * that adds the counts, so a roll-up retried after its batch committed breaks the key and adds nothing.
 */
export const connectionUsageRollups = sqliteTable(
  "connection_usage_rollups",
  {
    connectionId: text("connection_id").notNull(),
    seq: integer("seq").notNull(),
  },
  (t) => [primaryKey({ columns: [t.connectionId, t.seq] })],
);
