import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Failed logins per account (lower-cased e-mail, known or not, so the lockout says nothing about
 * which e-mails exist) and scope: `ip:<client ip>` locks one IP for that e-mail, `*` counts every IP
 * and only slows. D1 rather than KV: the counter must be read-your-write consistent.
 */
export const loginFailures = sqliteTable(
  "login_failure_counters",
  {
    email: text("email").notNull(),
    scope: text("scope").notNull(),
    failures: integer("failures").notNull(),
    // Epoch milliseconds.
    windowStartedAt: integer("window_started_at").notNull(),
    blockedUntil: integer("locked_until"),
    // The last attempt admitted to a password check: tells a reservation whether it got through.
    attemptId: text("attempt_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.email, t.scope] })],
);
