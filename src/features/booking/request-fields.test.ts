import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, post } from "../../../test/support/api";
import {
  bookBody,
  cancelBody,
  DEMO_CODE,
  quoteBody,
  quoteOf,
  searchBody,
  searchOne,
  type SearchedOption,
} from "../../../test/support/booking";

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
      'filters: Unrecognized key: "boardCodes"',
    ],
    [
      "an unknown status filter list",
      searchBody(codes, { filters: { status: { only: ["OK"] } } }),
      'filters.status: Unrecognized key: "only"',
    ],
    [
      "an unknown business rule",
      searchBody(codes, { settings: { access: { code: DEMO_CODE }, businessRules: { maxPrice: 100 } } }),
      'settings.businessRules: Unrecognized key: "maxPrice"',
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

  it("reserved and market fields are accepted and change nothing: every option is sold in every market, to every nationality, on every channel", async () => {
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
            supplier: "S",
            platform: "P",
            client: "C",
          },
          distributionContext: {
            customer: { device: "mobile" },
            salesChannel: "APP",
            distributionMode: "REDISTRIBUTION",
            supportedVisibilityTypes: ["PACKAGE"],
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
      "quoteCriteria.paymentType: only MerchantPay is supported",
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
      [{ paymentType: "CardBooking" }, "bookCriteria.paymentType: only MerchantPay is supported"],
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
    const booked = await post("/api/book", bookBody(quote, "fields-ok", { paymentType: "MerchantPay", market: "ES" }));
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
