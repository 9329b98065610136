import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Saved cards of a partner's end user (actor). Only the processor token and what a person needs
 * to recognise the card are kept: brand, last four digits and expiry. Never a card number or CVC.
 */
export const paymentMethods = sqliteTable(
  "payment_methods",
  {
    partnerId: text("partner_id").notNull(),
    actorId: text("actor_id").notNull(),
    paymentMethodId: text("payment_method_id").notNull(),
    brand: text("brand").notNull(),
    last4: text("last4").notNull(),
    expMonth: integer("exp_month").notNull(),
    expYear: integer("exp_year").notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.actorId, t.paymentMethodId] })],
);

/** One-time card-setup tokens behind a chat setupUrl: only the SHA-256 of the token is stored. */
export const paymentSetupTokens = sqliteTable(
  "payment_setup_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    partnerId: text("partner_id").notNull(),
    actorId: text("actor_id").notNull(),
    sessionId: text("session_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    // Set when a newer link is issued to the same actor: only the newest link works.
    replacedAt: integer("replaced_at"),
  },
  (t) => [index("payment_setup_tokens_expiry").on(t.expiresAt)],
);
