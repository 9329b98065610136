import { env } from "cloudflare:test";
import { database } from "../../platform/db/client";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, OTHER_KEY, post } from "../../../test/support/api";
import { bookBody, connectionByCode, searchBody } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { relaySupplier } from "../../../test/support/relay-supplier";
import { OPERATOR } from "../../../test/support/sessions";
import { inventorySupplier } from "../supply/inventory-supplier";
import { REDACTED } from "../supply/provider-transactions";
import type { Offer, Supplier } from "../supply/supplier";
import { bookingDeps, type BookingDeps } from "../booking/deps";
import { tgxSearchRequestSchema } from "./tgx-schemas";
import { embeddedOnly1002, hotelxResultProblems } from "../../../test/support/hotelx";
import { seedDemoUpstream, seedSandboxHotels } from "../../../test/support/seed";
import { sandboxUrl } from "../../../test/support/accounts";
import { searchTgx as tgxSearchOf } from "./tgx-search";

/**
 * Field names and enum values of TravelgateX's public Hotel-X GraphQL schema (travelgateX/graphql-schema,
 * hotelx/), written out here so that a renamed field or value in our answer fails the test.
 */
const HOTEL_X = {
  HotelSearch: ["context", "stats", "auditData", "requestCriteria", "options", "errors", "warnings"],
  HotelOptionSearch: [
    "supplierCode",
    "accessCode",
    "market",
    "markets",
    "hotelCode",
    "hotelCodeSupplier",
    "hotelName",
    "boardCode",
    "boardCodeSupplier",
    "paymentType",
    "status",
    "occupancies",
    "rooms",
    "price",
    "supplements",
    "surcharges",
    "rateRules",
    "cancelPolicy",
    "remarks",
    "addOns",
    "token",
    "id",
  ],
  Occupancy: ["id", "paxes"],
  Pax: ["age"],
  Room: [
    "occupancyRefId",
    "legacyRoomId",
    "code",
    "supplierCode",
    "description",
    "refundable",
    "units",
    "roomPrice",
    "beds",
    "ratePlans",
    "promotions",
  ],
  RoomPrice: ["price", "breakdown"],
  Price: ["currency", "binding", "net", "gross", "exchange", "markups", "minimumSellingPrice"],
  Exchange: ["currency", "rate"],
  CancelPolicy: ["refundable", "cancelPenalties", "description"],
  CancelPenalty: ["hoursBefore", "deadline", "isCalculatedDeadline", "penaltyType", "currency", "value"],
  Error: ["code", "type", "description"],
  PaymentType: ["MERCHANT", "DIRECT", "CARD_BOOKING", "CARD_CHECK_IN"],
  StatusType: ["OK", "RQ"],
  CancelPenaltyType: ["NIGHTS", "PERCENT", "IMPORT"],
  RateRulesType: [
    "PACKAGE",
    "OLDER55",
    "OLDER60",
    "OLDER65",
    "CANARY_RESIDENT",
    "BALEARIC_RESIDENT",
    "LARGE_FAMILY",
    "HONEYMOON",
    "PUBLIC_SERVANT",
    "UNEMPLOYED",
    "NORMAL",
    "NON_REFUNDABLE",
    "MOBILE",
    "WARRANTY",
    "ESSENTIAL_WORKER",
    "NEGOTIATED",
    "CUSTOM",
  ],
};

/** The fields this API answers with: all of the list, each a schema field of its type. */
const EMITTED = {
  search: ["context", "errors", "options", "warnings"],
  option: [
    "accessCode",
    "boardCode",
    "boardCodeSupplier",
    "cancelPolicy",
    "hotelCode",
    "hotelCodeSupplier",
    "hotelName",
    "id",
    "markets",
    "occupancies",
    "paymentType",
    "price",
    "rateRules",
    "rooms",
    "status",
    "supplierCode",
    "surcharges",
  ],
  room: [
    "code",
    "description",
    "legacyRoomId",
    "occupancyRefId",
    "ratePlans",
    "refundable",
    "roomPrice",
    "supplierCode",
  ],
  price: ["binding", "currency", "exchange", "gross", "net"],
  penalty: ["currency", "deadline", "hoursBefore", "isCalculatedDeadline", "penaltyType", "value"],
};

const DIRECT = 1001;
/** The seeded tgx connection, returned to the embedded inventory below. */
const TGX = 1002;
const METASEARCH = 1004;
const LIMITED = 1005;
const HOTELS = Array.from({ length: 12 }, (_, i) => `US${String(i + 1).padStart(6, "0")}`);

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 30 });
  // demo's connections of the other two types, and a tightly limited one (one in use per apiType and type).
  await env.DB.batch([
    env.DB.prepare(
      `insert into connections (id, code, partner_id, api_type, connection_type, rate_limit, rate_limit_window_ms, current_in_use) values
       ('con_demo_meta', ${METASEARCH}, 'demo', 'public', 'metasearch', 100, 60000, 1),
       ('con_demo_limited', ${LIMITED}, 'demo', 'mobile', 'direct', 3, 600000, 1)`,
    ),
    ...embeddedOnly1002(),
  ]);
});

const tgxBody = (
  criteria: Record<string, unknown> = {},
  {
    code = DIRECT,
    settings = {},
    filter,
  }: { code?: unknown; settings?: Record<string, unknown>; filter?: unknown } = {},
) => ({
  criteria: {
    checkIn: inDays(30),
    checkOut: inDays(32),
    hotels: HOTELS.slice(0, 6),
    occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
    currency: "USD",
    language: "en",
    nationality: "US",
    market: "US",
    ...criteria,
  },
  settings: { access: { code }, ...settings },
  ...(filter === undefined ? {} : { filter }),
});

const searchTgx = async (body: unknown, apiKey?: string) => {
  const res = await post("/api/search/tgx", body, { apiKey });
  return { ...res, search: res.json?.data?.hotelX?.search };
};

const keys = (o: object) => Object.keys(o).sort();

/** The answer is a valid result of the project's Hotel-X SDL type HotelSearch (names as the public schema). */
const valid = async (search: unknown) => expect(await hotelxResultProblems("HotelSearch", search)).toEqual([]);

const depsWith = (...suppliers: Supplier[]): BookingDeps => ({
  ...bookingDeps(env),
  supply: {
    forConnection: async () => suppliers,
    named: async (name) => suppliers.find((s) => s.name === name) ?? null,
  },
});
/** The service itself, for suppliers only a test can plug in (a remote one, one with RQ options). */
const searchWith = async (deps: BookingDeps, body: unknown) =>
  (await tgxSearchOf(deps, await connectionByCode(DIRECT), tgxSearchRequestSchema.parse(body))).data.hotelX.search;

