// Raw SQL: FTS5 name search, the geo grid walk and the batched search read (one D1 batch with the night overrides)
import { eq } from "drizzle-orm";
import { database } from "../../platform/db/client";
import { CELLS_PER_DEGREE, GRID_COLUMNS, gridCell, gridRowOf } from "../../platform/db/geo-grid";
import { accommodations } from "../../platform/db/schema";
import type { SqlRow } from "../../platform/db/sql-row";
import type { AccommodationSelection, SupplyAccommodation } from "../supply/supplier";

/**
 * A selection as SQL over our own D1, so that the embedded inventory can read the accommodations
 * and their night overrides in one round trip.
 */
export type SqlSelection = {
  /** SELECT of accommodation rows; `finish` turns them into the accommodations to price, in result order. */
  sql: string;
  /** The codes of the same rows (a superset does no harm), usable as `code IN (...)`. */
  codesSql: string;
  params: unknown[];
  finish: (rows: unknown[]) => SupplyAccommodation[];
};

type Row = Pick<
  SqlRow<typeof accommodations>,
  "code" | "name" | "type" | "country" | "latitude" | "longitude" | "star_rating" | "timezone"
>;

const COLUMNS = "a.code, a.name, a.type, a.country, a.latitude, a.longitude, a.star_rating, a.timezone";

const toAccommodation = (r: Row): SupplyAccommodation => ({
  code: r.code,
  name: r.name,
  type: r.type,
  country: r.country,
  latitude: r.latitude,
  longitude: r.longitude,
  starRating: r.star_rating,
  timezone: r.timezone,
});

const read = async (d1: D1Database, selection: SqlSelection): Promise<SupplyAccommodation[]> =>
  selection.finish(
    (
      await d1
        .prepare(selection.sql)
        .bind(...selection.params)
        .all()
    ).results,
  );

/** Accommodations by code, in the order asked, unknown codes skipped: one statement for 1 to 1,000 codes. */
export const byCodes = (codes: string[]): SqlSelection => {
  const unique = [...new Set(codes)];
  return {
    sql: `SELECT ${COLUMNS} FROM accommodations a WHERE a.code IN (SELECT value FROM json_each(?1))`,
    codesSql: "SELECT value FROM json_each(?1)",
    params: [JSON.stringify(unique)],
    finish(rows) {
      const byCode = new Map((rows as Row[]).map((r) => [r.code, toAccommodation(r)]));
      return unique.flatMap((c) => byCode.get(c) ?? []);
    },
  };
};

export const accommodationsByCodes = (d1: D1Database, codes: string[]) => read(d1, byCodes(codes));

/** The accommodations of our content index a selection names (an upstream is asked for their codes). */
export const accommodationsOf = (d1: D1Database, selection: AccommodationSelection) =>
  read(d1, sqlSelectionOf(selection));

export const accommodationByCode = async (d1: D1Database, code: string): Promise<SupplyAccommodation | null> => {
  const { name, type, country, latitude, longitude, starRating, timezone } = accommodations;
  const found = await database(d1)
    .select({ code: accommodations.code, name, type, country, latitude, longitude, starRating, timezone })
    .from(accommodations)
    .where(eq(accommodations.code, code))
    .get();
  return found ?? null;
};

const EARTH_RADIUS_KM = 6371.0088;
const toRad = (deg: number) => (deg * Math.PI) / 180;

export const haversineKm = (lat1: number, lng1: number, lat2: number, lng2: number): number => {
  const dLat = toRad(lat2 - lat1);
  const dLng = toRad(lng2 - lng1);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(lat1)) * Math.cos(toRad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
};

// haversineKm in SQL, from the centre at ?2 (latitude), ?3 (longitude). D1 allows these math functions, not power().
const rad = (deg: string) => `((${deg}) * pi() / 180)`;
const squaredSinHalf = (deg: string) => `(sin(${rad(deg)} / 2) * sin(${rad(deg)} / 2))`;
// The same formula with the same order of operations as haversineKm.
const DISTANCE_SQL = `2 * ${EARTH_RADIUS_KM} * asin(min(1, sqrt(${squaredSinHalf("a.latitude - ?2")} + cos(${rad("?2")}) * cos(${rad("a.latitude")}) * ${squaredSinHalf("a.longitude - ?3")})))`;

