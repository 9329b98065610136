import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, post } from "../../../test/support/api";
import { OPERATOR } from "../../../test/support/sessions";
import { addDays } from "../../platform/time/zoned-time";
import { bookBody, quoteBody, searchOne, type SearchedOption } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { cancelBooking } from "./cancel";
import { bookingDeps } from "./deps";

/** Two in-use direct connections of the demo partner, equal but for netMarkups (0 and 10). */
let net: { id: string; code: number };
let marked: { id: string; code: number };

const connection = async (apiType: string, netMarkups: number) => {
  const res = await call(
    "POST",
    "/api/connections",
    {
      partnerId: "demo",
      apiType,
      connectionType: "direct",
      rateLimit: 0,
      rateLimitWindowMs: 0,
      netMarkups,
      currentInUse: true,
    },
    OPERATOR,
  );
  expect(res.status).toBe(201);
  return { id: res.json.data.id as string, code: res.json.data.code as number };
};

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 12 });
  net = await connection("cug", 0);
  marked = await connection("mobile", 10);
});

const cents = (amount: number) => Math.round(amount * 100);
/** 10 % on whole cents, half a cent rounded up: the rule of docs/api-decisions.md. */
const plusTen = (amountCents: number) => Math.round((amountCents * 110) / 100);
const tax = (baseCents: number) => Math.round((baseCents * 12) / 100);

const search = async (code: number, checkIn: string, nights: number, occupancies?: unknown[]) => {
  const res = await post("/api/search", {
    searchCriteria: {
      destinations: { accommodations: [{ code: "US000001" }, { code: "US000002" }, { code: "US000003" }] },
      occupancies: occupancies ?? [{ paxes: [{ age: 30 }, { age: 30 }] }],
      checkIn,
      checkOut: addDays(checkIn, nights),
    },
    settings: { access: { code } },
  });
  expect(res.status).toBe(200);
  return res.json.data.accommodations as any[];
};

/** Options by hotel and product (the unsigned tail of the option id). */
const byProduct = (hotels: any[]) =>
  new Map<string, any>(
    hotels.flatMap((h) => h.options.map((o: any) => [o.id.split("~").slice(1, 4).join("~"), o] as const)),
  );