describe("POST /api/search/tgx: criteria validation", () => {
  it.each([
    ["no checkIn", tgxBody({ checkIn: undefined }), "criteria.checkIn is required"],
    [
      "a checkOut that is not a date",
      tgxBody({ checkOut: "tomorrow" }),
      "criteria.checkOut: expected a date YYYY-MM-DD",
    ],
    ["no hotels", tgxBody({ hotels: undefined }), "criteria.hotels is required"],
    ["hotels as a string", tgxBody({ hotels: "US000001" }), /^criteria\.hotels: /],
    ["an empty hotel list", tgxBody({ hotels: [] }), /^criteria\.hotels: /],
    ["no occupancies", tgxBody({ occupancies: undefined }), "criteria.occupancies is required"],
    [
      "a pax without age",
      tgxBody({ occupancies: [{ paxes: [{}] }] }),
      "criteria.occupancies[0].paxes[0].age is required",
    ],
    [
      "an age as a string",
      tgxBody({ occupancies: [{ paxes: [{ age: "30" }] }] }),
      /^criteria\.occupancies\[0\]\.paxes\[0\]\.age: /,
    ],
    [
      "destination codes",
      tgxBody({ destinations: ["BCN"] }),
      "criteria.destinations is not supported; list hotel codes in criteria.hotels",
    ],
    // Issue 25: Hotel-X fields that would change the answer, and are not applied here.
    [
      "suppliers",
      tgxBody({}, { settings: { suppliers: [{ code: "HOTELBEDS" }] } }),
      "settings.suppliers is not supported; settings.access.code names the connection, which names its suppliers",
    ],
    [
      "a plugin of no Hotel-X type",
      tgxBody(
        {},
        { settings: { plugins: [{ step: "RESPONSE_OPTION", pluginsType: [{ type: "MAGIC", name: "x" }] }] } },
      ),
      /^settings\.plugins\[0\]\.pluginsType\[0\]\.type: /,
    ],
    [
      "a plugin to include",
      tgxBody({}, { filter: { plugin: { includes: [{ step: "RESPONSE", type: "MARKUP", name: "x" }] } } }),
      "filter.plugin.includes is not supported; no plugins run here",
    ],
    [
      "a two-step booking",
      tgxBody({}, { settings: { commitRequired: true } }),
      "settings.commitRequired is not supported; bookings are confirmed in one step",
    ],
    [
      "an unknown filter",
      { ...tgxBody(), filterSearch: { boardCodes: ["BB"] } },
      'filterSearch: Unrecognized key: "boardCodes"',
    ],
    [
      "an unknown status",
      { ...tgxBody(), filterSearch: { status: { includes: ["MAYBE"] } } },
      /^filterSearch\.status\.includes\[0\]: /,
    ],
    [
      "filterSearch and its deprecated name filter",
      { ...tgxBody({}, { filter: { rateRules: { excludes: ["NON_REFUNDABLE"] } } }), filterSearch: {} },
      "Send filterSearch or filter (its deprecated name), not both",
    ],
    [
      "criteria.currency against settings.currency",
      tgxBody({ currency: "EUR" }, { settings: { currency: "USD" } }),
      "criteria.currency: EUR differs from settings.currency USD",
    ],
    ["an operationTimeout of 0", tgxBody({}, { settings: { operationTimeout: 0 } }), /^settings\.operationTimeout: /],
    [
      "an unknown rate rule",
      tgxBody({}, { filter: { rateRules: { includes: ["CHEAP"] } } }),
      /^filter\.rateRules\.includes\[0\]: /,
    ],
    [
      "access includes and excludes",
      tgxBody({}, { filter: { access: { includes: ["1001"], excludes: ["2"] } } }),
      "filter.access: use includes or excludes, not both",
    ],
    [
      "an unknown business rule",
      tgxBody({}, { settings: { businessRules: { businessRulesType: "PRICIEST" } } }),
      /^settings\.businessRules\.businessRulesType: /,
    ],
    ["no criteria", { settings: { access: { code: DIRECT } } }, "criteria is required"],
    ["no settings", { criteria: tgxBody().criteria }, "settings is required"],
  ])("%s: 400 naming the field", async (_name, body, message) => {
    const res = await post("/api/search/tgx", body);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("invalid_request");
    if (typeof message === "string") expect(res.json.message).toBe(message);
    else expect(res.json.message).toMatch(message);
    expect(res.json.data).toBeUndefined();
  });

  it.each([
    [
      "checkOut before checkIn",
      tgxBody({ checkIn: inDays(10), checkOut: inDays(9) }),
      "checkOut must be after checkIn",
    ],
    ["a past check-in", tgxBody({ checkIn: "2020-01-01", checkOut: "2020-01-02" }), "checkIn must not be in the past"],
    [
      "a room of children only",
      tgxBody({ occupancies: [{ paxes: [{ age: 9 }] }] }),
      "Each occupancy needs at least one adult (age 18 or over)",
    ],
  ])("%s: the core search's own 400", async (_name, body, message) => {
    const res = await post("/api/search/tgx", body);
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(message);
  });

  it("malformed JSON is 400, and the API key is judged first (401)", async () => {
    const malformed = await post("/api/search/tgx", undefined, {
      raw: '{"criteria":',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toBe("Malformed JSON in request body");
    const missing = await post("/api/search/tgx", tgxBody(), { apiKey: null });
    expect(missing.status).toBe(401);
    expect(missing.json.message).toBe("API key is required");
    const wrong = await post("/api/search/tgx", tgxBody(), { apiKey: "nope" });
    expect(wrong.json.message).toBe("Invalid API key");
  });

  it("no access code: /api/search answers 400 No connection; /api/search/tgx runs on every tgx connection, as Hotel-X does (issue 40)", async () => {
    const tgx = await post("/api/search/tgx", tgxBody({}, { code: null }));
    const core = await post(
      "/api/search",
      searchBody(
        { destinations: { accommodations: [{ code: "US000001" }] } },
        { settings: { access: { code: null } } },
      ),
    );
    expect([core.status, core.json.message]).toEqual([400, "No connection"]);
    expect(tgx.status).toBe(200);
    // The demo partner's only tgx connection is 1002, whose upstream does not sell US000001.
    expect(tgx.json.data.hotelX.search.options.every((o: any) => o.accessCode === "1002")).toBe(true);
  });

  it.each([
    ["a code that is not a number", "abc", 400, "Invalid connection code"],
    ["an unknown code", 999999, 401, "Connection not found"],
    ["another partner's code", 2001, 401, "Connection access denied"],
  ])("settings.access.code, %s: %s %s, as /api/search answers", async (_name, code, status, message) => {
    const tgx = await post("/api/search/tgx", tgxBody({}, { code }));
    const core = await post(
      "/api/search",
      searchBody({ destinations: { accommodations: [{ code: "US000001" }] } }, { settings: { access: { code } } }),
    );
    expect([tgx.status, tgx.json.message]).toEqual([status, message]);
    expect([core.status, core.json.message]).toEqual([status, message]);
    expect(tgx.json.data).toBeUndefined();
  });

  it("another partner's key with my connection code gets no data", async () => {
    const res = await post("/api/search/tgx", tgxBody(), { apiKey: OTHER_KEY });
    expect(res.status).toBe(401);
    expect(res.json.message).toBe("Connection access denied");
    expect(res.json.data).toBeUndefined();
  });
});

describe("POST /api/search/tgx: the Hotel-X response", () => {
  let search: any;
  beforeAll(async () => {
    const res = await searchTgx(
      tgxBody({
        hotels: HOTELS,
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }, { paxes: [{ age: 40 }, { age: 8 }] }],
      }),
    );
    expect(res.status).toBe(200);
    search = res.search;
  });

  it("has the HotelSearch shape and every option the HotelOptionSearch field names and enum values", async () => {
    const res = await post("/api/search/tgx", tgxBody());
    expect(keys(res.json)).toEqual(["data"]);
    expect(keys(res.json.data)).toEqual(["hotelX"]);
    expect(keys(res.json.data.hotelX)).toEqual(["search"]);
    expect(keys(search)).toEqual(EMITTED.search);
    for (const key of keys(search)) expect(HOTEL_X.HotelSearch).toContain(key);
    expect(search.context).toBe("EDGESTAY");
    expect(search.errors).toEqual([]);
    expect(search.options.length).toBeGreaterThan(HOTELS.length);

    const checkPrice = (price: any) => {
      expect(keys(price)).toEqual(EMITTED.price);
      for (const key of keys(price)) expect(HOTEL_X.Price).toContain(key);
      expect(keys(price.exchange)).toEqual([...HOTEL_X.Exchange].sort());
      expect(price.exchange).toEqual({ currency: price.currency, rate: 1 });
      expect(price.currency).toBe("USD");
      expect(price.binding).toBe(false);
      expect(price.net).toBeGreaterThan(0);
    };
    for (const option of search.options) {
      expect(keys(option)).toEqual(EMITTED.option);
      for (const key of keys(option)) expect(HOTEL_X.HotelOptionSearch).toContain(key);
      expect(HOTEL_X.PaymentType).toContain(option.paymentType);
      expect(["MERCHANT", "DIRECT"]).toContain(option.paymentType);
      expect(HOTEL_X.StatusType).toContain(option.status);
      expect(option.status).toBe("OK");
      expect(option.accessCode).toBe(String(DIRECT));
      // Edgestay is the supplier: its codes are the supplier's; the markets are those asked.
      expect(option.supplierCode).toBe("EDGESTAY");
      expect(option.markets).toEqual(["US"]);
      expect(HOTELS).toContain(option.hotelCode);
      expect(option.hotelCodeSupplier).toBe(option.hotelCode);
      expect(option.hotelName).toEqual(expect.any(String));
      expect(option.boardCode).toMatch(/^[A-Z]{2}$/);
      expect(option.boardCodeSupplier).toBe(option.boardCode);
      for (const rule of option.rateRules) expect(HOTEL_X.RateRulesType).toContain(rule);

      expect(option.occupancies).toEqual([
        { id: 1, paxes: [{ age: 30 }, { age: 30 }] },
        { id: 2, paxes: [{ age: 40 }, { age: 8 }] },
      ]);
      for (const occupancy of option.occupancies) {
        expect(keys(occupancy)).toEqual([...HOTEL_X.Occupancy].sort());
        for (const pax of occupancy.paxes) expect(keys(pax)).toEqual(HOTEL_X.Pax);
      }
      expect(option.rooms.map((r: any) => r.occupancyRefId)).toEqual([1, 2]);
      for (const room of option.rooms) {
        expect(keys(room)).toEqual(EMITTED.room);
        for (const key of keys(room)) expect(HOTEL_X.Room).toContain(key);
        expect(room.supplierCode).toBe(room.code);
        expect(room.legacyRoomId).toBe(`${room.occupancyRefId}|${room.code}`);
        expect(keys(room.roomPrice)).toEqual(["breakdown", "price"]);
        // One entry per night, from its date to the next, summing to the room's price.
        expect(room.roomPrice.breakdown.map((b: any) => b.start)).toEqual([inDays(30), inDays(31)]);
        expect(room.roomPrice.breakdown.map((b: any) => b.end)).toEqual([inDays(31), inDays(32)]);
        expect(
          room.roomPrice.breakdown.reduce((sum: number, b: any) => sum + Math.round(b.price.net * 100), 0) / 100,
        ).toBeCloseTo(room.roomPrice.price.net, 2);
        expect(room.ratePlans).toEqual([
          expect.objectContaining({ code: expect.stringMatching(/^[A-Z]+-/), start: inDays(30), end: inDays(32) }),
        ]);
        for (const key of keys(room.roomPrice)) expect(HOTEL_X.RoomPrice).toContain(key);
        checkPrice(room.roomPrice.price);
      }
      checkPrice(option.price);
      // The option's price is its rooms' prices together.
      const roomsTotal = option.rooms.reduce((sum: number, r: any) => sum + r.roomPrice.price.net, 0);
      expect(option.price.net).toBeCloseTo(roomsTotal, 1);

      expect(keys(option.cancelPolicy)).toEqual(["cancelPenalties", "refundable"]);
      for (const key of keys(option.cancelPolicy)) expect(HOTEL_X.CancelPolicy).toContain(key);
      expect(option.cancelPolicy.refundable).toBe(!option.rateRules.includes("NON_REFUNDABLE"));
      for (const penalty of option.cancelPolicy.cancelPenalties) {
        expect(keys(penalty)).toEqual(EMITTED.penalty);
        for (const key of keys(penalty)) expect(HOTEL_X.CancelPenalty).toContain(key);
        expect(HOTEL_X.CancelPenaltyType).toContain(penalty.penaltyType);
        expect(new Date(penalty.deadline).toISOString()).toBe(penalty.deadline);
        // Edgestay computed it (the plan's free days, in the hotel's zone).
        expect(penalty.isCalculatedDeadline).toBe(true);
        // Whole hours to check-in day 00:00 UTC, rounded up: the fee never starts later than said.
        const toCheckIn = Date.parse(`${inDays(30)}T00:00:00Z`) - Date.parse(penalty.deadline);
        expect(penalty.hoursBefore).toBe(Math.max(0, Math.ceil(toCheckIn / 3_600_000)));
        expect(Number.isInteger(penalty.hoursBefore)).toBe(true);
        expect(penalty.value).toBeGreaterThan(0);
      }
    }
  });

  it("issue 27: price.net and price.gross are what is paid (never null); surcharges are the included charges (INCLUDE) and what is due at the property (EXCLUDE); paid at the hotel is DIRECT, the whole stay its price", async () => {
    const core = await post(
      "/api/search",
      searchBody(
        {
          destinations: { accommodations: HOTELS.map((code) => ({ code })) },
          occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }, { paxes: [{ age: 40 }, { age: 8 }] }],
        },
        { settings: { access: { code: DIRECT }, includePriceBreakdown: true } },
      ),
    );
    // Ids carry their issue time (this search runs after the Hotel-X one): the signed product part names the option.
    const product = (id: string) => id.split("~").slice(1).join("~");
    const byProduct = new Map<string, any>(
      core.json.data.accommodations.flatMap((h: any) => h.options.map((o: any) => [product(o.id), o] as const)),
    );
    let due = 0;
    let direct = 0;
    for (const option of search.options) {
      const { rate, paymentType } = byProduct.get(product(option.id))!;
      const price = (amount: number, currency: string) => ({
        currency,
        binding: false,
        net: amount,
        gross: amount,
        exchange: { currency, rate: 1 },
      });
      for (const room of option.rooms) expect(room.roomPrice.price.gross).toBe(room.roomPrice.price.net);
      if (paymentType === "PayAtProperty") {
        // Paid at the hotel: nothing is charged at booking; the price is the whole stay, its taxes and fees inside it.
        direct++;
        expect([option.paymentType, rate.chargeTotal]).toEqual(["DIRECT", 0]);
        expect([option.price.net, option.price.gross]).toEqual([rate.totalStayPrice, rate.totalStayPrice]);
        expect(option.surcharges).toEqual(
          rate.charges
            .filter((c: any) => c.type !== "ROOM")
            .map((c: any) => ({
              code: c.code,
              chargeType: "INCLUDE",
              mandatory: true,
              description: c.description,
              price: price(c.amount, rate.currency),
            })),
        );
        continue;
      }
      expect(option.paymentType).toBe("MERCHANT");
      expect([option.price.net, option.price.gross]).toEqual([rate.chargeTotal, rate.chargeTotal]);
      expect(option.surcharges).toEqual([
        ...rate.charges
          .filter((c: any) => c.included)
          .map((c: any) => ({
            code: c.code,
            chargeType: "INCLUDE",
            mandatory: true,
            description: c.description,
            price: price(c.amount, rate.currency),
          })),
        ...rate.dueAtProperty.charges.map((c: any) => ({
          code: c.code,
          chargeType: "EXCLUDE",
          mandatory: true,
          description: c.description,
          price: price(c.amount, c.currency),
        })),
      ]);
      expect(option.surcharges.some((s: any) => s.chargeType === "INCLUDE")).toBe(true);
      due += option.surcharges.filter((s: any) => s.chargeType === "EXCLUDE").length;
    }
    // Among twelve hotels some are resorts (a resort fee is due at the property), some sell a rate paid at the hotel.
    expect(due).toBeGreaterThan(0);
    expect(direct).toBeGreaterThan(0);
  });

  it("answers the options /api/search answers for the same criteria: same ids, prices and terms", async () => {
    const core = await post(
      "/api/search",
      searchBody({
        destinations: { accommodations: HOTELS.slice(0, 6).map((code) => ({ code })) },
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
      }),
    );
    const tgx = await searchTgx(tgxBody());
    const coreOptions = core.json.data.accommodations.flatMap((h: any) =>
      h.options.map((o: any) => ({ hotel: h.accommodationCode, o })),
    );
    expect(tgx.search.options).toHaveLength(coreOptions.length);
    tgx.search.options.forEach((option: any, i: number) => {
      const { hotel, o } = coreOptions[i];
      expect(option.hotelCode).toBe(hotel);
      // Ids carry their issue time; the signed product part is what identifies the option.
      expect(option.id.split("~").slice(1)).toEqual(o.id.split("~").slice(1));
      expect(option.price.net).toBe(o.paymentType === "PayAtProperty" ? o.rate.totalStayPrice : o.rate.chargeTotal);
      expect(option.boardCode).toBe(o.boardCode);
      expect(option.rooms.map((r: any) => r.code)).toEqual(o.rooms.map((r: any) => r.code));
      expect(option.cancelPolicy.refundable).toBe(o.isRefundable);
    });
  });
});

