import { env, runInDurableObject } from "cloudflare:test";
import { withEmbedded1002 } from "../../../test/support/hotelx";
import type { RateLimiter } from "../../platform/ratelimit/rate-limiter";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { answered, api, post, call, OTHER_KEY, readResponse, DEMO_KEY } from "../../../test/support/api";
import { haversineKm, near, nameSearchSql } from "../supply/accommodations";
import {
  searchBody,
  bookBody,
  quoteBody,
  searchOne,
  type SearchedOption,
  cancelBody,
  quoteOf,
  DEMO_CODE,
  createDemoConnection,
} from "../../../test/support/booking";
import { queryPlan } from "../../../test/support/query-plan";
import { OPERATOR } from "../../../test/support/sessions";
import { addDays } from "../../platform/time/zoned-time";
import { inDays } from "../../../test/support/clock";
import { cancelBooking } from "./cancel";
import { signToken } from "../../platform/crypto/signed-token";
import { bookingDeps } from "./deps";
import { catalogueFor } from "../supply/catalogue";
import { expectLogs } from "../../../test/support/expected-logs";
import { bookOrderOf, bookQuote } from "./book";
import type { BookRequest } from "./schemas";
import type { CoreConnection } from "../connections/access";
import { createApp } from "../../app";
import { CHAT, NEW_YORK } from "../../../test/support/chat";
import { feeSubjectOf, includedChargesMinor } from "../../../test/support/fees";
import type { FeeSubject } from "../content";
import { seedSandboxHotels } from "../../../test/support/seed";
import { seedSandboxHotelContent } from "../../../test/support/sandbox-hotels";
import { circuitFor, FAILURES_TO_OPEN } from "../supply/upstream-circuit";

const COUNT = 400;
type Row = { code: string; name: string; latitude: number; longitude: number };
let all: Row[];

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: COUNT });
  all = (await env.DB.prepare("select code, name, latitude, longitude from accommodations order by code").all<Row>())
    .results;
});

const search = async (criteria: Record<string, unknown>, settings: Record<string, unknown> = {}, filters?: unknown) => {
  const res = await post(
    "/api/search",
    searchBody(criteria, { settings: { access: { code: 1001 }, ...settings }, ...(filters ? { filters } : {}) }),
  );
  expect(res.status).toBe(200);
  return res.json.data.accommodations as any[];
};

const plan = (sql: string, ...params: unknown[]) => queryPlan({ sql, params });

describe("search by accommodation codes", () => {
  it("answers 1,000 codes (some unknown) in the order asked, skipping unknown ones", async () => {
    const codes = Array.from({ length: 1000 }, (_, i) => `US${String(1000 - i).padStart(6, "0")}`); // US001000..US000001
    const hotels = await search({ destinations: { accommodations: codes.map((code) => ({ code })) } });
    expect(hotels.length).toBeGreaterThan(COUNT * 0.9);
    const served = hotels.map((h) => h.accommodationCode);
    expect(served.every((c) => Number(c.slice(2)) <= COUNT)).toBe(true);
    expect(served).toEqual([...served].sort().reverse());
  });
});

describe("business rules (4.2 table)", () => {
  const pick = async (settings: Record<string, unknown>) => {
    const hotels = await search(
      {
        destinations: {
          accommodations: [{ code: "US000001" }, { code: "US000002" }, { code: "US000003" }, { code: "US000004" }],
        },
      },
      settings,
    );
    return Object.fromEntries(
      // Sorted by the all-in price (a PayAtProperty option charges 0 at booking: issue 27).
      hotels.map((h) => [h.accommodationCode as string, h.options.map((o: any) => o.rate.totalStayPrice) as number[]]),
    );
  };

  it("neither, DEFAULT without quota: all options; CHEAPEST (with or without quota): the cheapest one", async () => {
    const allOptions = await pick({});
    expect(await pick({ businessRules: { businessRuleType: "DEFAULT" } })).toEqual(allOptions);
    expect(Object.values(allOptions).some((o) => o.length > 1)).toBe(true);
    const cheapest = Object.fromEntries(Object.entries(allOptions).map(([k, v]) => [k, [Math.min(...v)]]));
    expect(await pick({ businessRules: { businessRuleType: "CHEAPEST" } })).toEqual(cheapest);
    expect(await pick({ businessRules: { businessRuleType: "CHEAPEST", optionsQuota: 3 } })).toEqual(cheapest);
  });

  it("DEFAULT with quota N, and quota only: up to N cheapest", async () => {
    const allOptions = await pick({});
    const two = Object.fromEntries(
      Object.entries(allOptions).map(([k, v]) => [k, [...v].sort((a, b) => a - b).slice(0, 2)]),
    );
    expect(await pick({ businessRules: { businessRuleType: "DEFAULT", optionsQuota: 2 } })).toEqual(two);
    expect(await pick({ businessRules: { optionsQuota: 2 } })).toEqual(two);
  });
});

describe("filters", () => {
  const hotels = () =>
    search({
      destinations: {
        accommodations: Array.from({ length: 40 }, (_, i) => ({ code: `US${String(i + 1).padStart(6, "0")}` })),
      },
    });
  const withFilters = (filters: unknown) =>
    search(
      {
        destinations: {
          accommodations: Array.from({ length: 40 }, (_, i) => ({ code: `US${String(i + 1).padStart(6, "0")}` })),
        },
      },
      {},
      filters,
    );
  const options = (hs: any[]) => hs.flatMap((h) => h.options);

  it("rateRuleFilter: exclude NON_REFUNDABLE, include only NON_REFUNDABLE, and the empty-rules switch", async () => {
    const base = options(await hotels());
    expect(base.some((o) => !o.isRefundable)).toBe(true);
    const excluded = options(await withFilters({ rateRuleFilter: { excludes: ["NON_REFUNDABLE"] } }));
    expect(excluded.length).toBe(base.filter((o) => o.isRefundable).length);
    const onlyNrf = options(
      await withFilters({ rateRuleFilter: { includes: ["NON_REFUNDABLE"], includeEmptyRateRulesOptions: false } }),
    );
    expect(onlyNrf.length).toBe(base.filter((o) => !o.isRefundable).length);
    expect(onlyNrf.every((o) => !o.isRefundable)).toBe(true);
    const includeWithEmpty = options(await withFilters({ rateRuleFilter: { includes: ["NON_REFUNDABLE"] } }));
    expect(includeWithEmpty.length).toBe(base.length);
  });

  it("status: every embedded option is OK; including only RQ leaves none, excluding OK leaves none", async () => {
    expect(options(await withFilters({ status: { includes: ["OK"] } })).length).toBe(options(await hotels()).length);
    expect(await withFilters({ status: { includes: ["RQ"] } })).toEqual([]);
    expect(await withFilters({ status: { excludes: ["OK"] } })).toEqual([]);
  });
});

describe("geo search", () => {
  it("returns exactly the accommodations within the radius, nearest first, honouring limit", async () => {
    const centre = all[0]!;
    const radiusKm = 25;
    const expected = all
      .map((r) => ({ code: r.code, d: haversineKm(centre.latitude, centre.longitude, r.latitude, r.longitude) }))
      .filter((r) => r.d <= radiusKm)
      .sort((a, b) => a.d - b.d || a.code.localeCompare(b.code));
    const hotels = await search({ geo: { lat: centre.latitude, lng: centre.longitude, radiusKm } });
    expect(hotels.map((h) => h.accommodationCode)).toEqual(expected.map((e) => e.code));
    expect(hotels[0].accommodationCode).toBe(centre.code);
    const limited = await search({ geo: { lat: centre.latitude, lng: centre.longitude, radiusKm, limit: 1 } });
    expect(limited.map((h) => h.accommodationCode)).toEqual([centre.code]);
  });

  it("uses the default radius of 20 km and finds nothing in the middle of the ocean", async () => {
    const centre = all[5]!;
    const expected = all.filter(
      (r) => haversineKm(centre.latitude, centre.longitude, r.latitude, r.longitude) <= 20,
    ).length;
    expect((await search({ geo: { lat: centre.latitude, lng: centre.longitude } })).length).toBe(expected);
    expect(await search({ geo: { lat: 0, lng: -140 } })).toEqual([]);
  });

  it("is index-assisted: the grid cells near the centre are seeks of the cell index (geo-grid.test.ts has the rest)", async () => {
    const selection = near(40.5, -74, 20, 1000);
    expect(await plan(selection.sql, ...selection.params)).toMatch(
      /SEARCH a USING COVERING INDEX accommodations_geo_cell \(geo_cell=\?\)/,
    );
  });
});

