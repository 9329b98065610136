import { env } from "cloudflare:test";
import { embeddedOnly1002 } from "../../../test/support/hotelx";
import { database } from "../../platform/db/client";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { OTHER_KEY, post, call } from "../../../test/support/api";
import { signToken } from "../../platform/crypto/signed-token";
import {
  bookBody,
  cancelBody,
  quoteBody,
  quoteOf,
  searchBody,
  searchOne,
  type SearchedOption,
} from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { issueOptionId, readOptionId } from "./option-token";
import { quoteStore, expiredQuotes, QUOTE_TTL_SECONDS, type StoredQuote } from "./quote-store";
import { keyring } from "../../platform/crypto/keyring";
import { toMinor } from "../../platform/money";
import { expectLogs } from "../../../test/support/expected-logs";
import type { Offer } from "../supply";
import { rememberUpstreamOptions, UNSETTLED_LIMIT, upstreamOptionOf } from "./upstream-options";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 30 });
  // Connections the access rules need: one of demo's not in use; and the seeded tgx connection 1002
  // returned to the embedded inventory (its upstream is tested in supply/hotelx).
  await env.DB.batch([
    env.DB.prepare(
      "insert into connections (id, code, partner_id, api_type, connection_type, rate_limit, rate_limit_window_ms, current_in_use) values ('con_demo_idle', 1003, 'demo', 'public', 'direct', 100, 60000, 0)",
    ),
    ...embeddedOnly1002(),
  ]);
});

const codes = { destinations: { accommodations: [{ code: "US000001" }] } };

