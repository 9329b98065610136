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

type Row = { code: string; name: string; type: string; country: string; latitude: number; longitude: number; star_rating: number; timezone: string };

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
  selection.finish((await d1.prepare(selection.sql).bind(...selection.params).all()).results);

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
export const accommodationsOf = (d1: D1Database, selection: AccommodationSelection) => read(d1, sqlSelectionOf(selection));

export const accommodationByCode = async (d1: D1Database, code: string): Promise<SupplyAccommodation | null> => {
  const row = await d1.prepare(`SELECT ${COLUMNS} FROM accommodations a WHERE a.code = ?`).bind(code).first<Row>();
  return row ? toAccommodation(row) : null;
};

const EARTH_RADIUS_KM = 6371.0088;
const toRad = (deg: number) => (deg * Math.PI) / 180;

export const haversineKm = (lat1: number, lng1: number, lat2: number, lng2: number): number => {
  const dLat = toRad(lat2 - lat1);
  const dLng = toRad(lng2 - lng1);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(lat1)) * Math.cos(toRad(lat2)) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
};

const inBox = "a.latitude BETWEEN ?1 AND ?2 AND a.longitude BETWEEN ?3 AND ?4";
// haversineKm in SQL, from the centre at ?5 (latitude), ?6 (longitude). D1 allows these math functions, not power().
const rad = (deg: string) => `((${deg}) * pi() / 180)`;
const squaredSinHalf = (deg: string) => `(sin(${rad(deg)} / 2) * sin(${rad(deg)} / 2))`;
// The same formula with the same order of operations as haversineKm.
const DISTANCE_SQL = `2 * ${EARTH_RADIUS_KM} * asin(min(1, sqrt(${squaredSinHalf("a.latitude - ?5")} + cos(${rad("?5")}) * cos(${rad("a.latitude")}) * ${squaredSinHalf("a.longitude - ?6")})))`;
const nearestSql = (columns: string) =>
  `SELECT ${columns} FROM (SELECT ${COLUMNS}, ${DISTANCE_SQL} AS distance FROM accommodations a WHERE ${inBox}) a WHERE a.distance <= ?7 ORDER BY a.distance, a.code LIMIT ?8`;
export const GEO_SQL = nearestSql(COLUMNS);

/**
 * Nearest first within radiusKm: a bounding box on the (latitude, longitude) index narrows the
 * rows, then the exact great-circle distance filters, orders and limits them inside SQLite, so
 * only the hotels returned leave D1.
 */
export const near = (lat: number, lng: number, radiusKm: number, limit: number): SqlSelection => {
  const dLat = radiusKm / 111.0;
  const cosLat = Math.cos(toRad(lat));
  // Near a pole the longitude span covers everything.
  const dLng = cosLat < 1e-6 ? 180 : Math.min(180, radiusKm / (111.32 * cosLat));
  return {
    sql: GEO_SQL,
    // The whole box (a superset): read from the index alone, without the distance sort again.
    codesSql: `SELECT a.code FROM accommodations a WHERE ${inBox}`,
    params: [lat - dLat, lat + dLat, lng - dLng, lng + dLng, lat, lng, radiusKm, limit],
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
