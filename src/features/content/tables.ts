import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

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

export type Accommodation = typeof accommodations.$inferSelect;

/**
 * An operator's taxes and fees of an accommodation (PUT /api/inventory/{code}/fees), replacing
 * the derived defaults (fee-schedule.ts) as a whole. `schedule`: `{ mandatory, optional }` JSON.
 */
export const accommodationFees = sqliteTable("accommodation_fees", {
  accommodationCode: text("accommodation_code")
    .primaryKey()
    .references(() => accommodations.code),
  schedule: text("schedule").notNull(),
  updatedAt: text("updated_at").notNull(),
});