describe("name search", () => {
  it("matches a partial word anywhere in the name, case-insensitively", async () => {
    const target = all.find((r) => r.name.includes("Harborview")) ?? all[0]!;
    const fragment = target.name.split(" ")[0]!.slice(1, 6).toUpperCase(); // e.g. "ARBOR" from "Harborview"
    const expected = all.filter((r) => r.name.toLowerCase().includes(fragment.toLowerCase())).map((r) => r.code);
    const hotels = await search({ accommodationName: fragment });
    expect(hotels.map((h) => h.accommodationCode).sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(0);
  });

  it("matches a multi-word fragment and a two-letter word start", async () => {
    const target = all[1]!;
    const words = target.name.split(" ");
    const phrase = `${words[0]!.slice(-3)} ${words[1]!.slice(0, 3)}`.toLowerCase();
    const phraseHits = await search({ accommodationName: phrase });
    expect(phraseHits.map((h) => h.accommodationCode)).toContain(target.code);
    expect(phraseHits.every((h) => h.accommodationName.toLowerCase().includes(phrase))).toBe(true);
    const two = words[1]!.slice(0, 2);
    const twoHits = await search({ accommodationName: two });
    expect(twoHits.map((h) => h.accommodationCode)).toContain(target.code);
    expect(
      twoHits.every((h) =>
        h.accommodationName
          .toLowerCase()
          .split(/\s+/)
          .some((w: string) => w.startsWith(two.toLowerCase())),
      ),
    ).toBe(true);
  });

  it("keeps the name index in step with renamed accommodations", async () => {
    await env.DB.prepare("update accommodations set name = 'Quixotic Zephyr Lodge' where code = 'US000009'").run();
    expect((await search({ accommodationName: "xotic zeph" })).map((h) => h.accommodationCode)).toEqual(["US000009"]);
    await env.DB.prepare("update accommodations set name = ? where code = 'US000009'").bind(all[8]!.name).run();
    expect(await search({ accommodationName: "xotic zeph" })).toEqual([]);
  });

  it("finds nothing for a name that does not exist, and treats FTS syntax as text", async () => {
    expect(await search({ accommodationName: "Zzyzx Qqq" })).toEqual([]);
    expect(await search({ accommodationName: 'Grand" OR "x' })).toEqual([]);
    expect(await search({ accommodationName: "NEAR(a b)" })).toEqual([]);
  });

  it("is index-assisted: the FTS5 indexes answer, not a scan of accommodations", async () => {
    const trigram = await plan(nameSearchSql(5), '"arbor"');
    expect(trigram).toMatch(/VIRTUAL TABLE INDEX/);
    expect(trigram).not.toMatch(/SCAN a\b|SCAN accommodations/);
    const prefix = await plan(nameSearchSql(2), '"ha"*');
    expect(prefix).toMatch(/VIRTUAL TABLE INDEX/);
  });
});

describe("search options", () => {
  it("option ids are compact signed tokens, and search writes nothing", async () => {
    const before = await env.DB.prepare(
      "select (select count(*) from room_nights) + (select count(*) from rate_plan_nights) n",
    ).first("n");
    const kvBefore = (await env.CACHE.list()).keys.length;
    const hotels = await search({ destinations: { accommodations: all.slice(0, 100).map((r) => ({ code: r.code })) } });
    const ids = hotels.flatMap((h) => h.options.map((o: any) => o.id as string));
    expect(ids.length).toBeGreaterThan(100);
    // 179 characters before issue 38 (a base64 JSON stay and a 256-bit HMAC); now plain text and 128 bits.
    expect(Math.max(...ids.map((id) => id.length))).toBeLessThan(100);
    expect(
      await env.DB.prepare(
        "select (select count(*) from room_nights) + (select count(*) from rate_plan_nights) n",
      ).first("n"),
    ).toBe(before);
    expect((await env.CACHE.list()).keys.length).toBe(kvBefore);
  });
});

describe("the lighter search answer and option ids (issue 38)", () => {
  const cents = (n: number) => Math.round(n * 100);
  // Two rooms, so options have several rooms; US000016 sells a PayAtProperty rate (its whole stay due at the hotel).
  const criteria = () => ({
    destinations: { accommodations: [...all.slice(0, 60).map((r) => ({ code: r.code })), { code: "US000016" }] },
    occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }, { paxes: [{ age: 40 }] }],
  });
  const totals = (rate: any) => [
    cents(rate.baseRate),
    cents(rate.taxesAndFees),
    cents(rate.chargeTotal),
    cents(rate.dueAtProperty.amount),
    rate.dueAtProperty.amountInRateCurrency,
    cents(rate.totalStayPrice),
  ];
  const currencies = (rate: any) => [rate.currency, rate.dueAtProperty.currency];

  it("a default option gives every total of the option and each room, each charge once and no nights; includePriceBreakdown gives the whole breakdown; the totals are the same to the cent", async () => {
    const light = (await search(criteria())).flatMap((h) => h.options);
    const full = (await search(criteria(), { includePriceBreakdown: true })).flatMap((h) => h.options);
    expect(light.length).toBe(full.length);
    expect(light.length).toBeGreaterThan(100);
    let dueCharges = 0;
    for (const [i, option] of light.entries()) {
      const whole = full[i];
      // The same option (the signed stay differs by the moment of each search).
      expect(option.id.split("~").slice(1)).toEqual(whole.id.split("~").slice(1));
      expect(totals(option.rate)).toEqual(totals(whole.rate));
      expect(currencies(option.rate)).toEqual(currencies(whole.rate));
      // A room's amounts are in its option's currencies.
      for (const room of whole.rooms) expect(currencies(room.rate)).toEqual(currencies(whole.rate));
      expect(option.rooms.map((r: any) => totals(r.rate))).toEqual(whole.rooms.map((r: any) => totals(r.rate)));
      expect(option.rooms.map((r: any) => [r.occupancyRefId, r.code, r.description])).toEqual(
        whole.rooms.map((r: any) => [r.occupancyRefId, r.code, r.description]),
      );
      // Each charge once: those charged at booking in rate.charges, those due at the property in dueAtProperty.charges.
      expect(option.rate.charges).toEqual(whole.rate.charges.filter((c: any) => c.included));
      expect(option.rate.dueAtProperty).toEqual(whole.rate.dueAtProperty);
      dueCharges += option.rate.dueAtProperty.charges.length;
      // The exchange only when converted (never here: every hotel prices in USD); the whole form names it.
      expect(whole.rate.exchange).toEqual({ currency: "USD", rate: 1 });
      expect("exchange" in option.rate).toBe(false);
      expect("nights" in option.rate).toBe(false);
      // A room: its totals and nothing itemized.
      for (const room of option.rooms) {
        expect(Object.keys(room.rate).sort()).toEqual([
          "baseRate",
          "chargeTotal",
          "dueAtProperty",
          "taxesAndFees",
          "totalStayPrice",
        ]);
        expect(Object.keys(room.rate.dueAtProperty)).toEqual(["amount"]);
      }
      // The whole breakdown is quote's: nights on the option and on each room, every charge of each room.
      expect(whole.rate.nights).toHaveLength(2);
      for (const room of whole.rooms) {
        expect(room.rate.nights).toHaveLength(2);
        expect(Array.isArray(room.rate.charges) && Array.isArray(room.rate.dueAtProperty.charges)).toBe(true);
      }
      const terms = ({ boardCode, boardName, isRefundable, rateRules, visibility, paymentType }: any) => [
        boardCode,
        boardName,
        isRefundable,
        rateRules,
        visibility,
        paymentType,
      ];
      expect(terms(option)).toEqual(terms(whole));
    }
    // What the test is about is there: charges due at the property, and a rate paid at the hotel.
    expect(dueCharges).toBeGreaterThan(0);
    expect(light.some((o) => o.paymentType === "PayAtProperty")).toBe(true);
    expect(JSON.stringify(light).length).toBeLessThan(0.6 * JSON.stringify(full).length);
  });

  it("an option id issued before issue 38 (version 4: signed JSON, the total in major units) still quotes until it expires", async () => {
    const s = await searchOne("US000003", { checkIn: inDays(44) });
    const [, accommodation, room, ratePlan, minor] = s.option.id.split("~");
    const { keys } = bookingDeps(env);
    // Built as option-token.ts built ids before this issue.
    const oldId = async (expiresAt: number, partner = "demo") =>
      `${await signToken(keys, "booking-option", [4, partner, s.checkIn, s.checkOut, "30.30", "USD", "1"], expiresAt)}~${accommodation}~${room}~${ratePlan}~${Number(minor) / 100}`;
    const inADay = Math.floor((Date.now() + 23 * 3600_000) / 1000) * 1000;
    const quoted = await post("/api/quote", quoteBody({ ...s, option: { ...s.option, id: await oldId(inADay) } }));
    expect(quoted.status).toBe(200);
    expect(quoted.json.data.rate).toEqual(s.option.rate);
    // The same as the new id quotes.
    const fresh = await post("/api/quote", quoteBody(s));
    expect(fresh.json.data.rate).toEqual(quoted.json.data.rate);
    const expired = await post(
      "/api/quote",
      quoteBody({ ...s, option: { ...s.option, id: await oldId(Date.now() - 1000) } }),
    );
    expect([expired.status, expired.json.code]).toEqual([400, "option_expired_or_invalid"]);
    const foreign = await post(
      "/api/quote",
      quoteBody({ ...s, option: { ...s.option, id: await oldId(inADay, "another-partner") } }),
    );
    expect([foreign.status, foreign.json.code]).toEqual([400, "option_invalid"]);
  });

  it("a version 5 id altered in its signed stay, or with a total that is not whole minor units, is refused", async () => {
    const s = await searchOne("US000003", { checkIn: inDays(45) });
    const parts = s.option.id.split("~");
    const quoteWith = async (id: string) => {
      const res = await post("/api/quote", quoteBody({ ...s, option: { ...s.option, id } }));
      return [res.status, res.json.code];
    };
    expect(parts[0].split(".")[0]).toBe("5");
    // One more night, or one guest younger: the signature no longer holds.
    const stay = parts[0].split(".");
    const longer = [...stay.slice(0, 2), "3", ...stay.slice(3)].join(".");
    const younger = parts[0].replace(".30-30.", ".30-12.");
    for (const forged of [longer, younger])
      expect(await quoteWith([forged, ...parts.slice(1)].join("~"))).toEqual([400, "option_expired_or_invalid"]);
    expect(await quoteWith([...parts.slice(0, 4), `${parts[4]}.0`].join("~"))).toEqual([
      400,
      "option_expired_or_invalid",
    ]);
  });
});

describe("search reads batched with the API key", () => {
  // A key this isolate has never seen: its first search reads D1 twice, later ones once (the
  // search's reads ride with the key lookup). Both must answer the same, from live rows.
  const key = `esk_batch_${crypto.randomUUID()}`;
  // Ids and a non-refundable penalty's deadline carry the time of the search; the rest must match.
  const timeless = ({ id: _id, ...option }: any) => ({
    ...option,
    cancelPolicy: {
      ...option.cancelPolicy,
      cancelPenalties: option.cancelPolicy.cancelPenalties.map((p: any) =>
        p.penaltyType === "NON_REFUNDABLE" ? { ...p, deadline: "at booking" } : p,
      ),
    },
  });
  const withoutIds = (hotels: any[]) => hotels.map((h) => ({ ...h, options: h.options.map(timeless) }));
  const searchAs = (apiKey: string, code = 1001) =>
    post(
      "/api/search",
      searchBody(
        { destinations: { accommodations: all.slice(0, 5).map((r) => ({ code: r.code })) } },
        { settings: { access: { code } } },
      ),
      { apiKey },
    );

  beforeAll(async () => {
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    await env.DB.prepare(
      "insert into api_keys (id, partner_id, key_hash, key_prefix, name) values ('key_batch', 'demo', ?, 'esk_batch_', 'batch')",
    )
      .bind(hash)
      .run();
  });

  it("answers the first and the later searches of a key alike, and sees a stop-sell at once", async () => {
    const first = await searchAs(key);
    const second = await searchAs(key);
    expect(first.status).toBe(200);
    expect(withoutIds(second.json.data.accommodations)).toEqual(withoutIds(first.json.data.accommodations));

    const hotel = first.json.data.accommodations[0];
    const room = hotel.options[0].rooms[0].code;
    const { checkIn } = searchBody({}).searchCriteria;
    await env.DB.prepare(
      "insert into room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell) values (?, ?, ?, 5, 0, 1)",
    )
      .bind(hotel.accommodationCode, room, checkIn)
      .run();
    const after = await searchAs(key);
    const options =
      after.json.data.accommodations.find((h: any) => h.accommodationCode === hotel.accommodationCode)?.options ?? [];
    expect(options.length).toBeGreaterThan(0);
    expect(options.some((o: any) => o.rooms[0].code === room)).toBe(false);
    await env.DB.prepare("delete from room_nights where accommodation_code = ? and room_code = ?")
      .bind(hotel.accommodationCode, room)
      .run();
  });

  it("still judges the connection and the key on every batched call", async () => {
    await searchAs(key);
    const denied = await searchAs(key, 2001);
    expect(denied.status).toBe(401);
    expect(denied.json.message).toBe("Connection access denied");
    await env.DB.prepare("update api_keys set revoked_at = '2026-01-01T00:00:00Z' where id = 'key_batch'").run();
    const revoked = await searchAs(key);
    expect(revoked.status).toBe(401);
    expect(revoked.json.message).toBe("Invalid API key");
  });
});

