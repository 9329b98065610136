import { env } from "cloudflare:test";
import { describe, expect, it, beforeAll, beforeEach } from "vitest";
import { sandboxAccess, demoUpstreamUrl } from "../../../../test/support/hotelx";
import { getVariableValues } from "graphql/execution/values";
import {
  type GraphQLSchema,
  NoDeprecatedCustomRule,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  specifiedRules,
  validate,
} from "graphql";
import { buildHotelxSchema, HOTELX_CONTENT_SDL, HOTELX_SDL } from "../../../../sandbox/hotelx/src/schema";
import * as documents from "./documents";
import { amountSchema, optionSchema } from "./wire";
import {
  book,
  bookingByClientReference,
  cancel,
  commit,
  hotelList,
  quote,
  search,
  SupplierCallError,
  type BookInput,
  type ProviderTransaction,
} from "./client";
import { GENERATED_HOTELS, generatedHotelCode } from "../../../../sandbox/hotelx/src/inventory";
import { SANDBOX_SUPPLIERS, type SandboxSupplier } from "../../../../sandbox/hotelx/src/suppliers";
import iberbedsBoards from "../../../../sandbox/hotelx/fixtures/iberbeds/board-map.json";
import roomnexusBoards from "../../../../sandbox/hotelx/fixtures/roomnexus/board-map.json";
import albionBoards from "../../../../sandbox/hotelx/fixtures/albion/board-map.json";
import fc from "fast-check";
import { gridCell, gridColumnOf, gridRowOf } from "../geo-grid";
import { haversineKm, near } from "../accommodations";
import { queryPlan } from "../../../../test/support/query-plan";
import { DEMO_UPSTREAM_CONNECTION, sandboxSupplierUrl, sandboxUrl } from "../../../../test/support/accounts";
import { seedDemoUpstream, seedSandboxHotels } from "../../../../test/support/seed";
import { database } from "../../../platform/db/client";
import { suppliersByCodes } from "../suppliers";
import { getUpstream } from "../upstreams";
import { upstreamFetch } from "./upstream-fetch";
import { call, OTHER_KEY, post } from "../../../../test/support/api";
import { quoteBody, searchOne } from "../../../../test/support/booking";
import { inDays } from "../../../../test/support/clock";
import { OPERATOR } from "../../../../test/support/sessions";
import { defaultSupplierTimeoutMs } from "../supplier-deadline";
import { circuitFor } from "../upstream-circuit";

// Every call crosses a real Worker-to-Worker HTTP hop to the sandbox (an auxiliary worker).
const access = sandboxAccess();
const STAY = { checkIn: "2027-03-10", checkOut: "2027-03-12", occupancies: [{ paxes: [{ age: 30 }, { age: 28 }] }] };
const OK_DEADLINE = { deadlineMs: 5_000 };
/** Slow scenarios sleep 2 s; a 200 ms deadline leaves a wide gap either way. */
const SHORT_DEADLINE = { deadlineMs: 200 };
/** The access the sandbox's options are sold through (HotelOptionSearch.accessCode). */
const ACCESS_CODE = "sandbox";
const reference = () => `ES-${crypto.randomUUID().slice(0, 8)}`;
/**
 * A search sent straight to the sandbox for `fields` of its options: what the sandbox answers
 * beyond the fields our SEARCH document asks for (it asks only for what the search reads).
 */
