import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { gridCell, gridColumnOf, gridRowOf } from "./geo-grid";
import { haversineKm, near } from "./accommodations";
import { queryPlan } from "../../../test/support/query-plan";

// Hotels clustered round a few centres, some across the antimeridian and by a pole, with many on
// exact cell edges (multiples of 1/50 degree), where rounding would drop a hotel from its cell.
type Spot = { code: string; latitude: number; longitude: number };
const CENTRES = [
  { lat: 40.75, lng: -73.98, spread: 0.12 },
  { lat: -33.86, lng: 151.2, spread: 0.05 },
  { lat: 0, lng: 179.99, spread: 0.2 },
  { lat: 89.95, lng: 10, spread: 0.04 },
];

const spots: Spot[] = [];
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
for (const [c, centre] of CENTRES.entries()) {
  for (let i = 0; i < 300; i++) {
    let latitude = Math.max(-90, Math.min(90, centre.lat + (random() - 0.5) * 2 * centre.spread));
    let longitude = centre.lng + (random() - 0.5) * 2 * centre.spread;
    longitude = longitude > 180 ? longitude - 360 : longitude;
    if (i % 5 === 0) [latitude, longitude] = [Math.round(latitude * 50) / 50, Math.round(longitude * 50) / 50];
    spots.push({ code: `G${c}${String(i).padStart(4, "0")}`, latitude, longitude });
  }
}

beforeAll(async () => {
  const insert = env.DB.prepare(
    "INSERT INTO accommodations (code, name, type, country, state, city, latitude, longitude, star_rating, timezone, content) VALUES (?1, ?1, 'hotel', 'US', '', '', ?2, ?3, 3, 'UTC', '{}')",
  );
  await env.DB.batch(spots.map((s) => insert.bind(s.code, s.latitude, s.longitude)));
});

const nearest = async (lat: number, lng: number, radiusKm: number, limit: number) => {
  const selection = near(lat, lng, radiusKm, limit);
  return (
    await env.DB.prepare(selection.sql)
      .bind(...selection.params)
      .all<{ code: string }>()
  ).results.map((r) => r.code);
};

const bruteForce = (lat: number, lng: number, radiusKm: number, limit: number) =>
  spots
    .map((s) => ({ code: s.code, d: haversineKm(lat, lng, s.latitude, s.longitude) }))
    .filter((s) => s.d <= radiusKm)
    .sort((a, b) => a.d - b.d || a.code.localeCompare(b.code))
    .slice(0, limit)
    .map((s) => s.code);

describe("the geo grid", () => {
  it("stores each hotel in the cell the Worker computes for it, on cell edges too", async () => {
    const { results } = await env.DB.prepare("SELECT code, latitude, longitude, geo_cell FROM accommodations").all<
      Spot & { geo_cell: number }
    >();
    expect(results.length).toBe(spots.length);
    for (const r of results) expect(r.geo_cell).toBe(gridCell(gridRowOf(r.latitude), gridColumnOf(r.longitude)));
    // A move keeps the cell true.
    await env.DB.prepare("UPDATE accommodations SET latitude = 40.01, longitude = -74.01 WHERE code = ?1")
      .bind(spots[1]!.code)
      .run();
    const moved = await env.DB.prepare("SELECT geo_cell FROM accommodations WHERE code = ?1")
      .bind(spots[1]!.code)
      .first<number>("geo_cell");
    await env.DB.prepare("UPDATE accommodations SET latitude = ?2, longitude = ?3 WHERE code = ?1")
      .bind(spots[1]!.code, spots[1]!.latitude, spots[1]!.longitude)
      .run();
    expect(moved).toBe(gridCell(gridRowOf(40.01), gridColumnOf(-74.01)));
  });

  it("finds exactly the nearest hotels within the radius, as a scan of every hotel would", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CENTRES),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: 0.1, max: 60, noNaN: true }),
        fc.integer({ min: 1, max: 400 }),
        async (centre, dy, dx, radiusKm, limit) => {
          const lat = Math.max(-90, Math.min(90, centre.lat + dy * centre.spread));
          let lng = centre.lng + dx * centre.spread;
          lng = lng > 180 ? lng - 360 : lng;
          expect(await nearest(lat, lng, radiusKm, limit)).toEqual(bruteForce(lat, lng, radiusKm, limit));
        },
      ),
      { seed: 20261124, numRuns: 120 },
    );
  });

  it("finds hotels across the antimeridian", async () => {
    const found = await nearest(0, -179.99, 30, 1000);
    expect(found.length).toBeGreaterThan(0);
    expect(found.some((code) => spots.find((s) => s.code === code)!.longitude > 0)).toBe(true);
    expect(found).toEqual(bruteForce(0, -179.99, 30, 1000));
  });

  it("reads only the cells that can hold the answer: a smaller limit counts as many hotels but reads fewer", async () => {
    // EXPLAIN QUERY PLAN: cells are the outer loop and every access to accommodations is a seek of the cell index.
    const selection = near(40.75, -73.98, 20, 10);
    const plan = await queryPlan(selection);
    expect(plan).toContain("SEARCH n USING COVERING INDEX accommodations_geo_cell (geo_cell=?)");
    expect(plan).toContain("SEARCH a USING COVERING INDEX accommodations_geo_cell (geo_cell=?)");
    expect(plan).not.toMatch(/SCAN (a|n)\b/);
    // How many hotels the walk reads (its `walk` table) for 10 and for every one in the radius.
    const readFor = async (limit: number) => {
      const s = near(40.75, -73.98, 20, limit);
      return (await env.DB.prepare(`${s.hits} SELECT count(*) AS n FROM walk`)
        .bind(...s.params)
        .first<number>("n"))!;
    };
    const inRadius = bruteForce(40.75, -73.98, 20, 1000).length;
    const [few, all] = [await readFor(10), await readFor(1000)];
    expect(few).toBeGreaterThanOrEqual(10);
    expect(all).toBeGreaterThanOrEqual(inRadius);
    expect(few * 3).toBeLessThan(all);
  });

  it("falls back to whole grid rows for a large radius by a pole, with the same answer", async () => {
    const selection = near(89.99, 0, 60, 50);
    expect(selection.sql).toContain("BETWEEN ?1 AND ?6");
    expect(await nearest(89.99, 0, 60, 50)).toEqual(bruteForce(89.99, 0, 60, 50));
  });
});