describe("POST /api/search/tgx: every answer is a valid HotelSearch of the project's Hotel-X SDL (issue 29)", () => {
  const TWO_ROOMS = [{ paxes: [{ age: 30 }, { age: 30 }] }, { paxes: [{ age: 40 }, { age: 8 }] }];

  it("the check bites: a non-null field left out, a misspelt field, a value the schema's enum lacks", async () => {
    const { search } = await searchTgx(tgxBody({ hotels: ["US000001"] }));
    await valid(search);
    const option = search.options[0];
    const { markets: _markets, ...withoutMarkets } = option;
    const broken = [
      withoutMarkets,
      { ...option, rooms: option.rooms.map(({ legacyRoomId: _id, ...room }: any) => room) },
      {
        ...option,
        cancelPolicy: {
          ...option.cancelPolicy,
          cancelPenalties: option.cancelPolicy.cancelPenalties.map(({ hoursBefore: _h, ...p }: any) => p),
        },
      },
      { ...option, hotelCodeSuplier: option.hotelCode },
      { ...option, paymentType: "MerchantPay" },
      { ...option, price: { ...option.price, currency: "usd" } },
    ];
    for (const wrong of broken)
      expect(await hotelxResultProblems("HotelSearch", { ...search, options: [wrong] })).not.toEqual([]);
  });

  it("embedded inventory: two rooms, audit data, warnings, per-hotel problems and no options at all", async () => {
    for (const body of [
      tgxBody({ hotels: HOTELS, occupancies: TWO_ROOMS }, { settings: { auditTransactions: true } }),
      tgxBody({ hotels: ["US000001", "ZZ999999"], language: "es", currency: "CHF" }),
      tgxBody({ hotels: ["ZZ999998"] }),
      { ...tgxBody(), filterSearch: { status: { includes: ["RQ"] } } },
    ]) {
      const res = await searchTgx(body);
      expect(res.status).toBe(200);
      await valid(res.search);
    }
  });

  it("connection 1002 through the sandbox upstream: surcharges, paid at the hotel, penalties the sandbox states in hours", async () => {
    await seedSandboxHotels(env.DB);
    await seedDemoUpstream(env.DB, { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, url: sandboxUrl(), hotels: false });
    try {
      const res = await searchTgx(
        tgxBody(
          { hotels: ["HX001", "HXFEES", "HXDIRECT", "HXPACKAGE"], currency: "EUR", occupancies: TWO_ROOMS },
          { code: TGX, settings: { auditTransactions: true } },
        ),
      );
      expect(res.status).toBe(200);
      expect(res.search.auditData.transactions).toHaveLength(1);
      expect(new Set(res.search.options.map((o: any) => o.hotelCode))).toEqual(
        new Set(["HX001", "HXFEES", "HXDIRECT", "HXPACKAGE"]),
      );
      await valid(res.search);
      // The sandbox states HXFEES' penalties by hours before check-in only (no deadline): IMPORT 50 EUR
      // from 336 h, NIGHTS 1 from 168 h, PERCENT 100 from 48 h. Their hours are its own; the deadlines ours.
      const fees = res.search.options.find((o: any) => o.hotelCode === "HXFEES");
      expect(
        fees.cancelPolicy.cancelPenalties.map((p: any) => [p.hoursBefore, p.isCalculatedDeadline, p.penaltyType]),
      ).toEqual([
        [336, true, "IMPORT"],
        [168, true, "IMPORT"],
        [48, true, "PERCENT"],
      ]);
    } finally {
      await env.DB.batch(embeddedOnly1002());
    }
  });

  it("a deadline an upstream stated is not calculated (isCalculatedDeadline false), and its hoursBefore are its own", async () => {
    const inventory = inventorySupplier(database(env.DB));
    const deadline = "2030-01-01T10:00:00.000Z";
    // A supplier that states the first penalty of each offer with a deadline and 30 hours of its own.
    const stating: Supplier = {
      ...inventory,
      // Its own search only: not the inventory's one-statement way in, which would bypass it.
      searchSelection: undefined,
      search: async (...args) => {
        const answer = await inventory.search(...args);
        const stated = (o: Offer): Offer => ({
          ...o,
          cancelPolicy: {
            ...o.cancelPolicy,
            cancelPenalties: o.cancelPolicy.cancelPenalties.map((p, i) =>
              i === 0
                ? {
                    ...p,
                    deadline,
                    supplierPenalty: {
                      penaltyType: "IMPORT",
                      value: p.value,
                      currency: p.currency,
                      hoursBefore: 30,
                      deadline,
                    },
                  }
                : p,
            ),
          },
        });
        return { ...answer, offers: new Map([...answer.offers].map(([code, list]) => [code, list.map(stated)])) };
      },
    };
    const search = await searchWith(depsWith(stating), tgxBody({ hotels: HOTELS.slice(0, 2) }));
    expect(search.options.length).toBeGreaterThan(0);
    await valid(search);
    for (const option of search.options) {
      const [first, ...rest] = option.cancelPolicy!.cancelPenalties;
      expect(first).toMatchObject({ deadline, isCalculatedDeadline: false, hoursBefore: 30 });
      for (const p of rest) expect(p.isCalculatedDeadline).toBe(true);
    }
  });
});

