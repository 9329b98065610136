import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, post } from "../../../test/support/api";
import { OPERATOR } from "../../../test/support/sessions";
import { catalogueFor } from "../supply/catalogue";
import { addDays } from "../../platform/time/zoned-time";
import { bookBody, cancelBody, quoteBody, searchBody, searchOne } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";

/** Accommodations whose derived catalogue has a family room (4 adults) as well as the standard room. */
let families: string[] = [];

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 30 });
  const { results } = await env.DB.prepare("select code, star_rating from accommodations order by code").all<{
    code: string;
    star_rating: number;
  }>();
  families = results
    .filter((a) => catalogueFor(a.code, a.star_rating).rooms.some((r) => r.code === "FAM"))
    .map((a) => a.code);
  expect(families.length).toBeGreaterThanOrEqual(3);
});

const couple = (occupancyId?: number) => ({
  ...(occupancyId ? { occupancyId } : {}),
  paxes: [{ age: 30 }, { age: 31 }],
});
const fourAdults = (occupancyId?: number) => ({
  ...(occupancyId ? { occupancyId } : {}),
  paxes: [{ age: 40 }, { age: 41 }, { age: 42 }, { age: 43 }],
});
const isMixed = (o: any) => new Set(o.rooms.map((r: any) => r.code)).size > 1;
const soldOf = async (code: string, room: string, night: string) =>
  (await env.DB.prepare("select sold from room_nights where accommodation_code = ? and room_code = ? and night = ?")
    .bind(code, room, night)
    .first<number>("sold")) ?? 0;

