import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, afterEach, beforeEach, vi, type MockInstance } from "vitest";
import { demoAccommodations, seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, post, DEMO_KEY, textWithoutRequestId } from "../../../test/support/api";
import { bookBody, quoteBody, quoteOf, searchOne } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { catalogueFor } from "./catalogue";
import { prng, seededOrder } from "../../platform/seeded-random";
import { derivedAndPinned } from "../../../test/support/demo-catalogue";
import { cancelPolicyFor } from "./inventory-supplier";
import { localDate, zonedTimeToUtc } from "../../platform/time/zoned-time";
import { database } from "../../platform/db/client";
import { byCodes, haversineKm, named, near } from "./accommodations";
import { searchRead } from "./night-overrides";
import { circuitFor, FAILURES_TO_OPEN, OPEN_FOR_MS } from "./upstream-circuit";
import { pastNightHolds } from "./allotment";
import { roomNightHolds, suppliers } from "./tables";
import { percentOfMinor } from "../../platform/money";
import { MAX_BODY_BYTES } from "../../platform/http/json-body";
import { SUGGEST_MAX_BODY_BYTES, SUGGEST_MAX_HOTELS } from "./hotel-matching/routes";
import { readHotelList } from "./hotelx/hotel-list";
import { sandboxSupplierUrl, sandboxUrl } from "../../../test/support/accounts";
import albionHotels from "../../../sandbox/hotelx/fixtures/albion/hotels.json";
import albionTruth from "../../../sandbox/hotelx/fixtures/albion/hotel-map.json";
import { demoAdminToken, bearer, OPERATOR as OPERATOR_CALL } from "../../../test/support/sessions";
import { openSecret } from "../../platform/crypto/secret-box";
import type { Db } from "../../platform/db/client";
import { setUpstream } from "./upstreams";

const OPERATOR = { authorization: "Bearer demo-operator-token" };
const put = (path: string, body: unknown, headers: Record<string, string> = OPERATOR) =>
  call("PUT", path, body, { apiKey: null, headers });
const get = (path: string) => call("GET", path, undefined, { apiKey: null, headers: OPERATOR });

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 10 });
});