describe("search: section 7 messages", () => {
  it.each([
    [
      "no selector",
      searchBody({}),
      400,
      "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
    ],
    [
      "two selectors",
      searchBody({ ...codes, accommodationName: "Grand" }),
      400,
      "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
    ],
    [
      "geo without lng",
      searchBody({ geo: { lat: 40 } }),
      400,
      "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
    ],
    [
      "all three",
      searchBody({ ...codes, accommodationName: "Grand", geo: { lat: 1, lng: 1 } }),
      400,
      "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
    ],
    ["no access code", searchBody(codes, { settings: {} }), 400, "No connection"],
    ["null access code", searchBody(codes, { settings: { access: { code: null } } }), 400, "No connection"],
    [
      "a code that is not a number",
      searchBody(codes, { settings: { access: { code: "abc" } } }),
      400,
      "Invalid connection code",
    ],
    ["a negative code", searchBody(codes, { settings: { access: { code: -4 } } }), 400, "Invalid connection code"],
    [
      "a fractional code",
      searchBody(codes, { settings: { access: { code: 1001.5 } } }),
      400,
      "Invalid connection code",
    ],
    ["an unknown code", searchBody(codes, { settings: { access: { code: 999999 } } }), 401, "Connection not found"],
    [
      "another partner's code",
      searchBody(codes, { settings: { access: { code: 2001 } } }),
      401,
      "Connection access denied",
    ],
    [
      "own connection not in use",
      searchBody(codes, { settings: { access: { code: 1003 } } }),
      401,
      "Connection access denied",
    ],
  ])("%s: %i %s", async (_name, body, status, message) => {
    const res = await post("/api/search", body);
    expect(res.status).toBe(status);
    expect(res.json.message).toBe(message);
    expect(res.json.data).toBeUndefined();
  });

  it("accepts the code as a numeric string", async () => {
    const res = await post("/api/search", searchBody(codes, { settings: { access: { code: "1001" } } }));
    expect(res.status).toBe(200);
  });

  it("401 without or with a wrong API key", async () => {
    const missing = await post("/api/search", searchBody(codes), { apiKey: null });
    expect(missing.status).toBe(401);
    expect(missing.json.message).toBe("API key is required");
    const wrong = await post("/api/search", searchBody(codes), { apiKey: "nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.json.message).toBe("Invalid API key");
  });

  it("a tgx connection sells the embedded inventory: 200; /api/search/tgx and /api/quote/tgx validate", async () => {
    const tgx = await post("/api/search", searchBody(codes, { settings: { access: { code: 1002 } } }));
    expect(tgx.status).toBe(200);
    expect(tgx.json.data.accommodations[0].options.length).toBeGreaterThan(0);
    const searchTgx = await post("/api/search/tgx", {});
    expect(searchTgx.status).toBe(400);
    expect(searchTgx.json.message).toBe("criteria is required");
    const quoteTgx = await post("/api/quote/tgx", {});
    expect(quoteTgx.status).toBe(400);
    expect(quoteTgx.json.message).toBe("criteria is required");
  });

  it.each([
    [
      "1,001 codes",
      searchBody({
        destinations: {
          accommodations: Array.from({ length: 1001 }, (_, i) => ({ code: `US${String(i).padStart(6, "0")}` })),
        },
      }),
    ],
    ["an empty code list", searchBody({ destinations: { accommodations: [] } })],
    ["a name of one character", searchBody({ accommodationName: "G" })],
    ["a name of 201 characters", searchBody({ accommodationName: "x".repeat(201) })],
    ["radius 0.05", searchBody({ geo: { lat: 40, lng: -74, radiusKm: 0.05 } })],
    ["radius 61", searchBody({ geo: { lat: 40, lng: -74, radiusKm: 61 } })],
    ["limit 0", searchBody({ geo: { lat: 40, lng: -74, limit: 0 } })],
    ["limit 1001", searchBody({ geo: { lat: 40, lng: -74, limit: 1001 } })],
    ["lat as a string", searchBody({ geo: { lat: "40", lng: -74 } })],
    ["no occupancies", searchBody({ ...codes, occupancies: undefined })],
    ["a pax without age", searchBody({ ...codes, occupancies: [{ paxes: [{}] }] })],
    ["a room of children only", searchBody({ ...codes, occupancies: [{ paxes: [{ age: 9 }] }] })],
    ["checkOut before checkIn", searchBody({ ...codes, checkIn: inDays(10), checkOut: inDays(9) })],
    ["a bad date", searchBody({ ...codes, checkIn: "2027-02-30", checkOut: "2027-03-02" })],
    ["a past check-in", searchBody({ ...codes, checkIn: "2020-01-01", checkOut: "2020-01-02" })],
    ["40 nights", searchBody({ ...codes, checkIn: inDays(10), checkOut: inDays(50) })],
    ["quota 0", searchBody(codes, { settings: { access: { code: 1001 }, businessRules: { optionsQuota: 0 } } })],
    [
      "an unknown rule type",
      searchBody(codes, { settings: { access: { code: 1001 }, businessRules: { businessRuleType: "PRICIEST" } } }),
    ],
    ["no settings", { searchCriteria: searchBody(codes).searchCriteria }],
    ["an array body", []],
  ])("bad input: %s gives a 400 naming the problem", async (_name, body) => {
    const res = await post("/api/search", body);
    expect(res.status).toBe(400);
    expect(res.json.message).toEqual(expect.any(String));
    expect(res.json.code).toMatch(/invalid_request|invalid_dates|invalid_occupancy/);
  });

  it.each([["a*"], ["*a"], ["a-"], ['"a"'], ["a\u0000"], ["  a  *"]])(
    "a name that is one letter once FTS5 syntax is left out (%j) is 400 with the length message",
    async (accommodationName) => {
      const res = await post("/api/search", searchBody({ accommodationName }));
      expect([res.status, res.json.code, res.json.message]).toEqual([
        400,
        "invalid_request",
        "searchCriteria.accommodationName: Too small: expected string to have >=2 characters",
      ]);
    },
  );

  it("malformed JSON is 400, a huge body 413", async () => {
    const malformed = await post("/api/search", undefined, {
      raw: '{"searchCriteria":',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toBe("Malformed JSON in request body");
    const huge = await post("/api/search", searchBody({ accommodationName: "x".repeat(2 * 1024 * 1024) }));
    expect(huge.status).toBe(413);
  });
});

describe("quote: section 7 messages", () => {
  let searched: SearchedOption;
  beforeAll(async () => {
    searched = await searchOne("US000002");
  });

  it.each([
    ["no optionId", { optionId: undefined }, 400, "optionRefId is required"],
    ["an empty optionId", { optionId: "" }, 400, "optionRefId is required"],
    ["a garbage optionId", { optionId: "garbage" }, 400, "Option reference expired or invalid"],
    ["another accommodation", { accommodation: { code: "US000003" } }, 400, "Accommodation code mismatch"],
    ["other dates", { checkOut: inDays(33) }, 400, "Stay dates mismatch"],
    ["another occupancy", { occupancies: [{ paxes: [{ age: 30 }] }] }, 400, "Occupancy details mismatch"],
    [
      "an extra room",
      { occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }, { paxes: [{ age: 30 }] }] },
      400,
      "Occupancy details mismatch",
    ],
  ])("%s: %i %s", async (_name, override, status, message) => {
    const res = await post("/api/quote", quoteBody(searched, override));
    expect(res.status).toBe(status);
    expect(res.json.message).toBe(message);
  });

  it("a forged option (wrong secret) and an expired option: Option reference expired or invalid", async () => {
    const snapshot = {
      partnerId: "demo",
      accommodationCode: "US000002",
      roomCode: "STD",
      ratePlanCode: "STD-RO-FLX",
      checkIn: searched.checkIn,
      checkOut: searched.checkOut,
      rooms: [[30, 30]],
      chargeTotal: 1,
    };
    const forged = await issueOptionId(keyring("not-the-secret"), { ...snapshot, expiresAt: Date.now() + 60_000 });
    const expired = await issueOptionId(keyring(env.PAGE_TOKEN_SECRET), { ...snapshot, expiresAt: Date.now() - 1000 });
    // The signed stay part is the first segment. Flip the first character of its signature: the
    // last one carries padding bits, so changing it may decode to the same bytes.
    const [signedStay, ...rest] = searched.option.id.split("~");
    const [body, signature] = signedStay.split(".");
    const tampered = [`${body}.${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`, ...rest].join("~");
    const pageTokenShaped = await signToken(
      keyring(env.PAGE_TOKEN_SECRET),
      "content-page",
      [4, "demo"],
      Date.now() + 60_000,
    );
    const truncated = searched.option.id.split("~").slice(0, 4).join("~");
    for (const optionId of [forged, expired, tampered, pageTokenShaped, truncated, `${searched.option.id}~extra`]) {
      const res = await post("/api/quote", quoteBody(searched, { optionId }));
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("Option reference expired or invalid");
    }
  });

  it("an option id's unsigned total cannot lower a price: quote re-prices from live inventory", async () => {
    const [signedStay, code, room, plan, total] = searched.option.id.split("~");
    // The total is in whole minor units (cents here): 1 is 0.01.
    const cheaper = [signedStay, code, room, plan, "1"].join("~");
    const lowered = await post("/api/quote", quoteBody(searched, { optionId: cheaper }));
    expect(lowered.status).toBe(400);
    expect(lowered.json.message).toBe("Price changed");
    const dearer = [signedStay, code, room, plan, String(Number(total) * 10)].join("~");
    const raised = await post("/api/quote", quoteBody(searched, { optionId: dearer }));
    expect(raised.status).toBe(200);
    // The id carries the total in whole cents (issue 38); the answer writes it in dollars.
    expect(raised.json.data.rate.chargeTotal).toBe(Number(total) / 100);
  });

  it("an option is good for 24 hours: moving the clock past that expires it", async () => {
    const now = Date.now();
    await expect(
      readOptionId(keyring(env.PAGE_TOKEN_SECRET), searched.option.id, "demo", now + 23 * 3600_000),
    ).resolves.toMatchObject({ accommodationCode: "US000002" });
    await expect(
      readOptionId(keyring(env.PAGE_TOKEN_SECRET), searched.option.id, "demo", now + 24 * 3600_000 + 1000),
    ).rejects.toMatchObject({ status: 400, message: "Option reference expired or invalid" });
  });

  it("an option searched by another partner: Option reference invalid", async () => {
    const theirs = await searchOne("US000002", { apiKey: OTHER_KEY, connection: 2001 });
    const res = await post("/api/quote", quoteBody(theirs));
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Option reference invalid");
  });

  it("an option for a room type the accommodation does not sell: Room is unavailable", async () => {
    const option = await issueOptionId(keyring(env.PAGE_TOKEN_SECRET), {
      partnerId: "demo",
      accommodationCode: "US000002",
      roomCode: "NOPE",
      ratePlanCode: "NOPE-RO-FLX",
      checkIn: searched.checkIn,
      checkOut: searched.checkOut,
      rooms: [[30, 30]],
      chargeTotal: 1,
      expiresAt: Date.now() + 60_000,
    });
    const res = await post("/api/quote", quoteBody(searched, { optionId: option }));
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Room is unavailable");
  });

  it.each([[undefined], ["x"], [2001], [999999], [1003]])(
    "connection code %j: 403 Invalid connection code.",
    async (code) => {
      const body = quoteBody(searched);
      body.settings = { access: { code: code as number } };
      const res = await post("/api/quote", body);
      expect(res.status).toBe(403);
      expect(res.json.message).toBe("Invalid connection code.");
    },
  );

  it("Room is unavailable on a real sell-out and a real stop-sell", async () => {
    const s = await searchOne("US000005");
    const room = s.option.rooms[0].code;
    await env.DB.prepare(
      "insert into room_nights (accommodation_code, room_code, night, allotment, sold) values ('US000005', ?, ?, 3, 3)",
    )
      .bind(room, s.checkIn)
      .run();
    const soldOut = await post("/api/quote", quoteBody(s));
    expect(soldOut.status).toBe(400);
    expect(soldOut.json.message).toBe("Room is unavailable");
    await env.DB.prepare("update room_nights set sold = 0, stop_sell = 1 where accommodation_code = 'US000005'").run();
    const stopped = await post("/api/quote", quoteBody(s));
    expect(stopped.json.message).toBe("Room is unavailable");
    await env.DB.prepare("update room_nights set stop_sell = 0 where accommodation_code = 'US000005'").run();
    expect((await post("/api/quote", quoteBody(s))).status).toBe(200);
  });

  it("Price changed on a real rise beyond 1 %, with both totals; a fall is quoted at the new price", async () => {
    const s = await searchOne("US000006");
    const room = s.option.rooms[0].code;
    await env.DB.prepare(
      "insert into room_nights (accommodation_code, room_code, night, allotment, sold, price_minor) values ('US000006', ?, ?, 5, 0, 500000)",
    )
      .bind(room, s.checkIn)
      .run();
    const risen = await post("/api/quote", quoteBody(s));
    expect(risen.status).toBe(400);
    expect(risen.json.message).toBe("Price changed");
    expect(risen.json.details.previousTotal).toBe(s.option.rate.chargeTotal);
    expect(risen.json.details.currentTotal).toBeGreaterThan(s.option.rate.chargeTotal * 1.01);
    await env.DB.prepare("update room_nights set price_minor = 100 where accommodation_code = 'US000006'").run();
    const fallen = await post("/api/quote", quoteBody(s));
    expect(fallen.status).toBe(200);
    expect(fallen.json.data.rate.chargeTotal).toBeLessThan(s.option.rate.chargeTotal);
  });
});

describe("book: section 7 messages", () => {
  let quote: any;
  beforeAll(async () => {
    quote = await quoteOf(await searchOne("US000007", { pick: (o) => o.isRefundable }));
  });

  it.each([
    ["no quoteId", { quoteId: undefined }, 400, "optionId is required"],
    [
      "an unknown quoteId",
      { quoteId: `qt_${"A".repeat(32)}` },
      400,
      "Quote reference expired or invalid. Please quote again.",
    ],
    ["a malformed quoteId", { quoteId: "whatever" }, 400, "Quote reference expired or invalid. Please quote again."],
    ["another accommodation", { accommodation: { code: "US000008" } }, 400, "Accommodation code mismatch"],
    ["other dates", { checkIn: inDays(29) }, 400, "Stay dates mismatch"],
    [
      "an occupancy without occupancyId",
      { occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }] },
      400,
      "occupancyId is required when providing occupancies",
    ],
    [
      "an occupancy the quote lacks",
      { occupancies: [{ occupancyId: 7, paxes: [{ age: 30 }, { age: 30 }] }] },
      400,
      "Occupancy 7 not found in cached quote",
    ],
    [
      "fewer paxes than quoted",
      { occupancies: [{ occupancyId: 1, paxes: [{ age: 30 }] }] },
      400,
      "Occupancy details mismatch",
    ],
    [
      "a child for an adult",
      { occupancies: [{ occupancyId: 1, paxes: [{ age: 30 }, { age: 5 }] }] },
      400,
      "Occupancy details mismatch",
    ],
    ["no holder", { holder: undefined }, 400, "bookCriteria.holder is required"],
    ["no partnerReference", { partnerReference: undefined }, 400, "bookCriteria.partnerReference is required"],
    // Issue 37: a name of spaces only is no name, wherever a request carries one.
    [
      "a holder name of spaces",
      { holder: { name: "   ", surName: "Lovelace" } },
      400,
      "bookCriteria.holder.name: must not be empty or only spaces",
    ],
    [
      "a holder surName of a tab and a no-break space",
      { holder: { name: "Ada", surName: "\t\u00a0" } },
      400,
      "bookCriteria.holder.surName: must not be empty or only spaces",
    ],
    [
      "a pax name of spaces",
      { occupancies: [{ occupancyId: 1, paxes: [{ age: 30, name: "  " }, { age: 30 }] }] },
      400,
      "bookCriteria.occupancies[0].paxes[0].name: must not be empty or only spaces",
    ],
    [
      "a pax surName of spaces",
      { occupancies: [{ occupancyId: 1, paxes: [{ age: 30 }, { age: 30, surName: " " }] }] },
      400,
      "bookCriteria.occupancies[0].paxes[1].surName: must not be empty or only spaces",
    ],
  ])("%s: %i %s", async (_name, override, status, message) => {
    const res = await post("/api/book", bookBody(quote, `err-${_name}`, override));
    expect(res.status).toBe(status);
    expect(res.json.message).toBe(message);
  });

  it("403 Invalid connection code. for another partner's connection", async () => {
    const res = await post("/api/book", bookBody(quote, "err-conn", {}, 2001));
    expect(res.status).toBe(403);
    expect(res.json.message).toBe("Invalid connection code.");
  });

  it("another partner cannot book my quote", async () => {
    const res = await post("/api/book", bookBody(quote, "err-theirs", {}, 2001), { apiKey: OTHER_KEY });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Quote reference expired or invalid. Please quote again.");
  });

  it("an expired quote (by its own clock, and gone from KV)", async () => {
    const q = await quoteOf(await searchOne("US000009"));
    const store = quoteStore(env.CACHE, database(env.DB));
    const stored = await store.get(q.id, Date.now());
    await store.put(q.id, { ...stored!, expiresAt: Date.now() - 1 });
    const res = await post("/api/book", bookBody(q, "err-expired"));
    expect(res.json.message).toBe("Quote reference expired or invalid. Please quote again.");
    await env.CACHE.delete(`quote:${q.id}`);
    expect((await post("/api/book", bookBody(q, "err-expired"))).json.message).toBe(
      "Quote reference expired or invalid. Please quote again.",
    );
  });

  it("quotes are written with a 30-minute expirationTtl", async () => {
    const q = await quoteOf(await searchOne("US000009"));
    const listed = await env.CACHE.list({ prefix: `quote:${q.id}` });
    const expiration = listed.keys[0]!.expiration!;
    expect(expiration - Date.now() / 1000).toBeGreaterThan(1790);
    expect(expiration - Date.now() / 1000).toBeLessThanOrEqual(1801);
    // Moving the clock: within 30 minutes the quote is there, after them it is not.
    expect(await quoteStore(env.CACHE, database(env.DB)).get(q.id, Date.now() + 29 * 60_000)).not.toBeNull();
    expect(await quoteStore(env.CACHE, database(env.DB)).get(q.id, Date.now() + 30 * 60_000 + 1000)).toBeNull();
  });

  it("Missing rate snapshot, Missing supplier metadata, Accommodation not found", async () => {
    const q = await quoteOf(await searchOne("US000010"));
    const store = quoteStore(env.CACHE, database(env.DB));
    const stored = (await store.get(q.id, Date.now()))!;
    // A stored quote read back is data from outside this request: one without its rate is refused.
    await store.put(q.id, { ...stored, quote: { ...stored.quote, rate: undefined as never } });
    expect((await post("/api/book", bookBody(q, "err-rate"))).json.message).toBe("Missing rate snapshot for booking");
    await store.put(q.id, { ...stored, supplier: undefined });
    expect((await post("/api/book", bookBody(q, "err-supplier"))).json.message).toBe(
      "Missing supplier metadata for booking",
    );
    await store.put(q.id, { ...stored, accommodationCode: "US999999" });
    const gone = await post("/api/book", bookBody(q, "err-gone", { accommodation: { code: "US999999" } }));
    expect(gone.status).toBe(404);
    expect(gone.json.message).toBe("Accommodation not found");
    expect(
      await env.DB.prepare("select count(*) n from bookings where partner_reference like 'err-%'").first("n"),
    ).toBe(0);
  });

  it("a real sell-out between quote and book: 400 The booking was not successful., nothing stored", async () => {
    const q = await quoteOf(await searchOne("US000011"));
    await env.DB.prepare(
      "insert into room_nights (accommodation_code, room_code, night, allotment, sold) values ('US000011', ?, ?, 0, 0)",
    )
      .bind(q.roomCodes[0], inDays(31))
      .run(); // the second night only
    const res = await post("/api/book", bookBody(q, "sold-out"));
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("The booking was not successful.");
    expect(
      await env.DB.prepare("select count(*) n from bookings where partner_reference = 'sold-out'").first("n"),
    ).toBe(0);
    // The rolled-back batch left no night taken.
    expect(
      await env.DB.prepare(
        "select coalesce(sum(sold), 0) s from room_nights where accommodation_code = 'US000011'",
      ).first("s"),
    ).toBe(0);
  });
});