describe("markups", () => {
  /** Two in-use direct connections of the demo partner, equal but for netMarkups (0 and 10). */
  let net: { id: string; code: number };
  let marked: { id: string; code: number };

  const connection = createDemoConnection;

  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 12 });
    net = await connection("cug", 0);
    marked = await connection("mobile", 10);
  });

  const cents = (amount: number) => Math.round(amount * 100);
  /** 10 % on whole cents, half a cent rounded up: the rule of docs/api-decisions.md. */
  const plusTen = (amountCents: number) => Math.round((amountCents * 110) / 100);
  /** The taxes and fees charged at booking for one night of this base at this hotel (its default fee schedule). */
  const taxesOf = (subject: FeeSubject, baseCents: number) => includedChargesMinor(subject, [baseCents]);

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
      // MerchantPay options: a PayAtProperty one charges 0 (its markup is checked in "payment types").
      hotels.flatMap((h) =>
        h.options
          .filter((o: any) => o.paymentType === "MerchantPay")
          .map((o: any) => [o.id.split("~").slice(1, 4).join("~"), o] as const),
      ),
    );

  describe("netMarkups", () => {
    it("a one-night stay costs exactly 10 % more per room, in cents, on the connection with netMarkups 10", async () => {
      const checkIn = inDays(45);
      const occupancies = [{ paxes: [{ age: 30 }, { age: 30 }] }, { paxes: [{ age: 40 }, { age: 9 }] }];
      const plainHotels = await search(net.code, checkIn, 1, occupancies);
      const plain = byProduct(plainHotels);
      const dearer = byProduct(await search(marked.code, checkIn, 1, occupancies));
      const subjects = new Map(plainHotels.map((h) => [h.accommodationCode, feeSubjectOf(h)]));
      expect(plain.size).toBeGreaterThan(3);
      expect([...dearer.keys()]).toEqual([...plain.keys()]);
      for (const [product, option] of plain) {
        const other = dearer.get(product);
        const subject = subjects.get(product.split("~")[0]!)!;
        let base = 0;
        option.rooms.forEach((room: any, i: number) => {
          const roomBase = plusTen(cents(room.rate.baseRate));
          base += roomBase;
          expect(cents(other.rooms[i].rate.baseRate)).toBe(roomBase);
          expect(cents(other.rooms[i].rate.taxesAndFees)).toBe(taxesOf(subject, roomBase));
          expect(cents(other.rooms[i].rate.chargeTotal)).toBe(roomBase + taxesOf(subject, roomBase));
        });
        expect(cents(other.rate.baseRate)).toBe(base);
        expect(cents(other.rate.chargeTotal)).toBe(
          cents(other.rooms[0].rate.chargeTotal) + cents(other.rooms[1].rate.chargeTotal),
        );
        // One night: the first-night penalty and the full-stay penalty are both the charged total.
        expect(other.cancelPolicy.cancelPenalties.at(-1).value).toBe(other.rate.chargeTotal);
        // Nothing converted: a default option names no exchange.
        expect("exchange" in other.rate).toBe(false);
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
      // Taxes per night on the marked-up 135.80 (docs/api-decisions.md, issue 27), three times.
      const taxes = 3 * taxesOf(feeSubjectOf(dearer.hotel), 13_580);
      expect(cents(dearer.option.rate.taxesAndFees)).toBe(taxes);
      expect(cents(dearer.option.rate.chargeTotal)).toBe(40_740 + taxes);
      expect(dearer.option.rate.nights.map((n: any) => n.baseRate)).toEqual([135.8, 135.8, 135.8]);
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
});

describe("flow", () => {
  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 50 });
  });

  const soldOn = async (code: string, room: string, night: string) =>
    (
      await env.DB.prepare("select sold from room_nights where accommodation_code = ? and room_code = ? and night = ?")
        .bind(code, room, night)
        .first<{ sold: number }>()
    )?.sold ?? 0;

  describe("search -> quote -> book -> cancel over HTTP", () => {
    it("books a refundable option and cancels it, taking and giving back allotment", async () => {
      const search = answered(
        await api.post(
          "/api/search",
          searchBody({ destinations: { accommodations: [{ code: "US000001" }, { code: "US000002" }] } }),
        ),
        200,
      );
      expect(search.json.message).toBe("success");
      expect(search.json.data.requestId).toBe(search.headers.get("x-request-id"));
      expect(typeof search.json.data.responseTime).toBe("number");
      expect(search.json.data.accommodations.map((a) => a.accommodationCode)).toEqual(["US000001", "US000002"]);
      const hotel = search.json.data.accommodations[0]!;
      expect(hotel).toMatchObject({
        accommodationName: expect.any(String),
        accommodationType: expect.any(String),
        location: { country: "US" },
      });
      for (const option of hotel.options) {
        expect(option).toMatchObject({
          id: expect.any(String),
          boardCode: expect.stringMatching(/^(RO|BB|HB)$/),
          boardName: expect.any(String),
          isRefundable: expect.any(Boolean),
        });
        expect(option.rate.currency).toBe("USD");
        expect(option.rate.chargeTotal).toBeCloseTo(option.rate.baseRate + option.rate.taxesAndFees, 2);
        expect(option.rooms).toHaveLength(1);
        expect(option.rooms[0]).toMatchObject({
          occupancyRefId: 1,
          code: expect.any(String),
          description: expect.any(String),
        });
        expect(option.cancelPolicy.cancelPenalties[0]!.deadline).toMatch(
          /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/,
        );
      }
      const totals = hotel.options.map((o) => o.rate.totalStayPrice);
      expect(totals).toEqual([...totals].sort((a, b) => a - b));
      expect(search.headers.get("X-RateLimit-Limit")).toBe("600");

      const option = hotel.options.find((o) => o.isRefundable)!;
      const searched = {
        accommodationCode: "US000001",
        option,
        checkIn: inDays(30),
        checkOut: inDays(32),
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
      };
      const quoteRes = answered(await api.post("/api/quote", quoteBody(searched)), 200);
      const quote = quoteRes.json.data;
      expect(quote).toMatchObject({
        id: expect.stringMatching(/^qt_/),
        accommodation: {
          accommodationCode: "US000001",
          accommodationName: hotel.accommodationName,
          location: hotel.location,
        },
        checkIn: inDays(30),
        checkOut: inDays(32),
        boardCode: option.boardCode,
        isRefundable: true,
        rate: option.rate,
        cancelPolicy: option.cancelPolicy,
        roomCodes: [option.rooms[0]!.code],
        requestId: quoteRes.headers.get("x-request-id"),
      });
      expect(quoteRes.headers.get("X-RateLimit-Remaining")).toMatch(/^\d+$/);
      const room = option.rooms[0]!.code;
      const before = await soldOn("US000001", room, inDays(30));

      const bookRes = answered(await api.post("/api/book", bookBody(quote, "flow-1")), 200);
      const booking = bookRes.json.data;
      expect(booking).toMatchObject({
        bookingReference: expect.stringMatching(/^BK[A-Z0-9]{20}$/),
        partnerReference: "flow-1",
        status: "success",
        chargeTotal: quote.rate.chargeTotal,
        hotelConfirmationNumber: expect.any(String),
      });
      expect(await soldOn("US000001", room, inDays(30))).toBe(before + 1);
      expect(await soldOn("US000001", room, inDays(31))).toBe(before + 1);
      expect(await soldOn("US000001", room, inDays(32))).toBe(0); // the check-out day is not a night

      const read = answered(
        await api.get("/api/bookings/{bookingReference}", { params: { bookingReference: booking.bookingReference } }),
        200,
      );
      expect(read.json.data).toMatchObject({
        status: "success",
        partnerReference: "flow-1",
        holder: { name: "Ada", surName: "Lovelace" },
        cancelPolicy: quote.cancelPolicy,
        rate: quote.rate,
        cancelledAt: null,
      });
      const byPartnerRef = await call("GET", "/api/bookings?partnerReference=flow-1");
      expect(byPartnerRef.json.data.bookingReference).toBe(booking.bookingReference);

      const cancelRes = answered(await api.post("/api/cancel", cancelBody(booking.bookingReference)), 200);
      expect(cancelRes.json.data).toMatchObject({
        status: "cancelled",
        cancelledAt: expect.any(String),
        cancelPrice: { currency: "USD", amount: 0 },
        bookPrice: { amount: quote.rate.chargeTotal },
      });
      expect(await soldOn("US000001", room, inDays(30))).toBe(before);
      const after = answered(
        await api.get("/api/bookings/{bookingReference}", { params: { bookingReference: booking.bookingReference } }),
        200,
      );
      expect(after.json.data).toMatchObject({
        status: "cancelled",
        cancelledAt: cancelRes.json.data.cancelledAt,
        cancelPrice: { amount: 0 },
      });

      const again = answered(await api.post("/api/cancel", cancelBody(booking.bookingReference)), 400);
      expect(again.json.message).toBe("Booking cannot be cancelled. Current status: cancelled");
    });

    it("prices children and several rooms, and respects room capacity", async () => {
      const twoRooms = await searchOne("US000003", {
        occupancies: [{ paxes: [{ age: 40 }, { age: 8 }] }, { paxes: [{ age: 40 }] }],
      });
      expect(twoRooms.option.rooms.map((r: any) => r.occupancyRefId)).toEqual([1, 2]);
      // The room with a child costs more than the one with a single adult.
      expect(twoRooms.option.rooms[0].rate.chargeTotal).toBeGreaterThan(twoRooms.option.rooms[1].rate.chargeTotal);
      const sum = twoRooms.option.rooms.reduce((s: number, r: any) => s + r.rate.chargeTotal, 0);
      expect(twoRooms.option.rate.chargeTotal).toBeCloseTo(sum, 1);
      // Seven guests fit no room type of the catalogue (max occupancy 6).
      const crowd = answered(
        await api.post(
          "/api/search",
          searchBody({
            destinations: { accommodations: [{ code: "US000003" }] },
            occupancies: [{ paxes: Array.from({ length: 7 }, () => ({ age: 30 })) }],
          }),
        ),
        200,
      );
      expect(crowd.json.data.accommodations).toEqual([]);
    });

    it("cancelling after the free-cancellation deadline costs the stored penalty (clock moved past the deadline)", async () => {
      const quote = await quoteOf(await searchOne("US000005", { checkIn: inDays(40), pick: (o) => o.isRefundable }));
      const booked = answered(await api.post("/api/book", bookBody(quote, "late-cancel")), 200);
      const penalty = quote.cancelPolicy.cancelPenalties[0];
      expect(penalty.value).toBeGreaterThan(0);
      const deadline = Date.parse(penalty.deadline);
      expect(deadline).toBeLessThan(Date.parse(`${inDays(40)}T00:00:00Z`));
      const result = await cancelBooking(
        bookingDeps(env),
        "demo",
        booked.json.data.bookingReference,
        deadline + 60_000,
      );
      expect(result.cancelPrice).toEqual({ currency: "USD", amount: penalty.value });
      const read = answered(
        await api.get("/api/bookings/{bookingReference}", {
          params: { bookingReference: booked.json.data.bookingReference },
        }),
        200,
      );
      expect(read.json.data).toMatchObject({ status: "cancelled", cancelPrice: { amount: penalty.value } });
    });

    it("every booking route is in /openapi.json", async () => {
      const doc = await call("GET", "/openapi.json");
      for (const path of [
        "/api/search",
        "/api/search/tgx",
        "/api/quote",
        "/api/quote/tgx",
        "/api/book",
        "/api/book/tgx",
        "/api/cancel",
        "/api/cancel/tgx",
        "/api/bookings/{bookingReference}",
        "/api/bookings",
        "/api/inventory/{accommodationCode}/rooms/{roomCode}",
      ]) {
        expect(Object.keys(doc.json.paths)).toContain(path);
      }
      expect(doc.json.paths["/api/search"].post.requestBody.required).toBe(true);
    });

    it("another partner cannot read or cancel the booking", async () => {
      const quote = await quoteOf(await searchOne("US000004", { pick: (o) => o.isRefundable }));
      const ref = answered(await api.post("/api/book", bookBody(quote, "cross-1")), 200).json.data.bookingReference;
      const read = answered(
        await api.get("/api/bookings/{bookingReference}", { params: { bookingReference: ref }, apiKey: OTHER_KEY }),
        404,
      );
      expect((read.json as { data?: unknown }).data).toBeUndefined();
      const byRef = await call("GET", "/api/bookings?partnerReference=cross-1", undefined, { apiKey: OTHER_KEY });
      expect(byRef.status).toBe(404);
      const cancel = answered(await api.post("/api/cancel", cancelBody(ref, 2001), { apiKey: OTHER_KEY }), 403);
      expect(cancel.json.message).toBe("This booking does not belong to the current partner");
      expect((await call("GET", `/api/bookings/${ref}`)).json.data.status).toBe("success");
    });
  });
});

