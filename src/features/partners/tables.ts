import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Failed logins per account (lower-cased e-mail, known or not, so the lockout says nothing about
 * which e-mails exist). D1 rather than KV: the counter must be read-your-write consistent.
 */
export const loginFailures = sqliteTable("login_failures", {
  email: text("email").primaryKey(),
  failures: integer("failures").notNull(),
  // Epoch milliseconds.
  windowStartedAt: integer("window_started_at").notNull(),
  lockedUntil: integer("locked_until"),
});
