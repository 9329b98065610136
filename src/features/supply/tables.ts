import { sql } from "drizzle-orm";
import { check, foreignKey, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Sparse per-night state of one room type: a row exists only where a night differs from the
 * room type's derived default (see catalogue.ts). `allotment` is materialised from the default
 * when the row is first written, so the CHECK can refuse an oversell inside the booking batch.
 */
export const roomNights = sqliteTable(
  "room_nights",
  {
    accommodationCode: text("accommodation_code").notNull(),
    roomCode: text("room_code").notNull(),
    night: text("night").notNull(), // YYYY-MM-DD, the night starting that day
    allotment: integer("allotment").notNull(),
    sold: integer("sold").notNull().default(0),
    stopSell: integer("stop_sell", { mode: "boolean" }).notNull().default(false),
    // Nightly price of the room type before board and occupancy, in whole minor units of the
    // accommodation's currency (USD cents: the embedded inventory's); null = derived default.
    priceMinor: integer("price_minor"),
  },
  (t) => [
    primaryKey({ columns: [t.accommodationCode, t.roomCode, t.night] }),
    check("room_nights_sold_within_allotment", sql`${t.sold} >= 0 AND ${t.sold} <= ${t.allotment}`),
    check("room_nights_allotment_non_negative", sql`${t.allotment} >= 0`),
  ],
);

/**
 * Rooms of one type and night a partner holds (bookCriteria.hold), beside `room_nights`: a hold
 * takes its rooms here in the same batch as there, and a take past the partner's share of the
 * night's allotment writes -1, which breaks the CHECK and rolls the whole batch back (allotment.ts).
 */
export const roomNightHolds = sqliteTable(
  "room_night_holds",
  {
    partnerId: text("partner_id").notNull(),
    accommodationCode: text("accommodation_code").notNull(),
    roomCode: text("room_code").notNull(),
    night: text("night").notNull(),
    held: integer("held").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.partnerId, t.accommodationCode, t.roomCode, t.night] }),
    check("room_night_holds_within_share", sql`${t.held} >= 0`),
  ],
);

/** Sparse per-night overrides of one rate plan (stop-sell or an absolute nightly price). */
export const ratePlanNights = sqliteTable(
  "rate_plan_nights",
  {
    accommodationCode: text("accommodation_code").notNull(),
    ratePlanCode: text("rate_plan_code").notNull(),
    night: text("night").notNull(),
    stopSell: integer("stop_sell", { mode: "boolean" }).notNull().default(false),
    // Absolute nightly price of the plan, in whole minor units of the accommodation's currency (USD cents).
    priceMinor: integer("price_minor"),
  },
  (t) => [primaryKey({ columns: [t.accommodationCode, t.ratePlanCode, t.night] })],
);

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
 * The suppliers an operator sells through (issue 39): one row per supplier, its `kind` an entry of
 * the kind registry (kinds/registry.ts), which validates `settings` (never secrets). Credentials
 * are sealed (secret-box, purpose `upstream-credentials`, fresh IV on every write) bound to
 * `seal_binding`: the supplier's code, or for a supplier migrated from connection_upstreams the
 * connection id they were sealed under then (SQL cannot re-seal). `active` false: deleted while
 * bookings still name it, so they can still be cancelled; no connection can sell it again.
 */
export const suppliers = sqliteTable("suppliers", {
  code: text("code").primaryKey(),
  kind: text("kind").notNull(),
  name: text("name").notNull(),
  settings: text("settings").notNull().default("{}"),
  sealedCredentials: text("sealed_credentials"),
  sealBinding: text("seal_binding").notNull(),
  active: integer("active", { mode: "boolean" }).notNull().default(true),
  createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  updatedAt: text("updated_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
});

/**
 * Which of Edgestay's accommodations a supplier's hotel code is (issue 39's hotel map): one-to-one
 * both ways per supplier, the primary key one way and `supplier_hotel_map_accommodation` the other.
 * A search asks "these accommodations of these suppliers" through the latter.
 */
export const supplierHotelMap = sqliteTable(
  "supplier_hotel_map",
  {
    supplierCode: text("supplier_code").notNull(),
    supplierHotelCode: text("supplier_hotel_code").notNull(),
    accommodationCode: text("accommodation_code").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.supplierCode, t.supplierHotelCode] }),
    uniqueIndex("supplier_hotel_map_accommodation").on(t.supplierCode, t.accommodationCode),
    // A supplier erased (never one with bookings: that one is deactivated) takes its maps with it.
    foreignKey({
      columns: [t.supplierCode],
      foreignColumns: [suppliers.code],
      name: "supplier_hotel_map_supplier",
    }).onDelete("cascade"),
  ],
);

/** A supplier's board codes as ours; a board not here passes through under the supplier's code. */
export const supplierBoardMap = sqliteTable(
  "supplier_board_map",
  {
    supplierCode: text("supplier_code").notNull(),
    supplierBoardCode: text("supplier_board_code").notNull(),
    boardCode: text("board_code", { enum: ["RO", "BB", "HB", "FB", "AI"] }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.supplierCode, t.supplierBoardCode] }),
    foreignKey({
      columns: [t.supplierCode],
      foreignColumns: [suppliers.code],
      name: "supplier_board_map_supplier",
    }).onDelete("cascade"),
    check("supplier_board_map_board_code", sql`${t.boardCode} IN ('RO', 'BB', 'HB', 'FB', 'AI')`),
  ],
);

/**
 * A supplier's room codes of one of its hotels as the room codes of the accommodation that hotel
 * is mapped to (several of its rooms may be one of ours). Its rows go with their hotel's mapping:
 * deleted with it (the foreign key), and deleted when the hotel is mapped to another accommodation.
 */
export const supplierRoomMap = sqliteTable(
  "supplier_room_map",
  {
    supplierCode: text("supplier_code").notNull(),
    supplierHotelCode: text("supplier_hotel_code").notNull(),
    supplierRoomCode: text("supplier_room_code").notNull(),
    roomCode: text("room_code").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.supplierCode, t.supplierHotelCode, t.supplierRoomCode] }),
    foreignKey({
      columns: [t.supplierCode, t.supplierHotelCode],
      foreignColumns: [supplierHotelMap.supplierCode, supplierHotelMap.supplierHotelCode],
      name: "supplier_room_map_hotel",
    }).onDelete("cascade"),
  ],
);