describe("mixed-rooms", () => {
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
        // A search option's rooms also name the supplier's room code (issue 39).
        rooms: s.option.rooms.map(({ roomCodeSupplier: _, ...room }: any) => room),
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
      const results = await Promise.all(
        quotes.map((q, i) => post("/api/book", bookBody(q.json.data, `last-fam-${i}`))),
      );
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
});

describe("request-fields", () => {
  /**
   * Issue 25: a request field that would change the answer is applied or refused with a 400 naming
   * it; fields the contract reserves are accepted and change nothing (docs/api-decisions.md,
   * "Issue 25: request fields are honoured or refused"). Currencies: currencies.test.ts; Hotel-X:
   * search-tgx.test.ts; chat payloads: chat/api.test.ts.
   */

  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 10 });
  });

  const codes = { destinations: { accommodations: [{ code: "US000001" }, { code: "US000002" }] } };
  const optionsOf = (res: { json: any }) =>
    (res.json.data.accommodations as any[]).flatMap((a) =>
      a.options.map((o: any) => `${o.id.split("~").slice(1).join("~")}`),
    );

  describe("search: what was dropped is applied or refused", () => {
    it.each([
      [
        "an unknown filter",
        searchBody(codes, { filters: { boardCodes: ["BB"] } }),
        "Unknown field: filters.boardCodes",
      ],
      [
        "an unknown status filter list",
        searchBody(codes, { filters: { status: { only: ["OK"] } } }),
        "Unknown field: filters.status.only",
      ],
      [
        "an unknown business rule",
        searchBody(codes, { settings: { access: { code: DEMO_CODE }, businessRules: { maxPrice: 100 } } }),
        "Unknown field: settings.businessRules.maxPrice",
      ],
      // Issue 37: every object of the body refuses a key it does not declare, naming its path.
      [
        "a setting the core API does not have",
        searchBody(codes, { settings: { access: { code: DEMO_CODE }, supplierCodes: ["HOTELBEDS"] } }),
        "Unknown field: settings.supplierCodes",
      ],
      [
        "settings.suppliers as bare codes (Hotel-X's shape is [{ code }])",
        searchBody(codes, { settings: { access: { code: DEMO_CODE }, suppliers: ["HOTELBEDS"] } }),
        "settings.suppliers[0]: Invalid input: expected object, received string",
      ],
      [
        "a misspelt criterion (checkin for checkIn)",
        searchBody({ ...codes, checkin: inDays(10) }),
        "Unknown field: searchCriteria.checkin",
      ],
      [
        "an unknown field deep in a list",
        searchBody({ ...codes, occupancies: [{ paxes: [{ age: 30, name: "Ann" }] }] }),
        "Unknown field: searchCriteria.occupancies[0].paxes[0].name",
      ],
      [
        "a geo radius beside a code list",
        searchBody({ ...codes, geo: { radiusKm: 5 } }),
        "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
      ],
      [
        "a geo limit beside a name",
        searchBody({ accommodationName: "Suites", geo: { limit: 1 } }),
        "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
      ],
      [
        "a sales channel outside section 2.7",
        searchBody(codes, { distributionContext: { salesChannel: "TV" } }),
        'distributionContext.salesChannel: Invalid option: expected one of "WEB"|"APP"|"OFFLINE"',
      ],
      [
        "a visibility type outside section 2.7",
        searchBody(codes, { distributionContext: { supportedVisibilityTypes: ["SECRET"] } }),
        'distributionContext.supportedVisibilityTypes[0]: Invalid option: expected one of "PUBLIC"|"PACKAGE"|"OPAQUE_PROPERTY"',
      ],
      [
        "a reserved field of the wrong type",
        searchBody(codes, { settings: { access: { code: DEMO_CODE, user: 42 } } }),
        "settings.access.user: Invalid input: expected string, received number",
      ],
    ])("%s: 400 naming it", async (_name, body, message) => {
      const res = await post("/api/search", body);
      expect([res.status, res.json.code, res.json.message]).toEqual([400, "invalid_request", message]);
    });

    it("names each unknown field in details, and keeps the open maps open", async () => {
      const res = await post("/api/search", {
        ...searchBody({ ...codes, checkin: inDays(10), checkout: inDays(12) }),
        suppliers: [],
      });
      expect([res.status, res.json.message]).toEqual([400, "Unknown field: searchCriteria.checkin"]);
      expect(res.json.details.issues).toEqual([
        { field: "searchCriteria.checkin", message: "Unknown field: searchCriteria.checkin" },
        { field: "searchCriteria.checkout", message: "Unknown field: searchCriteria.checkout" },
        { field: "suppliers", message: "Unknown field: suppliers" },
      ]);
      const open = await post(
        "/api/search",
        searchBody(codes, {
          settings: { access: { code: DEMO_CODE, parameters: { anyKey: "any value" } } },
          distributionContext: { customer: { device: "phone", anything: { nested: true } } },
        }),
      );
      expect(open.status).toBe(200);
    });

    it("reserved and market fields are accepted and change nothing: every option is sold in every market, to every nationality", async () => {
      const plain = await post("/api/search", searchBody(codes));
      expect(plain.status).toBe(200);
      const everything = await post(
        "/api/search",
        searchBody(
          {
            ...codes,
            markets: ["ES", "US"],
            nationality: "ES",
            language: "es",
            occupancies: [{ paxes: [{ age: 30, nationality: "FR" }, { age: 30 }] }],
          },
          {
            settings: {
              access: {
                code: DEMO_CODE,
                user: "u",
                password: "p",
                apiKey: "k",
                urls: { search: "https://x.example/search", generic: "https://x.example" },
                parameters: { region: "eu" },
              },
              // A supplier the connection sells (issue 39: a code it does not sell is a 400).
              supplier: "embedded",
              platform: "P",
              client: "C",
            },
            // salesChannel and supportedVisibilityTypes show restricted rates (issue 27: "restricted rates" below).
            distributionContext: {
              customer: { device: "mobile" },
              salesChannel: "WEB",
              distributionMode: "REDISTRIBUTION",
            },
            listing: true,
            requestFromPortal: true,
          },
        ),
      );
      expect([everything.status, everything.json.message]).toEqual([200, "success"]);
      expect(optionsOf(everything)).toEqual(optionsOf(plain));
      // An empty geo object asks for nothing, so it is no second selector.
      expect((await post("/api/search", searchBody({ ...codes, geo: {} }))).status).toBe(200);
    });
  });

  describe("quote and book: payment type, supplier parameters and lengths", () => {
    let searched: SearchedOption;
    beforeAll(async () => {
      searched = await searchOne("US000003", { pick: (o) => o.isRefundable });
    });

    it.each([
      [
        "another payment type",
        { paymentType: "CardCheckIn" },
        'quoteCriteria.paymentType: Invalid option: expected one of "MerchantPay"|"PayAtProperty"',
      ],
      [
        "supplier parameters",
        { parameters: [{ key: 1, value: "late arrival" }] },
        "quoteCriteria.parameters is not supported; no supplier takes booking parameters",
      ],
      [
        "a 100,000-character optionId",
        { optionId: "x".repeat(100_000) },
        "quoteCriteria.optionId: too long: at most 2048 characters",
      ],
    ])("quote with %s: 400 naming it", async (_name, override, message) => {
      const res = await post("/api/quote", quoteBody(searched, override));
      expect([res.status, res.json.code, res.json.message]).toEqual([400, "invalid_request", message]);
    });

    it("quote accepts MerchantPay in any case, empty parameters and the reserved fields", async () => {
      const res = await post("/api/quote", {
        ...quoteBody(searched, { paymentType: "merchantpay", parameters: [], market: "ES", language: "es" }),
        requestFromPortal: true,
        distributionContext: { salesChannel: "WEB" },
      });
      expect(res.status).toBe(200);
    });

    it("book refuses another payment type, a quoteId or occupancyId it cannot read, each by its own message", async () => {
      const quote = await quoteOf(searched);
      const cases: Array<[Record<string, unknown>, string]> = [
        [
          { paymentType: "CardBooking" },
          'bookCriteria.paymentType: Invalid option: expected one of "MerchantPay"|"PayAtProperty"',
        ],
        [{ quoteId: "q".repeat(201) }, "bookCriteria.quoteId: too long: at most 200 characters"],
        [
          { occupancies: [{ occupancyId: 1.5, paxes: [{ age: 30 }, { age: 30 }] }] },
          "bookCriteria.occupancies[0].occupancyId: expected a whole number",
        ],
      ];
      for (const [override, message] of cases) {
        const res = await post("/api/book", bookBody(quote, "fields-refused", override));
        expect([res.status, res.json.message]).toEqual([400, message]);
      }
      const booked = await post(
        "/api/book",
        bookBody(quote, "fields-ok", { paymentType: "MerchantPay", market: "ES" }),
      );
      expect(booked.status).toBe(200);

      const tooLong = await post("/api/cancel", cancelBody("B".repeat(101)));
      expect([tooLong.status, tooLong.json.message]).toEqual([
        400,
        "input.reference.bookingReference: too long: at most 100 characters",
      ]);
      // input.accommodation is unused by the contract (4.6): accepted.
      const cancelled = await post("/api/cancel", {
        ...cancelBody(booked.json.data.bookingReference),
        input: {
          reference: { bookingReference: booked.json.data.bookingReference },
          language: "es",
          accommodation: { type: "Hotel", code: "US000003" },
        },
      });
      expect(cancelled.status).toBe(200);
      expect((await call("GET", `/api/bookings/${booked.json.data.bookingReference}`)).json.data.status).toBe(
        "cancelled",
      );
    });
  });
});