describe("POST /api/search/tgx: an option is quotable and bookable", () => {
  const quoteBodyOf = (option: any, code: number, occupancies = [{ paxes: [{ age: 30 }, { age: 30 }] }]) => ({
    quoteCriteria: {
      optionId: option.id,
      accommodation: { code: option.hotelCode },
      occupancies,
      checkIn: inDays(30),
      checkOut: inDays(32),
    },
    settings: { access: { code } },
  });

  it.each([
    ["direct", DIRECT],
    ["tgx", TGX],
  ])("on a %s connection: search, quote at /api/quote, book at /api/book", async (name, code) => {
    const { search } = await searchTgx(tgxBody({ hotels: [name === "direct" ? "US000020" : "US000021"] }, { code }));
    const option = search.options.find((o: any) => o.cancelPolicy.refundable);
    expect(option.accessCode).toBe(String(code));
    const quote = await post("/api/quote", quoteBodyOf(option, code));
    expect(quote.status).toBe(200);
    expect(quote.json.data.rate.chargeTotal).toBe(option.price.net);
    expect(quote.json.data.boardCode).toBe(option.boardCode);
    const booked = await post("/api/book", bookBody(quote.json.data, `tgx-${name}`, {}, code));
    expect(booked.status).toBe(200);
    expect(booked.json.data).toMatchObject({ status: "success", chargeTotal: option.price.net });
  });

  it("a metasearch connection searches (both shapes) and quotes, but booking is 403 booking_not_allowed", async () => {
    const tgx = await searchTgx(tgxBody({ hotels: ["US000022"] }, { code: METASEARCH }));
    expect(tgx.status).toBe(200);
    expect(tgx.search.options.length).toBeGreaterThan(0);
    const core = await post(
      "/api/search",
      searchBody(
        { destinations: { accommodations: [{ code: "US000022" }] } },
        { settings: { access: { code: METASEARCH } } },
      ),
    );
    expect(core.status).toBe(200);
    expect(core.json.data.accommodations[0].options.length).toBeGreaterThan(0);

    const quote = await post("/api/quote", quoteBodyOf(tgx.search.options[0], METASEARCH));
    expect(quote.status).toBe(200);
    const booked = await post("/api/book", bookBody(quote.json.data, "tgx-meta", {}, METASEARCH));
    expect(booked.status).toBe(403);
    expect(booked.json).toMatchObject({
      message: "Booking is not available on metasearch connections",
      code: "booking_not_allowed",
    });
    expect(
      await env.DB.prepare("select count(*) n from bookings where partner_reference = 'tgx-meta'").first("n"),
    ).toBe(0);
    expect(
      await env.DB.prepare(
        "select coalesce(sum(sold), 0) s from room_nights where accommodation_code = 'US000022'",
      ).first("s"),
    ).toBe(0);
  });

  it("the metasearch quote is bookable on the partner's direct connection", async () => {
    const { search } = await searchTgx(tgxBody({ hotels: ["US000023"] }, { code: METASEARCH }));
    const quote = await post("/api/quote", quoteBodyOf(search.options[0], METASEARCH));
    const booked = await post("/api/book", bookBody(quote.json.data, "tgx-meta-direct", {}, DIRECT));
    expect(booked.status).toBe(200);
  });

  it("another partner cannot quote my tgx option", async () => {
    const { search } = await searchTgx(tgxBody({ hotels: ["US000024"] }));
    const res = await post("/api/quote", quoteBodyOf(search.options[0], 2001), { apiKey: OTHER_KEY });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Option reference invalid");
  });
});