describe("cancel: section 7 messages", () => {
  const book = async (code: string, ref: string, pick: (o: any) => boolean) => {
    const q = await quoteOf(await searchOne(code, { pick }));
    const res = await post("/api/book", bookBody(q, ref));
    expect(res.status).toBe(200);
    return res.json.data.bookingReference as string;
  };

  it.each([
    ["no reference object", { input: {}, settings: { access: { code: 1001 } } }],
    ["no bookingReference", cancelBody(undefined)],
    ["an empty bookingReference", cancelBody("")],
  ])("%s: 400 bookingReference is required for cancellation", async (_name, body) => {
    const res = await post("/api/cancel", body);
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("bookingReference is required for cancellation");
  });

  it("404 for an unknown reference, 403 for a bad connection code", async () => {
    const missing = await post("/api/cancel", cancelBody("BKNOPE"));
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe("Booking not found with bookingReference: BKNOPE");
    const badCode = await post("/api/cancel", cancelBody("BKNOPE", 2001));
    expect(badCode.status).toBe(403);
    expect(badCode.json.message).toBe("Invalid connection code.");
  });

  it("non-refundable, missing policy, after check-in, and a status other than success", async () => {
    // Find an accommodation that sells a non-refundable plan.
    let nrfRef: string | null = null;
    for (let n = 13; n <= 30 && !nrfRef; n++) {
      const code = `US0000${String(n).padStart(2, "0")}`;
      nrfRef = await book(code, `cx-nrf-${n}`, (o) => !o.isRefundable).catch(() => null);
    }
    expect(nrfRef).not.toBeNull();
    const nrf = await post("/api/cancel", cancelBody(nrfRef));
    expect(nrf.status).toBe(400);
    expect(nrf.json.message).toBe("This booking is not refundable according to the cancellation policy");

    const ref = await book("US000014", "cx-policy", (o) => o.isRefundable);
    await env.DB.prepare("update bookings set cancel_policy = null where reference = ?").bind(ref).run();
    const noPolicy = await post("/api/cancel", cancelBody(ref));
    expect(noPolicy.json.message).toBe("Cancellation policy not found for this booking");

    await env.DB.prepare("update bookings set check_in = ?, check_out = ? where reference = ?")
      .bind(inDays(-1), inDays(1), ref)
      .run();
    const late = await post("/api/cancel", cancelBody(ref));
    expect(late.status).toBe(400);
    expect(late.json.message).toBe("This booking can no longer be cancelled after the check-in date");

    await env.DB.prepare("update bookings set status = 'cancelled' where reference = ?").bind(ref).run();
    const status = await post("/api/cancel", cancelBody(ref));
    expect(status.json.message).toBe("Booking cannot be cancelled. Current status: cancelled");
  });
});