describe("cancel-atomic", () => {
  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 20 });
  });

  type Night = { night: string; sold: number };
  const nightsOf = (code: string) =>
    env.DB.prepare("SELECT night, sold FROM room_nights WHERE accommodation_code = ? ORDER BY night")
      .bind(code)
      .all<Night>()
      .then((r) => r.results);
  const statusOf = (reference: string) =>
    env.DB.prepare("SELECT status FROM bookings WHERE reference = ?").bind(reference).first<string>("status");

  const bookRefundable = async (code: string, partnerReference: string) => {
    const q = await quoteOf(await searchOne(code, { pick: (o) => o.isRefundable }));
    const booked = await post("/api/book", bookBody(q, partnerReference));
    expect(booked.status).toBe(200);
    return booked.json.data.bookingReference as string;
  };

  describe("cancel is one step", () => {
    it("when giving the rooms back fails, the booking stays booked (neither change is kept)", async () => {
      const reference = await bookRefundable("US000015", "atomic-1");
      const before = await nightsOf("US000015");
      expect(before.map((n) => n.sold)).toEqual([1, 1]);
      // An operator's hand edit leaves the second night with fewer rooms sold than the booking holds:
      // giving them back would break CHECK (sold >= 0).
      await env.DB.prepare("UPDATE room_nights SET sold = 0 WHERE accommodation_code = 'US000015' AND night = ?")
        .bind(before[1]!.night)
        .run();
      const errors = expectLogs("error"); // the failed give-back is an unexpected 500, logged on purpose here
      const res = await post("/api/cancel", cancelBody(reference));
      expect(res.status).toBeGreaterThanOrEqual(400);
      if (res.status >= 500) expect(errors.join("\n")).toContain("room_nights_sold_within_allotment");
      expect(await statusOf(reference)).toBe("success");
      expect((await nightsOf("US000015")).map((n) => n.sold)).toEqual([1, 0]);
      // Once the inventory is right again, the cancel goes through and gives back every night.
      await env.DB.prepare("UPDATE room_nights SET sold = 1 WHERE accommodation_code = 'US000015' AND night = ?")
        .bind(before[1]!.night)
        .run();
      expect((await post("/api/cancel", cancelBody(reference))).status).toBe(200);
      expect(await statusOf(reference)).toBe("cancelled");
      expect((await nightsOf("US000015")).map((n) => n.sold)).toEqual([0, 0]);
    });

    it("parallel cancels of one booking change it once and give the rooms back once", async () => {
      const reference = await bookRefundable("US000016", "atomic-2");
      const answers = await Promise.all(Array.from({ length: 6 }, () => post("/api/cancel", cancelBody(reference))));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((a) => a.status !== 200))
        expect(a.json.message).toBe("Booking cannot be cancelled. Current status: cancelled");
      expect((await nightsOf("US000016")).map((n) => n.sold)).toEqual([0, 0]);
    });
  });

  describe("a connection deleted mid-book", () => {
    it("is a 403 with the rooms given back, not a 500", async () => {
      const s = await searchOne("US000017");
      const q = await quoteOf(s);
      const row = (await env.DB.prepare("SELECT * FROM connections WHERE code = 1001").first<
        Record<string, unknown>
      >())!;
      // The connection the book request was admitted with, gone from D1 by the time the booking row is written.
      const gone: CoreConnection = {
        id: "conn_deleted_mid_book",
        code: 1001,
        partnerId: "demo",
        apiType: row.api_type as CoreConnection["apiType"],
        connectionType: "direct",
        rateLimit: 600,
        rateLimitWindowMs: 60_000,
        netMarkups: 0,
        currency: "USD",
        suppliers: ["embedded"],
      };
      const request = bookOrderOf(bookBody(q, "mid-book-delete") as BookRequest);
      const failure = await bookQuote(bookingDeps(env), gone, request, {
        requestId: "r",
        startedAt: Date.now(),
        scenario: null,
      }).then(
        () => null,
        (error: unknown) => error as { status?: number; code?: string },
      );
      expect(failure).toMatchObject({ status: 403, code: "invalid_connection_code" });
      expect(
        await env.DB.prepare("SELECT count(*) AS n FROM bookings WHERE partner_reference = 'mid-book-delete'").first(
          "n",
        ),
      ).toBe(0);
      expect((await nightsOf("US000017")).every((n) => n.sold === 0)).toBe(true);
    });
  });
});

describe("restricted rates (issue 27)", () => {
  const CODES = Array.from({ length: 40 }, (_, i) => `US${String(i + 101).padStart(6, "0")}`);
  const searchWith = async (
    extra: { distributionContext?: unknown; filters?: unknown },
    occupancies: unknown[] = [{ paxes: [{ age: 30 }, { age: 30 }] }],
  ) => {
    const res = await post(
      "/api/search",
      searchBody({ destinations: { accommodations: CODES.map((code) => ({ code })) }, occupancies }, extra),
    );
    expect(res.status).toBe(200);
    return (res.json.data.accommodations as any[]).flatMap((h) =>
      h.options.map((o: any) => ({ ...o, hotel: h.accommodationCode, plan: o.id.split("~")[3] as string })),
    );
  };
  /** What an option id names, without its signed part (which differs per search). */
  const products = (options: any[]) => options.map((o) => o.id.split("~").slice(1).join("~"));
  const restricted = (o: any) =>
    o.visibility !== "PUBLIC" || o.rateRules.some((r: string) => r !== "NON_REFUNDABLE" && r !== "WARRANTY");
  let stars: Map<string, number>;
  beforeAll(async () => {
    const rows = await env.DB.prepare(
      "select code, star_rating from accommodations where code in (select value from json_each(?))",
    )
      .bind(JSON.stringify(CODES))
      .all<{ code: string; star_rating: number }>();
    stars = new Map(rows.results.map((r) => [r.code, r.star_rating]));
  });
  const plansOf = (plan: string) =>
    CODES.filter((code) => catalogueFor(code, stars.get(code)!).ratePlans.some((p) => p.code === plan));

  it("every option says its rules and visibility; a default search shows public rates only, as [PUBLIC] on the web does", async () => {
    const plain = await searchWith({});
    expect(plain.length).toBeGreaterThan(100);
    for (const o of plain) {
      expect(o.visibility).toBe("PUBLIC");
      expect(o.rateRules).toEqual(o.isRefundable ? [] : ["NON_REFUNDABLE"]);
    }
    const explicit = await searchWith({
      distributionContext: { supportedVisibilityTypes: ["PUBLIC"], salesChannel: "WEB" },
    });
    expect(products(explicit)).toEqual(products(plain));
    const offline = await searchWith({
      distributionContext: { salesChannel: "OFFLINE", distributionMode: "CUSTOMER" },
    });
    expect(products(offline)).toEqual(products(plain));
    // Opaque rates need OPAQUE_PROPERTY: the embedded inventory has none, so nothing changes.
    const opaque = await searchWith({
      distributionContext: { supportedVisibilityTypes: ["PUBLIC", "OPAQUE_PROPERTY"] },
    });
    expect(products(opaque)).toEqual(products(plain));
    // A default search signs no rate access (option-token.ts, stayText: its seventh field is empty).
    expect(plain[0].id.split("~")[0].split(".")[6]).toBe("");
  });

  it("PACKAGE rates only with supportedVisibilityTypes PACKAGE: one per hotel, cheaper, visibility PACKAGE; rateRuleFilter cannot widen", async () => {
    const plain = await searchWith({});
    const packaged = await searchWith({ distributionContext: { supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] } });
    const packages = packaged.filter((o) => o.visibility === "PACKAGE");
    expect(packages.map((o) => o.hotel).sort()).toEqual([...new Set(plain.map((o) => o.hotel))].sort());
    for (const o of packages) {
      expect(o).toMatchObject({ plan: "STD-RO-PKG", rateRules: ["PACKAGE"], isRefundable: true, boardCode: "RO" });
      const flexible = plain.find((p) => p.hotel === o.hotel && p.plan === "STD-RO-FLX")!;
      expect(o.rate.chargeTotal).toBeLessThan(flexible.rate.chargeTotal);
    }
    // Everything else is the default answer, option for option.
    expect(products(packaged.filter((o) => o.visibility !== "PACKAGE"))).toEqual(products(plain));
    // PUBLIC is always sellable: [PACKAGE] alone reads as [PUBLIC, PACKAGE].
    expect(products(await searchWith({ distributionContext: { supportedVisibilityTypes: ["PACKAGE"] } }))).toEqual(
      products(packaged),
    );
    // A filter narrows, never widens: naming PACKAGE without the visibility shows none.
    const asked = await searchWith({ filters: { rateRuleFilter: { includes: ["PACKAGE"] } } });
    expect(asked.some(restricted)).toBe(false);
    // ...and the filter still applies to what the visibility allows.
    const excluded = await searchWith({
      distributionContext: { supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] },
      filters: { rateRuleFilter: { excludes: ["package"] } },
    });
    expect(products(excluded)).toEqual(products(plain));
    const only = await searchWith({
      distributionContext: { supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] },
      filters: { rateRuleFilter: { includes: ["PACKAGE"], includeEmptyRateRulesOptions: false } },
    });
    expect(products(only)).toEqual(products(packages));
  });

  it("MOBILE rates only on salesChannel APP (non-refundable ones keep NON_REFUNDABLE)", async () => {
    const hotels = plansOf("STD-RO-MOB");
    expect(hotels.length).toBeGreaterThan(5);
    for (const channel of [undefined, "WEB", "OFFLINE"])
      expect((await searchWith({ distributionContext: { salesChannel: channel } })).some(restricted)).toBe(false);
    const app = await searchWith({ distributionContext: { salesChannel: "APP" } });
    const mobile = app.filter(restricted);
    expect(mobile.map((o) => o.hotel)).toEqual(hotels.filter((code) => app.some((o) => o.hotel === code)));
    for (const o of mobile)
      expect(o).toMatchObject({
        plan: "STD-RO-MOB",
        rateRules: ["NON_REFUNDABLE", "MOBILE"],
        visibility: "PUBLIC",
        isRefundable: false,
      });
    // The app channel does not open package rates.
    expect(app.some((o) => o.visibility === "PACKAGE")).toBe(false);
    const noMobile = await searchWith({
      distributionContext: { salesChannel: "APP" },
      filters: { rateRuleFilter: { excludes: ["MOBILE"] } },
    });
    expect(noMobile.some(restricted)).toBe(false);
  });

  it("senior and public-servant rates only when rateRuleFilter.includes names them, and OLDER65 only with a guest of 65 or over", async () => {
    const seniors = [{ paxes: [{ age: 70 }, { age: 40 }] }];
    const older = plansOf("STD-RO-SNR");
    const servants = plansOf("STD-RO-GOV");
    expect(older.length).toBeGreaterThan(3);
    expect(servants.length).toBeGreaterThan(3);
    // Old enough but not asked, or asked but nobody old enough: not shown.
    expect((await searchWith({}, seniors)).some(restricted)).toBe(false);
    expect((await searchWith({ filters: { rateRuleFilter: { includes: ["OLDER65"] } } })).some(restricted)).toBe(false);
    const asked = await searchWith({ filters: { rateRuleFilter: { includes: ["older65"] } } }, seniors);
    expect(asked.filter(restricted).map((o) => [o.hotel, o.plan, o.rateRules])).toEqual(
      older.filter((code) => asked.some((o) => o.hotel === code)).map((code) => [code, "STD-RO-SNR", ["OLDER65"]]),
    );
    // includes keeps its meaning: rule-less options and the listed rules (the non-refundable ones are left out).
    expect(asked.every((o) => o.rateRules.length === 0 || o.plan === "STD-RO-SNR")).toBe(true);
    // Naming the rule one guest is too young for (OLDER65 with a 60-year-old) still shows nothing restricted.
    const sixty = await searchWith({ filters: { rateRuleFilter: { includes: ["OLDER65"] } } }, [
      { paxes: [{ age: 60 }] },
    ]);
    expect(sixty.some(restricted)).toBe(false);
    const government = await searchWith({
      filters: { rateRuleFilter: { includes: ["PUBLIC_SERVANT", "NON_REFUNDABLE"] } },
    });
    expect(government.filter(restricted).map((o) => o.plan)).toEqual(
      servants.filter((code) => government.some((o) => o.hotel === code)).map(() => "STD-RO-GOV"),
    );
    expect(government.filter((o) => o.rateRules.includes("NON_REFUNDABLE")).length).toBeGreaterThan(0);
  });

  it("a PACKAGE option searched with PACKAGE visibility quotes and books; no id leads to a package rate without it", async () => {
    const code = CODES[0]!;
    const stay = { checkIn: inDays(40), checkOut: inDays(42) };
    const body = (distributionContext?: unknown) =>
      searchBody(
        { destinations: { accommodations: [{ code }] }, ...stay },
        distributionContext ? { distributionContext } : {},
      );
    const searched = async (distributionContext?: unknown) => {
      const res = await post("/api/search", body(distributionContext));
      expect(res.status).toBe(200);
      return res.json.data.accommodations[0].options as any[];
    };
    const quote = (option: any) =>
      post(
        "/api/quote",
        quoteBody({ accommodationCode: code, option, occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }], ...stay }),
      );
    const pkg = (await searched({ supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] })).find(
      (o) => o.visibility === "PACKAGE",
    );
    const quoted = await quote(pkg);
    expect(quoted.status).toBe(200);
    expect(quoted.json.data).toMatchObject({ rateRules: ["PACKAGE"], visibility: "PACKAGE", rate: pkg.rate });
    const booked = await post("/api/book", bookBody(quoted.json.data, `PR-PKG-${crypto.randomUUID()}`));
    expect(booked.status).toBe(200);

    // The product part of an id is not signed: a public option, an app option and a mobile one
    // rewritten to the package plan are each refused, and nothing is quoted.
    const forge = (option: any) => {
      const parts = option.id.split("~");
      parts[2] = "STD";
      parts[3] = "STD-RO-PKG";
      parts[4] = String(Math.round(pkg.rate.chargeTotal * 100)); // whole cents, as ids carry totals
      return { ...option, id: parts.join("~") };
    };
    const quotesBefore = await env.DB.prepare("select count(*) n from quotes").first("n");
    const publicOption = (await searched())[0];
    const appOption = (await searched({ salesChannel: "APP" }))[0];
    for (const option of [publicOption, appOption]) {
      const res = await quote(forge(option));
      expect([res.status, res.json.code, res.json.message]).toEqual([
        400,
        "option_invalid",
        "Option reference invalid",
      ]);
    }
    // Nor does a quote's own distributionContext open it: the option id decides.
    const claimed = await post("/api/quote", {
      ...quoteBody({
        accommodationCode: code,
        option: forge(publicOption),
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
        ...stay,
      }),
      distributionContext: { supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] },
    });
    expect([claimed.status, claimed.json.code]).toEqual([400, "option_invalid"]);
    expect(await env.DB.prepare("select count(*) n from quotes").first("n")).toBe(quotesBefore);
  });
});

