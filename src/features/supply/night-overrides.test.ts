import { env } from "cloudflare:test";
import { database } from "../../platform/db/client";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { byCodes, haversineKm, named, near } from "./accommodations";
import { searchRead } from "./night-overrides";

type Spot = { code: string; latitude: number; longitude: number };
let spots: Spot[];
const stay = { checkIn: "2027-03-01", checkOut: "2027-03-03" };
// More digits than SQLite's JSON or text rendering keeps (15): a price must come back as stored.
const EXACT_PRICE = 123.45678901234567;

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 200 });
  spots = (await env.DB.prepare("select code, latitude, longitude from accommodations order by code").all<Spot>())
    .results;
  // Every hotel gets a room night and a plan night inside the stay, and one outside it.
  const room = env.DB.prepare(
    "insert into room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell, price) values (?1, 'STD', ?2, 5, 1, 0, ?3)",
  );
  const plan = env.DB.prepare(
    "insert into rate_plan_nights (accommodation_code, rate_plan_code, night, stop_sell, price) values (?1, 'STD-RO-FLX', ?2, 1, ?3)",
  );
  await env.DB.batch(
    spots.flatMap((s) => [
      room.bind(s.code, stay.checkIn, EXACT_PRICE),
      room.bind(s.code, stay.checkOut, 1),
      plan.bind(s.code, "2027-03-02", EXACT_PRICE),
    ]),
  );
});

describe("searchRead: a selection and its stored nights in one statement", () => {
  it("returns the hits in answer order with the nights of those hits only, prices exactly as stored", async () => {
    const centre = spots[0]!;
    const nearest = spots
      .map((s) => ({ code: s.code, d: haversineKm(centre.latitude, centre.longitude, s.latitude, s.longitude) }))
      .filter((s) => s.d <= 500)
      .sort((a, b) => a.d - b.d || a.code.localeCompare(b.code))
      .slice(0, 3)
      .map((s) => s.code);
    expect(nearest.length).toBe(3);

    const read = await searchRead(database(env.DB), near(centre.latitude, centre.longitude, 500, 3), stay);
    expect(read.accommodations.map((a) => a.code)).toEqual(nearest);
    // Nights outside the stay and of hotels the walk read but did not return are left out.
    expect(read.rooms.map((r) => r.accommodation_code).sort()).toEqual([...nearest].sort());
    expect(read.plans.map((p) => p.accommodation_code).sort()).toEqual([...nearest].sort());
    expect(read.rooms[0]).toMatchObject({ room_code: "STD", night: stay.checkIn, allotment: 5, sold: 1 });
    expect(read.rooms.every((r) => r.price === EXACT_PRICE)).toBe(true);
    expect(read.plans[0]).toMatchObject({ rate_plan_code: "STD-RO-FLX", night: "2027-03-02" });
    expect(read.plans.every((p) => p.price === EXACT_PRICE && Boolean(p.stop_sell))).toBe(true);
  });

  it("keeps the order asked for codes, skips unknown ones, and reads nothing for an empty name", async () => {
    const codes = [spots[5]!.code, "XX999999", spots[1]!.code, spots[5]!.code];
    const read = await searchRead(database(env.DB), byCodes(codes), stay);
    expect(read.accommodations.map((a) => a.code)).toEqual([spots[5]!.code, spots[1]!.code]);
    expect(read.rooms.length).toBe(2);
    expect(await searchRead(database(env.DB), named(" "), stay)).toEqual({ accommodations: [], rooms: [], plans: [] });
  });
});
