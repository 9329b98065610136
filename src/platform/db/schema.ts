import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const timestamps = {
  createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
};

export const partners = sqliteTable("partners", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
  // SHA-256 of the browser-safe radar collector key; the key itself is never stored.
  collectorKeyHash: text("collector_key_hash").unique(),
  ...timestamps,
});

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    email: text("email").notNull(),
    // PBKDF2-SHA-256 of the MD5 string the client sends; see platform/crypto/password.ts.
    passwordHash: text("password_hash").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    phoneNumber: text("phone_number"),
    role: text("role", { enum: ["admin", "user"] }).notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    ...timestamps,
  },
  (t) => [uniqueIndex("users_partner_email").on(t.partnerId, t.email), index("users_email").on(t.email)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    // SHA-256 hex of the key; the key is shown once at creation and never stored.
    keyHash: text("key_hash").notNull().unique(),
    // First characters of the key, kept to show a masked key in lists.
    keyPrefix: text("key_prefix").notNull(),
    name: text("name"),
    createdAt: timestamps.createdAt,
    revokedAt: text("revoked_at"),
  },
  (t) => [index("api_keys_partner").on(t.partnerId)],
);

export type Partner = typeof partners.$inferSelect;
export type User = typeof users.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;

/**
 * `Idempotency-Key` reservations and stored answers (platform/idempotency). The primary key is the
 * reservation: of many parallel requests with one key, one insert wins and does the work.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    // The operation, e.g. "book", "radar_check", "chat_event:<sessionId>".
    scope: text("scope").notNull(),
    partnerId: text("partner_id").notNull(),
    key: text("key").notNull(),
    // SHA-256 of the canonical JSON of the request: the same key must come with the same request.
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["running", "done"] }).notNull(),
    // Random per reservation, so only its owner completes or releases it.
    token: text("token").notNull(),
    // While running: past this, the owner is presumed dead and a retry of the same request may take over.
    lockedUntilMs: integer("locked_until_ms").notNull(),
    // When done: the answer, replayed as it was (status, and the body or the error).
    status: integer("status"),
    answer: text("answer"),
    expiresAtMs: integer("expires_at_ms").notNull(),
    createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (t) => [primaryKey({ columns: [t.scope, t.partnerId, t.key] }), index("idempotency_keys_expires").on(t.expiresAtMs)],
);
