import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { keyring } from "../../platform/crypto/keyring";
import { signToken } from "../../platform/crypto/signed-token";
import { call, OTHER_KEY, post } from "../../../test/support/api";
import { eq } from "drizzle-orm";
import { database } from "../../platform/db/client";
import { minorUnitDigits } from "../../platform/money";
import { bookingColumns, bookingRecord } from "./record";
import { bookings, type RawBooking } from "./tables";
import { bookingPageQuery } from "./booking-list";
import { bookBody, OTHER_CODE, quoteBody, quoteOf, searchOne } from "../../../test/support/booking";
import { queryPlan } from "../../../test/support/query-plan";
import { expectLogs } from "../../../test/support/expected-logs";
import { bearer, createUser, demoAdminToken, loginAs } from "../../../test/support/sessions";
import { inDays } from "../../../test/support/clock";
import { cancelBooking } from "./cancel";
import { bookingDeps } from "./deps";
import { policyJson, rateJson, storedRoomsJson } from "./wire";

const PATH = "/api/bookings";

/**
 * A copy of a real booking row with other identity, time, stay or status: fixtures with distinct
 * createdAt. Not of the source's quote: a quote books once (bookings.quote_id is unique).
 */
const cloneBooking = async (source: RawBooking, overrides: Partial<RawBooking>) => {
  const row = { ...source, quote_id: null, ...overrides };
  const columns = Object.keys(row);
  await env.DB.prepare(`INSERT INTO bookings (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
    .bind(...columns.map((c) => row[c as keyof RawBooking]))
    .run();
};

const hour = (h: number) => new Date(Date.UTC(2026, 9, 1, 10 + h)).toISOString(); // 2026-10-01T10:00Z + h hours

let real: { reference: string; createdAt: string; checkIn: string };
let otherReal: string;
/** Demo partner's bookings, newest first, as the list must serve them. */
let expected: string[];
const fixture: { reference: string; createdAt: string; checkIn: string; status: "success" | "cancelled" }[] = [];

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 10 });
  const booked = await post(
    "/api/book",
    bookBody(await quoteOf(await searchOne("US000001", { pick: (o) => o.isRefundable })), "recon-real"),
  );
  expect(booked.status).toBe(200);
  const source = (await env.DB.prepare("SELECT * FROM bookings WHERE reference = ?")
    .bind(booked.json.data.bookingReference)
    .first<RawBooking>())!;
  real = { reference: source.reference, createdAt: source.created_at, checkIn: source.check_in };

  const otherQuote = await post(
    "/api/quote",
    quoteBody(await searchOne("US000002", { apiKey: OTHER_KEY, connection: OTHER_CODE }), {}, OTHER_CODE),
    { apiKey: OTHER_KEY },
  );
  const other = await post("/api/book", bookBody(otherQuote.json.data, "recon-other", {}, OTHER_CODE), {
    apiKey: OTHER_KEY,
  });
  expect(other.status).toBe(200);
  otherReal = other.json.data.bookingReference;
  const otherSource = (await env.DB.prepare("SELECT * FROM bookings WHERE reference = ?")
    .bind(otherReal)
    .first<RawBooking>())!;

  // 12 demo bookings an hour apart; 7 and 8 share a createdAt (the reference breaks the tie), every third is cancelled.
  for (let i = 0; i < 12; i++) {
    const f = {
      reference: `BKRECON${String(i).padStart(2, "0")}`,
      createdAt: hour(i === 8 ? 7 : i),
      checkIn: `2027-01-${String(1 + i).padStart(2, "0")}`,
      status: (i % 3 === 2 ? "cancelled" : "success") as "success" | "cancelled",
    };
    fixture.push(f);
    await cloneBooking(source, {
      reference: f.reference,
      partner_reference: `recon-${i}`,
      created_at: f.createdAt,
      check_in: f.checkIn,
      status: f.status,
    });
    // The other partner's bookings interleave in time: they must never show up.
    await cloneBooking(otherSource, {
      reference: `BKOTHER${String(i).padStart(2, "0")}`,
      partner_reference: `other-${i}`,
      created_at: f.createdAt,
      check_in: f.checkIn,
    });
  }
  const byNewest = [...fixture].sort((a, b) =>
    a.createdAt === b.createdAt ? b.reference.localeCompare(a.reference) : b.createdAt.localeCompare(a.createdAt),
  );
  expected = [real.reference, ...byNewest.map((f) => f.reference)];
});

const refs = (res: { json: any }) =>
  res.json.data.bookings.map((b: { bookingReference: string }) => b.bookingReference);
const list = (query = "", apiKey?: string) => call("GET", `${PATH}${query ? `?${query}` : ""}`, undefined, { apiKey });

/** Follows nextCursor to the end; returns every reference and the page sizes. */
const walk = async (query: string) => {
  const served: string[] = [];
  const sizes: number[] = [];
  let res = await list(query);
  for (;;) {
    expect(res.status).toBe(200);
    served.push(...refs(res));
    sizes.push(res.json.data.bookings.length);
    if (res.json.data.nextCursor === null) return { served, sizes };
    res = await list(`${query}&cursor=${encodeURIComponent(res.json.data.nextCursor)}`);
  }
};

describe("GET /api/bookings: the reconciliation list", () => {
  it("lists the partner's bookings newest first, in the booking read's shape, with a null cursor on the last page", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("success");
    expect(refs(res)).toEqual(expected);
    expect(res.json.data.nextCursor).toBeNull();
    const read = await call("GET", `${PATH}/${real.reference}`);
    expect(res.json.data.bookings[0]).toEqual(read.json.data);
    // The tie: same createdAt, the greater reference first.
    expect(expected.indexOf("BKRECON08")).toBe(expected.indexOf("BKRECON07") - 1);
  });

  it.each([1, 2, 5, 13, 200])(
    "pages with limit %i without duplicates or gaps, the tie split across pages included",
    async (limit) => {
      const { served, sizes } = await walk(`limit=${limit}`);
      expect(served).toEqual(expected);
      expect(sizes.slice(0, -1).every((n) => n === limit)).toBe(true);
      expect(sizes.at(-1)).toBe(expected.length - limit * (sizes.length - 1));
    },
  );

  it("a booking made while paging does not shift the pages that follow", async () => {
    const first = await list("limit=4");
    await cloneBooking(
      (await env.DB.prepare("SELECT * FROM bookings WHERE reference = ?").bind(real.reference).first<RawBooking>())!,
      {
        reference: "BKRECONNEW",
        partner_reference: "recon-new",
        created_at: new Date(Date.parse(real.createdAt) + 1000).toISOString(),
      },
    );
    try {
      const second = await list(`limit=4&cursor=${encodeURIComponent(first.json.data.nextCursor)}`);
      expect([...refs(first), ...refs(second)]).toEqual(expected.slice(0, 8));
    } finally {
      await env.DB.prepare("DELETE FROM bookings WHERE reference = 'BKRECONNEW'").run();
    }
  });

  const only = (pick: (f: (typeof fixture)[number]) => boolean) => [...fixture].filter(pick).map((f) => f.reference);
  const ordered = (wanted: string[]) => expected.filter((r) => wanted.includes(r));

  it.each([
    ["createdFrom as a date (from its start)", "createdFrom=2026-10-01", () => expected],
    [
      "createdFrom as a datetime, inclusive",
      `createdFrom=${encodeURIComponent(hour(9))}`,
      () => [real.reference, ...ordered(only((f) => f.createdAt >= hour(9)))],
    ],
    [
      "createdFrom with an offset",
      `createdFrom=${encodeURIComponent("2026-10-01T21:00:00+02:00")}`,
      () => [real.reference, ...ordered(only((f) => f.createdAt >= hour(9)))],
    ],
    [
      "createdTo as a datetime, inclusive",
      `createdTo=${encodeURIComponent(hour(2))}`,
      () => ordered(only((f) => f.createdAt <= hour(2))),
    ],
    ["createdTo as a date (to its end)", "createdTo=2026-10-01", () => ordered(only(() => true))],
    ["createdTo the day before", "createdTo=2026-09-30", () => []],
    [
      "checkInFrom",
      "checkInFrom=2027-01-10",
      () => [
        ...(real.checkIn >= "2027-01-10" ? [real.reference] : []),
        ...ordered(only((f) => f.checkIn >= "2027-01-10")),
      ],
    ],
    [
      "checkInTo",
      "checkInTo=2027-01-03",
      () => [
        ...(real.checkIn <= "2027-01-03" ? [real.reference] : []),
        ...ordered(only((f) => f.checkIn <= "2027-01-03")),
      ],
    ],
    ["status cancelled", "status=cancelled", () => ordered(only((f) => f.status === "cancelled"))],
    ["status success", "status=success", () => [real.reference, ...ordered(only((f) => f.status === "success"))]],
    [
      "all together",
      `createdFrom=${encodeURIComponent(hour(1))}&createdTo=${encodeURIComponent(hour(10))}&checkInFrom=2027-01-03&checkInTo=2027-01-11&status=success`,
      () =>
        ordered(
          only(
            (f) =>
              f.createdAt >= hour(1) &&
              f.createdAt <= hour(10) &&
              f.checkIn >= "2027-01-03" &&
              f.checkIn <= "2027-01-11" &&
              f.status === "success",
          ),
        ),
    ],
  ])("filters by %s", async (_name, query, want) => {
    const res = await list(query);
    expect(res.status).toBe(200);
    const wanted = want();
    expect(refs(res)).toEqual(wanted);
    if (query !== "createdFrom=2026-10-01") expect(wanted.length).toBeLessThan(expected.length);
  });

  it("pages a filtered list, keeping the filters in the cursor", async () => {
    const { served } = await walk("status=success&limit=2");
    expect(served).toEqual(
      expected.filter((r) => r === real.reference || fixture.find((f) => f.reference === r)?.status === "success"),
    );
    // Filters left out of a later call are taken from the cursor.
    const first = await list("status=cancelled&limit=2");
    const next = await list(`limit=2&cursor=${encodeURIComponent(first.json.data.nextCursor)}`);
    expect([...refs(first), ...refs(next)]).toEqual(ordered(only((f) => f.status === "cancelled")));
  });

  it("reads the list from the index, newest first, without sorting", async () => {
    const { sql, params } = bookingPageQuery(
      "demo",
      { createdFrom: null, createdTo: null, checkInFrom: null, checkInTo: null, status: "success" },
      { createdAt: hour(5), reference: "BKRECON05" },
      51,
    );
    const details = await queryPlan({ sql, params });
    expect(details).toMatch(/USING INDEX bookings_partner_created/);
    expect(details).not.toMatch(/TEMP B-TREE/);
  });
});

describe("GET /api/bookings: bad input and cursors", () => {
  it.each([
    ["limit=0", "limit: Too small: expected number to be >=1"],
    ["limit=201", "limit: Too big: expected number to be <=200"],
    ["limit=abc", "limit: Invalid input: expected number, received NaN"],
    ["limit=2.5", "limit: Invalid input: expected int, received number"],
    ["createdFrom=yesterday", "createdFrom: expected a date YYYY-MM-DD or an ISO 8601 datetime with a zone"],
    ["createdTo=2026-02-30", "createdTo: expected a date YYYY-MM-DD or an ISO 8601 datetime with a zone"],
    ["createdFrom=2026-10-01T10:00:00", "createdFrom: expected a date YYYY-MM-DD or an ISO 8601 datetime with a zone"],
    ["checkInFrom=2027-01-01T00:00:00Z", "checkInFrom: expected a date YYYY-MM-DD"],
    ["checkInTo=2027-13-01", "checkInTo: expected a date YYYY-MM-DD"],
    ["status=pending", 'status: Invalid option: expected one of "success"|"cancelled"'],
    ["partnerReference=recon-0&status=success", "partnerReference cannot be combined with status"],
  ])("%s: 400 naming the field", async (query, message) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(message);
    expect(res.json.data).toBeUndefined();
  });

  it("accepts the limits 1 and 200", async () => {
    expect(refs(await list("limit=1"))).toEqual(expected.slice(0, 1));
    expect(refs(await list("limit=200"))).toEqual(expected);
  });

  it("refuses a malformed, tampered or foreign-signed cursor with 400 Invalid cursor", async () => {
    const cursor = (await list("limit=2")).json.data.nextCursor as string;
    const [body, signature] = cursor.split(".") as [string, string];
    const tampered = `${body}.${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`;
    const contentToken = (await post("/api/v1/content/accommodations", { size: 1 })).json.data.nextPageToken as string;
    // The right payload and secret under another purpose's key.
    const unsignedKey = await signToken(
      keyring(env.PAGE_TOKEN_SECRET),
      "content-page",
      { v: 1, p: "demo", f: {}, c: hour(0), r: "BKRECON00" },
      null,
    );
    for (const bad of ["garbage", "a.b.c", tampered, contentToken, unsignedKey]) {
      const res = await list(`cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ message: "Invalid cursor", code: "invalid_cursor" });
    }
  });

  it("refuses another partner's cursor with 400 and no data", async () => {
    const theirs = (await list("limit=2", OTHER_KEY)).json.data.nextCursor as string;
    expect(theirs).toEqual(expect.any(String));
    const res = await list(`cursor=${encodeURIComponent(theirs)}`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      message: "cursor does not belong to the current partner",
      code: "cursor_partner",
    });
    expect(res.json.data).toBeUndefined();
  });

  it.each([
    ["status=success", "status=cancelled", "status in query must match status in cursor"],
    ["", "status=success", "status in query must match status in cursor"],
    ["createdFrom=2026-10-01", "createdFrom=2026-10-02", "createdFrom in query must match createdFrom in cursor"],
    ["checkInTo=2027-01-20", "checkInTo=2027-01-19", "checkInTo in query must match checkInTo in cursor"],
  ])("a cursor issued for %j and sent with %j: 400 %s", async (bound, sent, message) => {
    const cursor = (await list(`limit=2${bound ? `&${bound}` : ""}`)).json.data.nextCursor as string;
    const res = await list(`limit=2&${sent}&cursor=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ message, code: "cursor_mismatch" });
  });

  it("accepts the same filters written another way (a date and its datetime)", async () => {
    const cursor = (await list("limit=2&createdFrom=2026-10-01")).json.data.nextCursor as string;
    const res = await list(
      `limit=2&createdFrom=${encodeURIComponent("2026-10-01T00:00:00Z")}&cursor=${encodeURIComponent(cursor)}`,
    );
    expect(res.status).toBe(200);
    expect(refs(res)).toEqual(expected.slice(2, 4));
  });
});

describe("GET /api/bookings: partners and the partnerReference read", () => {
  it("another partner lists only its own bookings, never the demo partner's", async () => {
    const { served } = await (async () => {
      const all: string[] = [];
      let res = await list("limit=5", OTHER_KEY);
      for (;;) {
        all.push(...refs(res));
        if (!res.json.data.nextCursor) return { served: all };
        res = await list(`limit=5&cursor=${encodeURIComponent(res.json.data.nextCursor)}`, OTHER_KEY);
      }
    })();
    expect(served).toHaveLength(13);
    expect(served).toContain(otherReal);
    expect(served.every((r) => r === otherReal || r.startsWith("BKOTHER"))).toBe(true);
    expect(
      (await list()).json.data.bookings.some(
        (b: any) => b.bookingReference.startsWith("BKOTHER") || b.bookingReference === otherReal,
      ),
    ).toBe(false);
  });

  it("still finds one booking by partnerReference (404 for another partner's)", async () => {
    const res = await list("partnerReference=recon-real");
    expect(res.status).toBe(200);
    expect(res.json.data.bookingReference).toBe(real.reference);
    const foreign = await list("partnerReference=recon-other");
    expect(foreign.status).toBe(404);
    expect(foreign.json.message).toBe("Booking not found with partnerReference: recon-other");
  });

  it("401 without an API key", async () => {
    const res = await call("GET", PATH, undefined, { apiKey: null });
    expect(res.status).toBe(401);
    expect(res.json.message).toBe("API key is required");
  });

  it("is described in /openapi.json with every list parameter", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    const names = doc.paths["/api/bookings"].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "partnerReference",
        "createdFrom",
        "createdTo",
        "checkInFrom",
        "checkInTo",
        "status",
        "limit",
        "cursor",
      ]),
    );
    expect(doc.components.schemas.BookingList).toBeDefined();
  });
});

describe("a booking made before rates were itemized (issue 27)", () => {
  it("is read, listed and previewed with a breakdown derived from its stored totals, to the cent", async () => {
    const source = (await env.DB.prepare("SELECT * FROM bookings WHERE reference = ?")
      .bind(real.reference)
      .first<RawBooking>())!;
    const old = { currency: "USD", baseRate: 200.02, taxesAndFees: 24, chargeTotal: 224.02 };
    const exchange = { currency: "USD", rate: 1 };
    await cloneBooking(source, {
      reference: "BKOLDRATE01",
      partner_reference: "recon-old-rate",
      created_at: hour(-48),
      check_in: "2027-05-01",
      check_out: "2027-05-04",
      charge_total: 22402,
      rate: JSON.stringify({ ...old, exchange }),
      rooms: JSON.stringify([{ occupancyRefId: 1, code: "STD", description: "Standard Queen Room", rate: old }]),
    });
    const expected = {
      ...old,
      charges: [{ type: "TAX", code: "TAXES_AND_FEES", description: "Taxes and fees", amount: 24, included: true }],
      dueAtProperty: { amount: 0, currency: "USD", charges: [] },
      totalStayPrice: 224.02,
      // 200.02 over three nights by largest remainder: the odd cent on the first night.
      nights: [
        { date: "2027-05-01", baseRate: 66.68, taxesAndFees: 8 },
        { date: "2027-05-02", baseRate: 66.67, taxesAndFees: 8 },
        { date: "2027-05-03", baseRate: 66.67, taxesAndFees: 8 },
      ],
    };
    const read = (await call("GET", "/api/bookings/BKOLDRATE01")).json.data;
    expect(read.rate).toEqual({ ...expected, exchange });
    expect(read.rooms[0].rate).toEqual(expected);
    const listed = (await call("GET", `${PATH}?partnerReference=recon-old-rate`)).json.data;
    expect(listed.rate).toEqual({ ...expected, exchange });
    const preview = await call("GET", "/api/bookings/BKOLDRATE01/cancellation?at=2027-01-01T00:00:00Z");
    expect(preview.json.data.rate).toEqual({ ...expected, exchange });
  });
});

describe("a booking row is decoded once, into its record (issue 38)", () => {
  const rowOf = async (reference: string) =>
    (await database(env.DB).select().from(bookings).where(eq(bookings.reference, reference)).get())!;

  it("decodes a stored row and encodes it back to the very text stored (the answers built from it are unchanged)", async () => {
    const row = await rowOf(real.reference);
    const record = bookingRecord(row);
    expect(record.chargeTotalMinor).toBe(row.chargeTotal);
    expect(Number.isInteger(record.chargeTotalMinor)).toBe(true);
    expect(record.holder).toEqual({ name: expect.any(String), surName: expect.any(String) });
    const { rate, rooms, cancelPolicy, holder, occupancies, paymentCard, chargeTotal } = bookingColumns(record);
    expect({ rate, rooms, cancelPolicy, holder, occupancies, paymentCard, chargeTotal }).toEqual({
      rate: row.rate,
      rooms: row.rooms,
      cancelPolicy: row.cancelPolicy,
      holder: row.holder,
      occupancies: row.occupancies,
      paymentCard: row.paymentCard,
      chargeTotal: row.chargeTotal,
    });
  });

  it("the migration to minor units used the digits this runtime answers, for every currency it knows", () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.includes("booking_money_minor"))!;
    const fill = migration.queries.find((q) => q.includes("INSERT INTO `__new_bookings`"))!;
    const listed = (scale: number) =>
      new Set(
        new RegExp(`IN \\(([^)]*)\\) THEN ${scale} `)
          .exec(fill)![1]!
          .split(",")
          .map((c) => c.trim().replaceAll("'", "")),
      );
    const zero = listed(1);
    const three = listed(1000);
    const currencies = Intl.supportedValuesOf("currency");
    expect(currencies.length).toBeGreaterThan(150);
    const digitsInMigration = (c: string) => (zero.has(c) ? 0 : three.has(c) ? 3 : 2);
    expect(currencies.filter((c) => minorUnitDigits(c) !== digitsInMigration(c))).toEqual([]);
    expect([...zero, ...three].filter((c) => !currencies.includes(c))).toEqual([]);
  });

  it("a damaged row is a 500 with no part of the booking, and its error names the booking and column", async () => {
    const source = (await env.DB.prepare("SELECT * FROM bookings WHERE reference = ?")
      .bind(real.reference)
      .first<RawBooking>())!;
    const damaged = [
      [
        "BKDAMAGED01",
        "holder",
        { holder: JSON.stringify({ name: "Ada" }) },
        /^booking BKDAMAGED01: column holder does not decode: surName: /,
      ],
      [
        "BKDAMAGED02",
        "rate",
        { rate: JSON.stringify({ v: 9, amount: 1 }) },
        /^booking BKDAMAGED02: column rate does not decode: unknown format version 9$/,
      ],
      [
        "BKDAMAGED03",
        "occupancies",
        { occupancies: "[{" },
        /^booking BKDAMAGED03: column occupancies does not decode: not JSON$/,
      ],
      [
        "BKDAMAGED04",
        "cancelPolicy",
        { cancel_policy: JSON.stringify({ refundable: "yes", cancelPenalties: [] }) },
        /column cancelPolicy does not decode: refundable: /,
      ],
    ] as const;
    const logged = expectLogs("error");
    try {
      for (const [reference, column, broken, message] of damaged) {
        await cloneBooking(source, { reference, partner_reference: `recon-${reference}`, ...broken });
        const row = await rowOf(reference);
        expect(() => bookingRecord(row)).toThrow(message);
        const read = await call("GET", `${PATH}/${reference}`);
        expect(read.status).toBe(500);
        expect(read.json).toEqual({
          message: "Internal server error",
          code: "internal_error",
          requestId: expect.any(String),
        });
        // The log, keyed by the request id, names the booking and the column.
        expect(JSON.parse(logged.at(-1)!)).toMatchObject({
          level: "error",
          requestId: read.json.requestId,
          error: expect.stringContaining(`DamagedRecord: booking ${reference}: column ${column} does not decode`),
        });
      }
    } finally {
      await env.DB.prepare("DELETE FROM bookings WHERE reference LIKE 'BKDAMAGED%'").run();
    }
  });
});

describe("the console's login token beside the API key (issue 41)", () => {
  let admin: string;
  let user: string;
  beforeAll(async () => {
    admin = await demoAdminToken();
    const { password } = await createUser(admin, "console-user@demo.test");
    user = await loginAs("console-user@demo.test", password);
  });
  const withToken = (token: string, method: string, path: string, body?: unknown) =>
    call(method, path, body, bearer(token));

  it("a user's token reads the list, a booking, its cancellation preview, its change preview and its events as the API key does; never another partner's", async () => {
    for (const path of [
      `${PATH}?limit=5`,
      `${PATH}/${real.reference}`,
      `${PATH}?partnerReference=recon-real`,
      `${PATH}/${real.reference}/cancellation?at=2026-12-01T00:00:00Z`,
    ]) {
      const byKey = await call("GET", path);
      const byToken = await withToken(user, "GET", path);
      expect([path, byToken.status]).toEqual([path, 200]);
      expect(byToken.json.data).toEqual(byKey.json.data);
    }
    const theirs = await withToken(user, "GET", `${PATH}/${otherReal}`);
    expect([theirs.status, theirs.json.code]).toEqual([404, "booking_not_found"]);

    // A change preview changes nothing: any role, through the booking's own connection (no settings.access).
    const preview = await withToken(user, "POST", `${PATH}/${real.reference}/modifications/preview`, {
      change: { holder: { name: "Grace", surName: "Hopper" } },
      settings: {},
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.data.booking.holder).toMatchObject({ name: "Grace", surName: "Hopper" });

    // GET /api/events, and its bookingReference filter: that booking's events only, in the log's order.
    const all = await withToken(user, "GET", "/api/events?limit=200");
    expect(all.status).toBe(200);
    const own = await withToken(user, "GET", `/api/events?bookingReference=${real.reference}`);
    expect(own.status).toBe(200);
    expect(own.json.data.events.length).toBeGreaterThan(0);
    expect(own.json.data.events).toEqual(
      all.json.data.events.filter((e: { bookingReference: string }) => e.bookingReference === real.reference),
    );
    expect((await call("GET", `/api/events?bookingReference=${real.reference}`)).json.data).toEqual(own.json.data);
    const none = await withToken(user, "GET", `/api/events?bookingReference=${otherReal}`);
    expect(none.json.data.events).toEqual([]);

    const nothing = await call("GET", PATH, undefined, { apiKey: null });
    expect([nothing.status, nothing.json.code]).toEqual([401, "api_key_required"]);
    const forged = await call("GET", PATH, undefined, bearer("not-a-token"));
    expect([forged.status, forged.json.code]).toEqual([401, "invalid_token"]);
  });

  it("POST /api/cancel: an admin's token cancels through the booking's own connection; a user's is 403 and changes nothing", async () => {
    const booked = await post(
      "/api/book",
      bookBody(await quoteOf(await searchOne("US000003", { pick: (o) => o.isRefundable })), "console-cancel"),
    );
    expect(booked.status).toBe(200);
    const reference = booked.json.data.bookingReference;
    // settings is the contract's required object; with a token its access is not read.
    const body = { input: { reference: { bookingReference: reference } }, settings: {} };
    const refused = await withToken(user, "POST", "/api/cancel", body);
    expect([refused.status, refused.json.code, refused.json.message]).toEqual([
      403,
      "admin_required",
      "Require partner admin role",
    ]);
    expect((await call("GET", `${PATH}/${reference}`)).json.data.status).toBe("success");
    const theirs = await withToken(admin, "POST", "/api/cancel", {
      input: { reference: { bookingReference: otherReal } },
      settings: {},
    });
    expect([theirs.status, theirs.json.code]).toEqual([404, "booking_not_found"]);
    const cancelled = await withToken(admin, "POST", "/api/cancel", body);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json.data.status).toBe("cancelled");
    expect((await call("GET", `${PATH}/${reference}`)).json.data.status).toBe("cancelled");
  });
});

describe("cancellation preview", () => {
  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 10 });
  });

  const preview = (reference: string, at?: string, apiKey?: string) =>
    call(
      "GET",
      `/api/bookings/${reference}/cancellation${at === undefined ? "" : `?at=${encodeURIComponent(at)}`}`,
      undefined,
      { apiKey },
    );

  let bookings = 0;
  /** Books a stay 40 days out; returns the booking reference and the quote it was booked from. */
  const book = async (code: string, refundable: boolean) => {
    const quote = await quoteOf(
      await searchOne(code, { checkIn: inDays(40), pick: (o) => o.isRefundable === refundable }),
    );
    const res = await post("/api/book", bookBody(quote, `preview-${++bookings}`));
    expect(res.status).toBe(200);
    return { reference: res.json.data.bookingReference as string, quote };
  };

  const iso = (ms: number) => new Date(ms).toISOString();

  describe("GET /api/bookings/:bookingReference/cancellation", () => {
    it("is free before the deadline and costs the penalty from it, without cancelling", async () => {
      const { reference, quote } = await book("US000001", true);
      const penalty = quote.cancelPolicy.cancelPenalties[0];
      expect(penalty.value).toBeGreaterThan(0);
      const deadline = Date.parse(penalty.deadline);

      const before = await preview(reference, iso(deadline - 60_000));
      expect(before.status).toBe(200);
      expect(before.json).toEqual({
        data: {
          cancelPrice: 0,
          currency: "USD",
          refundable: true,
          deadline: penalty.deadline,
          cancellable: true,
          at: iso(deadline - 60_000),
          // The breakdown the quote showed, to the cent.
          rate: quote.rate,
          // Every room, so nothing is left.
          rooms: [1],
          remainingRate: null,
        },
        message: "success",
      });
      expect((await preview(reference, iso(deadline))).json.data.cancelPrice).toBe(penalty.value);
      const after = await preview(reference, iso(deadline + 60_000));
      expect(after.json.data).toMatchObject({
        cancelPrice: penalty.value,
        refundable: true,
        deadline: penalty.deadline,
        cancellable: true,
      });
      // Forty days out, now is before any deadline.
      const now = await preview(reference);
      expect(now.json.data).toMatchObject({ cancelPrice: 0, cancellable: true });
      expect(Math.abs(Date.parse(now.json.data.at) - Date.now())).toBeLessThan(60_000);
      // Nothing was cancelled.
      expect((await call("GET", `/api/bookings/${reference}`)).json.data.status).toBe("success");
    });

    it("reads a datetime with an offset as the same instant", async () => {
      const { reference, quote } = await book("US000002", true);
      const deadline = Date.parse(quote.cancelPolicy.cancelPenalties[0].deadline);
      const local = new Date(deadline + 60_000 + 2 * 3600_000).toISOString().replace("Z", "+02:00");
      const res = await preview(reference, local);
      expect(res.json.data).toMatchObject({
        cancelPrice: quote.cancelPolicy.cancelPenalties[0].value,
        at: iso(deadline + 60_000),
      });
    });

    it.each([
      ["after the deadline", 60_000],
      ["before the deadline", -60_000],
    ])("equals what a real cancel at that moment charges (%s)", async (_name, offset) => {
      const { reference, quote } = await book("US000003", true);
      const at = Date.parse(quote.cancelPolicy.cancelPenalties[0].deadline) + offset;
      const previewed = (await preview(reference, iso(at))).json.data;
      const cancelled = await cancelBooking(bookingDeps(env), "demo", reference, at);
      expect(cancelled.cancelPrice).toEqual({ currency: previewed.currency, amount: previewed.cancelPrice });
      expect(previewed.cancelPrice).toBe(offset > 0 ? quote.cancelPolicy.cancelPenalties[0].value : 0);
    });

    it("a non-refundable rate: not cancellable, the whole charge, and the cancel refuses it", async () => {
      const { reference, quote } = await book("US000004", false);
      const res = await preview(reference);
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({
        cancelPrice: quote.rate.chargeTotal,
        currency: "USD",
        refundable: false,
        cancellable: false,
        deadline: quote.cancelPolicy.cancelPenalties[0].deadline,
      });
      const cancel = await post("/api/cancel", {
        input: { reference: { bookingReference: reference } },
        settings: { access: { code: 1001 } },
      });
      expect(cancel.status).toBe(400);
      expect(cancel.json.message).toBe("This booking is not refundable according to the cancellation policy");
    });

    it("from the check-in date (hotel time) the booking cannot be cancelled: the whole charge, as the cancel says", async () => {
      const { reference, quote } = await book("US000005", true);
      const at = Date.parse(`${quote.checkIn}T12:00:00Z`);
      const res = await preview(reference, iso(at));
      expect(res.json.data).toMatchObject({
        cancelPrice: quote.rate.chargeTotal,
        refundable: true,
        cancellable: false,
      });
      await expect(cancelBooking(bookingDeps(env), "demo", reference, at)).rejects.toMatchObject({
        status: 400,
        message: "This booking can no longer be cancelled after the check-in date",
      });
    });

    it("an already cancelled booking is 409", async () => {
      const { reference } = await book("US000006", true);
      expect(
        (
          await post("/api/cancel", {
            input: { reference: { bookingReference: reference } },
            settings: { access: { code: 1001 } },
          })
        ).status,
      ).toBe(200);
      const res = await preview(reference);
      expect(res.status).toBe(409);
      expect(res.json).toMatchObject({ message: "Booking is already cancelled", code: "booking_already_cancelled" });
    });

    it.each(["tomorrow", "2027-01-01", "2027-01-01T10:00:00", "2027-02-30T10:00:00Z", "", "1700000000000"])(
      "at=%j is 400 naming the field",
      async (at) => {
        // Validation comes first: the reference need not exist.
        const res = await preview("BKANY", at);
        expect(res.status).toBe(400);
        expect(res.json.message).toBe("at: expected an ISO 8601 datetime with a zone");
      },
    );

    it("another partner's booking and an unknown reference are 404 with the booking-not-found message", async () => {
      const { reference } = await book("US000008", true);
      const foreign = await preview(reference, undefined, OTHER_KEY);
      expect(foreign.status).toBe(404);
      expect(foreign.json.message).toBe(`Booking not found with bookingReference: ${reference}`);
      expect(foreign.json.data).toBeUndefined();
      const unknown = await preview("BKNOSUCHBOOKING");
      expect(unknown.status).toBe(404);
      expect(unknown.json.message).toBe("Booking not found with bookingReference: BKNOSUCHBOOKING");
    });

    it("401 without an API key; described in /openapi.json", async () => {
      expect((await call("GET", "/api/bookings/BKX/cancellation", undefined, { apiKey: null })).status).toBe(401);
      const doc = (await call("GET", "/openapi.json")).json;
      const route = doc.paths["/api/bookings/{bookingReference}/cancellation"].get;
      expect(route.parameters.map((p: { name: string }) => p.name)).toEqual(
        expect.arrayContaining(["bookingReference", "at"]),
      );
      expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404", "409"]));
    });
  });

  describe("a booking's rate, rooms and policy as stored (issue 38: minor units, format version 2)", () => {
    const columns = (reference: string) =>
      env.DB.prepare("SELECT rate, rooms, cancel_policy FROM bookings WHERE reference = ?")
        .bind(reference)
        .first<{ rate: string; rooms: string; cancel_policy: string }>();

    it("a new booking is stored as version 2, in integers; a version 1 row (major units) reads and cancels exactly as before", async () => {
      const quote = await quoteOf(
        await searchOne("US000005", {
          checkIn: inDays(41),
          occupancies: [{ paxes: [{ age: 30 }] }, { paxes: [{ age: 40 }, { age: 8 }] }],
          pick: (o) => o.isRefundable,
        }),
      );
      const res = await post("/api/book", bookBody(quote, "preview-stored-v1"));
      expect(res.status, res.text).toBe(200);
      const reference = res.json.data.bookingReference as string;
      const stored = await columns(reference);
      const rate = JSON.parse(stored!.rate);
      const rooms = JSON.parse(stored!.rooms);
      const policy = JSON.parse(stored!.cancel_policy);
      expect(rate).toMatchObject({ v: 2, chargeTotal: Math.round(quote.rate.chargeTotal * 100) });
      expect(rooms.v).toBe(2);
      expect(rooms.rooms.map((r: { rate: { chargeTotal: number } }) => r.rate.chargeTotal)).toEqual(
        quote.rooms.map((r: { rate: { chargeTotal: number } }) => Math.round(r.rate.chargeTotal * 100)),
      );
      expect(policy).toMatchObject({ v: 2, refundable: true });
      expect(Number.isInteger(policy.cancelPenalties[0].value)).toBe(true);

      const after = Date.parse(quote.cancelPolicy.cancelPenalties[0].deadline) + 60_000;
      const read = (await call("GET", `/api/bookings/${reference}`)).json.data;
      const previewed = (await preview(reference, iso(after))).json.data;
      // The same booking planted as the code before issue 38 wrote it: bare values, major units.
      const { v: _r, ...rateV2 } = rate;
      const { v: _p, ...policyV2 } = policy;
      await env.DB.prepare("UPDATE bookings SET rate = ?, rooms = ?, cancel_policy = ? WHERE reference = ?")
        .bind(
          JSON.stringify(rateJson(rateV2)),
          JSON.stringify(storedRoomsJson(rooms.rooms)),
          JSON.stringify(policyJson(policyV2)),
          reference,
        )
        .run();
      expect(JSON.parse((await columns(reference))!.rate).chargeTotal).toBe(quote.rate.chargeTotal);
      expect((await call("GET", `/api/bookings/${reference}`)).json.data).toEqual(read);
      expect((await preview(reference, iso(after))).json.data).toEqual(previewed);
      // One room cancelled after the deadline: its share of the penalty, the rest of the booking as before.
      const cancelled = await cancelBooking(bookingDeps(env), "demo", reference, after, { rooms: [2] });
      const alone = (await preview(reference, iso(after))).json.data;
      expect(cancelled.cancelPrice.amount).toBeGreaterThan(0);
      expect(cancelled.booking.rooms[1]!.cancelPrice).toEqual(cancelled.cancelPrice);
      expect(cancelled.booking.rate).toEqual(alone.rate);
      expect(cancelled.booking.rate).toEqual(read.rooms[0].rate);
      // Written back as version 2, in integers (the cancelled room's share in cents).
      const rewritten = await columns(reference);
      const roomsAfter = JSON.parse(rewritten!.rooms);
      expect(roomsAfter.v).toBe(2);
      expect(roomsAfter.rooms[1].cancelPrice).toBe(Math.round(cancelled.cancelPrice.amount * 100));
      expect(JSON.parse(rewritten!.rate)).toMatchObject({
        v: 2,
        chargeTotal: Math.round(read.rooms[0].rate.chargeTotal * 100),
      });
      // A column the cancel did not write keeps the form it had (version 1 here), read alongside.
      expect(JSON.parse(rewritten!.cancel_policy).v).toBeUndefined();
    });
  });
});