describe("POST /api/search/tgx: filters and business rules", () => {
  const rulesOf = (search: any) => search.options.map((o: any) => o.rateRules as string[]);

  it("rateRules: excludes NON_REFUNDABLE, includes NORMAL, includes NON_REFUNDABLE only, excludes NORMAL", async () => {
    const all = await searchTgx(tgxBody({ hotels: HOTELS }));
    const nrf = rulesOf(all.search).filter((r: string[]) => r.includes("NON_REFUNDABLE")).length;
    const plain = rulesOf(all.search).filter((r: string[]) => r.length === 0).length;
    expect(nrf).toBeGreaterThan(0);
    expect(plain).toBeGreaterThan(0);

    const noNrf = await searchTgx(
      tgxBody({ hotels: HOTELS }, { filter: { rateRules: { excludes: ["NON_REFUNDABLE"] } } }),
    );
    expect(noNrf.search.options).toHaveLength(plain);
    expect(rulesOf(noNrf.search).every((r: string[]) => r.length === 0)).toBe(true);

    const normal = await searchTgx(tgxBody({ hotels: HOTELS }, { filter: { rateRules: { includes: ["NORMAL"] } } }));
    expect(normal.search.options).toHaveLength(plain);

    // Hotel-X's includes keeps only the options carrying a listed rule (issue 40); NORMAL adds those without.
    const withNrf = await searchTgx(
      tgxBody({ hotels: HOTELS }, { filter: { rateRules: { includes: ["NON_REFUNDABLE"] } } }),
    );
    expect(withNrf.search.options).toHaveLength(nrf);
    expect(rulesOf(withNrf.search).every((r: string[]) => r.includes("NON_REFUNDABLE"))).toBe(true);
    const nrfOrNormal = await searchTgx(
      tgxBody({ hotels: HOTELS }, { filter: { rateRules: { includes: ["NON_REFUNDABLE", "NORMAL"] } } }),
    );
    expect(nrfOrNormal.search.options).toHaveLength(plain + nrf);

    const onlyRuled = await searchTgx(tgxBody({ hotels: HOTELS }, { filter: { rateRules: { excludes: ["NORMAL"] } } }));
    expect(onlyRuled.search.options).toHaveLength(nrf);
    expect(rulesOf(onlyRuled.search).every((r: string[]) => r.includes("NON_REFUNDABLE"))).toBe(true);
  });

  it("access: includes must name this connection; excluding it leaves nothing to search (errors NO_ACCESS)", async () => {
    const included = await searchTgx(tgxBody({}, { filter: { access: { includes: [String(DIRECT), "77"] } } }));
    expect(included.search.options.length).toBeGreaterThan(0);
    const numeric = await searchTgx(tgxBody({}, { filter: { access: { includes: [DIRECT] } } }));
    expect(numeric.search.options.length).toBe(included.search.options.length);
    for (const filter of [{ access: { includes: ["77"] } }, { access: { excludes: [String(DIRECT)] } }]) {
      const res = await searchTgx(tgxBody({}, { filter }));
      expect(res.status).toBe(200);
      expect(res.search.options).toEqual([]);
      expect(res.search.errors).toEqual([
        {
          code: "NO_ACCESS",
          type: "ACCESS",
          description: expect.stringContaining("filterSearch.access leaves no access"),
        },
      ]);
    }
  });

  it("excluding plugins is accepted and changes nothing (none run); including one is refused above", async () => {
    const plain = await searchTgx(tgxBody());
    const plugged = await searchTgx(
      tgxBody({}, { filter: { plugin: { excludes: [{ step: "RESPONSE", type: "MARKUP", name: "x" }] } } }),
    );
    expect(plugged.status).toBe(200);
    expect(plugged.search.options.map((o: any) => o.price.net)).toEqual(
      plain.search.options.map((o: any) => o.price.net),
    );
  });

  it("businessRules: optionsQuota counts per search, cheapest first; ROOM_TYPE keeps one option per hotel and room", async () => {
    const all = (await searchTgx(tgxBody({ hotels: HOTELS }))).search.options;
    const cheapest = [...all]
      .map((o: any) => o.price.net)
      .sort((a, b) => a - b)
      .slice(0, 3);
    const quota = await searchTgx(
      tgxBody(
        { hotels: HOTELS },
        { settings: { businessRules: { optionsQuota: 3, businessRulesType: "CHEAPER_AMOUNT" } } },
      ),
    );
    expect(quota.search.options.map((o: any) => o.price.net)).toEqual(cheapest);

    const byRoom = (
      await searchTgx(tgxBody({ hotels: HOTELS }, { settings: { businessRules: { businessRulesType: "ROOM_TYPE" } } }))
    ).search.options;
    const pairs = byRoom.map((o: any) => `${o.hotelCode}|${o.rooms[0].code}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(new Set(pairs)).toEqual(new Set(all.map((o: any) => `${o.hotelCode}|${o.rooms[0].code}`)));
    expect(byRoom.length).toBeLessThan(all.length);
  });
});

describe("POST /api/search/tgx: restricted rates (issue 27)", () => {
  const rulesOf = (search: any) => search.options.map((o: any) => o.rateRules as string[]);
  const restricted = (rules: string[]) => rules.some((r) => r !== "NON_REFUNDABLE");

  it("accepts every RateRulesType of the public schema in filterSearch.rateRules, the five once refused included", async () => {
    const plain = await searchTgx(tgxBody({ hotels: HOTELS }));
    expect(plain.status).toBe(200);
    const once = ["MOBILE", "WARRANTY", "ESSENTIAL_WORKER", "NEGOTIATED", "CUSTOM"];
    // Excluding rules no public option carries changes nothing.
    const excluded = await searchTgx({
      ...tgxBody({ hotels: HOTELS }),
      filterSearch: { rateRules: { excludes: once } },
    });
    expect(excluded.status).toBe(200);
    expect(excluded.search.options.map((o: any) => o.id.split("~").slice(1).join("~"))).toEqual(
      plain.search.options.map((o: any) => o.id.split("~").slice(1).join("~")),
    );
    // Including them is accepted too. Hotel-X's includes keeps only options carrying a listed rule
    // (issue 40): none carries these five here, so nothing is left; every type (NORMAL with them) keeps all.
    const onlyOnce = await searchTgx({
      ...tgxBody({ hotels: HOTELS }),
      filterSearch: { rateRules: { includes: once } },
    });
    expect(onlyOnce.status).toBe(200);
    expect(onlyOnce.search.options).toEqual([]);
    expect(onlyOnce.search.errors.every((e: any) => e.code === "FILTERED_OUT")).toBe(true);
    const every = await searchTgx({
      ...tgxBody({ hotels: HOTELS }),
      filterSearch: { rateRules: { includes: HOTEL_X.RateRulesType } },
    });
    expect(every.search.errors).toEqual([]);
    // Listing a rule a traveller qualifies for also shows its rates (issue 27): at least every plain option.
    expect(every.search.options.length).toBeGreaterThanOrEqual(plain.search.options.length);
  });

  it("PACKAGE rates only with distributionContext.supportedVisibilityTypes PACKAGE, MOBILE only on the APP channel", async () => {
    const plain = await searchTgx(tgxBody({ hotels: HOTELS }));
    expect(rulesOf(plain.search).some(restricted)).toBe(false);
    const asked = await searchTgx(
      tgxBody({ hotels: HOTELS }, { filter: { rateRules: { includes: ["PACKAGE", "MOBILE", "NORMAL"] } } }),
    );
    expect(rulesOf(asked.search).some(restricted)).toBe(false);
    const packaged = await searchTgx({
      ...tgxBody({ hotels: HOTELS }),
      distributionContext: { supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] },
    });
    const packages = packaged.search.options.filter((o: any) => o.rateRules.includes("PACKAGE"));
    expect(packages.map((o: any) => o.hotelCode)).toEqual([
      ...new Set(plain.search.options.map((o: any) => o.hotelCode).sort()),
    ]);
    expect(packages.every((o: any) => o.rooms[0].code === "STD" && o.id.includes("~STD-RO-PKG~"))).toBe(true);
    expect(packaged.search.options.length).toBe(plain.search.options.length + packages.length);
    const app = await searchTgx({ ...tgxBody({ hotels: HOTELS }), distributionContext: { salesChannel: "APP" } });
    const mobile = rulesOf(app.search).filter(restricted);
    expect(mobile.length).toBeGreaterThan(0);
    expect(mobile.every((r: string[]) => r.join() === "NON_REFUNDABLE,MOBILE")).toBe(true);
  });

  it("OLDER65 with filterSearch.rateRules.includes and a guest of 65; the option it gives quotes", async () => {
    const seniors = [{ paxes: [{ age: 67 }, { age: 66 }] }];
    const asked = await searchTgx({
      ...tgxBody({ hotels: HOTELS, occupancies: seniors }),
      filterSearch: { rateRules: { includes: ["OLDER65"] } },
    });
    const senior = asked.search.options.filter((o: any) => o.rateRules.includes("OLDER65"));
    expect(senior.length).toBeGreaterThan(0);
    const young = await searchTgx({
      ...tgxBody({ hotels: HOTELS }),
      filterSearch: { rateRules: { includes: ["OLDER65"] } },
    });
    expect(rulesOf(young.search).some(restricted)).toBe(false);
    const option = senior[0];
    const quote = await post("/api/quote", {
      quoteCriteria: {
        optionId: option.id,
        accommodation: { code: option.hotelCode },
        occupancies: seniors,
        checkIn: inDays(30),
        checkOut: inDays(32),
      },
      settings: { access: { code: DIRECT } },
    });
    expect(quote.status).toBe(200);
    expect(quote.json.data.rateRules).toEqual(["OLDER65"]);
  });
});

describe("POST /api/search/tgx: issue 25, every Hotel-X field is applied or refused", () => {
  const idsOf = (search: any) => search.options.map((o: any) => o.id.split("~").slice(1).join("~"));

  it("filterSearch, the schema's argument name, is applied as its deprecated name filter is", async () => {
    const all = await searchTgx(tgxBody({ hotels: HOTELS }));
    const rule = { rateRules: { excludes: ["NON_REFUNDABLE"] } };
    const viaFilterSearch = await searchTgx({ ...tgxBody({ hotels: HOTELS }), filterSearch: rule });
    const viaFilter = await searchTgx(tgxBody({ hotels: HOTELS }, { filter: rule }));
    expect(viaFilterSearch.status).toBe(200);
    expect(viaFilterSearch.search.options.length).toBeLessThan(all.search.options.length);
    expect(idsOf(viaFilterSearch.search)).toEqual(idsOf(viaFilter.search));
  });

  it("filterSearch.status: every embedded option is OK, so RQ alone or excluding OK leaves none", async () => {
    const all = await searchTgx(tgxBody());
    const ok = await searchTgx({ ...tgxBody(), filterSearch: { status: { includes: ["OK"] } } });
    expect(idsOf(ok.search)).toEqual(idsOf(all.search));
    for (const status of [{ includes: ["RQ"] }, { excludes: ["OK"] }]) {
      for (const key of ["filterSearch", "filter"]) {
        const res = await searchTgx({ ...tgxBody(), [key]: { status } });
        expect(res.status).toBe(200);
        expect(res.search.options).toEqual([]);
        // Each hotel had options; the status filter removed them all.
        expect(res.search.errors.map((e: any) => e.description.split(":")[0])).toEqual(HOTELS.slice(0, 6));
        expect(new Set(res.search.errors.map((e: any) => e.code))).toEqual(new Set(["FILTERED_OUT"]));
      }
    }
  });

  it("without a status filter on-request (RQ) options are left out, as Hotel-X does; listing RQ brings them back", async () => {
    const inventory = inventorySupplier(database(env.DB));
    // A supplier whose non-refundable options are on request.
    const onRequest: Supplier = {
      ...inventory,
      // Its own search only: not the inventory's one-statement way in, which would bypass it.
      searchSelection: undefined,
      search: async (...args) => {
        const answer = await inventory.search(...args);
        const offers = [...answer.offers].map(
          ([code, list]) => [code, list.map((o) => (o.isRefundable ? o : { ...o, status: "RQ" as const }))] as const,
        );
        return { ...answer, offers: new Map(offers) };
      },
    };
    const body = tgxBody({ hotels: HOTELS.slice(0, 4) });
    const plain = await searchWith(depsWith(onRequest), body);
    expect(plain.options.length).toBeGreaterThan(0);
    expect(plain.options.every((o) => o.status === "OK")).toBe(true);
    const both = await searchWith(depsWith(onRequest), {
      ...body,
      filterSearch: { status: { includes: ["OK", "RQ"] } },
    });
    const onlyRq = await searchWith(depsWith(onRequest), { ...body, filterSearch: { status: { excludes: ["OK"] } } });
    expect(onlyRq.options.length).toBeGreaterThan(0);
    expect(onlyRq.options.every((o) => o.status === "RQ")).toBe(true);
    expect(both.options).toHaveLength(plain.options.length + onlyRq.options.length);
  });

  it("settings.auditTransactions (or includeProviderTransactions) answers auditData, a remote supplier's exchanges redacted", async () => {
    const plain = await searchTgx(tgxBody());
    expect(plain.search.auditData).toBeUndefined();
    for (const settings of [{ auditTransactions: true }, { includeProviderTransactions: true }]) {
      const audited = await searchTgx(tgxBody({}, { settings }));
      expect(audited.status).toBe(200);
      // The embedded inventory is our own D1: no exchange to show.
      expect(audited.search.auditData).toEqual({
        transactions: [],
        timeStamp: expect.any(String),
        processTime: expect.any(Number),
      });
      expect(idsOf(audited.search)).toEqual(idsOf(plain.search));
    }
    const relayed = await searchWith(
      depsWith(inventorySupplier(database(env.DB)), relaySupplier(env.DB)),
      tgxBody({}, { settings: { auditTransactions: true } }),
    );
    const audit = relayed.auditData!;
    expect(audit.transactions).toHaveLength(1);
    const [transaction] = audit.transactions;
    expect(new Date(transaction!.timeStamp).toISOString()).toBe(transaction!.timeStamp);
    expect(transaction!.request).toContain(REDACTED);
    expect(transaction!.request).not.toContain("relay-secret-key");
    expect(transaction!.request).not.toContain("4242424242424242");
  });

  it("settings.operationTimeout cuts the supplier deadline below settings.timeout", async () => {
    const hanging = depsWith(inventorySupplier(database(env.DB)), relaySupplier(env.DB, "relay", { search: "hang" }));
    const started = Date.now();
    const search = await searchWith(hanging, tgxBody({}, { settings: { timeout: 20_000, operationTimeout: 150 } }));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(search.warnings).toEqual([
      { code: "SUPPLIER_TIMEOUT", type: "SUPPLIER", description: "relay: No answer from relay within 150 ms" },
    ]);
    // The embedded inventory still answers.
    expect(search.options.length).toBeGreaterThan(0);
  });

  it("criteria.currency prices in that currency when the operator has its rate; settings.currency is strict", async () => {
    expect(
      (await call("PUT", "/api/operator/exchange-rates", { base: "USD", rates: { EUR: 0.92 } }, OPERATOR)).status,
    ).toBe(200);
    for (const body of [
      tgxBody({ currency: "EUR" }),
      tgxBody({ currency: undefined }, { settings: { currency: "eur" } }),
    ]) {
      const eur = await searchTgx(body);
      expect(eur.status).toBe(200);
      expect(eur.search.warnings).toEqual([]);
      expect(eur.search.options.length).toBeGreaterThan(0);
      for (const option of eur.search.options)
        expect(option.price).toMatchObject({ currency: "EUR", exchange: { currency: "USD", rate: 0.92 } });
    }
    // Without a rate: Hotel-X's "if supported" keeps the hotel's currency with a warning; ours is a 400.
    const soft = await searchTgx(tgxBody({ currency: "CHF" }));
    expect(soft.search.options.every((o: any) => o.price.currency === "USD")).toBe(true);
    expect(soft.search.warnings.map((w: any) => w.code)).toEqual(["CURRENCY_NOT_AVAILABLE"]);
    const strict = await searchTgx(tgxBody({ currency: undefined }, { settings: { currency: "CHF" } }));
    expect([strict.status, strict.json.message]).toEqual([400, "Unsupported currency"]);
  });

  it("a language other than English is a warning (every text is English); English in any form is not", async () => {
    const spanish = await searchTgx(tgxBody({ language: "es" }));
    expect(spanish.search.options.length).toBeGreaterThan(0);
    expect(spanish.search.warnings).toEqual([
      { code: "LANGUAGE_NOT_AVAILABLE", type: "CONTENT", description: "Texts are in English; es was requested" },
    ]);
    for (const language of ["en", "EN", "en-GB", "en_US"])
      expect((await searchTgx(tgxBody({ language }))).search.warnings).toEqual([]);
  });

  it("markets, reserved settings and values that ask for what happens anyway are accepted and change nothing", async () => {
    const plain = await searchTgx(tgxBody());
    const everything = await searchTgx(
      tgxBody(
        { markets: ["ES", "FR"], market: "DE" },
        {
          settings: {
            context: "edgestay",
            useContext: true,
            client: "client-1",
            connectUser: "user-1",
            group: "group-1",
            clientTokens: ["t1"],
            testMode: false,
            commitRequired: false,
            suppliers: [],
            plugins: null,
            access: { code: DIRECT, user: "u", password: "p", apiKey: "k" },
            supplier: "S",
            platform: "P",
          },
          filter: { plugin: { excludes: [{ step: "RESPONSE", type: "MARKUP", name: "x" }] } },
        },
      ),
    );
    expect([everything.status, everything.search?.warnings], everything.text).toEqual([200, []]);
    expect(idsOf(everything.search)).toEqual(idsOf(plain.search));
  });
});

describe("POST /api/search/tgx: what every published Hotel-X example sends (issue 40 item 3)", () => {
  const plugins = (type: string, name: string) => ({
    plugins: [
      { step: "RESPONSE_OPTION", pluginsType: [{ type, name, parameters: [{ key: "context", value: "TGX" }] }] },
    ],
  });
  const idsOf = (search: any) => search.options.map((o: any) => o.id.split("~").slice(1).join("~"));

  it("testMode, any context and useContext are accepted and change nothing: answers stay in Edgestay's codes", async () => {
    const plain = await searchTgx(tgxBody());
    for (const settings of [
      { testMode: true, context: "HOTELTEST" },
      { testMode: false, context: "TGX", useContext: false },
    ]) {
      const sent = await searchTgx(tgxBody({}, { settings }));
      expect([sent.status, sent.search.context, sent.search.warnings]).toEqual([200, "EDGESTAY", []]);
      expect(idsOf(sent.search)).toEqual(idsOf(plain.search));
    }
  });

  it("a plugin Edgestay does not run is a PLUGIN_NOT_RUN warning, not a refusal: the options are the same", async () => {
    const plain = await searchTgx(tgxBody());
    const mapped = await searchTgx(tgxBody({}, { settings: plugins("ROOM_MAP", "room_map") }));
    expect(mapped.status).toBe(200);
    expect(mapped.search.warnings).toEqual([
      {
        code: "PLUGIN_NOT_RUN",
        type: "PLUGIN",
        description:
          "ROOM_MAP room_map (RESPONSE_OPTION) did not run: only AGGREGATION cheapest_price runs here, and codes are always Edgestay's",
      },
    ]);
    expect(idsOf(mapped.search)).toEqual(idsOf(plain.search));
  });

  it("AGGREGATION cheapest_price keeps the cheapest of options alike in all but price (two suppliers of one hotel)", async () => {
    // The relay sells the embedded inventory again: every option twice, at the same price. Its offers
    // name a hotel code of its own and no room map, so the merged search never collapses them (issue
    // 39: unmapped rooms never collapse); cheapest_price, which compares our codes, keeps one of each.
    const relay = relaySupplier(env.DB);
    const unmapped: Supplier = {
      ...relay,
      async search(...args) {
        const answer = await relay.search(...args);
        const offers = new Map(
          [...answer.offers].map(([code, list]) => [code, list.map((o) => ({ ...o, supplierHotelCode: `R-${code}` }))]),
        );
        return { ...answer, offers };
      },
    };
    const two = depsWith(inventorySupplier(database(env.DB)), unmapped);
    const body = tgxBody({ hotels: HOTELS.slice(0, 2) });
    const both = await searchWith(two, body);
    const aggregated = await searchWith(two, {
      ...body,
      settings: { ...body.settings, ...plugins("AGGREGATION", "cheapest_price") },
    });
    const alike = (o: any) =>
      JSON.stringify([
        o.hotelCode,
        o.boardCode,
        o.rooms.map((r: any) => r.code),
        o.paymentType,
        o.cancelPolicy.refundable,
        o.rateRules,
      ]);
    expect(new Set(both.options.map(alike)).size).toBeLessThan(both.options.length);
    expect(aggregated.options.map(alike)).toEqual([...new Set(both.options.map(alike))]);
    expect(aggregated.warnings).toEqual([]);
    // Each kept option is the cheapest of its kind.
    for (const kept of aggregated.options)
      expect(kept.price.net).toBe(
        Math.min(...both.options.filter((o: any) => alike(o) === alike(kept)).map((o: any) => o.price.net)),
      );
  });
});

describe("POST /api/search/tgx: supplier-level problems are errors in a 200", () => {
  it("unknown hotel codes: one warning per hotel beside the options, one error per hotel when none is known", async () => {
    const mixed = await searchTgx(tgxBody({ hotels: ["US000001", "ZZ999999"] }));
    expect(mixed.status).toBe(200);
    expect(mixed.search.options.length).toBeGreaterThan(0);
    expect(mixed.search.errors).toEqual([]);
    expect(mixed.search.warnings).toEqual([
      { code: "HOTEL_NOT_FOUND", type: "SUPPLIER", description: "ZZ999999: unknown hotel code" },
    ]);

    const none = await searchTgx(tgxBody({ hotels: ["ZZ999998", "ZZ999999", "ZZ999998"] }));
    expect(none.status).toBe(200);
    expect(none.search.options).toEqual([]);
    expect(none.search.errors).toEqual([
      { code: "HOTEL_NOT_FOUND", type: "SUPPLIER", description: "ZZ999998: unknown hotel code" },
      { code: "HOTEL_NOT_FOUND", type: "SUPPLIER", description: "ZZ999999: unknown hotel code" },
    ]);
    for (const error of none.search.errors) expect(keys(error)).toEqual([...HOTEL_X.Error].sort());
  });

  it("issue 29: one error or warning per hotel without options, by what became of it, never one combined entry", async () => {
    // Three hotels offering refundable and non-refundable rates (none of those the other tests change):
    // `soldOut` gets every room stopped on a night of the stay; `filtered` every refundable plan
    // stopped, and the search excludes non-refundable rates; `open` stays as it is.
    const candidates = Array.from({ length: 12 }, (_, i) => `US${String(i + 13).padStart(6, "0")}`);
    const before = await searchTgx(tgxBody({ hotels: candidates }));
    const optionsOf = (code: string): any[] => before.search.options.filter((o: any) => o.hotelCode === code);
    const [soldOut, filtered, open] = candidates.filter((code) => {
      const refundable = new Set(optionsOf(code).map((o) => o.cancelPolicy.refundable));
      return refundable.has(true) && refundable.has(false);
    }) as [string, string, string];
    expect(open).toBeDefined();
    const rooms = new Set(optionsOf(soldOut).map((o) => o.rooms[0].code as string));
    const refundablePlans = new Set(
      optionsOf(filtered)
        .filter((o) => o.cancelPolicy.refundable)
        .map((o) => o.id.split("~")[3] as string),
    );
    await env.DB.batch([
      ...[...rooms].map((room) =>
        env.DB.prepare(
          "insert into room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell) values (?, ?, ?, 5, 0, 1)",
        ).bind(soldOut, room, inDays(31)),
      ),
      ...[...refundablePlans].map((plan) =>
        env.DB.prepare(
          "insert into rate_plan_nights (accommodation_code, rate_plan_code, night, stop_sell) values (?, ?, ?, 1)",
        ).bind(filtered, plan, inDays(31)),
      ),
    ]);
    const body = {
      ...tgxBody({ hotels: [soldOut, "ZZ999997", filtered, open] }),
      filterSearch: { rateRules: { excludes: ["NON_REFUNDABLE"] } },
    };
    const res = await searchTgx(body);
    expect(res.status).toBe(200);
    expect(new Set(res.search.options.map((o: any) => o.hotelCode))).toEqual(new Set([open]));
    expect(res.search.errors).toEqual([]);
    expect(res.search.warnings).toEqual([
      {
        code: "NO_AVAILABILITY",
        type: "SUPPLIER",
        description: `${soldOut}: no options for these dates and occupancies`,
      },
      { code: "HOTEL_NOT_FOUND", type: "SUPPLIER", description: "ZZ999997: unknown hotel code" },
      {
        code: "FILTERED_OUT",
        type: "CLIENT",
        description: `${filtered}: every option was removed by the request's filters, business rules, rate access or currency`,
      },
    ]);
    await valid(res.search);

    // A quota over the whole answer leaves one option: the other hotels' were removed by it.
    const quota = await searchTgx(
      tgxBody({ hotels: HOTELS.slice(0, 3) }, { settings: { businessRules: { optionsQuota: 1 } } }),
    );
    expect(quota.search.options).toHaveLength(1);
    const kept = quota.search.options[0].hotelCode;
    expect(quota.search.warnings).toEqual(
      HOTELS.slice(0, 3)
        .filter((code) => code !== kept)
        .map((code) => ({
          code: "FILTERED_OUT",
          type: "CLIENT",
          description: expect.stringMatching(new RegExp(`^${code}: `)),
        })),
    );

    // A supplier that did not answer: its hotels without options say so, beside the supplier's own warning.
    const failing = await searchWith(
      depsWith(relaySupplier(env.DB, "relay", { search: "error" })),
      tgxBody({ hotels: [open, "ZZ999997"] }),
    );
    expect(failing.options).toEqual([]);
    expect(failing.errors).toEqual([
      { code: "SUPPLIER_ERROR", type: "SUPPLIER", description: `${open}: no options: a supplier failed to answer` },
      { code: "HOTEL_NOT_FOUND", type: "SUPPLIER", description: "ZZ999997: unknown hotel code" },
    ]);
    expect(failing.warnings.map((w) => w.code)).toEqual(["SUPPLIER_ERROR"]);
    await valid(failing);
  });

  it("no availability: no room holds the party, or every room is stopped", async () => {
    const crowd = await searchTgx(
      tgxBody({ hotels: ["US000002"], occupancies: [{ paxes: Array.from({ length: 8 }, () => ({ age: 30 })) }] }),
    );
    expect(crowd.status).toBe(200);
    expect(crowd.search.options).toEqual([]);
    expect(crowd.search.errors).toEqual([
      { code: "NO_AVAILABILITY", type: "SUPPLIER", description: expect.any(String) },
    ]);

    const before = await searchTgx(tgxBody({ hotels: ["US000025"] }));
    const rooms = [...new Set(before.search.options.map((o: any) => o.rooms[0].code as string))];
    for (const room of rooms) {
      await env.DB.prepare(
        "insert into room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell) values ('US000025', ?, ?, 5, 0, 1)",
      )
        .bind(room, inDays(31))
        .run();
    }
    const stopped = await searchTgx(tgxBody({ hotels: ["US000025"] }));
    expect(stopped.search.options).toEqual([]);
    expect(stopped.search.errors.map((e: any) => e.code)).toEqual(["NO_AVAILABILITY"]);
  });

  it("a currency the inventory does not price in is a warning; prices stay in their own currency", async () => {
    const res = await searchTgx(tgxBody({ currency: "XTS" }));
    expect(res.search.options.length).toBeGreaterThan(0);
    expect(res.search.warnings).toEqual([
      { code: "CURRENCY_NOT_AVAILABLE", type: "PRICE", description: expect.stringContaining("XTS") },
    ]);
    for (const option of res.search.options)
      expect(option.price.exchange).toEqual({ currency: option.price.currency, rate: 1 });
  });
});