describe("mixed room types", () => {
  it("rooms of 2 and 4 adults get a double and a family room, each with its own code, description and the partner's occupancy id", async () => {
    const code = families[0]!;
    const res = await post(
      "/api/search",
      searchBody({ destinations: { accommodations: [{ code }] }, occupancies: [couple(7), fourAdults(3)] }),
    );
    expect(res.status).toBe(200);
    const options = res.json.data.accommodations[0].options;
    const mixed = options.filter(isMixed);
    expect(mixed.length).toBeGreaterThan(0);
    for (const option of mixed) {
      expect(option.rooms.map((r: any) => r.occupancyRefId)).toEqual([7, 3]);
      expect(option.rooms[1]).toMatchObject({ code: "FAM", description: "Family Suite" });
      expect(option.rooms[0].code).not.toBe("FAM");
      expect(option.rooms[0].description).not.toBe("Family Suite");
      const sum = option.rooms.reduce((s: number, r: any) => s + Math.round(r.rate.chargeTotal * 100), 0);
      expect(Math.round(option.rate.chargeTotal * 100)).toBe(sum);
      // Penalties come in deadline order and never fall: each is what cancelling costs from then on.
      const values = option.cancelPolicy.cancelPenalties.map((p: any) => p.value);
      expect(values).toEqual([...values].sort((a: number, b: number) => a - b));
      expect(values.at(-1)).toBeLessThanOrEqual(option.rate.chargeTotal);
    }
    // A single family room type for both rooms is still offered, and costs more than the mix.
    const allFamily = options.filter((o: any) => o.rooms.every((r: any) => r.code === "FAM"));
    expect(allFamily.length).toBeGreaterThan(0);
    expect(Math.min(...mixed.map((o: any) => o.rate.chargeTotal))).toBeLessThan(
      Math.min(...allFamily.map((o: any) => o.rate.chargeTotal)),
    );
  });

  it("the common search (one room, or rooms alike) has no mixed options and positions 1..n as occupancy ids", async () => {
    const alike = await post(
      "/api/search",
      searchBody({
        destinations: { accommodations: families.map((code) => ({ code })) },
        occupancies: [couple(), couple()],
      }),
    );
    const options = alike.json.data.accommodations.flatMap((a: any) => a.options);
    expect(options.length).toBeGreaterThan(0);
    expect(options.some(isMixed)).toBe(false);
    expect(
      options.every((o: any) => !o.id.includes("+") && o.rooms.map((r: any) => r.occupancyRefId).join() === "1,2"),
    ).toBe(true);
  });

  it("occupancy ids must be unique within a search", async () => {
    const res = await post(
      "/api/search",
      searchBody({
        destinations: { accommodations: [{ code: families[0] }] },
        occupancies: [couple(2), fourAdults(2)],
      }),
    );
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("occupancyId must be unique within a request");
  });

  it("quote and book take the same occupancy ids, allotment is taken per room type and given back on cancel", async () => {
    const code = families[1]!;
    const checkIn = inDays(70);
    const occupancies = [couple(7), fourAdults(3)];
    const s = await searchOne(code, {
      checkIn,
      checkOut: addDays(checkIn, 2),
      occupancies,
      pick: (o) => isMixed(o) && o.isRefundable,
    });
    const [first, second] = s.option.rooms.map((r: any) => r.code);

    const otherIds = await post("/api/quote", quoteBody(s, { occupancies: [couple(1), fourAdults(2)] }));
    expect(otherIds.status).toBe(400);
    expect(otherIds.json.message).toBe("Occupancy details mismatch");
    const withoutIds = await post("/api/quote", quoteBody(s, { occupancies: [couple(), fourAdults()] }));
    expect(withoutIds.status).toBe(200);
    expect(withoutIds.json.data.rooms.map((r: any) => r.occupancyRefId)).toEqual([7, 3]);

    // A product naming more rooms than the stay has, or a plan of another room type, is no product.
    const [signed, hotel, rooms, plans, total] = s.option.id.split("~");
    for (const optionId of [
      [signed, hotel, `${rooms}+FAM`, `${plans}+FAM-RO-FLX`, total],
      [signed, hotel, rooms, plans.split("+").reverse().join("+"), total],
    ].map((p) => p.join("~"))) {
      const forged = await post("/api/quote", quoteBody(s, { optionId }));
      expect(forged.status).toBe(400);
      expect(forged.json.message).toBe("Room is unavailable");
    }

    const quoted = await post("/api/quote", quoteBody(s));
    expect(quoted.status).toBe(200);
    const quote = quoted.json.data;
    expect(quote).toMatchObject({
      rate: s.option.rate,
      rooms: s.option.rooms,
      roomCodes: [first, second],
      occupancies: [{ occupancyId: 7 }, { occupancyId: 3 }],
    });

    const unknown = await post(
      "/api/book",
      bookBody(quote, "mixed-unknown", {
        occupancies: [
          { occupancyId: 1, paxes: couple().paxes },
          { occupancyId: 3, paxes: fourAdults().paxes },
        ],
      }),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.json.message).toBe("Occupancy 1 not found in cached quote");

    const named = (p: { age: number }, i: number) => ({ ...p, name: `Guest${i}`, surName: "Mixed" });
    const booked = await post(
      "/api/book",
      bookBody(quote, "mixed-1", {
        occupancies: [
          { occupancyId: 3, paxes: fourAdults().paxes.map(named) },
          { occupancyId: 7, paxes: couple().paxes.map(named) },
        ],
      }),
    );
    expect(booked.status).toBe(200);
    const read = await call("GET", `/api/bookings/${booked.json.data.bookingReference}`);
    expect(read.json.data.rooms.map((r: any) => [r.code, r.occupancyRefId])).toEqual([
      [first, 7],
      ["FAM", 3],
    ]);
    expect(read.json.data.occupancies.map((o: any) => [o.occupancyId, o.paxes.length])).toEqual([
      [7, 2],
      [3, 4],
    ]);
    for (const night of [checkIn, addDays(checkIn, 1)]) {
      expect(await soldOf(code, first, night)).toBe(1);
      expect(await soldOf(code, "FAM", night)).toBe(1);
    }

    const cancelled = await post("/api/cancel", cancelBody(booked.json.data.bookingReference));
    expect(cancelled.status).toBe(200);
    for (const night of [checkIn, addDays(checkIn, 1)]) {
      expect(await soldOf(code, first, night)).toBe(0);
      expect(await soldOf(code, "FAM", night)).toBe(0);
    }
  });

  it("the last family room is never sold twice: mixed and single-type bookings racing in parallel", async () => {
    const code = families[2]!;
    const checkIn = inDays(80);
    const checkOut = addDays(checkIn, 2);
    // One family room left on both nights.
    const put = await call(
      "PUT",
      `/api/inventory/${code}/rooms/FAM`,
      { from: checkIn, to: addDays(checkIn, 1), allotment: 1 },
      OPERATOR,
    );
    expect(put.status).toBe(200);
    const mixed = await searchOne(code, { checkIn, checkOut, occupancies: [couple(), fourAdults()], pick: isMixed });
    const single = await searchOne(code, {
      checkIn,
      checkOut,
      occupancies: [fourAdults()],
      pick: (o) => o.rooms[0].code === "FAM",
    });
    const standard = mixed.option.rooms[0].code;
    const quotes = await Promise.all([
      ...Array.from({ length: 6 }, () => post("/api/quote", quoteBody(mixed))),
      ...Array.from({ length: 6 }, () => post("/api/quote", quoteBody(single))),
    ]);
    expect(quotes.every((q) => q.status === 200)).toBe(true);
    const results = await Promise.all(quotes.map((q, i) => post("/api/book", bookBody(q.json.data, `last-fam-${i}`))));
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200))
      expect(r.json.message).toBe("The booking was not successful.");
    const mixedWon = results.indexOf(won[0]!) < 6;
    for (const night of [checkIn, addDays(checkIn, 1)]) {
      expect(await soldOf(code, "FAM", night)).toBe(1);
      expect(await soldOf(code, standard, night)).toBe(mixedWon ? 1 : 0);
    }
    expect(
      await env.DB.prepare("select count(*) n from bookings where partner_reference like 'last-fam-%'").first("n"),
    ).toBe(1);
  });
});
