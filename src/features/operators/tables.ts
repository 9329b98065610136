import { sql } from "drizzle-orm";
import { real, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