/**
 * The cells to read, nearest first (?1: `[[cell, nearKm, farKm], ...]`), and `reach`: how far
 * the walk must go. Counting cell by cell in that order (from the index alone), the cells up to
 * the one where `?5` hotels are reached hold at least that many hotels, all within the farthest
 * `farKm` of them; so the nearest `?5` lie within that distance, in cells whose `nearKm` is no
 * more. Without enough hotels in the radius, every cell listed is read.
 */
const CELL_WALK = `WITH cells(cell, near, far) AS (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?1)),
  counted AS (SELECT near, far, (SELECT count(*) FROM accommodations n WHERE n.geo_cell = cells.cell) AS hotels FROM cells),
  walked AS (SELECT sum(hotels) OVER running AS found, max(far) OVER running AS bound FROM counted WINDOW running AS (ORDER BY near, far ROWS UNBOUNDED PRECEDING)),
  reach(km) AS (SELECT coalesce((SELECT min(bound) FROM walked WHERE found >= ?5), ?4))`;
// CROSS JOIN keeps the cells as the outer loop, so each is one seek of the cell index.
const cellRows = (columns: string) =>
  `${CELL_WALK} SELECT ${columns} FROM cells c CROSS JOIN accommodations a ON a.geo_cell = c.cell WHERE c.near <= (SELECT km FROM reach)`;
const GEO_SQL = `SELECT ${COLUMNS} FROM (${cellRows(`${COLUMNS}, ${DISTANCE_SQL} AS distance`)}) a WHERE a.distance <= ?4 ORDER BY a.distance, a.code LIMIT ?5`;

/** Beyond this many cells (a large radius near a pole) the search reads whole grid rows instead. */
const MAX_CELLS = 20_000;
// Whole rows of the grid (?1 first cell, ?6 last cell): every longitude of a latitude band.
const BAND_SQL = `SELECT ${COLUMNS} FROM (SELECT ${COLUMNS}, ${DISTANCE_SQL} AS distance FROM accommodations a WHERE a.geo_cell BETWEEN ?1 AND ?6) a WHERE a.distance <= ?4 ORDER BY a.distance, a.code LIMIT ?5`;

/** The cells a circle may touch, each with a lower and an upper bound of its distance from the centre. */
const cellsNear = (
  lat: number,
  lng: number,
  radiusKm: number,
  dLat: number,
  dLng: number,
): Array<[number, number, number]> | null => {
  const rows = [gridRowOf(Math.max(-90, lat - dLat)), gridRowOf(Math.min(90, lat + dLat))] as const;
  const first = Math.floor((lng - dLng + 180) * CELLS_PER_DEGREE);
  const last = Math.floor((lng + dLng + 180) * CELLS_PER_DEGREE);
  const columns = Math.min(GRID_COLUMNS, last - first + 1);
  if ((rows[1] - rows[0] + 1) * columns > MAX_CELLS) return null;
  const size = 1 / CELLS_PER_DEGREE;
  const cells: Array<[number, number, number]> = [];
  for (let row = rows[0]; row <= rows[1]; row++) {
    const south = row * size - 90;
    for (let k = 0; k < columns; k++) {
      // Columns wrap at the antimeridian.
      const column = (((first + k) % GRID_COLUMNS) + GRID_COLUMNS) % GRID_COLUMNS;
      const west = column * size - 180;
      const midLat = south + size / 2;
      const midLng = west + size / 2;
      // Every point of a cell lies within its half-diagonal of its middle (the triangle inequality
      // gives both bounds); the margin covers rounding at the cell's edges.
      const toMiddle = haversineKm(lat, lng, midLat, midLng);
      const halfDiagonal =
        Math.max(haversineKm(midLat, midLng, south, west), haversineKm(midLat, midLng, south + size, west)) * 1.001 +
        1e-6;
      const near = Math.max(0, toMiddle - halfDiagonal);
      if (near > radiusKm) continue;
      cells.push([gridCell(row, column), near, toMiddle + halfDiagonal]);
    }
  }
  return cells.sort((a, b) => a[1] - b[1]);
};

