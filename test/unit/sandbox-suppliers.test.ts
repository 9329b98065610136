import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { supplierFixtures } from "../../sandbox/hotelx/fixtures/generate";
import { SANDBOX_SUPPLIERS } from "../../sandbox/hotelx/src/suppliers";
import { catalogueFor } from "../../src/features/supply/catalogue";
import { generateAccommodations } from "../support/accommodations";

/** The three sandbox suppliers' tables and truth maps (sandbox/hotelx/fixtures/README.md). */
const demo = new Map([...generateAccommodations(200)].map((a) => [a.code, a]));
const fixture = <T>(path: string): T =>
  JSON.parse(readFileSync(new URL(`../../sandbox/hotelx/fixtures/${path}`, import.meta.url), "utf8")) as T;
type HotelMapRow = { supplierHotelCode: string; accommodationCode: string };
type RoomMapRow = { supplierHotelCode: string; supplierRoomCode: string; roomCode: string };
const metres = (a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }) => {
  const rad = Math.PI / 180;
  const x = (b.longitude - a.longitude) * rad * Math.cos(((a.latitude + b.latitude) / 2) * rad);
  const y = (b.latitude - a.latitude) * rad;
  return Math.hypot(x, y) * 6_371_000;
};
const CODE_SCHEMES: Record<string, RegExp> = {
  iberbeds: /^[1-9]\d{5}$/,
  roomnexus: /^[A-HJ-NP-Z2-9]{8}$/,
  albion: /^H\d{7}$/,
};

describe("the sandbox suppliers' fixture tables (sandbox/hotelx/fixtures)", () => {
  it("are what generate.ts writes from today's demo content (run it again when the demo content changes)", () => {
    for (const [path, text] of Object.entries(supplierFixtures()))
      expect(readFileSync(new URL(`../../sandbox/hotelx/fixtures/${path}`, import.meta.url), "utf8"), path).toBe(text);
  });

  it.each(SANDBOX_SUPPLIERS.map((s) => [s.code, s] as const))(
    "%s: its own codes, its truth maps one-to-one onto Edgestay's demo hotels, rooms and boards, and one hotel Edgestay does not have",
    (code, supplier) => {
      const hotelMap = fixture<HotelMapRow[]>(`${code}/hotel-map.json`);
      const roomMap = fixture<RoomMapRow[]>(`${code}/room-map.json`);
      const boardMap = fixture<Record<string, string>>(`${code}/board-map.json`);
      const hotels = new Map(supplier.hotels.map((h) => [h.code, h]));
      // Codes of its own scheme, none of them ours.
      expect(hotels.size).toBe(supplier.hotels.length);
      for (const h of supplier.hotels) {
        expect(h.code).toMatch(CODE_SCHEMES[code]!);
        expect(demo.has(h.code)).toBe(false);
      }
      // The hotel map: one-to-one both ways, onto demo hotels, every supplier hotel but one.
      expect(new Set(hotelMap.map((r) => r.supplierHotelCode)).size).toBe(hotelMap.length);
      expect(new Set(hotelMap.map((r) => r.accommodationCode)).size).toBe(hotelMap.length);
      expect(supplier.hotels.filter((h) => !hotelMap.some((r) => r.supplierHotelCode === h.code))).toHaveLength(1);
      let renamed = 0;
      for (const row of hotelMap) {
        const ours = demo.get(row.accommodationCode)!;
        const theirs = hotels.get(row.supplierHotelCode)!;
        expect(ours, row.accommodationCode).toBeDefined();
        // The same hotel where it is, written its own way: a few metres to 300 m off, the name often changed.
        expect(metres(ours, theirs)).toBeGreaterThan(10);
        expect(metres(ours, theirs)).toBeLessThan(310);
        expect(theirs.city).toBe(ours.city);
        if (theirs.name !== ours.name) renamed++;
      }
      expect(renamed / hotelMap.length).toBeGreaterThan(0.3);
      // The room map: each row a room the supplier sells there, onto a room type that accommodation has, one-to-one.
      for (const row of roomMap) {
        const accommodation = demo.get(
          hotelMap.find((r) => r.supplierHotelCode === row.supplierHotelCode)!.accommodationCode,
        )!;
        expect(hotels.get(row.supplierHotelCode)!.rooms.map((r) => r.code)).toContain(row.supplierRoomCode);
        expect(catalogueFor(accommodation.code, accommodation.starRating).rooms.map((r) => r.code)).toContain(
          row.roomCode,
        );
      }
      const perHotel = (key: (r: RoomMapRow) => string) =>
        new Set(roomMap.map((r) => `${r.supplierHotelCode} ${key(r)}`)).size;
      expect(perHotel((r) => r.supplierRoomCode)).toBe(roomMap.length);
      expect(perHotel((r) => r.roomCode)).toBe(roomMap.length);
      // Some rooms Edgestay has no room type for stay out of the room map.
      const rooms = supplier.hotels.flatMap((h) => h.rooms.map((r) => `${h.code} ${r.code}`));
      expect(rooms.length).toBeGreaterThan(roomMap.length);
      // The board map: every board it sells, onto Edgestay's five, one-to-one.
      const boards = new Set(supplier.hotels.flatMap((h) => h.rooms.flatMap((r) => r.rates.map((rate) => rate.board))));
      expect([...boards].every((b) => b in boardMap)).toBe(true);
      expect(Object.values(boardMap).sort()).toEqual(["AI", "BB", "FB", "HB", "RO"]);
    },
  );

  it("three currencies, one Spanish-style board scheme, and coverage that overlaps: hotels sold by three, by two and by one", () => {
    expect(SANDBOX_SUPPLIERS.map((s) => s.currency).sort()).toEqual(["EUR", "GBP", "USD"]);
    expect(Object.keys(fixture<Record<string, string>>("iberbeds/board-map.json")).sort()).toEqual([
      "AD",
      "MP",
      "PC",
      "SA",
      "TI",
    ]);
    const sellers = new Map<string, number>();
    for (const s of SANDBOX_SUPPLIERS)
      for (const row of fixture<HotelMapRow[]>(`${s.code}/hotel-map.json`))
        sellers.set(row.accommodationCode, (sellers.get(row.accommodationCode) ?? 0) + 1);
    const by = (n: number) => [...sellers.values()].filter((v) => v === n).length;
    expect([by(1), by(2), by(3)].every((n) => n >= 20)).toBe(true);
    // The README's walk-through hotel is sold by all three.
    expect(sellers.get("US000001")).toBe(3);
  });
});
