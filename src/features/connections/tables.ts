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
    // What every answer sells in unless the request names another currency (ISO 4217).
    currency: text("currency").notNull().default("USD"),
    ...timestamps,
  },
  (t) => [
    index("connections_partner").on(t.partnerId),
    // The database itself keeps at most one connection in use per partner, apiType and connectionType.
    uniqueIndex("connections_one_in_use").on(t.partnerId, t.apiType, t.connectionType).where(sql`current_in_use = 1`),
  ],
);

/**
 * The suppliers a connection sells (issue 39), in order of preference (`position`, from 0). No row
 * at all: the embedded inventory alone, so an embedded-only connection is read without a join row.
 * Here rather than in supply because the connection is read in the API key's batch (access.ts),
 * and a room below supply cannot name supply's table: `supplier_code` has no foreign key, supply
 * checks it on every write and refuses to delete a supplier a connection still sells.
 */
export const connectionSuppliers = sqliteTable(
  "connection_suppliers",
  {
    connectionId: text("connection_id")
      .notNull()
      .references(() => connections.id, { onDelete: "cascade" }),
    supplierCode: text("supplier_code").notNull(),
    position: integer("position").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.connectionId, t.supplierCode] }),
    index("connection_suppliers_supplier").on(t.supplierCode),
  ],
);

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