// Metres are enough: `near` rounded down and `far` up keep both bounds true, and the list short.
const cellsJson = (cells: Array<[number, number, number]>) =>
  `[${cells.map(([cell, near, far]) => `[${cell},${(Math.floor(near * 1000) / 1000).toFixed(3)},${(Math.ceil(far * 1000) / 1000).toFixed(3)}]`).join(",")}]`;

/**
 * Nearest first within radiusKm, at a cost that follows the answer: the grid cells the circle
 * touches are counted nearest first from the cell index, only those that can hold the nearest
 * `limit` hotels are read, and the exact great-circle distance filters, orders and limits them
 * inside SQLite, so only the hotels returned leave D1.
 */
export const near = (lat: number, lng: number, radiusKm: number, limit: number): SqlSelection => {
  const dLat = radiusKm / 111.0;
  const cosLat = Math.cos(toRad(lat));
  // Near a pole the longitude span covers everything.
  const dLng = cosLat < 1e-6 ? 180 : Math.min(180, radiusKm / (111.32 * cosLat));
  const cells = cellsNear(lat, lng, radiusKm, dLat, dLng);
  if (!cells) {
    const band = [
      gridCell(gridRowOf(Math.max(-90, lat - dLat)), 0),
      gridCell(gridRowOf(Math.min(90, lat + dLat)), GRID_COLUMNS - 1),
    ] as const;
    return {
      sql: BAND_SQL,
      codesSql: "SELECT a.code FROM accommodations a WHERE a.geo_cell BETWEEN ?1 AND ?6",
      params: [band[0], lat, lng, radiusKm, limit, band[1]],
      finish: (rows) => (rows as Row[]).map(toAccommodation),
    };
  }
  return {
    sql: GEO_SQL,
    // The cells the walk reads (a superset of the answer).
    codesSql: cellRows("a.code"),
    params: [cellsJson(cells), lat, lng, radiusKm, limit],
    finish: (rows) => (rows as Row[]).map(toAccommodation),
  };
};

export const NAME_SEARCH_LIMIT = 1000;

/** An FTS5 string literal: the whole input as one quoted phrase, quotes doubled. */
const ftsPhrase = (text: string) => `"${text.replace(/"/g, '""')}"`;

export const nameSearchSql = (length: number, columns = COLUMNS) => {
  const index = length >= 3 ? "accommodation_name_trigrams" : "accommodation_name_words";
  return `SELECT ${columns} FROM ${index} f JOIN accommodations a ON a.rowid = f.rowid WHERE ${index} MATCH ?1 ORDER BY a.code LIMIT ${NAME_SEARCH_LIMIT}`;
};

/**
 * Case-insensitive partial match on the name through an FTS5 index: any substring of 3+
 * characters (trigram index), or a word starting with a 2-character query (prefix index).
 */
export const named = (name: string): SqlSelection => {
  // FTS5 reads a NUL as the end of its query (a syntax error); no name holds a control character.
  const text = name.replace(/\p{Cc}+/gu, " ").trim();
  if (text.length < 2) {
    const none = (columns: string) => `SELECT ${columns} FROM accommodations a WHERE 0`;
    return { sql: none(COLUMNS), codesSql: none("a.code"), params: [], finish: () => [] };
  }
  return {
    sql: nameSearchSql(text.length),
    codesSql: nameSearchSql(text.length, "a.code"),
    params: [text.length >= 3 ? ftsPhrase(text) : `${ftsPhrase(text)}*`],
    finish: (rows) => (rows as Row[]).map(toAccommodation),
  };
};

/** How our own D1 reads a selection. */
export const sqlSelectionOf = (selection: AccommodationSelection): SqlSelection => {
  switch (selection.kind) {
    case "codes":
      return byCodes(selection.codes);
    case "geo":
      return near(selection.lat, selection.lng, selection.radiusKm, selection.limit);
    case "name":
      return named(selection.query);
  }
};
