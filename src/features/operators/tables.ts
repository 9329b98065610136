import { sql } from "drizzle-orm";
import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { connections } from "../../platform/db/schema";

/**
 * The operator's exchange rates: one row per currency, `per_base` units of it for one unit of
 * `base`; the base itself is a row with 1. A PUT replaces every row in one batch.
 */
export const exchangeRates = sqliteTable("exchange_rates", {
  currency: text("currency").primaryKey(),
  perBase: real("per_base").notNull(),
  base: text("base").notNull(),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

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
  createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});