describe("netMarkups", () => {
  it("a one-night stay costs exactly 10 % more per room, in cents, on the connection with netMarkups 10", async () => {
    const checkIn = inDays(45);
    const occupancies = [{ paxes: [{ age: 30 }, { age: 30 }] }, { paxes: [{ age: 40 }, { age: 9 }] }];
    const plain = byProduct(await search(net.code, checkIn, 1, occupancies));
    const dearer = byProduct(await search(marked.code, checkIn, 1, occupancies));
    expect(plain.size).toBeGreaterThan(3);
    expect([...dearer.keys()]).toEqual([...plain.keys()]);
    for (const [product, option] of plain) {
      const other = dearer.get(product);
      let base = 0;
      option.rooms.forEach((room: any, i: number) => {
        const roomBase = plusTen(cents(room.rate.baseRate));
        base += roomBase;
        expect(cents(other.rooms[i].rate.baseRate)).toBe(roomBase);
        expect(cents(other.rooms[i].rate.taxesAndFees)).toBe(tax(roomBase));
        expect(cents(other.rooms[i].rate.chargeTotal)).toBe(roomBase + tax(roomBase));
      });
      expect(cents(other.rate.baseRate)).toBe(base);
      expect(cents(other.rate.chargeTotal)).toBe(
        cents(other.rooms[0].rate.chargeTotal) + cents(other.rooms[1].rate.chargeTotal),
      );
      // One night: the first-night penalty and the full-stay penalty are both the charged total.
      expect(other.cancelPolicy.cancelPenalties.at(-1).value).toBe(other.rate.chargeTotal);
      expect(other.rate.exchange).toEqual({ currency: "USD", rate: 1 });
    }
  });

  it("every night is marked up and rounded on its own: 123.45 a night for 3 nights sells at 3 x 135.80", async () => {
    const checkIn = inDays(60);
    const s = await searchOne("US000004", {
      checkIn,
      checkOut: addDays(checkIn, 3),
      connection: net.code,
      pick: (o) => o.rooms[0].code === "STD",
    });
    const plan = s.option.id.split("~")[3];
    const price = await call(
      "PUT",
      `/api/inventory/US000004/rate-plans/${plan}`,
      { from: checkIn, to: addDays(checkIn, 2), price: 123.45 },
      OPERATOR,
    );
    expect(price.status).toBe(200);
    const pick = (o: any) => o.id.split("~")[3] === plan;
    const plain = await searchOne("US000004", { checkIn, checkOut: addDays(checkIn, 3), connection: net.code, pick });
    const dearer = await searchOne("US000004", {
      checkIn,
      checkOut: addDays(checkIn, 3),
      connection: marked.code,
      pick,
    });
    expect(plain.option.rate.baseRate).toBe(370.35);
    // 12,345 cents x 1.1 = 13,579.5: each night rounds up to 135.80, so the stay is 407.40, not 407.39.
    expect(dearer.option.rate.baseRate).toBe(407.4);
    expect(dearer.option.rate.taxesAndFees).toBe(48.89);
    expect(dearer.option.rate.chargeTotal).toBe(456.29);
  });

  it("quote and book on the marked-up connection charge what search showed; the cancel penalty follows the charged price", async () => {
    const s = await searchOne("US000005", {
      checkIn: inDays(50),
      connection: marked.code,
      pick: (o) => o.isRefundable,
    });
    const quoted = await post("/api/quote", quoteBody(s, {}, marked.code));
    expect(quoted.status).toBe(200);
    expect(quoted.json.data.rate).toEqual(s.option.rate);
    expect(quoted.json.data.cancelPolicy).toEqual(s.option.cancelPolicy);
    // The quote fixes the price: a markup raised after quoting does not reach the booking.
    expect((await call("PATCH", `/api/connections/${marked.id}`, { netMarkups: 50 }, OPERATOR)).status).toBe(200);
    try {
      const booked = await post("/api/book", bookBody(quoted.json.data, "markup-1", {}, marked.code));
      expect(booked.status).toBe(200);
      expect(booked.json.data).toMatchObject({
        chargeTotal: s.option.rate.chargeTotal,
        currency: "USD",
        exchange: { currency: "USD", rate: 1 },
      });
      const penalty = s.option.cancelPolicy.cancelPenalties[0];
      const cancelled = await cancelBooking(
        bookingDeps(env),
        "demo",
        booked.json.data.bookingReference,
        Date.parse(penalty.deadline) + 60_000,
      );
      expect(cancelled.cancelPrice).toEqual({ currency: "USD", amount: penalty.value });
      expect(cancelled.bookPrice).toEqual({ currency: "USD", amount: s.option.rate.chargeTotal });
    } finally {
      await call("PATCH", `/api/connections/${marked.id}`, { netMarkups: 10 }, OPERATOR);
    }
  });

  it("a markup raised between search and quote is Price changed; a lowered one quotes the lower price", async () => {
    const s: SearchedOption = await searchOne("US000006", { checkIn: inDays(52), connection: marked.code });
    try {
      expect((await call("PATCH", `/api/connections/${marked.id}`, { netMarkups: 20 }, OPERATOR)).status).toBe(200);
      const raised = await post("/api/quote", quoteBody(s, {}, marked.code));
      expect(raised.status).toBe(400);
      expect(raised.json.message).toBe("Price changed");
      expect(raised.json.details.previousTotal).toBe(s.option.rate.chargeTotal);
      expect(raised.json.details.currentTotal).toBeGreaterThan(s.option.rate.chargeTotal * 1.08);

      expect((await call("PATCH", `/api/connections/${marked.id}`, { netMarkups: 0 }, OPERATOR)).status).toBe(200);
      const lowered = await post("/api/quote", quoteBody(s, {}, marked.code));
      expect(lowered.status).toBe(200);
      expect(lowered.json.data.rate.chargeTotal).toBeLessThan(s.option.rate.chargeTotal);
    } finally {
      await call("PATCH", `/api/connections/${marked.id}`, { netMarkups: 10 }, OPERATOR);
    }
  });

  it("an option quoted on the unmarked connection is re-priced there: the same option costs the net price", async () => {
    const s = await searchOne("US000007", { checkIn: inDays(53), connection: marked.code });
    const cheaper = await post("/api/quote", quoteBody(s, {}, net.code));
    expect(cheaper.status).toBe(200);
    expect(cheaper.json.data.rate.chargeTotal).toBeLessThan(s.option.rate.chargeTotal);
    const back = await searchOne("US000007", {
      checkIn: inDays(53),
      connection: net.code,
      pick: (o) => o.id.split("~")[3] === s.option.id.split("~")[3],
    });
    expect(cheaper.json.data.rate).toEqual(back.option.rate);
  });
});