describe("payment types (issue 27)", () => {
  const PAH_HOTEL = "US000016"; // sells STD-RO-PAH (catalogue.ts), refundable until 3 days before, first night
  const cents = (n: number) => Math.round(n * 100);
  const saveCard = async (actorId: string, paymentMethodId: string, expYear = 2099) =>
    env.DB.prepare(
      "insert into payment_methods (partner_id, actor_id, payment_method_id, brand, last4, exp_month, exp_year, is_default, created_at) values ('demo', ?, ?, 'visa', '4242', 12, ?, 1, '2026-01-01T00:00:00Z')",
    )
      .bind(actorId, paymentMethodId, expYear)
      .run();
  const twins = async () => {
    // The whole breakdown, as quote answers it (a default search lists totals, docs/api-decisions.md, issue 38).
    const hotel = (
      await search({ destinations: { accommodations: [{ code: PAH_HOTEL }] } }, { includePriceBreakdown: true })
    )[0];
    const pah = hotel.options.find((o: any) => o.paymentType === "PayAtProperty");
    const merchant = hotel.options.find((o: any) => o.id.includes("~STD-RO-FLX~"));
    return { hotel, pah, merchant };
  };

  it("a PayAtProperty option charges 0 at booking: the whole stay is due at the property, itemized, the all-in price its MerchantPay twin's", async () => {
    const { hotel, pah, merchant } = await twins();
    expect(pah.id).toContain("~STD-RO-PAH~");
    expect(merchant.paymentType).toBe("MerchantPay");
    expect(hotel.options.every((o: any) => ["MerchantPay", "PayAtProperty"].includes(o.paymentType))).toBe(true);
    for (const [rate, twin] of [
      [pah.rate, merchant.rate],
      ...pah.rooms.map((room: any, i: number) => [room.rate, merchant.rooms[i].rate]),
    ]) {
      expect([rate.chargeTotal, rate.baseRate, rate.taxesAndFees]).toEqual([0, 0, 0]);
      expect(rate.charges.filter((c: any) => c.included)).toEqual([]);
      // Each night as the property collects it (issue 38): USD hotel sold in USD, the twin's night to the cent,
      // its taxes and fees due at the property included.
      expect(rate.nights.map((n: any) => n.currency)).toEqual(twin.nights.map(() => "USD"));
      expect(rate.nights.map((n: any) => n.baseRate)).toEqual(twin.nights.map((n: any) => n.baseRate));
      expect(rate.nights.reduce((sum: number, n: any) => sum + cents(n.baseRate) + cents(n.taxesAndFees), 0)).toBe(
        cents(rate.dueAtProperty.amount),
      );
      expect(rate.totalStayPrice).toBe(twin.totalStayPrice);
      // USD hotel sold in USD: the whole stay in the property's currency, each charge of the twin itemized.
      expect(rate.dueAtProperty.currency).toBe("USD");
      expect(cents(rate.dueAtProperty.amount)).toBe(cents(twin.totalStayPrice));
      expect(rate.dueAtProperty.charges.reduce((sum: number, c: any) => sum + cents(c.amount), 0)).toBe(
        cents(rate.dueAtProperty.amount),
      );
      expect(rate.dueAtProperty.charges[0]).toMatchObject({ type: "ROOM", code: "ROOM", amount: twin.baseRate });
      expect(rate.dueAtProperty.charges.slice(1).map((c: any) => [c.code, c.amount])).toEqual(
        twin.charges.map((c: any) => [c.code, c.amount]),
      );
    }
    // Penalties on the stay's value (the hotel charges the guaranteed card): the twin's.
    expect(pah.cancelPolicy.cancelPenalties.map((p: any) => p.value)).toEqual(
      merchant.cancelPolicy.cancelPenalties.map((p: any) => p.value),
    );
    // Sorted by the all-in price, MerchantPay first on the same price: right after its twin.
    const ids = hotel.options.map((o: any) => o.id);
    expect(ids.indexOf(pah.id)).toBe(ids.indexOf(merchant.id) + 1);
  });

  it("quote/book select the payment type: the option's own, another one 400 by name, an unknown one 400 naming the allowed values", async () => {
    const { pah, merchant } = await twins();
    const searchedOf = (option: any) => ({
      accommodationCode: PAH_HOTEL,
      option,
      checkIn: inDays(30),
      checkOut: inDays(32),
      occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
    });
    const wrong = await post("/api/quote", quoteBody(searchedOf(pah), { paymentType: "MerchantPay" }));
    expect([wrong.status, wrong.json.code, wrong.json.message]).toEqual([
      400,
      "payment_type_mismatch",
      "paymentType MerchantPay does not match the option's paymentType PayAtProperty",
    ]);
    const wrongMerchant = await post("/api/quote", quoteBody(searchedOf(merchant), { paymentType: "PayAtProperty" }));
    expect(wrongMerchant.json.message).toBe(
      "paymentType PayAtProperty does not match the option's paymentType MerchantPay",
    );
    const unknown = await post("/api/quote", quoteBody(searchedOf(pah), { paymentType: "DIRECT" }));
    expect([unknown.status, unknown.json.message]).toEqual([
      400,
      'quoteCriteria.paymentType: Invalid option: expected one of "MerchantPay"|"PayAtProperty"',
    ]);
    const quoted = await post("/api/quote", quoteBody(searchedOf(pah), { paymentType: "payatproperty" }));
    expect(quoted.status).toBe(200);
    const quote = quoted.json.data;
    expect(quote.paymentType).toBe("PayAtProperty");
    expect(quote.rate).toEqual(pah.rate);

    const noCard = await post("/api/book", bookBody(quote, "pah-no-card"));
    expect([noCard.status, noCard.json.code, noCard.json.message]).toEqual([
      400,
      "payment_card_required",
      "bookCriteria.paymentCard is required for a PayAtProperty option: a saved card's actorId and paymentMethodId",
    ]);
    const otherType = await post("/api/book", bookBody(quote, "pah-type", { paymentType: "MerchantPay" }));
    expect(otherType.json.code).toBe("payment_type_mismatch");
    const notSaved = await post(
      "/api/book",
      bookBody(quote, "pah-unknown-card", { paymentCard: { actorId: "guest-1", paymentMethodId: "pm_notsaved000" } }),
    );
    expect([notSaved.status, notSaved.json.code]).toEqual([400, "payment_card_not_found"]);
    await saveCard("guest-old", "pm_expired00001", 2020);
    const expired = await post(
      "/api/book",
      bookBody(quote, "pah-expired", { paymentCard: { actorId: "guest-old", paymentMethodId: "pm_expired00001" } }),
    );
    expect([expired.status, expired.json.code]).toEqual([400, "card_expired"]);
    // Never raw card data: a card number where the id goes is refused by the card-data guard.
    const pan = await post(
      "/api/book",
      bookBody(quote, "pah-pan", { paymentCard: { actorId: "guest-1", paymentMethodId: "4242424242424242" } }),
    );
    expect(pan.status).toBe(400);
  });

  it("a PayAtProperty booking keeps its guarantee card masked: read, list and cancellation preview on the stay's value", async () => {
    const { pah } = await twins();
    await saveCard("guest-pah", "pm_pahguarantee1");
    const quote = await quoteOf({
      accommodationCode: PAH_HOTEL,
      option: pah,
      checkIn: inDays(30),
      checkOut: inDays(32),
      occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
    });
    const booked = await post(
      "/api/book",
      bookBody(quote, "pah-booked", {
        paymentType: "PayAtProperty",
        paymentCard: { actorId: "guest-pah", paymentMethodId: "pm_pahguarantee1" },
      }),
    );
    expect(booked.status).toBe(200);
    expect(booked.json.data).toMatchObject({ chargeTotal: 0, paymentType: "PayAtProperty", currency: "USD" });
    const reference = booked.json.data.bookingReference;
    const read = await call("GET", `/api/bookings/${reference}`);
    expect(read.status).toBe(200);
    expect(read.json.data).toMatchObject({
      paymentType: "PayAtProperty",
      paymentCard: { paymentMethodId: "pm_pahguarantee1", brand: "visa", last4: "4242" },
      chargeTotal: 0,
      rate: pah.rate,
    });
    // Its nights as priced, each in the property's currency: the stored record keeps them (issue 38).
    expect(read.json.data.rate.nights.length).toBe(2);
    expect(read.json.data.rate.nights.every((n: any) => n.currency === "USD" && n.baseRate > 0)).toBe(true);
    expect(JSON.stringify(read.json.data)).not.toMatch(/\d{12,}/);
    const byPartnerReference = await call("GET", "/api/bookings?partnerReference=pah-booked");
    expect(byPartnerReference.json.data).toMatchObject({
      paymentType: "PayAtProperty",
      paymentCard: { last4: "4242" },
    });
    const list = await call("GET", `/api/bookings?checkInFrom=${inDays(30)}&checkInTo=${inDays(30)}&limit=100`);
    expect(list.json.data.bookings.find((b: any) => b.bookingReference === reference)).toMatchObject({
      paymentType: "PayAtProperty",
      paymentCard: { paymentMethodId: "pm_pahguarantee1", last4: "4242" },
    });
    // After the free-cancellation deadline the hotel charges the first night's value to the card.
    const penalty = pah.cancelPolicy.cancelPenalties[0];
    const late = new Date(Date.parse(penalty.deadline) + 60_000).toISOString();
    const preview = await call("GET", `/api/bookings/${reference}/cancellation?at=${encodeURIComponent(late)}`);
    expect(preview.status).toBe(200);
    expect(preview.json.data.cancelPrice).toBe(penalty.value);
    expect(penalty.value).toBeGreaterThan(0);
    // A MerchantPay booking reads MerchantPay with no card.
    const merchant = await post(
      "/api/book",
      bookBody(await quoteOf(await searchOne(PAH_HOTEL, { pick: (o) => o.paymentType === "MerchantPay" })), "mp-1"),
    );
    const mpRead = await call("GET", `/api/bookings/${merchant.json.data.bookingReference}`);
    expect(mpRead.json.data).toMatchObject({ paymentType: "MerchantPay", paymentCard: null });
  });
});

