import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { partners } from "../../platform/db/schema";
// A foreign key names the table itself (the one import of another room's tables.ts; lint allows it).
import { connections } from "../connections/tables";
import type { SqlRow } from "../../platform/db/sql-row";

/** Every status a booking can have (docs/api-decisions.md, "Issue 28: partial cancel and holds"). */
export const BOOKING_STATUSES = ["success", "cancelled", "pending", "failed", "held", "expired"] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const bookings = sqliteTable(
  "bookings",
  {
    reference: text("reference").primaryKey(),
    partnerId: text("partner_id")
      .notNull()
      .references(() => partners.id),
    connectionId: text("connection_id")
      .notNull()
      .references(() => connections.id),
    partnerReference: text("partner_reference").notNull(),
    // SHA-256 of the booking request's meaningful fields: a retry must match it.
    requestHash: text("request_hash").notNull(),
    // pending: the supplier's answer did not arrive; settled to success or failed by upkeep (settle-pending.ts).
    // held: rooms taken, nothing charged until commit (success) or hold_expires_at (expired; hold-expiry.ts).
    status: text("status", { enum: BOOKING_STATUSES }).notNull(),
    accommodationCode: text("accommodation_code").notNull(),
    accommodationName: text("accommodation_name").notNull(),
    timezone: text("timezone").notNull(),
    checkIn: text("check_in").notNull(),
    checkOut: text("check_out").notNull(),
    roomCode: text("room_code").notNull(),
    ratePlanCode: text("rate_plan_code").notNull(),
    // The upstream's own option id the booking was made with (Hotel-X optionRefId); null on the embedded inventory.
    upstreamOptionId: text("upstream_option_id"),
    // The upstream's access the option was sold through and its own booking id (Hotel-X accessCode and
    // bookingID): cancel sends the bookingID when known, else accessCode + hotel + references.
    upstreamAccessCode: text("upstream_access_code"),
    upstreamBookingId: text("upstream_booking_id"),
    roomCount: integer("room_count").notNull(),
    boardCode: text("board_code").notNull(),
    currency: text("currency").notNull(),
    // Money columns are integer minor units of `currency` (platform/money.ts); the record (record.ts) names them *Minor.
    chargeTotal: integer("charge_total").notNull(),
    // Who takes the money (issue 27): PayAtProperty charges nothing at booking (charge_total 0).
    paymentType: text("payment_type", { enum: ["MerchantPay", "PayAtProperty"] })
      .notNull()
      .default("MerchantPay"),
    // PayAtProperty: the guaranteeing saved card, masked (JSON { paymentMethodId, brand, last4 }); never card data.
    paymentCard: text("payment_card"),
    // JSON snapshots taken at booking time.
    rate: text("rate").notNull(),
    rooms: text("rooms").notNull(),
    cancelPolicy: text("cancel_policy"),
    holder: text("holder").notNull(),
    occupancies: text("occupancies").notNull(),
    // The supplier's code (suppliers.code; `embedded` for our own inventory): cancel, commit and settling go to it.
    supplier: text("supplier").notNull(),
    // The supplier's own hotel code for the accommodation (from its hotel map); null when it uses our codes.
    supplierHotelCode: text("supplier_hotel_code"),
    // The supplier's own reference of the booking ("" until it answers).
    supplierReference: text("supplier_reference").notNull(),
    hotelConfirmationNumber: text("hotel_confirmation_number"),
    createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
    cancelledAt: text("cancelled_at"),
    cancelPrice: integer("cancel_price"),
    // A hold (bookCriteria.hold): when its rooms go back unless committed first; null for a plain booking.
    holdExpiresAt: text("hold_expires_at"),
    // Bumped by every change of the row after booking (a room cancelled, a hold committed or expired):
    // each change is guarded on the version it was computed from, so two changes never mix.
    version: integer("version").notNull().default(1),
    // The quote booked (issue 28: a quote books once); null before that rule, and once a pending booking failed.
    quoteId: text("quote_id"),
    // The last change of the stay (POST /api/bookings/:ref/modifications); null until changed.
    modifiedAt: text("modified_at"),
    // The fees of its changes so far (a stay shortened inside a penalty window), in `currency`.
    modificationFees: integer("modification_fees").notNull().default(0),
    // The partner's words for the hotel (Hotel-X book `remarks`), sent to the supplier; null when none.
    remarks: text("remarks"),
  },
  (t) => [
    uniqueIndex("bookings_partner_reference").on(t.partnerId, t.partnerReference),
    // Of parallel books of one quote under different partnerReferences, one inserts its row; the rest break this.
    uniqueIndex("bookings_quote").on(t.quoteId),
    index("bookings_accommodation").on(t.accommodationCode, t.checkIn),
    // Reconciliation list: newest first per partner, keyset on (created_at, reference).
    index("bookings_partner_created").on(t.partnerId, t.createdAt, t.reference),
    // Holds by expiry, for the upkeep's sweep of holds whose alarm did not run.
    index("bookings_held_until").on(t.holdExpiresAt).where(sql`status = 'held'`),
  ],
);

