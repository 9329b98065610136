import type { SupplyAccommodation } from "../supply/supplier";

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

/** Accommodations by code, in the order asked, unknown codes skipped: one statement for 1 to 1,000 codes. */
export const accommodationsByCodes = async (d1: D1Database, codes: string[]): Promise<SupplyAccommodation[]> => {
  const unique = [...new Set(codes)];
  const { results } = await d1.prepare(`SELECT ${COLUMNS} FROM accommodations a WHERE a.code IN (SELECT value FROM json_each(?))`).bind(JSON.stringify(unique)).all<Row>();
  const byCode = new Map(results.map((r) => [r.code, toAccommodation(r)]));
  return unique.flatMap((c) => byCode.get(c) ?? []);
};

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

export const GEO_SQL = `SELECT ${COLUMNS} FROM accommodations a WHERE a.latitude BETWEEN ?1 AND ?2 AND a.longitude BETWEEN ?3 AND ?4`;

/**
 * Nearest first within radiusKm: a bounding box on the (latitude, longitude) index narrows the
 * rows, then the exact great-circle distance filters and orders them.
 */
export const accommodationsNear = async (d1: D1Database, lat: number, lng: number, radiusKm: number, limit: number): Promise<SupplyAccommodation[]> => {
  const dLat = radiusKm / 111.0;
  const cosLat = Math.cos(toRad(lat));
  // Near a pole the longitude span covers everything.
  const dLng = cosLat < 1e-6 ? 180 : Math.min(180, radiusKm / (111.32 * cosLat));
  const { results } = await d1.prepare(GEO_SQL).bind(lat - dLat, lat + dLat, lng - dLng, lng + dLng).all<Row>();
  return results
    .map((r) => ({ row: r, distance: haversineKm(lat, lng, r.latitude, r.longitude) }))
    .filter((r) => r.distance <= radiusKm)
    .sort((a, b) => a.distance - b.distance || a.row.code.localeCompare(b.row.code))
    .slice(0, limit)
    .map((r) => toAccommodation(r.row));
};

export const NAME_SEARCH_LIMIT = 1000;

/** An FTS5 string literal: the whole input as one quoted phrase, quotes doubled. */
const ftsPhrase = (text: string) => `"${text.replace(/"/g, '""')}"`;

export const nameSearchSql = (length: number) =>
  length >= 3
    ? `SELECT ${COLUMNS} FROM accommodation_name_trigrams f JOIN accommodations a ON a.rowid = f.rowid WHERE accommodation_name_trigrams MATCH ?1 ORDER BY a.code LIMIT ${NAME_SEARCH_LIMIT}`
    : `SELECT ${COLUMNS} FROM accommodation_name_words f JOIN accommodations a ON a.rowid = f.rowid WHERE accommodation_name_words MATCH ?1 ORDER BY a.code LIMIT ${NAME_SEARCH_LIMIT}`;

/**
 * Case-insensitive partial match on the name through an FTS5 index: any substring of 3+
 * characters (trigram index), or a word starting with a 2-character query (prefix index).
 */
export const accommodationsNamed = async (d1: D1Database, name: string): Promise<SupplyAccommodation[]> => {
  const text = name.trim();
  const query = text.length >= 3 ? ftsPhrase(text) : `${ftsPhrase(text)}*`;
  const { results } = await d1.prepare(nameSearchSql(text.length)).bind(query).all<Row>();
  return results.map(toAccommodation);
};
