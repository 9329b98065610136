import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { partners } from "../../platform/db/schema";

/** Per-partner radar switch. No row means radar is on (the default). */
export const radarSettings = sqliteTable("radar_settings", {
  partnerId: text("partner_id")
    .primaryKey()
    .references(() => partners.id),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  // JSON array of origins allowed to post signals with the collector key; null or [] = any origin.
  allowedOrigins: text("allowed_origins"),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

/**
 * Browser signals, one row per post of a (partner, session id): the first post is the session's
 * signals; later ones are kept beside it, only to notice conflicts, never in its place. Kept in D1 rather than
 * KV: the check is read from the server right after the browser posted, possibly in another
 * location, and KV may not show a fresh write elsewhere for up to 60 s; D1 has one primary.
 */
export const radarSignals = sqliteTable(
  "radar_signals",
  {
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    sessionId: text("session_id").notNull(),
    // The validated 4.14 body as JSON (no unknown fields survive validation).
    signals: text("signals").notNull(),
    // Country of the browser's IP as the edge saw it (request.cf.country), null when unknown.
    ipCountry: text("ip_country"),
    // SHA-256 of the browser's IP (cf-connecting-ip), for IP velocity when the server sends none.
    ipHash: text("ip_hash"),
    receivedAt: text("received_at").notNull(),
    expiresAtMs: integer("expires_at_ms").notNull(),
  },
  (t) => [
    // Posts of a session in arrival order (received_at, then rowid).
    index("radar_signals_partner_session").on(t.partnerId, t.sessionId, t.receivedAt),
    index("radar_signals_expires").on(t.expiresAtMs),
  ],
);

/** Every risk check, with the digest of its inputs for later review. */
export const radarChecks = sqliteTable(
  "radar_checks",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    sessionId: text("session_id").notNull(),
    idempotencyKey: text("idempotency_key"),
    triggerEvent: text("trigger_event").notNull(),
    decision: text("decision", { enum: ["deny", "allow", "bypass"] }).notNull(),
    radarResult: text("radar_result").notNull(),
    score: integer("score").notNull(),
    // JSON array of { code, weight, message }.
    reasons: text("reasons").notNull(),
    shouldHideRate: integer("should_hide_rate", { mode: "boolean" }).notNull(),
    billable: integer("billable", { mode: "boolean" }).notNull(),
    // SHA-256 of the canonical JSON of the validated request, the merged signals and the caller.
    inputDigest: text("input_digest").notNull(),
    // The validated inputs themselves (no card fields exist in the schema), for review.
    inputs: text("inputs").notNull(),
    // Identities used by the velocity rules; e-mail and IP only as SHA-256.
    visitorId: text("visitor_id"),
    // SHA-256 of the visitor id with the browser's IP (or the partner's booker id): a visitor id
    // alone is whatever the page posted, so device rules never key on it by itself.
    deviceKey: text("device_key"),
    emailHash: text("email_hash"),
    ipHash: text("ip_hash"),
    checkedAt: text("checked_at").notNull(),
    checkedAtMs: integer("checked_at_ms").notNull(),
    // When the personal values in `inputs` were replaced by keyed hashes (retention) or erased.
    piiRemovedAt: integer("pii_removed_at"),
  },
  (t) => [
    // Which key a check ran under, for review; replays are platform/idempotency's job (keys expire after 24 hours).
    index("radar_checks_idempotency").on(t.partnerId, t.idempotencyKey),
    index("radar_checks_device").on(t.partnerId, t.deviceKey, t.checkedAtMs),
    index("radar_checks_email").on(t.partnerId, t.emailHash, t.checkedAtMs),
    index("radar_checks_ip").on(t.partnerId, t.ipHash, t.checkedAtMs),
    index("radar_checks_email_any_partner").on(t.emailHash),
    index("radar_checks_pii_retention").on(t.checkedAtMs).where(sql`pii_removed_at is null`),
  ],
);

export type RadarCheckRow = typeof radarChecks.$inferSelect;