const sandboxOptions = async (path: string, fields: string, criteria: Record<string, unknown>) => {
  const res = await env.HOTELX_SANDBOX.fetch(`https://hotelx-sandbox.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
    body: JSON.stringify({
      query: `query ($c: HotelCriteriaSearchInput!) { hotelX { search(criteria: $c) { options { ${fields} } } } }`,
      variables: { c: criteria },
    }),
  });
  return ((await res.json()) as any).data.hotelX.search.options as Array<Record<string, any>>;
};
/** Each sandbox supplier's truth board map (its codes to Edgestay's). */
const BOARD_MAPS: Record<string, Record<string, string>> = {
  iberbeds: iberbedsBoards,
  roomnexus: roomnexusBoards,
  albion: albionBoards,
};

const firstOption = async (hotel: string) => {
  const found = await search(access, { ...STAY, hotels: [hotel] }, OK_DEADLINE);
  expect(found.options.length).toBeGreaterThan(0);
  return found.options[0]!;
};
/**
 * A healthy option's id as the same option of another hotel: scenario hotels fail every operation,
 * their search too, so an option of theirs is a searched one re-addressed.
 */
const reAddress = (id: string, hotel: string) => {
  const key = JSON.parse(atob(id.replaceAll("-", "+").replaceAll("_", "/")));
  return btoa(JSON.stringify({ ...key, h: hotel }))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");
};
const bookInput = (optionRefId: string, clientReference = reference()): BookInput => ({
  optionRefId,
  clientReference,
  holder: { name: "Ada", surname: "Lovelace" },
  rooms: [
    {
      occupancyRefId: 1,
      paxes: [
        { name: "Ada", surname: "Lovelace", age: 30 },
        { name: "Charles", surname: "Babbage", age: 28 },
      ],
    },
  ],
});
const failure = async (call: Promise<unknown>) => {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SupplierCallError);
  return err as SupplierCallError;
};
/** A quote the upstream answered with its option; a refusal fails the test. */
const quotedOption = async (...args: Parameters<typeof quote>) => {
  const answer = await quote(...args);
  if (answer.outcome !== "quoted") throw new Error(`quote refused: ${JSON.stringify(answer.issues)}`);
  return answer;
};
const timed = async <T>(run: () => Promise<T>) => {
  const started = Date.now();
  const result = await run();
  return { result, ms: Date.now() - started };
};

describe("Hotel-X client against the sandbox", () => {
  it("searches, quotes, books, reads back by client reference and cancels", async () => {
    const found = await search(access, { ...STAY, hotels: ["HX001", "HX002", "NOPE"] }, OK_DEADLINE);
    expect(new Set(found.options.map((o) => o.hotelCode))).toEqual(new Set(["HX001", "HX002"]));
    const option = found.options.find((o) => o.hotelCode === "HX001" && o.rooms[0]!.code === "DBL")!;
    expect(option).toMatchObject({
      status: "OK",
      boardCode: "RO",
      price: { currency: "EUR", net: 240 },
      cancelPolicy: { refundable: true },
    });

    const quoted = await quotedOption(access, option.id, OK_DEADLINE);
    expect(quoted).toMatchObject({ status: "OK", price: { net: 240, currency: "EUR" }, priceChanged: false });

    const clientReference = reference();
    const booked = await book(access, bookInput(quoted.optionRefId, clientReference), OK_DEADLINE);
    expect(booked).toMatchObject({
      outcome: "confirmed",
      status: "OK",
      reference: { client: clientReference },
      price: { net: 240 },
    });

    const read = await bookingByClientReference(
      access,
      { hotelCode: "HX001", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
      OK_DEADLINE,
    );
    expect(read).toMatchObject({ found: true, booking: { status: "OK", reference: { client: clientReference } } });
    expect(
      await bookingByClientReference(
        access,
        { hotelCode: "HX001", currency: "EUR", accessCode: ACCESS_CODE, clientReference: reference() },
        OK_DEADLINE,
      ),
    ).toEqual({ found: false });

    const cancelled = await cancel(
      access,
      { hotelCode: "HX001", accessCode: ACCESS_CODE, clientReference },
      OK_DEADLINE,
    );
    expect(cancelled).toMatchObject({ outcome: "cancelled", status: "CANCELLED" });
    // Cancelling again answers the same cancellation; an unknown booking is refused.
    expect(
      await cancel(access, { hotelCode: "HX001", accessCode: ACCESS_CODE, clientReference }, OK_DEADLINE),
    ).toMatchObject({
      outcome: "cancelled",
    });
    expect(
      await cancel(access, { hotelCode: "HX001", accessCode: ACCESS_CODE, clientReference: reference() }, OK_DEADLINE),
    ).toMatchObject({
      outcome: "refused",
      issues: [{ code: "BOOKING_NOT_FOUND" }],
    });
    expect(
      await bookingByClientReference(
        access,
        { hotelCode: "HX001", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
        OK_DEADLINE,
      ),
    ).toMatchObject({ found: true, booking: { status: "CANCELLED" } });
  });

  it("books once for many parallel books with one client reference", async () => {
    const option = await firstOption("HX003");
    const clientReference = reference();
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, () => book(access, bookInput(option.id, clientReference), OK_DEADLINE)),
    );
    expect(outcomes.filter((o) => o.outcome === "confirmed")).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === "refused" && o.reason === "duplicate_client_reference")).toHaveLength(
      7,
    );
    // A later retry is refused the same way; the upstream still holds exactly the one booking.
    expect(await book(access, bookInput(option.id, clientReference), OK_DEADLINE)).toMatchObject({
      outcome: "refused",
      reason: "duplicate_client_reference",
    });
    const confirmed = outcomes.find((o) => o.outcome === "confirmed")!;
    const read = await bookingByClientReference(
      access,
      { hotelCode: "HX003", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
      OK_DEADLINE,
    );
    expect(read.found && read.booking.reference.supplier).toBe(
      confirmed.outcome === "confirmed" && confirmed.reference.supplier,
    );
  });

  it("price up at quote (HXPRICEUP): the quote says so, a book at the search price is price_changed, at the quote price confirmed", async () => {
    const option = await firstOption("HXPRICEUP");
    const quoted = await quotedOption(access, option.id, OK_DEADLINE);
    expect(quoted.priceChanged).toBe(true);
    expect(quoted.price.net).toBeGreaterThan(option.price.net);
    expect(quoted.searchPrice).toMatchObject({ net: option.price.net });

    const stale = await book(access, bookInput(option.id), OK_DEADLINE);
    expect(stale).toMatchObject({
      outcome: "price_changed",
      price: { net: quoted.price.net },
      quotePrice: { net: option.price.net },
    });
    expect(await book(access, bookInput(quoted.optionRefId), OK_DEADLINE)).toMatchObject({
      outcome: "confirmed",
      price: { net: quoted.price.net },
    });
  });

  it("sold out at book (HXSOLDOUT) and booking refused (HXREFUSE) are refusals, nothing booked", async () => {
    const soldOutRef = reference();
    expect(await book(access, bookInput((await firstOption("HXSOLDOUT")).id, soldOutRef), OK_DEADLINE)).toMatchObject({
      outcome: "refused",
      reason: "sold_out",
      issues: [{ code: "SOLD_OUT" }],
    });
    expect(
      await bookingByClientReference(
        access,
        { hotelCode: "HXSOLDOUT", currency: "EUR", accessCode: ACCESS_CODE, clientReference: soldOutRef },
        OK_DEADLINE,
      ),
    ).toEqual({ found: false });
    expect(await book(access, bookInput((await firstOption("HXREFUSE")).id), OK_DEADLINE)).toMatchObject({
      outcome: "refused",
      reason: "refused",
      issues: [{ code: "BOOKING_REFUSED" }],
    });
  });

  it.each([
    ["HXQUOTESOLDOUT", "SOLD_OUT", "sold_out"],
    ["HXQUOTENOAVAIL", "NO_AVAILABILITY", "sold_out"],
    ["HXQUOTEGONE", "OPTION_NOT_FOUND", "gone"],
    ["HXQUOTEPRICE", "PRICE_CHANGED", "price_changed"],
  ])("a quote refused (%s, error %s) is an answer, refused %s, as at book", async (hotel, code, reason) => {
    expect(await quote(access, (await firstOption(hotel)).id, OK_DEADLINE)).toEqual({
      outcome: "refused",
      reason,
      issues: [{ code, type: "SUPPLIER", description: expect.any(String) }],
    });
  });

  it("a quote of an option the upstream never gave (OPTION_NOT_FOUND) is refused gone; an error code no one knows is supplier_error", async () => {
    expect(await quote(access, "not-an-option", OK_DEADLINE)).toMatchObject({
      outcome: "refused",
      reason: "gone",
      issues: [{ code: "OPTION_NOT_FOUND" }],
    });
    expect(await failure(quote(access, (await firstOption("HXQUOTEERROR")).id, OK_DEADLINE))).toMatchObject({
      code: "supplier_error",
      fault: "answer",
      message: "Hotel-X quote refused: RATE_ENGINE_FAILURE The rate engine failed",
      issues: [{ code: "RATE_ENGINE_FAILURE" }],
    });
  });

  it("committed upstream but the answer never arrives (HXLOST2000): answer_lost within the deadline, and the booking is found by client reference", async () => {
    const option = await firstOption("HXLOST2000");
    const clientReference = reference();
    // The sandbox books on arrival and answers 2 s later: a 1.5 s deadline loses the answer, and leaves a
    // loaded machine time to deliver the request (at 0.2 s it sometimes never arrived, so nothing was booked).
    const result = await book(access, bookInput(option.id, clientReference), { deadlineMs: 1_500 });
    expect(result).toMatchObject({ outcome: "answer_lost", clientReference, cause: "supplier_timeout" });
    const read = await bookingByClientReference(
      access,
      { hotelCode: "HXLOST2000", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
      OK_DEADLINE,
    );
    expect(read).toMatchObject({ found: true, booking: { status: "OK" } });
  });

  it("answers after the deadline (HXSLOW2000): supplier_timeout for every read, (quote and book: see below)", async () => {
    const slow = "HXSLOW2000";
    const searched = await timed(() => failure(search(access, { ...STAY, hotels: ["HX001", slow] }, SHORT_DEADLINE)));
    expect(searched.result.code).toBe("supplier_timeout");
    expect(searched.ms).toBeLessThan(1_500);
    expect(
      (
        await failure(
          cancel(access, { hotelCode: slow, accessCode: ACCESS_CODE, clientReference: "x" }, SHORT_DEADLINE),
        )
      ).code,
    ).toBe("supplier_timeout");
    expect(
      (
        await failure(
          bookingByClientReference(
            access,
            { hotelCode: slow, currency: "EUR", accessCode: ACCESS_CODE, clientReference: "x" },
            SHORT_DEADLINE,
          ),
        )
      ).code,
    ).toBe("supplier_timeout");
  });

  it.each([
    ["HX500", "HTTP 500"],
    ["HXBADJSON", "malformed JSON"],
    ["HXGQLERR", "failed: Supplier connection failed"],
    ["HXBADSHAPE", "unexpected shape"],
  ])("%s is supplier_error on search, quote, cancel and read", async (hotel, message) => {
    const searchErr = await failure(search(access, { ...STAY, hotels: [hotel] }, OK_DEADLINE));
    expect(searchErr.code).toBe("supplier_error");
    expect(searchErr.message).toContain(message);
    const quoteErr = await failure(quote(access, reAddress((await firstOption("HX005")).id, hotel), OK_DEADLINE));
    expect(quoteErr.code).toBe("supplier_error");
    expect(quoteErr.message).toContain(message);
    expect(
      (await failure(cancel(access, { hotelCode: hotel, accessCode: ACCESS_CODE, clientReference: "x" }, OK_DEADLINE)))
        .code,
    ).toBe("supplier_error");
    expect(
      (
        await failure(
          bookingByClientReference(
            access,
            { hotelCode: hotel, currency: "EUR", accessCode: ACCESS_CODE, clientReference: "x" },
            OK_DEADLINE,
          ),
        )
      ).code,
    ).toBe("supplier_error");
  });

  it("refuses a wrong API key as supplier_error, on book too (a 4xx books nothing)", async () => {
    const err = await failure(search({ ...access, apiKey: "wrong" }, { ...STAY, hotels: ["HX001"] }, OK_DEADLINE));
    expect(err).toMatchObject({ code: "supplier_error", message: "Hotel-X search answered HTTP 401", httpStatus: 401 });
    const option = await firstOption("HX001");
    const clientReference = reference();
    expect(
      await failure(book({ ...access, apiKey: "wrong" }, bookInput(option.id, clientReference), OK_DEADLINE)),
    ).toMatchObject({ code: "supplier_error", httpStatus: 401 });
    expect(
      await bookingByClientReference(
        access,
        { hotelCode: "HX001", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
        OK_DEADLINE,
      ),
    ).toEqual({ found: false });
  });

  it("records one provider transaction per call, credentials, card fields and the upstream's URL, client and context redacted", async () => {
    const transactions: ProviderTransaction[] = [];
    const sink = { ...OK_DEADLINE, transactions: (t: ProviderTransaction) => transactions.push(t) };
    const option = (await search(access, { ...STAY, hotels: ["HX004"] }, sink)).options[0]!;
    const card = {
      type: "VI",
      holder: { name: "Ada", surname: "Lovelace" },
      number: "4242424242424242",
      CVC: "737",
      expire: { month: 3, year: 2030 },
    };
    await book(access, { ...bookInput(option.id), paymentCard: card }, sink);
    await failure(
      search(access, { ...STAY, hotels: ["HXSLOW2000"] }, { ...SHORT_DEADLINE, transactions: sink.transactions }),
    );

    expect(transactions.map((t) => [t.operation, t.status])).toEqual([
      ["search", 200],
      ["book", 200],
      ["search", null],
    ]);
    expect(transactions[0]!.request).toMatch(/^POST \[REDACTED\]\n/);
    expect(transactions[0]!.request).toContain("authorization: [REDACTED]");
    expect(JSON.parse(transactions[0]!.request.slice(transactions[0]!.request.indexOf("\n\n") + 2))).toMatchObject({
      variables: {
        criteria: { hotels: ["HX004"] },
        settings: { client: "[REDACTED]", context: "[REDACTED]", timeout: 5_000 },
      },
    });
    expect(JSON.parse(transactions[0]!.response!)).toMatchObject({
      data: { hotelX: { search: { options: expect.any(Array) } } },
    });
    expect(transactions[1]!.request).toContain('"CVC":"[REDACTED]"');
    expect(transactions[1]!.request).toContain('"expire":"[REDACTED]"');
    expect(transactions[2]!.response).toBeNull();
    for (const t of transactions) expect(t.durationMs).toBeGreaterThanOrEqual(0);
    const text = JSON.stringify(transactions);
    expect(text).not.toContain(env.HOTELX_SANDBOX_API_KEY);
    expect(text).not.toContain(new URL(access.url).host);
    expect(text).not.toContain('\\"edgestay\\"');
    expect(text).not.toContain('\\"SANDBOX\\"');
    // Whole values: a random client reference (ES- and 8 hex digits) may hold "737" by chance.
    expect(text).not.toContain(card.number);
    expect(text).not.toContain('\\"737\\"');
  });
});

describe("a redirecting upstream", () => {
  it("a redirect is an answer, never followed: 302 on search is supplier_error; a book answered 307 is not re-posted, nothing booked", async () => {
    const transactions: ProviderTransaction[] = [];
    const redirected = await failure(
      search(access, { ...STAY, hotels: ["HX302"] }, { ...OK_DEADLINE, transactions: (t) => transactions.push(t) }),
    );
    expect(redirected).toMatchObject({
      code: "supplier_error",
      message: "Hotel-X search answered HTTP 302",
      httpStatus: 302,
      fault: "rejected",
    });
    // What was recorded is the redirect itself, not what its target would have answered.
    expect(transactions.map((t) => [t.status, t.response])).toEqual([
      [302, JSON.stringify({ errors: [{ message: "Moved to /redirected" }] })],
    ]);

    // The sandbox's redirect target books what it is sent: a client following the 307 would book there.
    const option = await firstOption("HXBOOK307");
    const clientReference = reference();
    expect(await failure(book(access, bookInput(option.id, clientReference), OK_DEADLINE))).toMatchObject({
      code: "supplier_error",
      httpStatus: 307,
    });
    expect(
      await bookingByClientReference(
        access,
        { hotelCode: "HXBOOK307", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
        OK_DEADLINE,
      ),
    ).toEqual({ found: false });
  });
});

describe("Hotel-X book on failing answers", () => {
  it("a 5xx, malformed JSON or wrong shape after the book was sent is answer_lost (it may have committed); GraphQL errors are supplier_error", async () => {
    const healthy = await firstOption("HX005");
    for (const hotel of ["HX500", "HXBADJSON", "HXBADSHAPE"]) {
      expect(await book(access, bookInput(reAddress(healthy.id, hotel)), OK_DEADLINE), hotel).toMatchObject({
        outcome: "answer_lost",
        cause: "supplier_error",
      });
    }
    expect((await failure(book(access, bookInput(reAddress(healthy.id, "HXGQLERR")), OK_DEADLINE))).code).toBe(
      "supplier_error",
    );
    const slow = await timed(() => book(access, bookInput(reAddress(healthy.id, "HXSLOW2000")), SHORT_DEADLINE));
    expect(slow.result).toMatchObject({ outcome: "answer_lost", cause: "supplier_timeout" });
    expect(slow.ms).toBeLessThan(1_500);
    expect((await failure(quote(access, reAddress(healthy.id, "HXSLOW2000"), SHORT_DEADLINE))).code).toBe(
      "supplier_timeout",
    );
  });
});

describe("sandbox-inventory", () => {
  // The sandbox's generated hotels (HX1000..HX1999), reached over the real hop to the auxiliary worker.
  const access = sandboxAccess();
  const STAY = { checkIn: "2027-03-10", checkOut: "2027-03-12", occupancies: [{ paxes: [{ age: 30 }, { age: 28 }] }] };
  const DEADLINE = { deadlineMs: 5_000 };
  const hundredCodes = Array.from({ length: 100 }, (_, i) => generatedHotelCode(i * 10));

  describe("sandbox generated hotels", () => {
    it("answers a search by 100 generated codes with three rooms each, in EUR", async () => {
      const found = await search(access, { ...STAY, hotels: hundredCodes }, DEADLINE);
      expect(new Set(found.options.map((o) => o.hotelCode))).toEqual(new Set(hundredCodes));
      expect(found.options).toHaveLength(300);
      expect(found.options.every((o) => o.status === "OK" && o.price.currency === "EUR")).toBe(true);
    });

    it("prices each code the same every time, from its number", async () => {
      const net = async (code: string) => {
        const found = await search(access, { ...STAY, hotels: [code] }, DEADLINE);
        return found.options.find((o) => o.rooms[0]!.code === "DBL")!.price.net;
      };
      // Double room, 2 nights: (70 + (i * 37) % 130) EUR a night.
      expect(await net("HX1000")).toBe(140);
      expect(await net("HX1001")).toBe(214);
      expect(await net("HX1999")).toBe(2 * (70 + ((999 * 37) % 130)));
      expect(await net("HX1001")).toBe(214);
      const option = (await search(access, { ...STAY, hotels: ["HX1001"] }, DEADLINE)).options[0]!;
      const [named] = await sandboxOptions("/graphql", "hotelName", { ...STAY, hotels: ["HX1001"] });
      expect(named!.hotelName).toBe("Hotel Sandbox Madrid 1001");
      expect(await quote(access, option.id, DEADLINE)).toMatchObject({
        status: "OK",
        priceChanged: false,
        price: { net: option.price.net },
      });
    });

    it("knows nothing outside the range, and leaves the existing hotels and scenario codes as they were", async () => {
      const outside = [
        `HX${GENERATED_HOTELS.first - 1}`,
        `HX${GENERATED_HOTELS.first + GENERATED_HOTELS.count}`,
        "HX10000",
      ];
      expect((await search(access, { ...STAY, hotels: outside }, DEADLINE)).options).toEqual([]);
      const listed = await search(access, { ...STAY, hotels: ["HX001"] }, DEADLINE);
      expect(listed.options.find((o) => o.rooms[0]!.code === "DBL")).toMatchObject({ price: { net: 240 } });
      const named = await sandboxOptions("/graphql", "hotelName", { ...STAY, hotels: ["HX001"] });
      expect(named.every((o) => o.hotelName === "Hotel Sandbox Barcelona")).toBe(true);
      // HX500 lies inside HX100..HX1099, the range the generated hotels deliberately avoid: still a 500.
      const err = await search(access, { ...STAY, hotels: ["HX1000", "HX500"] }, DEADLINE).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SupplierCallError);
      expect((err as SupplierCallError).httpStatus).toBe(500);
    });
  });
});

describe("geo-grid", () => {
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
});

describe("demo-upstream", () => {
  // The bootstrap (npm start) and test/support/setup.ts seed connection 1002. Seeded here twice more: it is idempotent.
  beforeAll(async () => {
    for (let i = 0; i < 2; i++)
      await seedDemoUpstream(env.DB, { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, url: sandboxUrl() });
  });

  describe("the demo partner's connection 1002", () => {
    it("is in use, points at the sandbox, and its seeded URL reaches the auxiliary worker", async () => {
      const row = await env.DB.prepare(
        "select code, partner_id, api_type, connection_type, current_in_use from connections where id = ?",
      )
        .bind(DEMO_UPSTREAM_CONNECTION.connection.id)
        .first();
      expect(row).toEqual({
        code: 1002,
        partner_id: "demo",
        api_type: "b2b",
        connection_type: "tgx",
        current_in_use: 1,
      });
      const upstream = await getUpstream(database(env.DB), DEMO_UPSTREAM_CONNECTION.connection.id);
      expect(upstream).toMatchObject({ kind: "hotelx", url: sandboxUrl(), withEmbedded: false });
      // The sealed credentials open: the directory builds the supplier from them.
      const [supplier] = await suppliersByCodes(env, database(env.DB), env.UPSTREAM_CREDENTIALS_KEY, ["hotelx-1002"]);
      expect(supplier).toMatchObject({ name: "hotelx-1002", currency: "EUR", remote: true });

      const access = {
        ...upstream,
        apiKey: DEMO_UPSTREAM_CONNECTION.upstream.apiKey,
        fetch: upstreamFetch(env, upstream.url),
      };
      expect(access.fetch).toBeTypeOf("function");
      const found = await search(
        access,
        { checkIn: "2027-05-01", checkOut: "2027-05-03", hotels: ["HX001"], occupancies: [{ paxes: [{ age: 40 }] }] },
        { deadlineMs: 5_000 },
      );
      expect(found.options.map((o) => o.hotelCode)).toContain("HX001");
    });

    it("sends any other URL, or any URL outside local development, to the network", () => {
      expect(upstreamFetch(env, "https://api.hotelx.example/")).toBeUndefined();
      expect(upstreamFetch({ ...env, ENVIRONMENT: "production" }, sandboxUrl())).toBeUndefined();
    });
  });
});

describe("connection-circuit", () => {
  // Two partners on one upstream: the demo partner's connection 1002 and a connection of the other
  // partner, both pointed at the sandbox Hotel-X supplier's one URL (the HOTELX_SANDBOX binding).
  const DEMO_UPSTREAM = 1002;
  const DEMO_SUPPLIER = "hotelx-1002";
  let otherCode: number;
  let otherConnection: string;
  let sharedUrl: string;

  const op = (method: string, path: string, body?: unknown) => call(method, path, body, OPERATOR);
  const pointOther = async (change: Record<string, unknown> = {}) => {
    const res = await op("PUT", `/api/connections/${otherConnection}/upstream`, {
      kind: "hotelx",
      url: sharedUrl,
      client: "other-trips",
      context: "SANDBOX",
      credentials: { apiKey: env.HOTELX_SANDBOX_API_KEY },
      ...change,
    });
    expect(res.status, res.text).toBe(200);
  };

  beforeAll(async () => {
    await seedSandboxHotels(env.DB);
    sharedUrl = await demoUpstreamUrl();
    const made = await op("POST", "/api/connections", {
      partnerId: "other",
      apiType: "b2b",
      connectionType: "tgx",
      rateLimit: 600,
      rateLimitWindowMs: 60_000,
      netMarkups: 0,
      currentInUse: true,
    });
    expect(made.status, made.text).toBe(201);
    otherConnection = made.json.data.id;
    otherCode = made.json.data.code;
  });
  beforeEach(async () => {
    await pointOther();
    await circuitFor(env, DEMO_SUPPLIER).record(true, Date.now());
    await circuitFor(env, `hotelx-${otherCode}`).record(true, Date.now());
  });

  /** A search of the other partner (the attacker) on its own connection. */
  const otherSearch = (codes: string[], settings: Record<string, unknown> = {}) =>
    post(
      "/api/search",
      {
        searchCriteria: {
          destinations: { accommodations: codes.map((code) => ({ code })) },
          occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
          checkIn: inDays(30),
          checkOut: inDays(32),
        },
        settings: { access: { code: otherCode }, ...settings },
      },
      { apiKey: OTHER_KEY },
    );
  const warningOf = (res: { status: number; json: any }) => {
    expect(res.status).toBe(200);
    return res.json.data.warnings?.[0]?.code ?? null;
  };
  /** The demo partner's search, quote on 1002: both answered by the upstream. */
  const demoStillServed = async () => {
    const option = await searchOne("HX001", { connection: DEMO_UPSTREAM });
    expect(option.option.id).toContain("hotelx-1002");
    const quote = await post("/api/quote", quoteBody(option, {}, DEMO_UPSTREAM));
    expect(quote.status, quote.text).toBe(200);
  };

  describe("the circuit is the connection's own, never the shared upstream's", () => {
    it("the other partner's short settings.timeout opens no circuit: the demo partner's search and quote on the same upstream go on, and so do its own", async () => {
      for (let i = 0; i < 6; i++)
        expect(warningOf(await otherSearch(["HX001"], { timeout: "1" }))).toBe("supplier_timeout");
      // And all at once; and a slow hotel under a 300 ms deadline (the client gives up 30 ms before the caller).
      const parallel = await Promise.all(Array.from({ length: 6 }, () => otherSearch(["HX001"], { timeout: "1" })));
      expect(parallel.map(warningOf)).toEqual(Array(6).fill("supplier_timeout"));
      for (let i = 0; i < 6; i++)
        expect(warningOf(await otherSearch(["HXSLOW2000"], { timeout: "300" }))).toBe("supplier_timeout");
      await demoStillServed();
      expect(warningOf(await otherSearch(["HX001"]))).toBeNull();
      expect(await circuitFor(env, `hotelx-${otherCode}`).allow(Date.now())).toEqual({ allowed: true });
    });

    it("a 5xx five times in a row opens the other partner's circuit only", async () => {
      for (let i = 0; i < 5; i++) expect(warningOf(await otherSearch(["HX500"]))).toBe("supplier_error");
      expect(warningOf(await otherSearch(["HX001"]))).toBe("supplier_unavailable");
      await demoStillServed();
    });

    it("an upstream that cannot be reached opens that supplier's circuit", async () => {
      // Nothing listens on port 9 here: the request fails before any HTTP answer.
      await pointOther({ url: "http://127.0.0.1:9/" });
      for (let i = 0; i < 5; i++) {
        const res = await otherSearch(["HX001"]);
        expect(warningOf(res)).toBe("supplier_error");
        expect(res.json.data.warnings[0].message).toContain("could not be reached");
      }
      expect(warningOf(await otherSearch(["HX001"]))).toBe("supplier_unavailable");
      await demoStillServed();
    });

    it("no answer within the default deadline (8 s in a deploy) counts: five at once open the circuit", async () => {
      // The tests' default deadline is shorter (SUPPLIER_TIMEOUT_MS), so this waits 3 s, not 8.
      expect(defaultSupplierTimeoutMs({ ...env, ENVIRONMENT: "production" })).toBe(8_000);
      expect(defaultSupplierTimeoutMs(env)).toBe(3_000);
      const slow = await Promise.all(Array.from({ length: 5 }, () => otherSearch(["HXSLOW10000"])));
      expect(slow.map(warningOf)).toEqual(Array(5).fill("supplier_timeout"));
      expect(warningOf(await otherSearch(["HX001"]))).toBe("supplier_unavailable");
      await demoStillServed();
    });

    it.each([
      ["a 4xx (a wrong API key)", ["HX001"], { credentials: { apiKey: "wrong-key" } }, 401],
      ["a redirect (3xx)", ["HX302"], {}, 302],
      ["GraphQL errors", ["HXGQLERR"], {}, 200],
      ["an answer that cannot be read", ["HXBADJSON"], {}, 200],
    ])("%s counts for nothing: the sixth call still reaches the upstream", async (_name, codes, change, status) => {
      await pointOther(change);
      for (let i = 0; i < 6; i++) {
        const res = await otherSearch(codes, { includeProviderTransactions: true });
        expect(warningOf(res)).toBe("supplier_error");
        expect(res.json.data.providerTransactions.map((t: any) => t.status)).toEqual([status]);
      }
      expect(await circuitFor(env, `hotelx-${otherCode}`).allow(Date.now())).toEqual({ allowed: true });
    });

    it("a half-open trial with a short caller deadline hands the trial on: the next call with the default deadline closes the circuit", async () => {
      const now = Date.now();
      for (let i = 0; i < 5; i++) await circuitFor(env, `hotelx-${otherCode}`).record(false, now - 30_000);
      // The client gives up 100 ms before the caller does, time for the circuit to hear of it first.
      expect(warningOf(await otherSearch(["HXSLOW2000"], { timeout: "1000" }))).toBe("supplier_timeout");
      expect(warningOf(await otherSearch(["HX001"]))).toBeNull();
      expect(await circuitFor(env, `hotelx-${otherCode}`).allow(Date.now())).toEqual({ allowed: true });
    });
  });
});

/** A document and its variables as the schema takes them: GraphQL's validation (no deprecated field either), then variable coercion. */
const problemsOf = (schema: GraphQLSchema, query: string, variables: Record<string, unknown>) => {
  const document = parse(query);
  const invalid = validate(schema, document, [...specifiedRules, NoDeprecatedCustomRule]);
  if (invalid.length > 0) return invalid.map((e) => e.message);
  const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === "OperationDefinition")!;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  return coerced.errors?.map((e) => e.message) ?? [];
};

describe("the client's documents against the Hotel-X SDL (sandbox/hotelx/src/schema.ts)", () => {
  // A supplier's schema: the booking flow and the `hotels` content query `suggest` reads.
  const schema = buildHotelxSchema(HOTELX_SDL + HOTELX_CONTENT_SDL);

  it("a search asks for an option's fields the search reads, those its schema validates, and no others", () => {
    /** The fields a selection set asks for, nested ones as [field, their fields]. */
    type Selected = Array<string | [string, Selected]>;
    const fieldsOf = (set: SelectionSetNode | undefined): Selected =>
      (set?.selections ?? []).flatMap((node): Selected => {
        if (node.kind !== "Field") return [];
        return [node.selectionSet ? [node.name.value, fieldsOf(node.selectionSet)] : node.name.value];
      });
    const find = (fields: Selected, name: string) =>
      (fields.find((f) => Array.isArray(f) && f[0] === name) as [string, Selected])[1];
    const operation = parse(documents.SEARCH).definitions[0] as OperationDefinitionNode;
    const options = find(find(find(fieldsOf(operation.selectionSet), "hotelX"), "search"), "options");
    // Exactly what the wire schema validates, field for field (a field asked and not read is sent for nothing).
    expect(options.map((f) => (Array.isArray(f) ? f[0] : f)).sort()).toEqual(Object.keys(optionSchema.shape).sort());
    expect(find(options, "price")).toEqual(Object.keys(amountSchema.shape));
    expect(find(find(options, "surcharges"), "price")).toEqual(Object.keys(amountSchema.shape));
    // Read nowhere: the supplier's own supplier code, the hotel's name (ours is answered), occupancies, remarks.
    for (const unread of ["supplierCode", "hotelName", "occupancies", "remarks"]) expect(options).not.toContain(unread);
  });

  it("every document the client sends, with the variables it sends, validates; a misspelt field does not", async () => {
    const sent: { query: string; variables: Record<string, unknown> }[] = [];
    const recording = {
      ...access,
      fetch: async (request: Request) => {
        sent.push(await request.clone().json());
        return access.fetch!(request);
      },
    };
    const option = (
      await search(
        recording,
        { ...STAY, hotels: ["HX001"], currency: "EUR", nationality: "ES", language: "en" },
        OK_DEADLINE,
      )
    ).options[0]!;
    const quoted = await quotedOption(recording, option.id, { ...OK_DEADLINE, language: "en" });
    const clientReference = reference();
    const card = {
      type: "VI",
      holder: { name: "Ada", surname: "Lovelace" },
      number: "4242424242424242",
      CVC: "737",
      expire: { month: 3, year: 2030 },
    };
    const booked = await book(
      recording,
      {
        ...bookInput(quoted.optionRefId, clientReference),
        remarks: "late arrival",
        language: "en",
        deltaPrice: { percent: 1, applyBoth: false },
        paymentCard: card,
      },
      OK_DEADLINE,
    );
    expect(booked.outcome).toBe("confirmed");
    await bookingByClientReference(
      recording,
      { hotelCode: "HX001", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
      OK_DEADLINE,
    );
    await cancel(
      recording,
      { hotelCode: "HX001", accessCode: ACCESS_CODE, clientReference, supplierReference: "SBX-1", language: "en" },
      OK_DEADLINE,
    );
    await cancel(recording, { hotelCode: "HX001", bookingID: "HXB-1" }, OK_DEADLINE);
    const twoStep = reference();
    await book(recording, bookInput(quoted.optionRefId, twoStep), { ...OK_DEADLINE, commitRequired: true });
    await commit(recording, { accessCode: ACCESS_CODE, clientReference: twoStep, language: "en" }, OK_DEADLINE);
    const firstPage = await hotelList(recording, { maxSize: 2 }, OK_DEADLINE);
    expect(firstPage.hotels).toHaveLength(2);

    // Every document of documents.ts went out, and each with its variables is valid.
    expect(new Set(sent.map((b) => b.query))).toEqual(new Set(Object.values(documents)));
    for (const body of sent) expect(problemsOf(schema, body.query, body.variables), body.query).toEqual([]);

    // The same check fails on a misspelt field, argument, type or enum value, and on a variable of the wrong type.
    const search0 = sent[0]!;
    expect(problemsOf(schema, search0.query.replace("boardCode", "boardCdoe"), search0.variables)).toEqual([
      expect.stringContaining('Cannot query field "boardCdoe" on type "HotelOptionSearch"'),
    ]);
    expect(
      problemsOf(schema, documents.BOOKING_READ.replace("hotelName start end", "hotelName checkIn checkOut"), {}),
    ).toEqual([expect.stringContaining("deprecated"), expect.stringContaining("deprecated")]);
    expect(
      problemsOf(
        schema,
        search0.query.replace("HotelCriteriaSearchInput", "HotelSearchCriteriaInput"),
        search0.variables,
      ),
    ).not.toEqual([]);
    expect(
      problemsOf(schema, search0.query, {
        ...search0.variables,
        criteria: { ...(search0.variables.criteria as object), checkIn: "10/03/2027" },
      }),
    ).toEqual([expect.stringContaining("Date must be an ISO 8601 date")]);
  });
});

describe("the sandbox is a GraphQL server", () => {
  const post = async (query: string, variables: Record<string, unknown> = {}) => {
    const res = await env.HOTELX_SANDBOX.fetch("https://hotelx-sandbox.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data?: any; errors?: { message: string; path?: string[] }[] },
    };
  };
  const criteria = {
    checkIn: "2027-03-10",
    checkOut: "2027-03-12",
    hotels: ["HX001"],
    occupancies: [{ paxes: [{ age: 30 }] }],
  };
  const BOOK =
    "mutation ($input: HotelBookInput!) { hotelX { book(input: $input) { booking { status } errors { code } } } }";

  it("answers GraphQL errors to the 8 requests Hotel-X's schema refuses, and books nothing for them", async () => {
    const option = (await search(access, { ...STAY, hotels: ["HX002"] }, OK_DEADLINE)).options[0]!;
    const clientReference = reference();
    const input = {
      ...bookInput(option.id, clientReference),
      rooms: [{ occupancyRefId: 1, paxes: [{ name: "Ada", surname: "Lovelace", age: 30 }] }],
    };
    const SEARCH = "query ($c: HotelCriteriaSearchInput!) { hotelX { search(criteria: $c) { options { id } } } }";
    const refused: [string, string, Record<string, unknown>, string][] = [
      ["syntax error", "query { hotelX { search(criteria: $c) { options { id } }", {}, "Syntax Error"],
      [
        "unknown field",
        "query ($c: HotelCriteriaSearchInput!) { hotelX { search(criteria: $c) { options { price { amount } } } } }",
        { c: criteria },
        'Cannot query field "amount"',
      ],
      [
        "unknown argument",
        "query ($c: HotelCriteriaSearchInput!) { hotelX { search(criteria: $c, page: 2) { options { id } } } }",
        { c: criteria },
        'Unknown argument "page"',
      ],
      [
        "bad enum",
        "query { hotelX { booking(criteria: { typeSearch: REFERENCE }) { bookings { status } } } }",
        {},
        'Value "REFERENCE" does not exist in "BookingCriteriaType" enum',
      ],
      ["bad scalar", SEARCH, { c: { ...criteria, checkIn: "tomorrow" } }, "Date must be an ISO 8601 date"],
      [
        "missing required input",
        SEARCH,
        { c: { ...criteria, occupancies: undefined } },
        'Field "occupancies" of required type "[RoomInput!]!" was not provided',
      ],
      [
        "a guest without surname",
        BOOK,
        { input: { ...input, holder: { name: "Ada" } } },
        'Field "surname" of required type "String!" was not provided',
      ],
      [
        "a booking without rooms",
        BOOK,
        { input: { ...input, rooms: undefined } },
        'Field "rooms" of required type "[BookRoomInput!]!" was not provided',
      ],
    ];
    for (const [kind, query, variables, message] of refused) {
      const { status, body } = await post(query, variables);
      expect([status, body.data, body.errors?.[0]?.message], kind).toEqual([
        200,
        undefined,
        expect.stringContaining(message),
      ]);
    }
    // Valid GraphQL, but no rooms: the sandbox wants one room per searched occupancy.
    expect((await post(BOOK, { input: { ...input, rooms: [] } })).body.data.hotelX.book).toEqual({
      booking: null,
      errors: [{ code: "INVALID_INPUT" }],
    });
    expect(
      await bookingByClientReference(
        access,
        { hotelCode: "HX002", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
        OK_DEADLINE,
      ),
    ).toEqual({
      found: false,
    });
    expect((await post(BOOK, { input })).body.data.hotelX.book).toEqual({ booking: { status: "OK" }, errors: null });
  });

  it("answers exactly the fields selected, and a failed resolver nulls its field with the error's path", async () => {
    const selected = await post(
      "query ($c: HotelCriteriaSearchInput) { hotelX { search(criteria: $c) { options { hotelCode price { net } } } } }",
      { c: criteria },
    );
    expect(selected.body).toEqual({
      data: {
        hotelX: {
          search: {
            options: [
              { hotelCode: "HX001", price: { net: 240 } },
              { hotelCode: "HX001", price: { net: 276 } },
              { hotelCode: "HX001", price: { net: 210 } },
            ],
          },
        },
      },
    });
    const failed = await post(
      "query ($c: HotelCriteriaSearchInput) { hotelX { search(criteria: $c) { options { id } } } }",
      { c: { ...criteria, hotels: ["HXGQLERR"] } },
    );
    expect(failed.body).toEqual({
      data: { hotelX: { search: null } },
      errors: [
        expect.objectContaining({ message: "Supplier connection failed for search", path: ["hotelX", "search"] }),
      ],
    });
  });
});

describe("three suppliers at their own paths (sandbox/hotelx/fixtures)", () => {
  // The URL npm start's demo gives each supplier; the tests' binding takes it to the auxiliary worker.
  const at = (supplier: SandboxSupplier) => sandboxAccess(sandboxSupplierUrl(supplier.code));
  const HOTELS =
    "query ($c: HotelXHotelListInput!, $t: String) { hotelX { hotels(criteria: $c, relay: {}, token: $t) { count token pageInfo { hasNextPage } edges { node { code hotelData { hotelCode hotelName location { city zipCode country coordinates { latitude longitude } } } } } } } }";
  const supplierPost = async (supplier: SandboxSupplier, query: string, variables: Record<string, unknown>) => {
    const res = await env.HOTELX_SANDBOX.fetch(`https://hotelx-sandbox.test/suppliers/${supplier.code}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
      body: JSON.stringify({ query, variables }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: any; errors?: { message: string }[] };
  };
  const hotelsPage = (supplier: SandboxSupplier, criteria: Record<string, unknown>, token?: string) =>
    supplierPost(supplier, HOTELS, { c: criteria, t: token });

  it.each(SANDBOX_SUPPLIERS.map((s) => [s.code, s] as const))(
    "%s: a search by its own hotel codes answers its codes, board and room codes and currency; book, read and cancel reach its own ledger; its hotel list pages",
    async (_code, supplier) => {
      const access = at(supplier);
      const boardMap = BOARD_MAPS[supplier.code]!;
      const [first, second] = supplier.hotels;
      // Its own codes: one of Edgestay's (and the sandbox's HX001) is not a hotel of this supplier.
      const found = await search(
        access,
        { ...STAY, hotels: [first!.code, second!.code, "HX001", "US000001"] },
        OK_DEADLINE,
      );
      expect(new Set(found.options.map((o) => o.hotelCode))).toEqual(new Set([first!.code, second!.code]));
      for (const option of found.options) {
        const hotel = supplier.hotels.find((h) => h.code === option.hotelCode)!;
        expect(option).toMatchObject({ accessCode: supplier.accessCode, price: { currency: supplier.currency } });
        expect(Object.keys(boardMap)).toContain(option.boardCode);
        expect(hotel.rooms.map((r) => r.code)).toContain(option.rooms[0]!.code);
      }
      // The supplier's codes are its own codes: hotelCodeSupplier, boardCodeSupplier and the rooms' supplierCode say so.
      // Its own Hotel-X supplier code and hotel names, beyond what our search asks for.
      const raw = await sandboxOptions(
        `/suppliers/${supplier.code}/graphql`,
        "supplierCode hotelName hotelCode hotelCodeSupplier boardCode boardCodeSupplier rooms { code supplierCode }",
        { ...STAY, hotels: [first!.code] },
      );
      expect(raw.length).toBeGreaterThan(0);
      for (const option of raw) {
        expect(option.supplierCode).toBe(supplier.hotelxSupplierCode);
        expect(option.hotelName).toBe(first!.name);
        expect(option.hotelCodeSupplier).toBe(first!.code);
        expect(option.boardCodeSupplier).toBe(option.boardCode);
        expect(option.rooms[0].supplierCode).toBe(option.rooms[0].code);
      }
      // Its rate table night by night, by its own season (two March nights).
      const room = first!.rooms[0]!;
      const rate = room.rates[0]!;
      const priced = found.options.find(
        (o) =>
          o.hotelCode === first!.code &&
          o.rooms[0]!.code === room.code &&
          o.boardCode === rate.board &&
          o.cancelPolicy?.refundable === rate.refundable,
      )!;
      expect(priced.price.net).toBe(Math.round(rate.nightly * supplier.season[2]! * 2 * 100) / 100);
      // Every option of the answer is one row of its table: as many as the hotels' rates.
      const rates = (h: (typeof supplier.hotels)[number]) => h.rooms.reduce((n, r) => n + r.rates.length, 0);
      expect(found.options).toHaveLength(rates(first!) + rates(second!));

      const quoted = await quotedOption(access, priced.id, OK_DEADLINE);
      expect(quoted.price).toMatchObject({ currency: supplier.currency, net: priced.price.net });
      const clientReference = reference();
      const booked = await book(access, bookInput(quoted.optionRefId, clientReference), OK_DEADLINE);
      expect(booked).toMatchObject({
        outcome: "confirmed",
        status: "OK",
        reference: {
          client: clientReference,
          bookingID: expect.stringMatching(new RegExp(`^${supplier.bookingPrefix}\\d+$`)),
        },
      });
      const read = {
        hotelCode: first!.code,
        currency: supplier.currency,
        accessCode: supplier.accessCode,
        clientReference,
      };
      expect(await bookingByClientReference(access, read, OK_DEADLINE)).toMatchObject({
        found: true,
        booking: { status: "OK", price: { currency: supplier.currency, net: priced.price.net } },
      });
      // The booking holds what the supplier was sent: its own hotel, board and room codes.
      const held = await supplierPost(
        supplier,
        "query ($c: HotelCriteriaBookingInput!) { hotelX { booking(criteria: $c) { bookings { hotel { hotelCode boardCode rooms { code } } } } } }",
        {
          c: {
            accessCode: supplier.accessCode,
            typeSearch: "REFERENCES",
            references: {
              hotelCode: first!.code,
              currency: supplier.currency,
              references: [{ client: clientReference }],
            },
          },
        },
      );
      expect(held.data.hotelX.booking.bookings).toEqual([
        { hotel: { hotelCode: first!.code, boardCode: rate.board, rooms: [{ code: room.code }] } },
      ]);
      // Each supplier keeps its own ledger: neither another supplier nor the sandbox's own path has the booking.
      const other = SANDBOX_SUPPLIERS.find((s) => s !== supplier)!;
      expect(await bookingByClientReference(at(other), read, OK_DEADLINE)).toEqual({ found: false });
      expect(await bookingByClientReference(sandboxAccess(), read, OK_DEADLINE)).toEqual({ found: false });
      const cancelled = await cancel(
        access,
        { hotelCode: first!.code, accessCode: supplier.accessCode, clientReference, supplierReference: "" },
        OK_DEADLINE,
      );
      expect(cancelled).toMatchObject({ outcome: "cancelled" });
      expect(await bookingByClientReference(access, read, OK_DEADLINE)).toMatchObject({
        found: true,
        booking: { status: "CANCELLED" },
      });

      // The hotels content query, 40 at a time: every hotel once, then a null token.
      const pages: any[] = [];
      let token: string | undefined;
      do {
        const page = (await hotelsPage(supplier, { access: supplier.accessCode, maxSize: 40 }, token)).data.hotelX
          .hotels;
        pages.push(page);
        token = page.token ?? undefined;
      } while (token && pages.length < 10);
      expect(pages.map((p) => p.edges.length)).toEqual(
        Array.from({ length: Math.ceil(supplier.hotels.length / 40) }, (_, i) =>
          Math.min(40, supplier.hotels.length - i * 40),
        ),
      );
      expect(pages.map((p) => p.pageInfo.hasNextPage)).toEqual(pages.map((_, i) => i < pages.length - 1));
      expect(pages.every((p) => p.count === supplier.hotels.length)).toBe(true);
      const listed = pages.flatMap((p) => p.edges.map((e: any) => e.node));
      expect(listed.map((n) => n.code)).toEqual(supplier.hotels.map((h) => h.code));
      expect(listed[0]).toEqual({
        code: first!.code,
        hotelData: {
          hotelCode: first!.code,
          hotelName: first!.name,
          location: {
            city: first!.city,
            zipCode: first!.postalCode,
            country: first!.countryCode,
            coordinates: { latitude: first!.latitude, longitude: first!.longitude },
          },
        },
      });
      // Another access, a token of nothing, a page too large: GraphQL errors, no list.
      for (const [criteria, bad, message] of [
        [{ access: "someone-else" }, undefined, "Unknown access someone-else"],
        [{}, "not-a-token", "Invalid or expired token"],
        [{ maxSize: 10_001 }, undefined, "maxSize must be between 1 and 10000"],
      ] as const) {
        const refused = await hotelsPage(supplier, criteria, bad);
        expect([refused.data, refused.errors?.[0]?.message]).toEqual([{ hotelX: null }, message]);
      }
    },
  );

  it("an unknown supplier path is a 404; the requests it counts are its own", async () => {
    const res = await env.HOTELX_SANDBOX.fetch("https://hotelx-sandbox.test/suppliers/nobody/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
      body: JSON.stringify({ query: "{ hotelX { search { options { id } } } }" }),
    });
    expect(res.status).toBe(404);
    const client = `count-${crypto.randomUUID().slice(0, 8)}`;
    const [supplier] = SANDBOX_SUPPLIERS;
    await search(
      sandboxAccess(`https://hotelx-sandbox.test/suppliers/${supplier!.code}/graphql`, client),
      { ...STAY, hotels: [supplier!.hotels[0]!.code] },
      OK_DEADLINE,
    );
    const counted = (path: string) =>
      env.HOTELX_SANDBOX.fetch(`https://hotelx-sandbox.test${path}/requests?client=${client}`, {
        headers: { authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
      }).then((r) => r.json());
    expect(await counted(`/suppliers/${supplier!.code}`)).toEqual({ search: 1 });
    expect(await counted("")).toEqual({});
    // The sandbox's own path lists its own five hotels.
    const own = await env.HOTELX_SANDBOX.fetch("https://hotelx-sandbox.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
      body: JSON.stringify({ query: HOTELS, variables: { c: { access: "sandbox" } } }),
    });
    const listed = ((await own.json()) as any).data.hotelX.hotels;
    expect([listed.count, listed.token, listed.edges.map((e: any) => e.node.code)]).toEqual([
      5,
      null,
      ["HX001", "HX002", "HX003", "HX004", "HX005"],
    ]);
  });

  it("a whole supplier slow, failing or down: /suppliers/<code>/as/<scenario code>/ answers every operation as that scenario", async () => {
    const [supplier] = SANDBOX_SUPPLIERS;
    const as = (scenario: string) =>
      sandboxAccess(`https://hotelx-sandbox.test/suppliers/${supplier!.code}/as/${scenario}/graphql`);
    const criteria = { ...STAY, hotels: [supplier!.hotels[0]!.code] };
    expect(await failure(search(as("HXSLOW2000"), criteria, SHORT_DEADLINE))).toMatchObject({
      code: "supplier_timeout",
    });
    expect(await failure(search(as("HX500"), criteria, OK_DEADLINE))).toMatchObject({
      code: "supplier_error",
      httpStatus: 500,
    });
    expect(await failure(search(as("HXGQLERR"), criteria, OK_DEADLINE))).toMatchObject({ code: "supplier_error" });
    // Its own hotels still, when the scenario lets it answer.
    const slowButThere = await search(as("HXSLOW10"), criteria, OK_DEADLINE);
    expect(slowButThere.options[0]).toMatchObject({
      hotelCode: supplier!.hotels[0]!.code,
      price: { currency: supplier!.currency },
    });
    const res = await as("HXNOSUCH").fetch!(
      new Request(as("HXNOSUCH").url, {
        method: "POST",
        headers: { authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
        body: "{}",
      }),
    );
    expect(res.status).toBe(404);
  });
});

