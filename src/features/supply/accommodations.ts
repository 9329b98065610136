// Raw SQL: FTS5 name search, the geo grid walk and the selection a search reads (one statement with the night overrides)
import type { Db } from "../../platform/db/client";
import { CELLS_PER_DEGREE, GRID_COLUMNS, gridCell, gridRowOf } from "./geo-grid";
import { accommodationFacts, type AccommodationColumns } from "../content";
import type { AccommodationSelection, SupplyAccommodation } from "./supplier";

/**
 * A selection as SQL over our own D1, so that the embedded inventory can read the accommodations
 * and their night overrides in one statement.
 */
export type SqlSelection = {
  /**
   * A WITH clause whose last table, `hits`, is materialized once: the selected accommodations
   * (HIT_COLUMNS) and `seq`, their order in the answer.
   */
  hits: string;
  params: unknown[];
  /** The accommodations alone, in answer order. */
  sql: string;
};

/** What a hit carries, by column name (the night reads append their own columns after them). */
export const HIT_COLUMNS = [
  "code",
  "name",
  "type",
  "country",
  "latitude",
  "longitude",
  "star_rating",
  "timezone",
] as const;
export type HitRow = Pick<AccommodationColumns, (typeof HIT_COLUMNS)[number]>;

const COLUMNS = HIT_COLUMNS.map((c) => `a.${c}`).join(", ");
const PLAIN_COLUMNS = HIT_COLUMNS.join(", ");

export const accommodationOfRow = (r: HitRow): SupplyAccommodation => ({
  code: r.code,
  name: r.name,
  type: r.type,
  country: r.country,
  latitude: r.latitude,
  longitude: r.longitude,
  starRating: r.star_rating,
  timezone: r.timezone,
});

const hitsSelection = (hits: string, params: unknown[]): SqlSelection => ({
  hits,
  params,
  sql: `${hits} SELECT ${PLAIN_COLUMNS} FROM hits ORDER BY seq`,
});

const read = async (db: Db, selection: SqlSelection): Promise<SupplyAccommodation[]> =>
  (
    await db.$client
      .prepare(selection.sql)
      .bind(...selection.params)
      .all<HitRow>()
  ).results.map(accommodationOfRow);

/** Accommodations by code, in the order asked, unknown codes skipped: one statement for 1 to 1,000 codes. */
export const byCodes = (codes: string[]): SqlSelection =>
  hitsSelection(
    // The list is the outer loop: one seek of the primary key per code, its position the order.
    `WITH hits AS MATERIALIZED (SELECT ${COLUMNS}, j.key AS seq FROM json_each(?1) j CROSS JOIN accommodations a ON a.code = j.value)`,
    [JSON.stringify([...new Set(codes)])],
  );

export const accommodationsByCodes = (db: Db, codes: string[]) => read(db, byCodes(codes));

/** The accommodations of our content index a selection names (an upstream is asked for their codes). */
export const accommodationsOf = (db: Db, selection: AccommodationSelection) => read(db, sqlSelectionOf(selection));

export const accommodationByCode = (db: Db, code: string): Promise<SupplyAccommodation | null> =>
  accommodationFacts(db, code);

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
 * more. Without enough hotels in the radius, every cell listed is read. `walk` is the hotels read,
 * with their exact distance; CROSS JOIN keeps the cells its outer loop, one seek of the cell index each.
 */
const CELL_WALK = `WITH cells(cell, near, far) AS (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?1)),
  counted AS (SELECT near, far, (SELECT count(*) FROM accommodations n WHERE n.geo_cell = cells.cell) AS hotels FROM cells),
  walked AS (SELECT sum(hotels) OVER running AS found, max(far) OVER running AS bound FROM counted WINDOW running AS (ORDER BY near, far ROWS UNBOUNDED PRECEDING)),
  reach(km) AS (SELECT coalesce((SELECT min(bound) FROM walked WHERE found >= ?5), ?4)),
  walk AS (SELECT ${COLUMNS}, ${DISTANCE_SQL} AS distance FROM cells c CROSS JOIN accommodations a ON a.geo_cell = c.cell WHERE c.near <= (SELECT km FROM reach))`;
const nearestIn = (walk: string) =>
  `${walk}, hits AS MATERIALIZED (SELECT ${PLAIN_COLUMNS}, row_number() OVER (ORDER BY distance, code) AS seq FROM walk WHERE distance <= ?4 ORDER BY distance, code LIMIT ?5)`;