describe("quote store", () => {
  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 20 });
  });

  const INVALID = "Quote reference expired or invalid. Please quote again.";

  /** What another location sees before KV has replicated the quote: no KV entry at all. */
  const missInKv = (quoteId: string) => env.CACHE.delete(`quote:${quoteId}`);

  const storedRow = (quoteId: string) =>
    env.DB.prepare("SELECT partner_id, expires_at, body FROM quotes WHERE id = ?")
      .bind(quoteId)
      .first<{ partner_id: string; expires_at: number; body: string }>();

  describe("quotes survive a KV miss (D1 copy)", () => {
    it("quote writes the same quote to KV and D1, expiring together", async () => {
      const before = Date.now();
      const q = await quoteOf(await searchOne("US000002"));
      const row = await storedRow(q.id);
      expect(row).not.toBeNull();
      expect(row!.partner_id).toBe("demo");
      expect(row!.expires_at).toBeGreaterThanOrEqual(before + QUOTE_TTL_SECONDS * 1000);
      expect(row!.expires_at).toBeLessThanOrEqual(Date.now() + QUOTE_TTL_SECONDS * 1000);
      expect(JSON.parse(row!.body)).toEqual(await env.CACHE.get(`quote:${q.id}`, "json"));
    });

    it("books at the quoted price when KV has no entry, even after the inventory price moved", async () => {
      const q = await quoteOf(await searchOne("US000003", { pick: (o) => o.isRefundable }));
      const stored = JSON.parse((await storedRow(q.id))!.body) as StoredQuote;
      await missInKv(q.id);
      expect(await env.CACHE.get(`quote:${q.id}`)).toBeNull();
      // The hotel raises the price of that rate plan after the quote: the booking keeps the quoted price.
      for (const night of [inDays(30), inDays(31)]) {
        await env.DB.prepare(
          "INSERT INTO rate_plan_nights (accommodation_code, rate_plan_code, night, stop_sell, price_minor) VALUES (?, ?, ?, 0, 99900)",
        )
          .bind("US000003", stored.supplier!.ratePlanCode, night)
          .run();
      }
      const res = await post("/api/book", bookBody(q, "lag-1"));
      expect(res.status).toBe(200);
      expect(res.json.data.status).toBe("success");
      expect(res.json.data.chargeTotal).toBe(q.rate.chargeTotal);
      const read = await call("GET", `/api/bookings/${res.json.data.bookingReference}`);
      expect(read.status).toBe(200);
      expect(read.json.data.bookingReference ?? read.json.data.reference).toBe(res.json.data.bookingReference);
      expect(
        await env.DB.prepare("SELECT charge_total FROM bookings WHERE reference = ?")
          .bind(res.json.data.bookingReference)
          .first("charge_total"),
      ).toBe(toMinor(q.rate.chargeTotal, q.rate.currency));
    });

    it("a quote is kept as version 2 in integers; one kept as version 1 (the public quote, major units) still books at its price (issue 38)", async () => {
      const q = await quoteOf(
        await searchOne("US000009", { occupancies: [{ paxes: [{ age: 30 }] }, { paxes: [{ age: 30 }] }] }),
      );
      const body = JSON.parse((await storedRow(q.id))!.body) as StoredQuote;
      expect(body.v).toBe(2);
      expect(body.quote.rate!.chargeTotal).toBe(toMinor(q.rate.chargeTotal, q.rate.currency));
      expect(body.quote.cancelPolicy!.cancelPenalties[0]!.value).toBe(
        toMinor(q.cancelPolicy.cancelPenalties[0].value, q.rate.currency),
      );
      // As the code before issue 38 kept it: the whole public quote, amounts in major units, in both copies.
      const v1 = JSON.stringify({ ...body, v: 1, quote: q });
      await env.CACHE.put(`quote:${q.id}`, v1);
      await env.DB.prepare("UPDATE quotes SET body = ? WHERE id = ?").bind(v1, q.id).run();
      const res = await post("/api/book", bookBody(q, "lag-quote-v1"));
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.rate).toEqual(q.rate);
      const read = (await call("GET", `/api/bookings/${res.json.data.bookingReference}`)).json.data;
      expect(read.rate).toEqual(q.rate);
      expect(read.cancelPolicy).toEqual(q.cancelPolicy);
      expect(read.rooms.map((r: { rate: unknown }) => r.rate)).toEqual(q.rooms.map((r: { rate: unknown }) => r.rate));
      const row = await env.DB.prepare("SELECT charge_total, rate FROM bookings WHERE reference = ?")
        .bind(res.json.data.bookingReference)
        .first<{ charge_total: number; rate: string }>();
      expect(row!.charge_total).toBe(toMinor(q.rate.chargeTotal, q.rate.currency));
      expect(JSON.parse(row!.rate)).toMatchObject({ v: 2, chargeTotal: row!.charge_total });
    });

    it("an altered quote id is refused, with and without a KV entry", async () => {
      const q = await quoteOf(await searchOne("US000004"));
      const last = q.id.at(-1) === "A" ? "B" : "A";
      const altered = { ...q, id: q.id.slice(0, -1) + last };
      expect((await post("/api/book", bookBody(altered, "lag-altered-1"))).json.message).toBe(INVALID);
      await missInKv(q.id);
      const res = await post("/api/book", bookBody(altered, "lag-altered-2"));
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(INVALID);
      expect(
        await env.DB.prepare("SELECT count(*) n FROM bookings WHERE partner_reference LIKE 'lag-altered-%'").first("n"),
      ).toBe(0);
    });

    it("an expired quote is refused when only its D1 row is left", async () => {
      const q = await quoteOf(await searchOne("US000005"));
      await missInKv(q.id);
      // By the row's expiry alone (the body's clock still says valid) ...
      await env.DB.prepare("UPDATE quotes SET expires_at = ? WHERE id = ?")
        .bind(Date.now() - 1, q.id)
        .run();
      const res = await post("/api/book", bookBody(q, "lag-expired"));
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(INVALID);
      // ... and by the body's own clock alone.
      const store = quoteStore(env.CACHE, database(env.DB));
      const body = JSON.parse((await storedRow(q.id))!.body) as StoredQuote;
      await env.DB.prepare("UPDATE quotes SET expires_at = ?, body = ? WHERE id = ?")
        .bind(Date.now() + 60_000, JSON.stringify({ ...body, expiresAt: Date.now() - 1 }), q.id)
        .run();
      expect(await store.get(q.id, Date.now())).toBeNull();
      expect((await post("/api/book", bookBody(q, "lag-expired"))).json.message).toBe(INVALID);
    });

    it("the store answers by its clock from D1 too: present for 30 minutes, then gone", async () => {
      const q = await quoteOf(await searchOne("US000006"));
      await missInKv(q.id);
      const store = quoteStore(env.CACHE, database(env.DB));
      expect((await store.get(q.id, Date.now() + 29 * 60_000))?.quote.id).toBe(q.id);
      expect(await store.get(q.id, Date.now() + 30 * 60_000 + 1000)).toBeNull();
    });

    it("a stored quote that does not decode is logged by its id and refused as invalid; nothing is booked (issue 38)", async () => {
      const q = await quoteOf(await searchOne("US000008"));
      const body = JSON.parse((await storedRow(q.id))!.body);
      // A charge without its amount, in both copies: decoded with zod, never trusted after two fields.
      const damaged = JSON.stringify({
        ...body,
        quote: { ...body.quote, rate: { ...body.quote.rate, charges: [{ type: "TAX", code: "X" }] } },
      });
      await env.CACHE.put(`quote:${q.id}`, damaged);
      await env.DB.prepare("UPDATE quotes SET body = ? WHERE id = ?").bind(damaged, q.id).run();
      const logged = expectLogs("error");
      const res = await post("/api/book", bookBody(q, "lag-damaged"));
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(INVALID);
      const lines = logged.map((line) => JSON.parse(line));
      expect(lines).toContainEqual({
        level: "error",
        event: "stored_quote_damaged",
        error: expect.stringMatching(
          new RegExp(`^stored quote ${q.id} does not decode: quote\\.rate\\.charges\\.0\\.description: `),
        ),
      });
      expect(
        await env.DB.prepare("SELECT count(*) n FROM bookings WHERE partner_reference = 'lag-damaged'").first("n"),
      ).toBe(0);
    });

    it("another partner cannot book my quote from the D1 copy", async () => {
      const q = await quoteOf(await searchOne("US000007"));
      await missInKv(q.id);
      const res = await post("/api/book", bookBody(q, "lag-theirs", {}, 2001), { apiKey: OTHER_KEY });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(INVALID);
      expect(
        await env.DB.prepare("SELECT count(*) n FROM bookings WHERE partner_reference = 'lag-theirs'").first("n"),
      ).toBe(0);
    });
  });

  describe("upkeep: expired-quotes", () => {
    it("deletes only rows past their expiry and says how many", async () => {
      const base = Date.UTC(2030, 0, 1);
      const put = (id: string, expiresAt: number) =>
        env.DB.prepare("INSERT INTO quotes (id, partner_id, expires_at, body) VALUES (?, 'demo', ?, '{}')")
          .bind(id, expiresAt)
          .run();
      await put("qt_upkeep_old_1", base - 60_000);
      await put("qt_upkeep_old_2", base);
      await put("qt_upkeep_live", base + 1);
      const live = await env.DB.prepare("SELECT count(*) n FROM quotes WHERE expires_at > ?")
        .bind(base)
        .first<number>("n");
      const expired = await env.DB.prepare("SELECT count(*) n FROM quotes WHERE expires_at <= ?")
        .bind(base)
        .first<number>("n");

      expect(expiredQuotes.name).toBe("expired-quotes");
      const removed = await expiredQuotes.run(env, new Date(base));
      // Real quotes made by other tests of this file expire 30 minutes from now, before 2030: they go too.
      expect(removed).toBe(expired);
      expect(removed).toBeGreaterThanOrEqual(2);
      expect(await env.DB.prepare("SELECT count(*) n FROM quotes").first<number>("n")).toBe(live);
      expect(
        await env.DB.prepare("SELECT id FROM quotes WHERE id LIKE 'qt_upkeep_%'")
          .all()
          .then((r) => r.results.map((x) => x.id)),
      ).toEqual(["qt_upkeep_live"]);
      expect(await expiredQuotes.run(env, new Date(base))).toBe(0);
    });
  });
});

