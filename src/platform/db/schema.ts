import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const timestamps = {
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

export const accommodations = sqliteTable(
  "accommodations",
  {
    code: text("code").primaryKey(),
    name: text("name").notNull(),
    type: text("type").notNull(),
    country: text("country").notNull(),
    state: text("state").notNull(),
    city: text("city").notNull(),
    latitude: real("latitude").notNull(),
    longitude: real("longitude").notNull(),
    starRating: real("star_rating").notNull(),
    timezone: text("timezone").notNull(),
    // The whole section 4.1 document, served as stored.
    content: text("content").notNull(),
    // When the content last changed, on D1's clock; content deltas (changedSince) read it. Triggers
    // (migration content_deltas_custom) stamp every insert and every content update, whatever the
    // write path. The default only marks rows from before the column (and is inlined, not bound).
    updatedAt: text("updated_at").notNull().default(sql`'1970-01-01T00:00:00.000Z'`),
    // The geo grid cell of the position (geo-grid.ts), kept by triggers on every write (migration
    // geo_grid_custom). Not a generated column: SQLite does not read an index on one as covering.
    geoCell: integer("geo_cell"),
  },
  (t) => [
    // Keyset pagination: code order, optionally within one type or country.
    index("accommodations_type_code").on(t.type, t.code),
    index("accommodations_country_code").on(t.country, t.code),
    // Content deltas: keyset in change order.
    index("accommodations_updated").on(t.updatedAt, t.code),
    // Geo search counts and reads the cells near its centre from this index alone: a row of the table
    // carries the whole content document, so fetching rows by rowid cost more than the rest of the search.
    index("accommodations_geo_cell").on(
      t.geoCell,
      t.latitude,
      t.longitude,
      t.code,
      t.name,
      t.type,
      t.country,
      t.starRating,
      t.timezone,
    ),
  ],
);

export type Partner = typeof partners.$inferSelect;
export type User = typeof users.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type Connection = typeof connections.$inferSelect;
export type Accommodation = typeof accommodations.$inferSelect;

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