const GEO_HITS = nearestIn(CELL_WALK);

/** Beyond this many cells (a large radius near a pole) the search reads whole grid rows instead. */
const MAX_CELLS = 20_000;
// Whole rows of the grid (?1 first cell, ?6 last cell): every longitude of a latitude band.
const BAND_HITS = nearestIn(
  `WITH walk AS (SELECT ${COLUMNS}, ${DISTANCE_SQL} AS distance FROM accommodations a WHERE a.geo_cell BETWEEN ?1 AND ?6)`,
);

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
    return hitsSelection(BAND_HITS, [band[0], lat, lng, radiusKm, limit, band[1]]);
  }
  return hitsSelection(GEO_HITS, [cellsJson(cells), lat, lng, radiusKm, limit]);
};

/** The grid cells a circle may touch (no bounds, no limit): where a radius's hotels can be. */
export const gridCellsWithin = (lat: number, lng: number, radiusKm: number): number[] => {
  const cosLat = Math.cos(toRad(lat));
  const dLng = cosLat < 1e-6 ? 180 : Math.min(180, radiusKm / (111.32 * cosLat));
  return (cellsNear(lat, lng, radiusKm, radiusKm / 111.0, dLng) ?? []).map(([cell]) => cell);
};

// One statement reads this many cells (a JSON array bound as one parameter, well under D1's 2 MB).
const CELLS_PER_STATEMENT = 10_000;
type CellHit = Pick<AccommodationColumns, "code" | "latitude" | "longitude" | "geo_cell">;

/**
 * Every accommodation in the cells given, from the cell index alone (it covers these columns):
 * one statement per 10,000 cells, all in one batch, so a whole supplier list's neighbourhoods are
 * one round trip.
 */
export const accommodationsInCells = async (db: Db, cells: number[]): Promise<CellHit[]> => {
  const unique = [...new Set(cells)];
  if (unique.length === 0) return [];
  const statements = [];
  for (let i = 0; i < unique.length; i += CELLS_PER_STATEMENT)
    statements.push(
      db.$client
        .prepare(
          "SELECT a.code, a.latitude, a.longitude, a.geo_cell FROM json_each(?1) j CROSS JOIN accommodations a ON a.geo_cell = j.value",
        )
        .bind(JSON.stringify(unique.slice(i, i + CELLS_PER_STATEMENT))),
    );
  return (await db.$client.batch<CellHit>(statements)).flatMap((r) => r.results);
};

export const NAME_SEARCH_LIMIT = 1000;

/**
 * Letters and digits: the characters a name search can match. The word index reads `*`, quotes and
 * spaces as syntax or separators, so "a*" asks for one letter; the 2-character minimum counts these.
 */
export const nameSearchCharacters = (name: string) => name.match(/[\p{L}\p{N}]/gu)?.length ?? 0;

/** An FTS5 string literal: the whole input as one quoted phrase, quotes doubled. */
const ftsPhrase = (text: string) => `"${text.replace(/"/g, '""')}"`;

export const nameSearchSql = (length: number) => {
  const index = length >= 3 ? "accommodation_name_trigrams" : "accommodation_name_words";
  return `SELECT ${COLUMNS}, row_number() OVER (ORDER BY a.code) AS seq FROM ${index} f JOIN accommodations a ON a.rowid = f.rowid WHERE ${index} MATCH ?1 ORDER BY a.code LIMIT ${NAME_SEARCH_LIMIT}`;
};

/**
 * Case-insensitive partial match on the name through an FTS5 index: any substring of 3+
 * characters (trigram index), or a word starting with a 2-character query (prefix index).
 */
export const named = (name: string): SqlSelection => {
  // FTS5 reads a NUL as the end of its query (a syntax error); no name holds a control character.
  const text = name.replace(/\p{Cc}+/gu, " ").trim();
  if (nameSearchCharacters(text) < 2)
    return hitsSelection(`WITH hits AS MATERIALIZED (SELECT ${COLUMNS}, 0 AS seq FROM accommodations a WHERE 0)`, []);
  return hitsSelection(`WITH hits AS MATERIALIZED (${nameSearchSql(text.length)})`, [
    text.length >= 3 ? ftsPhrase(text) : `${ftsPhrase(text)}*`,
  ]);
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