export type BookingRow = typeof bookings.$inferSelect;
/** A bookings row as raw SQL returns it, keyed by column name (tests write fixture rows with raw SQL). */
export type RawBooking = SqlRow<typeof bookings>;

/**
 * Quotes, also kept here beside KV: KV is the fast path but eventually consistent between
 * locations, so a quote written at one location is found here when another location's KV misses.
 * `body` is the same JSON as the KV value; a row past `expires_at` (ms) counts as absent.
 */
export const quotes = sqliteTable(
  "quotes",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    expiresAt: integer("expires_at").notNull(),
    body: text("body").notNull(),
  },
  (t) => [index("quotes_expires_at").on(t.expiresAt)],
);

/**
 * Previews of a booking change, kept in D1 (a commit may reach another location than its preview):
 * `body` is the booking as the change makes it and its amounts (modification.ts), committed at most
 * once, only while the booking is still at `booking_version` and before `expires_at` (ISO).
 */
export const bookingModifications = sqliteTable(
  "booking_modifications",
  {
    id: text("id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    bookingReference: text("booking_reference").notNull(),
    bookingVersion: integer("booking_version").notNull(),
    expiresAt: text("expires_at").notNull(),
    body: text("body").notNull(),
    committedAt: text("committed_at"),
  },
  (t) => [index("booking_modifications_expires_at").on(t.expiresAt)],
);

/**
 * Each partner's live holds on the embedded inventory: how many and their room-nights, taken in the
 * hold's own batch and given back in the batch that commits, releases or expires it. A take past
 * the operator's limit (hold-limits.ts) writes -1, which breaks a CHECK and rolls the batch back.
 * `placed` and `committed` count every hold ever made and committed: the hold-to-commit ratio.
 */
export const partnerHolds = sqliteTable(
  "partner_holds",
  {
    partnerId: text("partner_id")
      .primaryKey()
      .references(() => partners.id),
    holds: integer("holds").notNull().default(0),
    roomNights: integer("room_nights").notNull().default(0),
    placed: integer("placed").notNull().default(0),
    committed: integer("committed").notNull().default(0),
  },
  (t) => [
    check("partner_holds_count_within_limit", sql`${t.holds} >= 0`),
    check("partner_holds_room_nights_within_limit", sql`${t.roomNights} >= 0`),
  ],
);

/**
 * The operator's hold limits (PUT /api/operator/hold-limits): one row, id 1; absent, the defaults
 * of hold-limits.ts apply.
 */
export const holdLimits = sqliteTable(
  "hold_limits",
  {
    id: integer("id").primaryKey(),
    maxHoldsPerPartner: integer("max_holds_per_partner").notNull(),
    maxHeldRoomNightsPerPartner: integer("max_held_room_nights_per_partner").notNull(),
    maxSharePercent: integer("max_share_percent").notNull(),
    shortHoldAfterDays: integer("short_hold_after_days").notNull(),
    shortHoldMaxMinutes: integer("short_hold_max_minutes").notNull(),
    noHoldAfterDays: integer("no_hold_after_days").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [check("hold_limits_one_row", sql`${t.id} = 1`)],
);