describe("upstream option ids kept by a search", () => {
  // KV at another location, not caught up with the write (local KV cannot lag): it has nothing.
  const lagging = { get: async () => null } as unknown as KVNamespace;
  /** The real KV, its writes held until the test lets them land: writes still in flight. */
  const heldWrites = () => {
    let land!: () => void;
    const landed = new Promise<void>((resolve) => (land = resolve));
    const kv = {
      put: async (...args: Parameters<KVNamespace["put"]>) => {
        await landed;
        return env.CACHE.put(...args);
      },
    } as unknown as KVNamespace;
    return { kv, land };
  };

  it("a quote this isolate serves reads them before KV has them; once written, from KV only", async () => {
    const optionId = `5.${crypto.randomUUID()}.sig~US000001~STD~STD-RO-FLX~12345`;
    const searched = {
      optionId,
      supplier: "iberbeds",
      accommodationCode: "US000001",
      offer: {
        ratePlanCode: "STD-RO-FLX",
        rate: { chargeTotal: 12345 },
        paymentType: "MerchantPay",
        upstreamOptionId: "their-option",
        upstreamAccessCode: "ibb-es-01",
      } as Offer,
    };
    const option = {
      accommodationCode: "US000001",
      ratePlanCode: "STD-RO-FLX",
      chargeTotal: 12345,
      supplier: "iberbeds",
    };
    const { kv: inFlight, land } = heldWrites();
    const { written } = await rememberUpstreamOptions(inFlight, [searched]);
    const kept = { upstreamOptionId: "their-option", upstreamAccessCode: "ibb-es-01" };
    expect(await upstreamOptionOf(lagging, optionId, option)).toEqual(kept);
    land();
    await written;
    // Settled: the isolate lets them go, and KV answers.
    expect(await upstreamOptionOf(lagging, optionId, option)).toEqual({});
    expect(await upstreamOptionOf(env.CACHE, optionId, option)).toEqual(kept);
  });

  it("writes that hang keep at most UNSETTLED_LIMIT searches in memory; past it a quote finds nothing until KV has it", async () => {
    const { kv: hanging, land } = heldWrites();
    const searchOf = (n: number) => {
      const optionId = `5.${crypto.randomUUID()}.sig~US000001~STD~STD-RO-FLX~${n}`;
      const offer = {
        ratePlanCode: "STD-RO-FLX",
        rate: { chargeTotal: n },
        paymentType: "MerchantPay",
        upstreamOptionId: `their-${n}`,
      } as Offer;
      const option = { accommodationCode: "US000001", ratePlanCode: "STD-RO-FLX", chargeTotal: n, supplier: "albion" };
      return { searched: { optionId, supplier: "albion", accommodationCode: "US000001", offer }, option };
    };
    const searches = Array.from({ length: UNSETTLED_LIMIT + 1 }, (_, i) => searchOf(i + 1));
    const writes = [];
    for (const { searched } of searches) writes.push((await rememberUpstreamOptions(hanging, [searched])).written);
    const found = async ({ searched, option }: (typeof searches)[number]) =>
      upstreamOptionOf(lagging, searched.optionId, option);
    expect(await found(searches[0]!)).toEqual({ upstreamOptionId: "their-1" });
    expect(await found(searches.at(-1)!)).toEqual({});
    land();
    await Promise.all(writes);
    // Every one reached KV all the same.
    const last = searches.at(-1)!;
    expect(await upstreamOptionOf(env.CACHE, last.searched.optionId, last.option)).toEqual({
      upstreamOptionId: `their-${UNSETTLED_LIMIT + 1}`,
    });
  });
});