describe("rate-limit-first", () => {
  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 50 });
    // These tests count a connection's requests from zero; the blocks above used the same windows.
    for (const code of [1001, 2001]) {
      const id = await env.DB.prepare("SELECT id FROM connections WHERE code = ?").bind(code).first<string>("id");
      await runInDurableObject(env.RATE_LIMITER.getByName(id!), (_: RateLimiter, state) => state.storage.deleteAll());
    }
  });

  /** Notes every SQL text prepared through a D1 binding or a session opened from it, then runs it there. */
  const spyOn = <T extends object>(target: T, sql: string[]): T =>
    new Proxy(target, {
      get(t, prop) {
        const real = t as unknown as D1Database;
        if (prop === "prepare")
          return (query: string) => {
            sql.push(query);
            return real.prepare(query);
          };
        // Each request runs in a D1 session (platform/db/client.ts): its statements are noted too.
        if (prop === "withSession") return (start?: string) => spyOn(real.withSession(start), sql);
        const value = Reflect.get(t, prop, t);
        return typeof value === "function" ? value.bind(t) : value;
      },
    });

  /** The real D1, with every SQL text prepared through it noted (a spy on the real binding, not a stand-in). */
  const spiedEnv = () => {
    const sql: string[] = [];
    return { env: { ...env, DB: spyOn(env.DB, sql) }, sql };
  };

  const app = createApp();
  const send = async (
    target: ReturnType<typeof spiedEnv>["env"],
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ) =>
    readResponse(
      await app.request(
        `https://edgestay.test${path}`,
        {
          method: "POST",
          headers: { "content-type": "application/json", "api-key": DEMO_KEY, ...headers },
          body: JSON.stringify(body),
        },
        target,
      ),
      { method: "POST", url: path },
    );
  const supplierWork = (sql: string[]) =>
    sql.filter((q) => /room_nights|rate_plan_nights|accommodation_name_|FROM accommodations/i.test(q));
  const limitConnection = (code: number, limit: number) =>
    env.DB.prepare("UPDATE connections SET rate_limit = ?, rate_limit_window_ms = 3600000 WHERE code = ?")
      .bind(limit, code)
      .run();

  describe("rate limits before work", () => {
    it("a search or quote refused by the connection's limit does no supplier work", async () => {
      const option = await searchOne("US000001"); // before the limit is lowered
      await limitConnection(1001, 3); // searchOne used one of these already
      const allowed = spiedEnv();
      expect(
        (
          await send(
            allowed.env,
            "/api/search",
            searchBody({ destinations: { accommodations: [{ code: "US000002" }] } }),
          )
        ).status,
      ).toBe(200);
      expect(supplierWork(allowed.sql).length).toBeGreaterThan(0); // the spy sees supplier reads when they happen
      expect((await send(spiedEnv().env, "/api/quote", quoteBody(option))).status).toBe(200);

      for (const [path, body] of [
        ["/api/search", searchBody({ destinations: { accommodations: [{ code: "US000003" }] } })],
        ["/api/search", searchBody({ accommodationName: "Inn" })],
        ["/api/quote", quoteBody(option)],
      ] as const) {
        const refused = spiedEnv();
        const res = await send(refused.env, path, body);
        expect([path, res.status, res.json.message]).toEqual([path, 429, "Rate limit exceeded"]);
        expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(supplierWork(refused.sql)).toEqual([]);
      }
    });

    it("chat searches count against the partner's in-use connection limit as well as the chat limit", async () => {
      // The other partner's connection 2001 allows 3 calls an hour; the chat budget has the same size but its own bucket.
      await limitConnection(2001, 3);
      const chat = (body: unknown) =>
        post(`${CHAT}${"/events"}`, body, { apiKey: null, headers: { "x-partner-api-key": OTHER_KEY } });
      const session = await post(
        `${CHAT}/sessions`,
        { actor: { actorId: "limited" } },
        { apiKey: null, headers: { "x-partner-api-key": OTHER_KEY } },
      );
      expect(session.status).toBe(201);
      const searched = await chat({ sessionId: session.json.data.sessionId, text: NEW_YORK });
      expect(searched.status).toBe(200);
      expect(searched.json.data.result.status).toBe("shortlist");
      // The chat search used one of the connection's 3: core search gets the other 2, then 429.
      const core = (code: string) =>
        post(
          "/api/search",
          searchBody({ destinations: { accommodations: [{ code }] } }, { settings: { access: { code: 2001 } } }),
          { apiKey: OTHER_KEY },
        );
      expect((await core("US000004")).status).toBe(200);
      expect((await core("US000005")).status).toBe(200);
      expect((await core("US000006")).status).toBe(429);
      // Chat still has budget of its own (2 of 3 used), but the connection has none: the chat search is refused too.
      const refused = await chat({ sessionId: session.json.data.sessionId, text: NEW_YORK });
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ success: false, code: "rate_limit_exceeded" });
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    });
  });
});

