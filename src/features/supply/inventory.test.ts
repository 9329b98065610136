import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, post, DEMO_KEY } from "../../../test/support/api";
import { bookBody, quoteBody, quoteOf, searchOne } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { catalogueFor } from "./catalogue";
import { cancelPolicyFor } from "./inventory-supplier";
import { localDate, zonedTimeToUtc } from "../../platform/time/zoned-time";

const OPERATOR = { authorization: "Bearer demo-operator-token" };
const put = (path: string, body: unknown, headers: Record<string, string> = OPERATOR) =>
  call("PUT", path, body, { apiKey: null, headers });
const get = (path: string) => call("GET", path, undefined, { apiKey: null, headers: OPERATOR });

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 10 });
});

describe("derived catalogue", () => {
  it("gives every accommodation 2-4 room types with 1-3 public rate plans each, deterministically", () => {
    for (let n = 1; n <= 300; n++) {
      const code = `US${String(n).padStart(6, "0")}`;
      const c = catalogueFor(code, 3.5);
      expect(c.rooms.length).toBeGreaterThanOrEqual(2);
      expect(c.rooms.length).toBeLessThanOrEqual(4);
      for (const room of c.rooms) {
        const plans = c.ratePlans.filter(
          (p) => p.roomCode === room.code && p.visibility === "PUBLIC" && !p.rateRules.length,
        );
        expect(plans.length).toBeGreaterThanOrEqual(1);
        expect(plans.length).toBeLessThanOrEqual(3);
      }
      expect(catalogueFor(code, 3.5)).toEqual(c);
    }
  });

  it("adds restricted plans of the standard room (issue 27): a package rate everywhere, mobile, senior and government rates on some", () => {
    const counts = new Map<string, number>();
    for (let n = 1; n <= 400; n++) {
      const c = catalogueFor(`US${String(n).padStart(6, "0")}`, 3.5);
      const restricted = c.ratePlans.filter((p) => p.rateRules.length > 0);
      for (const plan of restricted) {
        counts.set(plan.code, (counts.get(plan.code) ?? 0) + 1);
        expect(plan.roomCode).toBe("STD");
        // A restricted plan is cheaper than the public room-only rate of its room.
        expect(plan.priceFactor).toBeLessThan(1);
        expect(plan.visibility).toBe(plan.rateRules.includes("PACKAGE") ? "PACKAGE" : "PUBLIC");
      }
      expect(restricted.map((p) => p.code)).toContain("STD-RO-PKG");
    }
    expect(counts.get("STD-RO-PKG")).toBe(400);
    for (const [code, share] of [
      ["STD-RO-MOB", 0.5],
      ["STD-RO-SNR", 0.25],
      ["STD-RO-GOV", 0.25],
    ] as const) {
      expect(counts.get(code)! / 400).toBeGreaterThan(share - 0.1);
      expect(counts.get(code)! / 400).toBeLessThan(share + 0.1);
    }
  });
});

describe("zoned deadlines", () => {
  it("converts local wall time to UTC across DST with the zone's own rules", () => {
    expect(zonedTimeToUtc("2027-01-15", "15:00", "America/New_York").toISOString()).toBe("2027-01-15T20:00:00.000Z");
    expect(zonedTimeToUtc("2027-07-15", "15:00", "America/New_York").toISOString()).toBe("2027-07-15T19:00:00.000Z");
    expect(zonedTimeToUtc("2027-07-15", "15:00", "America/Phoenix").toISOString()).toBe("2027-07-15T22:00:00.000Z");
    expect(zonedTimeToUtc("2027-03-14", "15:00", "America/Los_Angeles").toISOString()).toBe("2027-03-14T22:00:00.000Z"); // DST starts that morning
    expect(zonedTimeToUtc("2027-01-15", "15:00", "Pacific/Honolulu").toISOString()).toBe("2027-01-16T01:00:00.000Z");
    expect(localDate(Date.parse("2027-01-16T03:00:00Z"), "America/Los_Angeles")).toBe("2027-01-15");
  });

  it("puts a refundable plan's deadline N days before check-in at 15:00 hotel time", () => {
    const plan = {
      code: "STD-RO-FLX",
      roomCode: "STD",
      boardCode: "RO" as const,
      boardName: "Room Only",
      priceFactor: 1,
      cancellation: { refundable: true as const, freeDays: 3, penalty: "FIRST_NIGHT" as const },
      rateRules: [],
      visibility: "PUBLIC" as const,
    };
    const hotel = {
      code: "X",
      name: "X",
      type: "hotel",
      country: "US",
      latitude: 0,
      longitude: 0,
      starRating: 3,
      timezone: "America/Chicago",
    };
    const policy = cancelPolicyFor(
      plan,
      hotel,
      "2027-11-10",
      { currency: "USD", baseRate: 200, taxesAndFees: 24, chargeTotal: 224 },
      112,
      new Date().toISOString(),
    );
    // Chicago is on CST (UTC-6) on 7 November 2027, after the DST end on the 7th at 02:00.
    expect(policy).toEqual({
      refundable: true,
      cancelPenalties: [
        { penaltyType: "FIRST_NIGHT", currency: "USD", deadline: "2027-11-07T21:00:00.000Z", value: 112 },
      ],
    });
  });
});