describe("POST /api/search/tgx: connections and rate limit", () => {
  it("no connection type answers 501: direct, tgx and metasearch search in both shapes", async () => {
    for (const code of [DIRECT, TGX, METASEARCH]) {
      const tgx = await searchTgx(tgxBody({ hotels: ["US000003"] }, { code }));
      expect(tgx.status).toBe(200);
      expect(tgx.search.options.every((o: any) => o.accessCode === String(code))).toBe(true);
      const core = await post(
        "/api/search",
        searchBody({ destinations: { accommodations: [{ code: "US000003" }] } }, { settings: { access: { code } } }),
      );
      expect(core.status).toBe(200);
    }
  });

  it("shares the connection's window with /api/search: parallel calls past rateLimit are 429 with the same headers", async () => {
    const calls = await Promise.all([
      ...Array.from({ length: 4 }, () => post("/api/search/tgx", tgxBody({ hotels: ["US000004"] }, { code: LIMITED }))),
      post(
        "/api/search",
        searchBody(
          { destinations: { accommodations: [{ code: "US000004" }] } },
          { settings: { access: { code: LIMITED } } },
        ),
      ),
    ]);
    const admitted = calls.filter((r) => r.status === 200);
    const refused = calls.filter((r) => r.status === 429);
    expect(admitted).toHaveLength(3);
    expect(refused).toHaveLength(2);
    expect(admitted.map((r) => r.headers.get("X-RateLimit-Remaining")).sort()).toEqual(["0", "1", "2"]);
    for (const r of [...admitted, ...refused]) expect(r.headers.get("X-RateLimit-Limit")).toBe("3");
    for (const r of refused) {
      expect(r.json.message).toBe("Rate limit exceeded");
      expect(Number(r.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
  });
});

describe("/openapi.json", () => {
  it("describes the tgx route's request and response", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    const route = doc.paths["/api/search/tgx"].post;
    expect(route.requestBody.required).toBe(true);
    const ref = (schema: any) => (schema.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema);
    const request = ref(route.requestBody.content["application/json"].schema);
    expect(Object.keys(request.properties).sort()).toEqual([
      "criteria",
      "distributionContext",
      "filter",
      "filterSearch",
      "settings",
    ]);
    expect(Object.keys(request.properties.criteria.properties)).toEqual(
      expect.arrayContaining([
        "checkIn",
        "checkOut",
        "hotels",
        "occupancies",
        "currency",
        "language",
        "nationality",
        "market",
        "markets",
      ]),
    );
    expect(Object.keys(request.properties.settings.properties)).toEqual(
      expect.arrayContaining(["operationTimeout", "auditTransactions", "suppliers", "plugins", "commitRequired"]),
    );
    const response = ref(route.responses["200"].content["application/json"].schema);
    expect(Object.keys(response.properties)).toEqual(["data"]);
    expect(route.responses["200"].headers["X-RateLimit-Limit"]).toBeDefined();
    expect(Object.keys(doc.components.schemas.TgxOption.properties).sort()).toEqual(EMITTED.option);
    expect(doc.components.schemas.TgxOption.properties.paymentType.enum).toEqual(HOTEL_X.PaymentType);
    expect(route.responses["501"]).toBeUndefined();
    expect(doc.paths["/api/quote/tgx"].post.responses["200"]).toBeDefined();
  });
});