describe("two-step book and cancel by bookingID", () => {
  it("PENDING_COMMIT (HXCOMMIT) is a booking that exists, not confirmed; cancel finds a booking by its bookingID alone", async () => {
    const clientReference = reference();
    const booked = await book(access, bookInput((await firstOption("HXCOMMIT")).id, clientReference), OK_DEADLINE);
    expect(booked).toMatchObject({
      outcome: "confirmed",
      status: "PENDING_COMMIT",
      reference: { client: clientReference, bookingID: expect.stringMatching(/^HXB-/) },
    });
    const read = await bookingByClientReference(
      access,
      { hotelCode: "HXCOMMIT", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
      OK_DEADLINE,
    );
    expect(read).toMatchObject({
      found: true,
      booking: { status: "PENDING_COMMIT", hotel: { start: "2027-03-10", end: "2027-03-12" } },
    });

    const bookingID = booked.outcome === "confirmed" ? booked.reference.bookingID! : "";
    // Without a bookingID, Hotel-X needs accessCode, hotelCode and reference together.
    expect(await cancel(access, { hotelCode: "HXCOMMIT", clientReference }, OK_DEADLINE)).toMatchObject({
      outcome: "refused",
      issues: [{ code: "INVALID_INPUT" }],
    });
    expect(await cancel(access, { hotelCode: "ANY", bookingID }, OK_DEADLINE)).toMatchObject({
      outcome: "cancelled",
      status: "CANCELLED",
    });
  });
});

describe("commit (issue 28): the second step of a book sent with settings.commitRequired", () => {
  it("books PENDING_COMMIT, commits to OK once (again: OK); a booking unknown or cancelled is a refusal", async () => {
    const option = await firstOption("HX005");
    const clientReference = reference();
    const booked = await book(access, bookInput(option.id, clientReference), { ...OK_DEADLINE, commitRequired: true });
    expect(booked).toMatchObject({ outcome: "confirmed", status: "PENDING_COMMIT" });
    const supplier = booked.outcome === "confirmed" ? booked.reference.supplier! : "";
    const read = () =>
      bookingByClientReference(
        access,
        { hotelCode: "HX005", currency: "EUR", accessCode: ACCESS_CODE, clientReference },
        OK_DEADLINE,
      );
    expect(await read()).toMatchObject({ booking: { status: "PENDING_COMMIT" } });
    const input = { accessCode: ACCESS_CODE, clientReference, supplierReference: supplier };
    expect(await commit(access, input, OK_DEADLINE)).toMatchObject({
      outcome: "committed",
      reference: { client: clientReference, supplier },
    });
    expect(await read()).toMatchObject({ booking: { status: "OK" } });
    expect(await commit(access, input, OK_DEADLINE)).toMatchObject({ outcome: "committed" });

    // A book without the setting is confirmed at once, as before.
    expect(await book(access, bookInput(option.id), OK_DEADLINE)).toMatchObject({ status: "OK" });

    expect(await commit(access, { accessCode: ACCESS_CODE, clientReference: "ES-nobody" }, OK_DEADLINE)).toMatchObject({
      outcome: "refused",
      issues: [{ code: "BOOKING_NOT_FOUND" }],
    });
    const dropped = reference();
    await book(access, bookInput(option.id, dropped), { ...OK_DEADLINE, commitRequired: true });
    await cancel(access, { hotelCode: "HX005", accessCode: ACCESS_CODE, clientReference: dropped }, OK_DEADLINE);
    expect(await commit(access, { accessCode: ACCESS_CODE, clientReference: dropped }, OK_DEADLINE)).toMatchObject({
      outcome: "refused",
      issues: [{ code: "BOOKING_CANCELLED" }],
    });
  });
});