describe("operator inventory endpoints", () => {
  it("need the operator token", async () => {
    expect(
      (await put("/api/inventory/US000001/rooms/STD", { from: inDays(1), to: inDays(2), stopSell: true }, {})).status,
    ).toBe(401);
    expect(
      (
        await put(
          "/api/inventory/US000001/rooms/STD",
          { from: inDays(1), to: inDays(2), stopSell: true },
          { authorization: `Bearer ${DEMO_KEY}` },
        )
      ).status,
    ).toBe(403);
  });

  it("a price rise set by the operator makes quote answer Price changed; restoring it quotes again", async () => {
    const s = await searchOne("US000001");
    const room = s.option.rooms[0].code;
    const raised = await put(`/api/inventory/US000001/rooms/${room}`, { from: s.checkIn, to: inDays(31), price: 9999 });
    expect(raised.status).toBe(200);
    const night = raised.json.data.rooms.find((r: any) => r.code === room).nights[0];
    expect(night).toMatchObject({ night: s.checkIn, price: 9999, stored: true });
    const res = await post("/api/quote", quoteBody(s));
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Price changed");
    expect(res.json.details).toMatchObject({ previousTotal: s.option.rate.chargeTotal, currency: "USD" });
    expect(
      (await put(`/api/inventory/US000001/rooms/${room}`, { from: s.checkIn, to: inDays(31), price: null })).status,
    ).toBe(200);
    expect((await post("/api/quote", quoteBody(s))).status).toBe(200);
  });

  it("a sell-out and a stop-sell set by the operator make quote answer Room is unavailable", async () => {
    const s = await searchOne("US000002");
    const room = s.option.rooms[0].code;
    expect(
      (await put(`/api/inventory/US000002/rooms/${room}`, { from: inDays(31), to: inDays(31), allotment: 0 })).status,
    ).toBe(200);
    expect((await post("/api/quote", quoteBody(s))).json.message).toBe("Room is unavailable");
    await put(`/api/inventory/US000002/rooms/${room}`, { from: inDays(31), to: inDays(31), allotment: 5 });
    expect((await post("/api/quote", quoteBody(s))).status).toBe(200);
    const planCode = await planOf("US000002", room, s);
    const plan = await put(`/api/inventory/US000002/rate-plans/${planCode}`, {
      from: s.checkIn,
      to: s.checkIn,
      stopSell: true,
    });
    expect(plan.status).toBe(200);
    expect((await post("/api/quote", quoteBody(s))).json.message).toBe("Room is unavailable");
  });

  it("refuses allotment below rooms sold (409), unknown rooms and plans (404), bad ranges (400)", async () => {
    const q = await quoteOf(await searchOne("US000003"));
    expect((await post("/api/book", bookBody(q, "inv-1"))).status).toBe(200);
    const room = q.roomCodes[0];
    const below = await put(`/api/inventory/US000003/rooms/${room}`, { from: q.checkIn, to: q.checkIn, allotment: 0 });
    expect(below.status).toBe(409);
    const view = await get(`/api/inventory/US000003?from=${q.checkIn}&to=${q.checkIn}`);
    expect(view.json.data.rooms.find((r: any) => r.code === room).nights[0]).toMatchObject({ sold: 1 });
    expect(
      (await put("/api/inventory/US000003/rooms/NOPE", { from: inDays(1), to: inDays(1), stopSell: true })).status,
    ).toBe(404);
    expect(
      (await put("/api/inventory/US000003/rate-plans/NOPE", { from: inDays(1), to: inDays(1), stopSell: true })).status,
    ).toBe(404);
    expect(
      (await put("/api/inventory/US999999/rooms/STD", { from: inDays(1), to: inDays(1), stopSell: true })).json.message,
    ).toBe("Accommodation not found");
    expect(
      (await put("/api/inventory/US000003/rooms/STD", { from: inDays(5), to: inDays(1), stopSell: true })).status,
    ).toBe(400);
    expect((await put("/api/inventory/US000003/rooms/STD", { from: inDays(1), to: inDays(1) })).status).toBe(400);
    expect(
      (await put("/api/inventory/US000003/rooms/STD", { from: inDays(1), to: inDays(400), stopSell: true })).status,
    ).toBe(400);
    expect(
      (await put("/api/inventory/US000003/rooms/STD", { from: inDays(1), to: inDays(1), allotment: -1 })).status,
    ).toBe(400);
  });
});

/** The rate plan code behind an option: the one plan of the room whose board and refundability match. */
const planOf = async (code: string, room: string, s: { option: any }) => {
  const res = await get(`/api/inventory/${code}?from=${inDays(30)}&to=${inDays(30)}`);
  const plans = res.json.data.rooms.find((r: any) => r.code === room).ratePlans;
  return plans.find(
    (p: any) => p.boardCode === s.option.boardCode && p.cancellation.refundable === s.option.isRefundable,
  ).code as string;
};