describe("per-hotel statuses (issue 29)", () => {
  // Connection 1002 sells the sandbox Hotel-X upstream; here with the embedded inventory beside it
  // (withEmbedded), so one search by codes meets both suppliers.
  const UPSTREAM = 1002;
  const UPSTREAM_SUPPLIER = "hotelx-1002";
  const GENERATED = Array.from({ length: 100 }, (_, i) => `HX${1000 + i}`);
  /** Sold by the upstream only: every embedded room of it is stopped below. */
  const UPSTREAM_ONLY = GENERATED[0]!;
  const circuit = () => circuitFor(env, UPSTREAM_SUPPLIER);
  const withEmbedded = withEmbedded1002;
  const searchCodes = async (
    codes: string[],
    extra: { settings?: Record<string, unknown>; filters?: unknown; code?: number } = {},
  ) => {
    const res = await post(
      "/api/search",
      searchBody(
        { destinations: { accommodations: codes.map((code) => ({ code })) } },
        {
          settings: { access: { code: extra.code ?? UPSTREAM }, ...extra.settings },
          ...(extra.filters ? { filters: extra.filters } : {}),
        },
      ),
    );
    expect(res.status, res.text).toBe(200);
    return res.json.data;
  };
  const statusOf = (data: any) =>
    new Map<string, string>(data.statuses.map((s: any) => [s.accommodationCode, s.status]));
  const listedOf = (data: any) => new Set<string>(data.accommodations.map((a: any) => a.accommodationCode));
  const NO_NON_REFUNDABLE = { rateRuleFilter: { excludes: ["NON_REFUNDABLE"] } };
  /** Hotels changed below: sold out; refundable rates stopped (and non-refundable ones filtered); only a package rate left. */
  let soldOut: string;
  let filtered: string;
  let packageOnly: string;
  let open: string;

  beforeAll(async () => {
    await seedSandboxHotels(env.DB, ["HX001", "HX500", "HXSLOW2000"]);
    await seedSandboxHotelContent(
      env.DB,
      GENERATED.map((_, i) => i),
    );
    await withEmbedded(true);
    // 1002 sells in EUR (issue 39): the embedded inventory's USD is converted, so it needs a rate.
    expect(
      (await call("PUT", "/api/operator/exchange-rates", { base: "USD", rates: { EUR: 0.9 } }, OPERATOR)).status,
    ).toBe(200);
    // Hotels of the embedded inventory with refundable and non-refundable public rates and a package rate.
    const candidates = Array.from({ length: 40 }, (_, i) => `US${String(i + 301).padStart(6, "0")}`);
    const seen = await searchCodes(candidates);
    const withPackages = await post(
      "/api/search",
      searchBody(
        { destinations: { accommodations: candidates.map((code) => ({ code })) } },
        {
          settings: { access: { code: UPSTREAM } },
          distributionContext: { supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] },
        },
      ),
    );
    const optionsOf = (data: any, code: string): any[] =>
      data.accommodations.find((a: any) => a.accommodationCode === code)?.options ?? [];
    const [a, b, c, d] = candidates.filter((code) => {
      const options = optionsOf(seen, code);
      return (
        options.some((o) => o.isRefundable) &&
        options.some((o) => !o.isRefundable) &&
        optionsOf(withPackages.json.data, code).some((o) => o.visibility === "PACKAGE")
      );
    });
    expect(d).toBeDefined();
    [soldOut, filtered, packageOnly, open] = [a!, b!, c!, d!];
    const plan = (o: any) => o.id.split("~")[3] as string;
    const night = inDays(31);
    const stopRoom = (code: string, room: string) =>
      env.DB.prepare(
        "insert into room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell) values (?, ?, ?, 5, 0, 1)",
      ).bind(code, room, night);
    const stopPlan = (code: string, ratePlan: string) =>
      env.DB.prepare(
        "insert into rate_plan_nights (accommodation_code, rate_plan_code, night, stop_sell) values (?, ?, ?, 1)",
      ).bind(code, ratePlan, night);
    const stars = await env.DB.prepare("select star_rating from accommodations where code = ?")
      .bind(UPSTREAM_ONLY)
      .first<number>("star_rating");
    const upstreamOnlyRooms = catalogueFor(UPSTREAM_ONLY, stars!).rooms.map((r) => r.code);
    await env.DB.batch([
      ...[...new Set(optionsOf(seen, soldOut).map((o) => o.rooms[0].code as string))].map((r) => stopRoom(soldOut, r)),
      ...[
        ...new Set(
          optionsOf(seen, filtered)
            .filter((o) => o.isRefundable)
            .map(plan),
        ),
      ].map((p) => stopPlan(filtered, p)),
      // Every public plan stopped: only the package rate, which this search may not sell, is left.
      ...[...new Set(optionsOf(seen, packageOnly).map(plan))].map((p) => stopPlan(packageOnly, p)),
      ...upstreamOnlyRooms.map((r) => stopRoom(UPSTREAM_ONLY, r)),
    ]);
  });
  beforeEach(async () => {
    await circuit().record(true, Date.now());
  });
  afterAll(async () => {
    await withEmbedded(false);
    await circuit().record(true, Date.now());
  });

  it("a 1,000-code search mixing unknown, sold-out, filtered and upstream codes: exactly one correct status per code", async () => {
    const known = all
      .map((r) => r.code)
      .filter((code) => code.startsWith("US"))
      .slice(0, 400);
    const unknown = Array.from({ length: 499 }, (_, i) => `ZZ${String(i + 1).padStart(6, "0")}`);
    // Interleaved, and one code twice: one status per code, in the order first asked.
    const codes = [...known, ...GENERATED, ...unknown].sort(
      (x, y) => x.slice(2).localeCompare(y.slice(2)) || x.localeCompare(y),
    );
    codes.push(known[0]!);
    expect(codes).toHaveLength(1000);
    for (const code of [soldOut, filtered, packageOnly, open]) expect(known).toContain(code);

    const data = await searchCodes(codes, { filters: NO_NON_REFUNDABLE });
    const unfiltered = await searchCodes(codes);
    expect(data.warnings).toBeUndefined();
    expect(data.statuses.map((s: any) => s.accommodationCode)).toEqual([...new Set(codes)]);
    const status = statusOf(data);
    const listed = listedOf(data);
    const offeredUnfiltered = listedOf(unfiltered);

    // The hotels changed for this test, each by what was done to it.
    expect([soldOut, filtered, packageOnly, open, UPSTREAM_ONLY, unknown[0]].map((code) => status.get(code!))).toEqual([
      "no_availability",
      "filtered_out",
      "filtered_out",
      "available",
      "available",
      "unknown_code",
    ]);
    // The upstream alone sells UPSTREAM_ONLY now.
    const upstreamOnly = data.accommodations.find((a: any) => a.accommodationCode === UPSTREAM_ONLY);
    expect(upstreamOnly.options.every((o: any) => o.id.endsWith(`~${UPSTREAM_SUPPLIER}`))).toBe(true);
    // Both suppliers sell the other generated hotels.
    const both = data.accommodations.find((a: any) => a.accommodationCode === GENERATED[1]);
    expect(both.options.some((o: any) => o.id.endsWith(`~${UPSTREAM_SUPPLIER}`))).toBe(true);
    expect(both.options.some((o: any) => !o.id.endsWith(`~${UPSTREAM_SUPPLIER}`))).toBe(true);

    // Every other code: answered with options is available; a known one without is filtered out when
    // the same search without the filter offered it, else without availability; the rest are unknown.
    const changed = new Set([soldOut, filtered, packageOnly, open, UPSTREAM_ONLY]);
    const expected = (code: string) =>
      listed.has(code)
        ? "available"
        : !known.includes(code) && !GENERATED.includes(code)
          ? "unknown_code"
          : offeredUnfiltered.has(code)
            ? "filtered_out"
            : "no_availability";
    for (const code of new Set(codes))
      if (!changed.has(code)) expect([code, status.get(code)]).toEqual([code, expected(code)]);
    const counts = (s: string) => [...status.values()].filter((v) => v === s).length;
    expect(counts("unknown_code")).toBe(499);
    expect(counts("available")).toBeGreaterThan(400);
    expect(counts("filtered_out")).toBeGreaterThanOrEqual(2);
    expect(counts("no_availability")).toBeGreaterThanOrEqual(1);
    // The unfiltered search accounts for the same codes.
    expect(unfiltered.statuses.map((s: any) => s.accommodationCode)).toEqual([...new Set(codes)]);
    expect(statusOf(unfiltered).get(filtered)).toBe("available");
    expect(statusOf(unfiltered).get(packageOnly)).toBe("filtered_out");
  });

  it("a supplier that did not answer: its failure for every known hotel left without options, whatever else happened to it", async () => {
    // `spoiler`: a scenario hotel that spoils the upstream's whole answer; the embedded inventory still sells it.
    const codes = (spoiler: string) => [open, spoiler, soldOut, filtered, packageOnly, UPSTREAM_ONLY, "ZZ999999"];
    const expectFailure = (data: any, failure: string, spoiler: string) => {
      expect(data.warnings.map((w: any) => [w.code, w.supplier])).toEqual([[failure, UPSTREAM_SUPPLIER]]);
      // Per supplier (issue 39): what the embedded inventory made of each hotel, the upstream's failure for all.
      const suppliers = (embedded: string) => [
        { code: "embedded", status: embedded },
        { code: UPSTREAM_SUPPLIER, status: failure },
      ];
      expect(data.statuses).toEqual([
        ...[open, spoiler].map((accommodationCode) => ({
          accommodationCode,
          status: "available",
          suppliers: suppliers("available"),
        })),
        // No availability, filtered out or sold only upstream: the failed supplier might have had an option.
        ...[
          [soldOut, "no_availability"],
          [filtered, "filtered_out"],
          [packageOnly, "filtered_out"],
          [UPSTREAM_ONLY, "no_availability"],
        ].map(([accommodationCode, embedded]) => ({
          accommodationCode,
          status: failure,
          suppliers: suppliers(embedded!),
        })),
        { accommodationCode: "ZZ999999", status: "unknown_code", suppliers: [] },
      ]);
    };
    const error = await searchCodes(codes("HX500"), { filters: NO_NON_REFUNDABLE });
    expectFailure(error, "supplier_error", "HX500");
    // The sandbox answers HXSLOW2000 after 2 s; the search waits 300 ms.
    const late = await searchCodes(codes("HXSLOW2000"), { filters: NO_NON_REFUNDABLE, settings: { timeout: "300" } });
    expectFailure(late, "supplier_timeout", "HXSLOW2000");
    // An open circuit: the upstream is not asked at all.
    const now = Date.now();
    for (let i = 0; i < FAILURES_TO_OPEN; i++) await circuit().record(false, now);
    const refused = await searchCodes(codes("HX001"), { filters: NO_NON_REFUNDABLE });
    expectFailure(refused, "supplier_unavailable", "HX001");
  });

  it("the upstream alone: a code it has nothing for is no_availability; when it fails, every known code takes the failure and an unknown one stays unknown_code (one read of the content index)", async () => {
    await withEmbedded(false);
    try {
      const answered = await searchCodes(["HX001", open, "ZZ999999"]);
      const alone = (status: string) => [{ code: UPSTREAM_SUPPLIER, status }];
      expect(answered.statuses).toEqual([
        { accommodationCode: "HX001", status: "available", suppliers: alone("available") },
        // Our content knows it; the sandbox sells no US hotel.
        { accommodationCode: open, status: "no_availability", suppliers: alone("no_availability") },
        { accommodationCode: "ZZ999999", status: "unknown_code", suppliers: [] },
      ]);
      const data = await searchCodes([UPSTREAM_ONLY, "HX500", open, "ZZ999999"]);
      expect(data.accommodations).toEqual([]);
      const failed = alone("supplier_error");
      expect(data.statuses).toEqual([
        { accommodationCode: UPSTREAM_ONLY, status: "supplier_error", suppliers: failed },
        { accommodationCode: "HX500", status: "supplier_error", suppliers: failed },
        { accommodationCode: open, status: "supplier_error", suppliers: failed },
        { accommodationCode: "ZZ999999", status: "unknown_code", suppliers: [] },
      ]);
    } finally {
      await withEmbedded(true);
    }
  });

  it("a geo or name search answers a status for every hotel it resolved, in the answer's order (issue 39)", async () => {
    for (const criteria of [{ geo: { lat: 40.7128, lng: -74.006, limit: 5 } }, { accommodationName: "harbor" }]) {
      const res = await post("/api/search", searchBody(criteria, { settings: { access: { code: UPSTREAM } } }));
      expect(res.status).toBe(200);
      const { statuses, accommodations } = res.json.data;
      expect(statuses.length).toBeGreaterThan(0);
      // The listed hotels are the available ones, in the same order.
      expect(accommodations.map((a: any) => a.accommodationCode)).toEqual(
        statuses.filter((s: any) => s.status === "available").map((s: any) => s.accommodationCode),
      );
      for (const s of statuses) expect(s.suppliers.map((x: any) => x.code)).toEqual(["embedded", UPSTREAM_SUPPLIER]);
    }
  });
});