describe("derived catalogue", () => {
  it("is the same in the Worker as under Node (test/unit/demo-data.test.ts): seededOrder is the Worker's V8 sort of a random comparator", () => {
    for (const { derived, pinned } of derivedAndPinned()) expect(derived).toEqual(pinned);
    // What the catalogue drew with before: items.sort(() => random() - 0.5), run by this engine.
    for (let seed = 1; seed <= 500; seed++) {
      const items = ["a", "b", "c", "d", "e"].slice(0, 2 + (seed % 4));
      const sorted = [...items].sort(
        (
          (draw) => () =>
            draw() - 0.5
        )(prng(seed)),
      );
      expect(seededOrder(items, prng(seed))).toEqual(sorted);
    }
  });

  it("gives every accommodation 2-4 room types with 1-3 public rate plans each, deterministically", () => {
    for (let n = 1; n <= 300; n++) {
      const code = `US${String(n).padStart(6, "0")}`;
      const c = catalogueFor(code, 3.5);
      expect(c.rooms.length).toBeGreaterThanOrEqual(2);
      expect(c.rooms.length).toBeLessThanOrEqual(4);
      for (const room of c.rooms) {
        const plans = c.ratePlans.filter(
          (p) =>
            p.roomCode === room.code &&
            p.visibility === "PUBLIC" &&
            !p.rateRules.length &&
            p.paymentType === "MerchantPay",
        );
        expect(plans.length).toBeGreaterThanOrEqual(1);
        expect(plans.length).toBeLessThanOrEqual(3);
        // At most one rate paid at the hotel (issue 27), on the standard room only.
        const paidAtHotel = c.ratePlans.filter((p) => p.roomCode === room.code && p.paymentType === "PayAtProperty");
        expect(paidAtHotel.length).toBeLessThanOrEqual(room.code === "STD" ? 1 : 0);
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
      paymentType: "MerchantPay" as const,
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
      { currency: "USD", chargeTotal: 224 },
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

  it("a nightly price is stored in whole cents and read back as sent; more than 2 decimals is 400, nothing stored (issue 38)", async () => {
    const night = inDays(33);
    const set = await put("/api/inventory/US000004/rooms/STD", { from: night, to: night, price: 199.99 });
    expect(set.status, set.text).toBe(200);
    const rooms = set.json.data.rooms;
    expect(rooms.find((r: any) => r.code === "STD").nights[0]).toMatchObject({ night, price: 199.99, stored: true });
    const plan = rooms.find((r: any) => r.code === "STD").ratePlans[0];
    const planSet = await put(`/api/inventory/US000004/rate-plans/${plan.code}`, {
      from: night,
      to: night,
      price: 0.07,
    });
    expect(planSet.status, planSet.text).toBe(200);
    expect(planSet.json.data.rooms.find((r: any) => r.code === "STD").ratePlans[0].nights[0]).toMatchObject({
      night,
      price: 0.07,
    });
    const stored = async () =>
      env.DB.prepare(
        "select (select price_minor from room_nights where accommodation_code = 'US000004' and room_code = 'STD' and night = ?1) room, (select price_minor from rate_plan_nights where accommodation_code = 'US000004' and rate_plan_code = ?2 and night = ?1) plan",
      )
        .bind(night, plan.code)
        .first<{ room: number; plan: number }>();
    expect(await stored()).toEqual({ room: 19_999, plan: 7 });
    for (const path of ["rooms/STD", `rate-plans/${plan.code}`]) {
      const refused = await put(`/api/inventory/US000004/${path}`, { from: night, to: night, price: 199.995 });
      expect([refused.status, refused.json.code, refused.json.message]).toEqual([
        400,
        "invalid_request",
        "price: must have at most 2 decimals (whole US cents)",
      ]);
    }
    expect(await stored()).toEqual({ room: 19_999, plan: 7 });
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

describe("fees as data (issue 27)", () => {
  const fees = {
    mandatory: [
      {
        type: "TAX",
        code: "LODGING_TAX",
        description: "Lodging tax",
        basis: "PERCENT_OF_BASE",
        value: 8.875,
        included: true,
      },
      {
        type: "FEE",
        code: "CITY_FEE",
        description: "City fee",
        basis: "PER_ROOM_PER_NIGHT",
        value: 3.5,
        included: true,
      },
      {
        type: "FEE",
        code: "RESORT_FEE",
        description: "Resort fee",
        basis: "PER_ROOM_PER_NIGHT",
        value: 20,
        included: false,
      },
    ],
    optional: [{ type: "FEE", code: "PARKING", description: "Parking", basis: "PER_ROOM_PER_NIGHT", value: 30 }],
  };
  const contentOf = async (code: string) => {
    const res = await post("/api/v1/content/accommodations", { size: 100 });
    expect(res.status).toBe(200);
    return res.json.data.accommodations.find((a: any) => a.code === code);
  };

  it("PUT /api/inventory/{code}/fees: the next search prices with them, and the content export shows them", async () => {
    const checkIn = inDays(33);
    const before = await searchOne("US000003", { checkIn, checkOut: inDays(35) });
    expect(before.option.rate.charges.map((c: any) => c.code)).toContain("STATE_SALES_TAX");
    const exported = await contentOf("US000003");
    expect(exported.fees.mandatory.map((f: any) => f.code)).toEqual(before.option.rate.charges.map((c: any) => c.code));

    const res = await put("/api/inventory/US000003/fees", fees);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ accommodationCode: "US000003", currency: "USD", ...fees, source: "operator" });

    const product = (o: any) => o.id.split("~").slice(1, 4).join("~");
    const after = await searchOne("US000003", {
      checkIn,
      checkOut: inDays(35),
      pick: (o) => product(o) === product(before.option),
    });
    const rate = after.option.rate;
    expect(rate.baseRate).toBe(before.option.rate.baseRate);
    const cents = (n: number) => Math.round(n * 100);
    const tax = rate.nights.reduce((sum: number, n: any) => sum + percentOfMinor(cents(n.baseRate), 8.875), 0);
    expect(rate.charges).toEqual([
      { type: "TAX", code: "LODGING_TAX", description: "Lodging tax", amount: tax / 100, included: true },
      { type: "FEE", code: "CITY_FEE", description: "City fee", amount: 7, included: true },
      { type: "FEE", code: "RESORT_FEE", description: "Resort fee", amount: 40, included: false },
    ]);
    expect(cents(rate.taxesAndFees)).toBe(tax + 700);
    expect(rate.dueAtProperty).toEqual({
      amount: 40,
      currency: "USD",
      charges: [{ type: "FEE", code: "RESORT_FEE", description: "Resort fee", amount: 40, currency: "USD" }],
    });
    expect(cents(rate.totalStayPrice)).toBe(cents(rate.chargeTotal) + 4000);
    // The quote prices with the same schedule.
    expect((await quoteOf(after)).rate).toEqual(rate);

    const shown = await contentOf("US000003");
    expect(shown.fees).toEqual({ currency: "USD", ...fees });
    // A content delta serves the document again: its updatedAt moved.
    expect(Date.parse(shown.updatedAt)).toBeGreaterThan(Date.parse(exported.updatedAt));
  });

  it("refuses a bad body (400), an unknown accommodation (404), and a caller without the operator token (401)", async () => {
    for (const body of [
      {},
      { mandatory: [{ ...fees.mandatory[0], value: 101 }] },
      { mandatory: [{ ...fees.mandatory[1], value: 1.234 }] },
      { mandatory: [{ ...fees.mandatory[0], basis: "PER_GUEST" }] },
      { mandatory: [fees.mandatory[0], fees.mandatory[0]] },
      { mandatory: [{ ...fees.mandatory[0], code: "lower case" }] },
      { mandatory: [{ ...fees.mandatory[0], extra: 1 }] },
    ]) {
      const res = await put("/api/inventory/US000004/fees", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await put("/api/inventory/XX999999/fees", fees)).status).toBe(404);
    expect((await put("/api/inventory/US000004/fees", fees, {})).status).toBe(401);
    expect((await put("/api/inventory/US000004/fees", fees, { authorization: `Bearer ${DEMO_KEY}` })).status).toBe(403);
    // Nothing refused was stored: US000004 still has its derived schedule.
    expect((await contentOf("US000004")).fees.mandatory.map((f: any) => f.code)).toContain("STATE_SALES_TAX");
  });
});

describe("night-overrides", () => {
  type Spot = { code: string; latitude: number; longitude: number };
  let spots: Spot[];
  const stay = { checkIn: "2027-03-01", checkOut: "2027-03-03" };
  // Whole cents, more digits than a REAL renders exactly in text (15): a price must come back as stored.
  const EXACT_PRICE = 1_234_567_890_123_456;

  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 200 });
    spots = (await env.DB.prepare("select code, latitude, longitude from accommodations order by code").all<Spot>())
      .results;
    // Every hotel gets a room night and a plan night inside the stay, and one outside it.
    const room = env.DB.prepare(
      "insert into room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell, price_minor) values (?1, 'STD', ?2, 5, 1, 0, ?3)",
    );
    const plan = env.DB.prepare(
      "insert into rate_plan_nights (accommodation_code, rate_plan_code, night, stop_sell, price_minor) values (?1, 'STD-RO-FLX', ?2, 1, ?3)",
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
      expect(read.rooms.every((r) => r.price_minor === EXACT_PRICE)).toBe(true);
      expect(read.plans[0]).toMatchObject({ rate_plan_code: "STD-RO-FLX", night: "2027-03-02" });
      expect(read.plans.every((p) => p.price_minor === EXACT_PRICE && Boolean(p.stop_sell))).toBe(true);
    });

    it("keeps the order asked for codes, skips unknown ones, and reads nothing for an empty name", async () => {
      const codes = [spots[5]!.code, "XX999999", spots[1]!.code, spots[5]!.code];
      const read = await searchRead(database(env.DB), byCodes(codes), stay);
      expect(read.accommodations.map((a) => a.code)).toEqual([spots[5]!.code, spots[1]!.code]);
      expect(read.rooms.length).toBe(2);
      expect(await searchRead(database(env.DB), named(" "), stay)).toEqual({
        accommodations: [],
        rooms: [],
        plans: [],
        fees: new Map(),
      });
    });
  });
});

describe("upstream-circuit", () => {
  const T0 = Date.parse("2027-01-01T10:00:00Z");
  // Keyed by connection id (hotelx-supplier.ts): each test's circuit is a connection of its own.
  const fresh = () => circuitFor(env, `con_${crypto.randomUUID()}`);
  const fail = async (circuit: ReturnType<typeof fresh>, times: number, now = T0) => {
    for (let i = 0; i < times; i++) await circuit.record(false, now);
  };

  describe("upstream circuit breaker", () => {
    it("opens after five failures in a row, refuses at once for 30 s, then lets one trial through", async () => {
      const circuit = fresh();
      await fail(circuit, FAILURES_TO_OPEN - 1);
      expect(await circuit.allow(T0)).toEqual({ allowed: true });
      expect(await circuit.record(false, T0)).toEqual({ failures: 5, openUntil: T0 + OPEN_FOR_MS });
      expect(await circuit.allow(T0 + 1_000)).toEqual({ allowed: false, retryAfterMs: OPEN_FOR_MS - 1_000 });
      expect(await circuit.allow(T0 + OPEN_FOR_MS - 1)).toEqual({ allowed: false, retryAfterMs: 1 });
      // Half-open: one trial, the rest held off.
      expect(await circuit.allow(T0 + OPEN_FOR_MS)).toEqual({ allowed: true });
      expect(await circuit.allow(T0 + OPEN_FOR_MS + 10)).toMatchObject({ allowed: false });
    });

    it("a failed trial opens it for another 30 s; a successful one closes it", async () => {
      const circuit = fresh();
      await fail(circuit, FAILURES_TO_OPEN);
      const trialAt = T0 + OPEN_FOR_MS;
      expect(await circuit.allow(trialAt)).toEqual({ allowed: true });
      await circuit.record(false, trialAt);
      expect(await circuit.allow(trialAt + OPEN_FOR_MS - 1)).toMatchObject({ allowed: false });
      expect(await circuit.allow(trialAt + OPEN_FOR_MS)).toEqual({ allowed: true });
      expect(await circuit.record(true, trialAt + OPEN_FOR_MS)).toEqual({ failures: 0, openUntil: null });
      expect(await circuit.allow(trialAt + OPEN_FOR_MS)).toEqual({ allowed: true });
      // Closed again: it takes five new failures in a row to open.
      await fail(circuit, FAILURES_TO_OPEN - 1, trialAt + OPEN_FOR_MS);
      expect(await circuit.allow(trialAt + OPEN_FOR_MS)).toEqual({ allowed: true });
    });

    it("counts failures in a row only: a success in between starts again", async () => {
      const circuit = fresh();
      await fail(circuit, FAILURES_TO_OPEN - 1);
      await circuit.record(true, T0);
      await fail(circuit, FAILURES_TO_OPEN - 1);
      expect(await circuit.allow(T0)).toEqual({ allowed: true });
    });

    it("is one circuit per key, shared by every caller, and counts parallel failures exactly", async () => {
      const key = `con_shared_${crypto.randomUUID()}`;
      await Promise.all(Array.from({ length: FAILURES_TO_OPEN }, () => circuitFor(env, key).record(false, T0)));
      expect(await circuitFor(env, key).allow(T0 + 1)).toMatchObject({ allowed: false });
      expect(await fresh().allow(T0 + 1)).toEqual({ allowed: true });
      // Many callers at the end of the open period: exactly one trial goes.
      const verdicts = await Promise.all(Array.from({ length: 6 }, () => circuitFor(env, key).allow(T0 + OPEN_FOR_MS)));
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(1);
    });

    it("release: a trial that told nothing hands the trial to the next call; outside a trial it changes nothing", async () => {
      const circuit = fresh();
      await fail(circuit, FAILURES_TO_OPEN);
      const opened = { failures: FAILURES_TO_OPEN, openUntil: T0 + OPEN_FOR_MS };
      // Open, no trial in flight: the 30 s stand.
      expect(await circuit.release(T0 + 1_000)).toEqual(opened);
      expect(await circuit.allow(T0 + 1_000)).toMatchObject({ allowed: false });
      const trialAt = T0 + OPEN_FOR_MS;
      expect(await circuit.allow(trialAt)).toEqual({ allowed: true });
      expect(await circuit.allow(trialAt + 10)).toMatchObject({ allowed: false });
      // The trial released: the next call is a new trial at once, and only one.
      expect(await circuit.release(trialAt + 20)).toEqual({ failures: FAILURES_TO_OPEN, openUntil: trialAt + 20 });
      const verdicts = await Promise.all(Array.from({ length: 4 }, () => circuit.allow(trialAt + 30)));
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(1);
      // That trial fails: open for 30 s again; releasing then changes nothing.
      await circuit.record(false, trialAt + 40);
      expect(await circuit.release(trialAt + 50)).toMatchObject({ openUntil: trialAt + 40 + OPEN_FOR_MS });
      // Closed: nothing to release, and no failure counted.
      const closed = fresh();
      await fail(closed, FAILURES_TO_OPEN - 1);
      expect(await closed.release(T0)).toEqual({ failures: FAILURES_TO_OPEN - 1, openUntil: null });
      expect(await closed.allow(T0)).toEqual({ allowed: true });
    });
  });
});

describe("upkeep past-night-holds", () => {
  it("deletes the hold counters left at 0 two days after their night, and keeps any that still hold rooms", async () => {
    const now = new Date("2027-05-10T12:00:00Z");
    const row = (roomCode: string, night: string, held: number) => ({
      partnerId: "demo",
      accommodationCode: "US000001",
      roomCode,
      night,
      held,
    });
    // Two days before 2027-05-10 is 2027-05-08: nights before it holding nothing go.
    await database(env.DB)
      .insert(roomNightHolds)
      .values([
        row("R0", "2027-05-07", 0),
        row("R1", "2027-05-07", 0),
        row("R2", "2027-05-08", 0),
        row("R3", "2027-05-06", 1),
      ]);
    expect(await pastNightHolds.run(env, now)).toBe(2);
    const left = (await database(env.DB).select().from(roomNightHolds)).filter((r) => /^R\d$/.test(r.roomCode));
    expect(left.map((r) => [r.night, r.held]).sort()).toEqual([
      ["2027-05-06", 1],
      ["2027-05-08", 0],
    ]);
    // Run again: nothing more to delete.
    expect(await pastNightHolds.run(env, now)).toBe(0);
  });
});

describe("hotel map suggestions (issue 39 item 6): POST /api/operator/suppliers/{code}/hotel-map/suggest", () => {
  const SUGGEST = "/api/operator/suppliers/sandbox-eu/hotel-map/suggest";
  beforeAll(async () => {
    await database(env.DB)
      .insert(suppliers)
      .values([
        { code: "sandbox-eu", kind: "hotelx", name: "Sandbox EU", sealBinding: "sandbox-eu" },
        { code: "gone", kind: "hotelx", name: "Gone", sealBinding: "gone", active: false },
      ]);
  });
  const suggest = (body: unknown, headers: Record<string, string> = OPERATOR) =>
    call("POST", SUGGEST, body, { apiKey: null, headers });
  // About 30 m north of a point.
  const north = (lat: number) => lat + 0.00027;

  it("answers per hotel, in the order sent: auto on the hotel it is, review on a look-alike at another number, none far from ours", async () => {
    const [first, second] = await demoAccommodations(2);
    const res = await suggest({
      hotels: [
        {
          supplierHotelCode: "FAR",
          name: first!.name,
          latitude: 0,
          longitude: 0,
        },
        {
          supplierHotelCode: "H1",
          // Reordered, upper case, accents, abbreviated: the same hotel as suppliers write it.
          name: first!.name
            .toUpperCase()
            .replace(/HOTEL/g, "HÔTEL")
            .replace(/SUITES/g, "STES")
            .split(" ")
            .reverse()
            .join(" "),
          latitude: north(first!.latitude),
          longitude: first!.longitude,
          address: first!.content.address.address,
          postalCode: `${first!.content.address.postalCode}-0001`,
          countryCode: "us",
        },
        {
          supplierHotelCode: "H2",
          name: second!.name,
          latitude: north(second!.latitude),
          longitude: second!.longitude,
          address: `${Number.parseInt(second!.content.address.address, 10) + 1} Elsewhere Street`,
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json.data.summary).toEqual({ hotels: 3, auto: 1, review: 1, none: 1 });
    const [far, h1, h2] = res.json.data.hotels;
    expect(far).toEqual({
      supplierHotelCode: "FAR",
      decision: "none",
      accommodationCode: null,
      score: null,
      distanceMeters: null,
      nameSimilarity: null,
      candidates: [],
    });
    expect(h1).toMatchObject({
      supplierHotelCode: "H1",
      decision: "auto",
      accommodationCode: first!.code,
      nameSimilarity: 1,
    });
    expect(h1.distanceMeters).toBe(30);
    expect(h1.candidates[0]).toEqual({
      accommodationCode: first!.code,
      score: h1.score,
      distanceMeters: 30,
      nameSimilarity: 1,
    });
    expect(h2).toMatchObject({ supplierHotelCode: "H2", decision: "review", accommodationCode: second!.code });
  });

  it("apply writes the auto ones into the hotel map through its import: rows numbered as sent, the rest left for review", async () => {
    const demo = await demoAccommodations(4);
    const as = (code: string, a: (typeof demo)[number], address = a.content.address.address) => ({
      supplierHotelCode: code,
      name: a.name,
      latitude: north(a.latitude),
      longitude: a.longitude,
      address,
    });
    const list = [
      as("A1", demo[2]!),
      as("A2", demo[3]!, `${Number.parseInt(demo[3]!.content.address.address, 10) + 2} Other Road`),
    ];
    const first = await suggest({ hotels: list, apply: true });
    expect(first.status).toBe(200);
    expect(first.json.data.hotels.map((h: { decision: string }) => h.decision)).toEqual(["auto", "review"]);
    expect(first.json.data.applied).toEqual({ inserted: 1, updated: 0, unchanged: 0, rejected: [] });
    const map = await get(`/api/operator/suppliers/sandbox-eu/hotel-map`);
    expect(map.json.data.rows).toEqual([{ supplierHotelCode: "A1", accommodationCode: demo[2]!.code }]);

    // Again: unchanged. Another code of the supplier for the same hotel: the import's one-to-one rejects it, by its row.
    const again = await suggest({ hotels: [as("A0", demo[0]!, "1 Nowhere Lane"), as("A1", demo[2]!)], apply: true });
    expect(again.json.data.applied).toEqual({ inserted: 0, updated: 0, unchanged: 1, rejected: [] });
    const other = await suggest({ hotels: [list[1]!, as("B1", demo[2]!)], apply: true });
    expect(other.json.data.applied).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 0,
      rejected: [
        {
          row: 2,
          reason: "already_mapped_elsewhere",
          message: `${demo[2]!.code} is already mapped to supplier hotel A1`,
        },
      ],
    });
    // Without apply nothing is written and no applied is answered.
    const dry = await suggest({ hotels: [as("C1", demo[3]!)] });
    expect(dry.json.data.hotels[0].decision).toBe("auto");
    expect(dry.json.data).not.toHaveProperty("applied");
    expect((await get(`/api/operator/suppliers/sandbox-eu/hotel-map`)).json.data.rows).toHaveLength(1);
  });

  it("takes a list over 1 MiB up to 8 MiB and 20,000 hotels on this route only; beyond is 413 or 400; needs the operator token", async () => {
    const padded = (i: number) => ({
      supplierHotelCode: `P${i}`,
      name: `Nowhere Hotel ${"x".repeat(250)} ${i}`,
      latitude: -60,
      longitude: i / 1000,
    });
    const large = { hotels: Array.from({ length: 4_500 }, (_, i) => padded(i)) };
    expect(JSON.stringify(large).length).toBeGreaterThan(MAX_BODY_BYTES);
    const ok = await suggest(large);
    expect(ok.status).toBe(200);
    expect(ok.json.data.summary).toEqual({ hotels: 4_500, auto: 0, review: 0, none: 4_500 });
    // Every other route keeps 1 MiB.
    const elsewhere = await put("/api/inventory/US000001/fees", {
      mandatory: [],
      optional: [],
      pad: "x".repeat(MAX_BODY_BYTES),
    });
    expect(elsewhere.status).toBe(413);

    const tooLarge = await call("POST", SUGGEST, undefined, {
      apiKey: null,
      headers: { ...OPERATOR, "content-type": "application/json" },
      raw: JSON.stringify({ hotels: [{ ...padded(0), name: "x".repeat(SUGGEST_MAX_BODY_BYTES) }] }),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json.message).toBe(`Request body too large: the limit is ${SUGGEST_MAX_BODY_BYTES} bytes`);

    const tooMany = await suggest({
      hotels: Array.from({ length: SUGGEST_MAX_HOTELS + 1 }, (_, i) => ({
        supplierHotelCode: `${i}`,
        name: "H",
        latitude: 0,
        longitude: 0,
      })),
    });
    expect(tooMany.status).toBe(400);
    const twice = await suggest({ hotels: [padded(1), padded(1)] });
    expect(twice.status).toBe(400);
    expect(twice.json.message).toContain("listed twice");
    expect((await suggest({ hotels: [padded(1)] }, {})).status).toBe(401);
    for (const unknown of ["nobody", "gone"]) {
      const missing = await post(
        `/api/operator/suppliers/${unknown}/hotel-map/suggest`,
        { hotels: [padded(1)] },
        { apiKey: null, headers: OPERATOR },
      );
      expect(missing.status).toBe(404);
      expect(missing.json).toMatchObject({ code: "supplier_not_found", message: `Supplier ${unknown} not found` });
    }
    expect(
      (
        await call(
          "POST",
          "/api/operator/suppliers/Not_A_Code/hotel-map/suggest",
          { hotels: [padded(1)] },
          { apiKey: null, headers: OPERATOR },
        )
      ).status,
    ).toBe(400);
  });
});

describe("hotel map suggestions from the supplier's own list (issue 39 item 6): fromSupplier reads a hotelx supplier's hotels content query", () => {
  const SUGGEST = (code: string) => `/api/operator/suppliers/${code}/hotel-map/suggest`;
  const suggest = (code: string, body: unknown) =>
    call("POST", SUGGEST(code), body, { apiKey: null, headers: OPERATOR });
  /** A hotelx supplier of the sandbox's (the operator's own route), at `path` under its base, with its own client. */
  const addSandboxSupplier = async (code: string, path: string, extra: Record<string, unknown> = {}) => {
    const res = await call(
      "POST",
      "/api/operator/suppliers",
      {
        code,
        kind: "hotelx",
        name: code,
        settings: {
          url: `${sandboxUrl()}${path}`,
          client: `suggest-${code}`,
          context: "SANDBOX",
          credentials: { apiKey: env.HOTELX_SANDBOX_API_KEY },
          ...extra,
        },
      },
      { apiKey: null, headers: OPERATOR },
    );
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  };
  /** The `hotels` queries the sandbox's albion answered so far (the content query carries no settings.client: counted under ""). */
  const listReads = async (): Promise<number> =>
    (
      (await (
        await env.HOTELX_SANDBOX.fetch("https://hotelx-sandbox.test/suppliers/albion/requests?client=", {
          headers: { authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
        })
      ).json()) as Record<string, number>
    ).hotels ?? 0;

  beforeAll(async () => {
    // The suppliers' hotels are among the first 200 demo accommodations (sandbox/hotelx/fixtures/README.md).
    await seedDemoAccommodations(env.DB, { accommodations: 200 });
    await addSandboxSupplier("albion-list", "suppliers/albion/graphql");
  });

  it("matches the list the supplier answers, paged: every auto decision is its truth map's, most of the map is found, the hotel Edgestay lacks is never auto; apply writes them", async () => {
    const truth = new Map(albionTruth.map((r) => [r.supplierHotelCode, r.accommodationCode]));
    const reads = await listReads();
    const res = await suggest("albion-list", { fromSupplier: true });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const answered = res.json.data.hotels as Array<{
      supplierHotelCode: string;
      decision: string;
      accommodationCode: string | null;
    }>;
    // Every hotel of its list, once (one more than the truth map: the hotel Edgestay does not have).
    expect(answered.map((h) => h.supplierHotelCode).sort()).toEqual(albionHotels.map((h) => h.code).sort());
    const auto = answered.filter((h) => h.decision === "auto");
    expect(auto.filter((h) => truth.get(h.supplierHotelCode) !== h.accommodationCode)).toEqual([]);
    expect(auto.length).toBeGreaterThanOrEqual(Math.ceil(truth.size * 0.9));
    const lacking = albionHotels.find((h) => !truth.has(h.code))!;
    expect(answered.find((h) => h.supplierHotelCode === lacking.code)!.decision).not.toBe("auto");
    // The list is one page here (Hotel-X's hotels query, once).
    expect((await listReads()) - reads).toBe(1);

    const applied = await suggest("albion-list", { fromSupplier: true, apply: true });
    expect(applied.json.data.applied).toEqual({ inserted: auto.length, updated: 0, unchanged: 0, rejected: [] });
    const map = await get("/api/operator/suppliers/albion-list/hotel-map?limit=1000");
    expect(map.json.data.rows.length).toBe(auto.length);
    for (const row of map.json.data.rows) expect(row.accommodationCode).toBe(truth.get(row.supplierHotelCode));
  });

  it("reads a long list page by page with the token each page answers, and refuses one longer than a call takes", async () => {
    const source = {
      code: "albion-list",
      url: sandboxSupplierUrl("albion"),
      client: "suggest-paged",
      context: "SANDBOX",
      apiKey: env.HOTELX_SANDBOX_API_KEY,
    };
    const reads = await listReads();
    const paged = await readHotelList(env, source, { maxHotels: SUGGEST_MAX_HOTELS, pageSize: 40 });
    expect(paged.map((h) => h.supplierHotelCode)).toEqual(albionHotels.map((h) => h.code));
    expect(paged[0]).toEqual({
      supplierHotelCode: albionHotels[0]!.code,
      name: albionHotels[0]!.name,
      latitude: albionHotels[0]!.latitude,
      longitude: albionHotels[0]!.longitude,
      address: albionHotels[0]!.address,
      ...(albionHotels[0]!.postalCode ? { postalCode: albionHotels[0]!.postalCode } : {}),
      city: albionHotels[0]!.city,
      countryCode: albionHotels[0]!.countryCode,
    });
    expect((await listReads()) - reads).toBe(Math.ceil(albionHotels.length / 40));
    await expect(readHotelList(env, source, { maxHotels: 10 })).rejects.toMatchObject({
      code: "invalid_request",
      message: `fromSupplier: supplier albion-list lists ${albionHotels.length} hotels, more than the 10 one call takes; send them in hotels, in parts`,
    });
  });

  it("a supplier late or failing is 504 or 502 naming it; another kind, or both or neither of hotels and fromSupplier, is a clear 400", async () => {
    await addSandboxSupplier("albion-slow", "suppliers/albion/as/HXSLOW5000/graphql", { timeout: 300 });
    await addSandboxSupplier("albion-down", "suppliers/albion/as/HX500/graphql");
    const slow = await suggest("albion-slow", { fromSupplier: true });
    expect([slow.status, slow.json.code, slow.json.message]).toEqual([
      504,
      "supplier_timeout",
      "The supplier did not answer in time",
    ]);
    const down = await suggest("albion-down", { fromSupplier: true });
    expect([down.status, down.json.code, down.json.message]).toEqual([
      502,
      "supplier_error",
      "The supplier answered with an error",
    ]);

    const embedded = await suggest("embedded", { fromSupplier: true });
    expect([embedded.status, embedded.json.message]).toEqual([
      400,
      "fromSupplier: supplier embedded is of kind embedded, which has no hotel list to read; send its hotels instead",
    ]);
    const hotel = { supplierHotelCode: "X1", name: "Somewhere", latitude: 0, longitude: 0 };
    for (const body of [{ hotels: [hotel], fromSupplier: true }, {}, { fromSupplier: false }]) {
      const res = await suggest("albion-list", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await suggest("albion-list", {})).json.message).toBe(
      "hotels: send hotels or fromSupplier: true, one of them",
    );
  });
});

describe("the per-connection upstream routes", () => {
  const op = (method: string, path: string, body?: unknown) => call(method, path, body, OPERATOR_CALL);
  const SECRET = "hx-live-3f9a1c7e5b2d4f60";
  const valid = {
    kind: "hotelx",
    url: "https://api.hotelx.example/graphql",
    client: "edgestay",
    context: "HOTELX",
    credentials: { apiKey: SECRET },
  };
  const newConnection = async () => {
    const res = await op("POST", "/api/connections", {
      partnerId: "demo",
      apiType: "cug",
      connectionType: "tgx",
      rateLimit: 100,
      rateLimitWindowMs: 1000,
      netMarkups: 0,
    });
    expect(res.status).toBe(201);
    return res.json.data.id as string;
  };
  // The alias keeps a connection's upstream as the supplier `hotelx-<connection code>`, sold by it.
  const rowOf = (id: string) =>
    env.DB.prepare(
      `select s.* from suppliers s join connections c on s.code = 'hotelx-' || c.code
     join connection_suppliers cs on cs.connection_id = c.id and cs.supplier_code = s.code where c.id = ?`,
    )
      .bind(id)
      .first<Record<string, unknown>>();
  /** The upstream's settings and opened credentials, or null when the connection sells none. */
  const upstreamFor = async (_db: Db, credentialsKey: string, id: string) => {
    const row = await rowOf(id);
    if (!row) return null;
    const secret = await openSecret(
      credentialsKey,
      "upstream-credentials",
      String(row.seal_binding),
      String(row.sealed_credentials),
    );
    const codes = await env.DB.prepare("select supplier_code from connection_suppliers where connection_id = ?")
      .bind(id)
      .all<{ supplier_code: string }>();
    return {
      kind: row.kind,
      ...(JSON.parse(String(row.settings)) as {
        url: string;
        client: string;
        context: string;
        twoStepBooking: boolean;
      }),
      ...(JSON.parse(secret) as { apiKey: string }),
      withEmbedded: codes.results.some((r) => r.supplier_code === "embedded"),
    };
  };

  let logs: MockInstance[] = [];
  beforeEach(() => {
    logs = [vi.spyOn(console, "log"), vi.spyOn(console, "error"), vi.spyOn(console, "warn"), vi.spyOn(console, "info")];
  });
  afterEach(() => {
    for (const spy of logs) spy.mockRestore();
  });
  const logged = () => JSON.stringify(logs.flatMap((spy) => spy.mock.calls));

  describe("operator authentication on /api/connections/:id/upstream", () => {
    it("refuses no token (401), a partner API key (401), a wrong bearer (403) and a partner admin's token (403)", async () => {
      const partnerAdmin = bearer(await demoAdminToken());
      for (const method of ["PUT", "GET", "DELETE"]) {
        const body = method === "PUT" ? valid : undefined;
        const cases = [
          [{ apiKey: null }, 401],
          [{ apiKey: DEMO_KEY }, 401],
          [{ apiKey: null, headers: { authorization: `Bearer ${DEMO_KEY}` } }, 403],
          [partnerAdmin, 403],
        ] as const;
        for (const [options, status] of cases) {
          const res = await call(method, "/api/connections/con_demo_b2b/upstream", body, options);
          expect(res.status, `${method} ${JSON.stringify(options)}`).toBe(status);
          expect(res.json).not.toHaveProperty("data");
        }
      }
      expect(await rowOf("con_demo_b2b")).toBeNull();
    });
  });

  describe("PUT, GET, DELETE /api/connections/:id/upstream", () => {
    it("stores the upstream with sealed credentials, shows it masked, replaces it, and returns the connection to the embedded inventory", async () => {
      const id = await newConnection();
      const put = await op("PUT", `/api/connections/${id}/upstream`, valid);
      expect(put.status, put.text).toBe(200);
      const view = {
        connectionId: id,
        kind: "hotelx",
        url: valid.url,
        client: "edgestay",
        context: "HOTELX",
        credentials: { apiKey: "********" },
        withEmbedded: false,
        twoStepBooking: false,
      };
      expect(put.json.data).toMatchObject(view);

      const got = await op("GET", `/api/connections/${id}/upstream`);
      expect(got.status).toBe(200);
      expect(got.json.data).toMatchObject(view);

      // At rest: sealed, never the key in clear; the supply layer opens it.
      const row = await rowOf(id);
      expect(JSON.stringify(row)).not.toContain(SECRET);
      expect(String(row!.sealed_credentials)).toMatch(/^v1\./);
      const db = database(env.DB);
      expect(await upstreamFor(db, env.UPSTREAM_CREDENTIALS_KEY, id)).toMatchObject({
        kind: "hotelx",
        url: valid.url,
        client: "edgestay",
        context: "HOTELX",
        apiKey: SECRET,
        withEmbedded: false,
        twoStepBooking: false,
      });
      await expect(upstreamFor(db, "another-key-entirely-another-key", id)).rejects.toThrow();

      // Same credentials again: a fresh IV, so a different sealed value.
      const again = await op("PUT", `/api/connections/${id}/upstream`, {
        ...valid,
        url: "https://other.hotelx.example/",
        withEmbedded: true,
        twoStepBooking: true,
      });
      expect(again.json.data).toMatchObject({
        url: "https://other.hotelx.example/",
        withEmbedded: true,
        twoStepBooking: true,
      });
      expect((await rowOf(id))!.sealed_credentials).not.toBe(row!.sealed_credentials);
      expect(await upstreamFor(db, env.UPSTREAM_CREDENTIALS_KEY, id)).toMatchObject({
        apiKey: SECRET,
        withEmbedded: true,
        twoStepBooking: true,
      });

      const removed = await op("DELETE", `/api/connections/${id}/upstream`);
      expect(removed.status).toBe(200);
      expect(removed.json.data).toMatchObject({ connectionId: id, credentials: { apiKey: "********" } });
      expect(await upstreamFor(db, env.UPSTREAM_CREDENTIALS_KEY, id)).toBeNull();
      for (const method of ["GET", "DELETE"]) {
        const gone = await op(method, `/api/connections/${id}/upstream`);
        expect(gone.status).toBe(404);
        expect(gone.json.message).toBe("Connection has no upstream");
      }

      for (const res of [put, got, again, removed]) expect(res.text).not.toContain(SECRET);
      expect(logged()).not.toContain(SECRET);
    });

    it("404 Connection not found for an unknown connection, on every verb", async () => {
      for (const method of ["PUT", "GET", "DELETE"]) {
        const res = await op(method, "/api/connections/con_nope/upstream", method === "PUT" ? valid : undefined);
        expect(res.status, method).toBe(404);
        expect(res.json.message).toBe("Connection not found");
      }
    });

    it("deleting the connection deletes its upstream", async () => {
      const id = await newConnection();
      expect((await op("PUT", `/api/connections/${id}/upstream`, valid)).status).toBe(200);
      expect((await op("DELETE", `/api/connections/${id}`)).status).toBe(200);
      expect(await rowOf(id)).toBeNull();
    });

    it.each([
      ["kind", { kind: "expedia" }],
      ["kind", { kind: undefined }],
      ["url", { url: undefined }],
      ["url", { url: 42 }],
      ["client", { client: "" }],
      ["client", { client: undefined }],
      ["context", { context: ["x"] }],
      ["credentials", { credentials: undefined }],
      ["apiKey", { credentials: {} }],
      ["apiKey", { credentials: { apiKey: "" } }],
      ["withEmbedded", { withEmbedded: "yes" }],
      ["twoStepBooking", { twoStepBooking: 1 }],
    ])("rejects a bad %s with 400, never echoing the key", async (field, change) => {
      const res = await op("PUT", "/api/connections/con_demo_b2b/upstream", { ...valid, ...change });
      expect(res.status).toBe(400);
      expect(res.json.message).toContain(field);
      expect(textWithoutRequestId(res)).not.toContain(SECRET);
    });

    it("rejects malformed JSON with 400", async () => {
      const res = await call("PUT", "/api/connections/con_demo_b2b/upstream", undefined, {
        ...OPERATOR_CALL,
        raw: "{",
        headers: { ...OPERATOR_CALL.headers, "content-type": "application/json" },
      });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("Malformed JSON in request body");
    });
  });

  describe("upstream URLs (no SSRF)", () => {
    it.each([
      ["http://api.hotelx.example/", "url must use https"],
      ["ftp://api.hotelx.example/", "url must use https"],
      ["not a url", "url must be an absolute URL"],
      ["https://user:pw@api.hotelx.example/", "url must not contain credentials"],
      ["https://localhost/", "url must not point to a local host name"],
      ["https://localhost./", "url must not point to a local host name"],
      ["https://sandbox.internal/", "url must not point to a local host name"],
      ["https://127.0.0.1/", "url must not point to a private, loopback or link-local address"],
      ["https://127.1/", "url must not point to a private, loopback or link-local address"],
      ["https://2130706433/", "url must not point to a private, loopback or link-local address"],
      ["https://0177.0.0.1/", "url must not point to a private, loopback or link-local address"],
      ["https://0x7f.0.0.1/", "url must not point to a private, loopback or link-local address"],
      ["https://10.1.2.3/", "url must not point to a private, loopback or link-local address"],
      ["https://172.16.0.1/", "url must not point to a private, loopback or link-local address"],
      ["https://192.168.0.10/", "url must not point to a private, loopback or link-local address"],
      ["https://169.254.169.254/latest/meta-data", "url must not point to a private, loopback or link-local address"],
      ["https://0.0.0.0/", "url must not point to a private, loopback or link-local address"],
      ["https://[::1]/", "url must not point to a private, loopback or link-local address"],
      ["https://[::ffff:127.0.0.1]/", "url must not point to a private, loopback or link-local address"],
      ["https://[::ffff:a9fe:a9fe]/", "url must not point to a private, loopback or link-local address"],
      ["https://[fe80::1]/", "url must not point to a private, loopback or link-local address"],
      ["https://[fd00::1]/", "url must not point to a private, loopback or link-local address"],
      ["https://[64:ff9b::7f00:1]/", "url must not point to a private, loopback or link-local address"],
      ["https://[::ffff:0:a9fe:a9fe]/", "url must not point to a private, loopback or link-local address"],
      ["https://api.hotelx.example:0/", "url must not use port 0"],
      ["http://127.0.0.1/", "url must use https"],
      ["http://localhost:8791/", "url must use https"],
    ])("refuses %s: %s", async (url, message) => {
      const res = await op("PUT", "/api/connections/con_demo_b2b/upstream", { ...valid, url });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(message);
      expect(await rowOf("con_demo_b2b")).toBeNull();
    });

    it("allows http://127.0.0.1:<port> only in local development", async () => {
      const id = await newConnection();
      const local = await op("PUT", `/api/connections/${id}/upstream`, { ...valid, url: "http://127.0.0.1:8791/" });
      expect(local.status).toBe(200);
      expect(local.json.data.url).toBe("http://127.0.0.1:8791/");
      const db = database(env.DB);
      const deployed = { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, local: false };
      await expect(
        setUpstream(db, deployed, id, { ...valid, kind: "hotelx", url: "http://127.0.0.1:8791/" }),
      ).rejects.toMatchObject({ status: 400, message: "url must use https" });
      expect(
        await setUpstream(db, deployed, id, { ...valid, kind: "hotelx", url: "https://8.8.8.8/graphql" }),
      ).toMatchObject({ url: "https://8.8.8.8/graphql" });
    });
  });

  describe("/api/operator/suppliers and /api/connections/:id/suppliers (issue 39)", () => {
    const supplier = {
      code: "hotelx-acme",
      kind: "hotelx",
      name: "Acme",
      settings: { ...valid, kind: undefined, credentials: { apiKey: SECRET }, currency: "gbp" },
    };
    const sealedOf = (code: string) =>
      env.DB.prepare("select sealed_credentials from suppliers where code = ?")
        .bind(code)
        .first<string>("sealed_credentials");

    it("creates, reads masked, replaces settings (credentials kept, replaced or cleared) and refuses what is not a supplier", async () => {
      const created = await op("POST", "/api/operator/suppliers", supplier);
      expect(created.status, created.text).toBe(201);
      expect(created.json.data).toMatchObject({
        code: "hotelx-acme",
        kind: "hotelx",
        name: "Acme",
        settings: { url: valid.url, client: "edgestay", context: "HOTELX", currency: "GBP", hotelCodes: "mapped" },
        credentials: { apiKey: "********" },
        active: true,
      });
      expect(created.json.data.settings).not.toHaveProperty("credentials");
      expect((await op("POST", "/api/operator/suppliers", supplier)).status).toBe(409);
      for (const bad of [
        { ...supplier, code: "Has_Caps" },
        { ...supplier, code: "x" },
        { ...supplier, kind: "embedded", code: "embedded-2" },
        { ...supplier, kind: "nope" },
        { ...supplier, code: "hotelx-nokey", settings: { ...supplier.settings, credentials: undefined } },
        { ...supplier, code: "hotelx-http", settings: { ...supplier.settings, url: "http://api.example/" } },
      ]) {
        const res = await op("POST", "/api/operator/suppliers", bad);
        expect(res.status, JSON.stringify(bad)).toBe(400);
      }
      const list = await op("GET", "/api/operator/suppliers");
      expect(list.json.data.items.map((s: any) => s.code)).toEqual(expect.arrayContaining(["embedded", "hotelx-acme"]));
      expect((await op("GET", "/api/operator/suppliers/hotelx-acme")).json.data.credentials).toEqual({
        apiKey: "********",
      });
      expect((await op("GET", "/api/operator/suppliers/nope")).status).toBe(404);

      const sealed = await sealedOf("hotelx-acme");
      const { credentials: _, ...withoutCredentials } = supplier.settings;
      const kept = await op("PUT", "/api/operator/suppliers/hotelx-acme", {
        name: "Acme 2",
        settings: { ...withoutCredentials, timeout: 3000 },
      });
      expect(kept.status, kept.text).toBe(200);
      expect(kept.json.data).toMatchObject({
        name: "Acme 2",
        settings: { timeout: 3000 },
        credentials: { apiKey: "********" },
      });
      expect(await sealedOf("hotelx-acme")).toBe(sealed);
      // The whole settings are replaced: what is not sent takes its default.
      const replaced = await op("PUT", "/api/operator/suppliers/hotelx-acme", {
        name: "Acme 2",
        settings: { ...withoutCredentials, currency: undefined, credentials: { apiKey: "another-key" } },
      });
      expect(replaced.json.data.settings).toMatchObject({ currency: "EUR" });
      expect(replaced.json.data.settings).not.toHaveProperty("timeout");
      expect(await sealedOf("hotelx-acme")).not.toBe(sealed);
      const cleared = await op("PUT", "/api/operator/suppliers/hotelx-acme", {
        name: "Acme 2",
        settings: { ...withoutCredentials, credentials: null },
      });
      expect(cleared.json.data.credentials).toBeNull();
      expect(await sealedOf("hotelx-acme")).toBeNull();
      for (const res of [created, list, kept, replaced, cleared]) expect(res.text).not.toContain(SECRET);
      expect(logged()).not.toContain(SECRET);
    });

    it("a connection sells [embedded] until told otherwise; unknown codes are 400 naming them; a sold supplier is not deleted", async () => {
      const id = await newConnection();
      expect((await op("GET", `/api/connections/${id}/suppliers`)).json.data).toEqual({
        suppliers: [{ code: "embedded" }],
      });
      await op("POST", "/api/operator/suppliers", { ...supplier, code: "hotelx-sold" });
      const unknown = await op("PUT", `/api/connections/${id}/suppliers`, {
        suppliers: [{ code: "embedded" }, { code: "nowhere" }],
      });
      expect([unknown.status, unknown.json.code, unknown.json.message]).toEqual([
        400,
        "unknown_supplier",
        "Unknown supplier: nowhere",
      ]);
      const twice = await op("PUT", `/api/connections/${id}/suppliers`, {
        suppliers: [{ code: "embedded" }, { code: "embedded" }],
      });
      expect(twice.status).toBe(400);
      expect((await op("PUT", `/api/connections/${id}/suppliers`, { suppliers: [] })).status).toBe(400);
      expect(
        (await op("PUT", "/api/connections/con_nowhere/suppliers", { suppliers: [{ code: "embedded" }] })).status,
      ).toBe(404);
      const order = { suppliers: [{ code: "hotelx-sold" }, { code: "embedded" }] };
      expect((await op("PUT", `/api/connections/${id}/suppliers`, order)).json.data).toEqual(order);
      expect((await op("GET", `/api/connections/${id}/suppliers`)).json.data).toEqual(order);

      const refused = await op("DELETE", "/api/operator/suppliers/hotelx-sold");
      expect([refused.status, refused.json.code]).toEqual([409, "supplier_in_use"]);
      expect((await op("DELETE", "/api/operator/suppliers/embedded")).status).toBe(409);
      await op("PUT", `/api/connections/${id}/suppliers`, { suppliers: [{ code: "embedded" }] });
      const deleted = await op("DELETE", "/api/operator/suppliers/hotelx-sold");
      expect(deleted.status).toBe(200);
      expect((await op("GET", "/api/operator/suppliers/hotelx-sold")).status).toBe(404);
    });
  });
});
