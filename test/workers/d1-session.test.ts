import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../support/demo-content";
import { bookBody, cancelBody, quoteBody, quoteOf, searchBody, searchOne } from "../support/booking";
import { chat, NEW_YORK, say, startSession, attachCard } from "../support/chat";
import { humanSignals, sendSignals, unique } from "../support/radar";
import { BOOKMARK_HEADER, isBookmark, sessionStart } from "../../src/platform/db/client";
import { call, post, DEMO_KEY } from "../support/api";
import { inDays } from "../support/clock";
import fc from "fast-check";
import { catalogueFor } from "../../src/features/supply/catalogue";
import { addDays } from "../../src/platform/time/zoned-time";
import { demoAdminToken } from "../support/sessions";
import { findCardData } from "../../src/platform/card-data/card-data";
import operations from "../../docs/operations.md?raw";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
});

const bookmarkOf = (res: { headers: Headers }) => res.headers.get(BOOKMARK_HEADER);
const withBookmark = (bookmark: string) => ({ headers: { [BOOKMARK_HEADER]: bookmark } });

// A well-formed bookmark ahead of anything the local database has reached. The local runtime
// keeps the later of a session's start bookmark and what its queries return, so a response that
// echoes it proves the request continued from the sent bookmark; one that does not, that it
// started at the primary instead.
const AHEAD = `7fffffff-7fffffff-00000000-${"0".repeat(32)}`;

const GARBAGE = [
  "garbage",
  " ",
  "00000000-00000000",
  `00000000-0000000A-00000000-${"0".repeat(32)}`,
  "'; DROP TABLE bookings; --",
  `${"f".repeat(8)}-${"f".repeat(8)}-${"f".repeat(8)}-${"f".repeat(32)}x`,
  "x".repeat(8_000),
];

const bookOne = async (partnerReference: string) => {
  const quote = await quoteOf(await searchOne("US000012", { pick: (o) => o.isRefundable }));
  const res = await post("/api/book", bookBody(quote, partnerReference));
  expect(res.status).toBe(200);
  return res;
};

describe("where a request's D1 session starts", () => {
  const valid = `00000000-0000002a-00000000-${"0".repeat(32)}`;
  it.each([
    ["a write, no bookmark", undefined, false, "first-primary"],
    ["a write, a valid bookmark (the primary is as fresh as any)", valid, false, "first-primary"],
    ["a write, a malformed bookmark", "garbage", false, "first-primary"],
    ["a stale-tolerant read, no bookmark", undefined, true, "first-unconstrained"],
    ["a stale-tolerant read, an empty header", "", true, "first-unconstrained"],
    ["a stale-tolerant read, a valid bookmark", valid, true, valid],
    ["a stale-tolerant read, a malformed bookmark", "garbage", true, "first-primary"],
  ])("%s", (_name, sent, staleOk, start) => {
    expect(sessionStart(sent, staleOk)).toBe(start);
  });

  it("recognises bookmarks by shape only", () => {
    expect(isBookmark(valid)).toBe(true);
    for (const bad of GARBAGE) expect(isBookmark(bad)).toBe(false);
    expect(isBookmark(null)).toBe(false);
  });
});

describe("x-d1-bookmark on responses", () => {
  it("is set on stale-tolerant reads: search, content export, booking list and read", async () => {
    const booked = await bookOne("bm-reads");
    const reads = [
      await post("/api/search", searchBody({ destinations: { accommodations: [{ code: "US000001" }] } })),
      await post("/api/v1/content/accommodations", { size: 5 }),
      await call("GET", "/api/bookings?partnerReference=bm-reads"),
      await call("GET", `/api/bookings/${booked.json.data.bookingReference}`),
    ];
    for (const res of reads) {
      expect(res.status, res.text).toBe(200);
      expect(isBookmark(bookmarkOf(res))).toBe(true);
    }
  });

  it("is set on writes: quote, book, cancel, management, radar signals", async () => {
    const quote = await post("/api/quote", quoteBody(await searchOne("US000013", { pick: (o) => o.isRefundable })));
    const book = await post("/api/book", bookBody(quote.json.data, "bm-writes"));
    const cancel = await post("/api/cancel", cancelBody(book.json.data.bookingReference));
    const purge = await call(
      "POST",
      "/api/operator/login-failures/purge",
      {},
      { apiKey: null, headers: { authorization: `Bearer ${env.OPERATOR_TOKEN}` } },
    );
    const signals = await sendSignals(humanSignals(), { sessionId: unique("bm") });
    for (const res of [quote, book, cancel, purge, signals]) {
      expect(res.status, res.text).toBeLessThan(300);
      expect(isBookmark(bookmarkOf(res))).toBe(true);
    }
  });

  it("is set on errors that read D1 too (a 404 booking read)", async () => {
    const res = await call("GET", "/api/bookings/BKNOSUCHBOOKING");
    expect(res.status).toBe(404);
    expect(isBookmark(bookmarkOf(res))).toBe(true);
  });

  it("is absent when the request never touched D1", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(bookmarkOf(res)).toBeNull();
  });
});

describe("continuing from a bookmark", () => {
  it("a booking read sent with the bookmark of the book response finds the booking", async () => {
    const booked = await bookOne("bm-read-your-write");
    const bookmark = bookmarkOf(booked)!;
    expect(isBookmark(bookmark)).toBe(true);
    const read = await call(
      "GET",
      `/api/bookings/${booked.json.data.bookingReference}`,
      undefined,
      withBookmark(bookmark),
    );
    expect(read.status).toBe(200);
    expect(read.json.data).toMatchObject({
      bookingReference: booked.json.data.bookingReference,
      partnerReference: "bm-read-your-write",
      status: "success",
    });
    // The session moved on from the sent bookmark, never back.
    expect(bookmarkOf(read)! >= bookmark).toBe(true);
    const listed = await call(
      "GET",
      "/api/bookings?partnerReference=bm-read-your-write",
      undefined,
      withBookmark(bookmark),
    );
    expect(listed.status).toBe(200);
  });

  it("stale-tolerant reads continue from the sent bookmark; writes start at the primary", async () => {
    const reference = (await bookOne("bm-stale-reads")).json.data.bookingReference;
    const tgxSearch = {
      criteria: {
        checkIn: inDays(30),
        checkOut: inDays(32),
        hotels: ["US000001"],
        occupancies: [{ paxes: [{ age: 30 }] }],
        currency: "USD",
        language: "en",
        nationality: "US",
        market: "US",
      },
      settings: { access: { code: 1001 } },
    };
    // Every route that declares replicaReadsAllowed, and only those (the quote below does not).
    const reads = [
      await post(
        "/api/search",
        searchBody({ destinations: { accommodations: [{ code: "US000001" }] } }),
        withBookmark(AHEAD),
      ),
      await post("/api/search/tgx", tgxSearch, withBookmark(AHEAD)),
      await post("/api/v1/content/accommodations", { size: 5 }, withBookmark(AHEAD)),
      await call("GET", "/api/bookings?partnerReference=bm-stale-reads", undefined, withBookmark(AHEAD)),
      await call("GET", "/api/bookings?limit=5", undefined, withBookmark(AHEAD)),
      await call("GET", `/api/bookings/${reference}`, undefined, withBookmark(AHEAD)),
      await call("GET", `/api/bookings/${reference}/cancellation`, undefined, withBookmark(AHEAD)),
    ];
    for (const res of reads) {
      expect(res.status, res.text).toBe(200);
      expect(bookmarkOf(res)).toBe(AHEAD);
    }
    const quote = await post("/api/quote", quoteBody(await searchOne("US000014")), withBookmark(AHEAD));
    expect(quote.status).toBe(200);
    expect(isBookmark(bookmarkOf(quote))).toBe(true);
    expect(bookmarkOf(quote)! < AHEAD).toBe(true);
  });

  it("a malformed bookmark is ignored (the request starts at the primary): never a 4xx or 5xx for it", async () => {
    const booked = await bookOne("bm-garbage");
    const reference = booked.json.data.bookingReference;
    for (const garbage of GARBAGE) {
      const read = await call("GET", `/api/bookings/${reference}`, undefined, withBookmark(garbage));
      expect(read.status, garbage.slice(0, 40)).toBe(200);
      expect(read.json.data.bookingReference).toBe(reference);
      // The bad value is not passed to D1: the answer carries a real bookmark.
      expect(isBookmark(bookmarkOf(read))).toBe(true);
      const search = await post(
        "/api/search",
        searchBody({ destinations: { accommodations: [{ code: "US000001" }] } }),
        withBookmark(garbage),
      );
      expect(search.status).toBe(200);
      expect(isBookmark(bookmarkOf(search))).toBe(true);
    }
    const quote = await post("/api/quote", quoteBody(await searchOne("US000015")), withBookmark("garbage"));
    const book = await post("/api/book", bookBody(quote.json.data, "bm-garbage-2"), withBookmark("garbage"));
    expect(book.status).toBe(200);
    expect(isBookmark(bookmarkOf(book))).toBe(true);
  });
});

describe("chat: the Durable Object continues the request's session", () => {
  // Locally the second field of a bookmark counts D1 calls: the one right after a request is one past its last.
  const position = (bookmark: string) => parseInt(bookmark.split("-")[1]!, 16);
  const latestPosition = async () => {
    const session = env.DB.withSession("first-primary");
    await session.prepare("SELECT 1").run();
    return position(session.getBookmark()!);
  };

  it("a chat booking answers with a bookmark that includes the booking, and the booking read finds it", async () => {
    const id = await startSession("traveller-bookmark");
    await say(id, NEW_YORK);
    await say(id, "I'll take the cheapest");
    const named = await say(id, "The guest is Grace Hopper");
    const setupUrl = named.result.artifacts.payment.setupUrl as string;
    expect((await attachCard(setupUrl)).status).toBe(200);
    expect((await say(id, "Done")).result.status).toBe("payment_confirmation_required");

    const res = await chat("POST", "/events", { sessionId: id, text: "yes" });
    expect(res.status).toBe(200);
    expect(res.json.data.result.status).toBe("booked");
    const bookmark = bookmarkOf(res)!;
    expect(isBookmark(bookmark)).toBe(true);
    // The bookmark is that of the Durable Object's last D1 call (the booking), not of the
    // request's own authentication reads before it.
    expect(await latestPosition()).toBe(position(bookmark) + 1);
    const reference = res.json.data.result.artifacts.booking.bookingId;
    const read = await call("GET", `/api/bookings/${reference}`, undefined, withBookmark(bookmark));
    expect(read.status).toBe(200);
    expect(read.json.data.status).toBe("success");
  });
});

describe("fuzz", () => {
  /**
   * Property: no POST or PUT route of /openapi.json answers 5xx, whatever the body. Bodies are valid
   * ones generated from the route's request schema, then mutated (wrong types, missing fields, huge
   * strings, deep nesting, unicode, control characters, __proto__ keys), sent with the route's
   * credentials and without. The seed is fixed, so every run sends the same bodies and a failure
   * reproduces; FUZZ_SEED=<n> and FUZZ_RUNS=<n> (vitest.config.ts) explore further, and the failing
   * route, body, seed and fast-check path are printed.
   *
   * Coverage at a few seconds' cost: every route gets one body of each mutation kind (none, replace,
   * delete, __proto__, truncate) and the 100,000-deep body with and without credentials, as fixed
   * examples, then RUNS random ones. The replacing values take each hostile kind in turn, route by
   * route, so each kind reaches several routes (huge strings are the slow path, ~0.3 s a call).
   */
  const SEED = env.FUZZ_SEED ? Number(env.FUZZ_SEED) : 20261124;
  const RUNS = Number(env.FUZZ_RUNS || 3);

  type Schema = Record<string, any>;
  type Route = {
    method: "POST" | "PUT";
    path: string;
    template: string;
    security: string[];
    body: Schema | null;
    headers: Schema[];
    declares501: boolean;
  };

  let doc: { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, Schema> } };
  let credentials: Record<string, Record<string, string>>;
  let ids: Record<string, string>;
  let chatSessionId: string;

  const resolve = (schema: Schema | undefined): Schema | undefined => {
    let s = schema;
    for (let i = 0; s?.$ref && i < 10; i++) s = doc.components?.schemas?.[String(s.$ref).split("/").pop()!];
    return s;
  };

  const future = fc.integer({ min: 1, max: 400 }).map((days) => addDays(new Date().toISOString().slice(0, 10), days));

  const stringFor = (s: Schema): fc.Arbitrary<string> => {
    if (s.format === "date") return future;
    if (s.format === "date-time") return future.map((d) => `${d}T12:00:00.000Z`);
    if (s.format === "email") return fc.emailAddress();
    if (s.format === "uri" || s.format === "url") return fc.webUrl();
    const maxLength = Math.min(s.maxLength ?? 40, 40);
    const minLength = Math.min(s.minLength ?? 0, maxLength);
    if (s.pattern) {
      try {
        return fc
          .stringMatching(new RegExp(s.pattern))
          .filter((v) => v.length <= (s.maxLength ?? 10_000) && v.length >= (s.minLength ?? 0));
      } catch {
        // A pattern fast-check cannot read: plain strings still exercise validation.
      }
    }
    return fc.string({ minLength, maxLength });
  };

  /**
   * A value that fits the schema (mostly: patterns and refinements are best effort). `complete`: every
   * optional property is present too (and an open object has a key), so every field of the body is there.
   */
  const valueFor = (schema: Schema | undefined, depth = 0, complete = false): fc.Arbitrary<unknown> => {
    const s = resolve(schema);
    if (!s || depth > 10) return fc.jsonValue({ maxDepth: 1 });
    if (s.const !== undefined) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
    const alternatives = s.anyOf ?? s.oneOf;
    if (Array.isArray(alternatives) && alternatives.length)
      return fc.oneof(...alternatives.map((a: Schema) => valueFor(a, depth + 1, complete)));
    if (Array.isArray(s.allOf) && s.allOf.length) {
      const parts = s.allOf.map((p: Schema) => resolve(p) ?? {});
      return valueFor(
        {
          type: "object",
          properties: Object.assign({}, ...parts.map((p: Schema) => p.properties ?? {})),
          required: parts.flatMap((p: Schema) => p.required ?? []),
        },
        depth + 1,
        complete,
      );
    }
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ["object"] : [];
    const type = types.find((t) => t !== "null") ?? types[0];
    switch (type) {
      case "object": {
        const properties: Record<string, Schema> = s.properties ?? {};
        if (Object.keys(properties).length === 0) {
          return typeof s.additionalProperties === "object"
            ? fc.dictionary(fc.string({ maxLength: 8 }), valueFor(s.additionalProperties, depth + 1, complete), {
                minKeys: complete ? 1 : 0,
                maxKeys: 3,
              })
            : fc.constant({});
        }
        const model = Object.fromEntries(
          Object.entries(properties).map(([key, inner]) => [
            key,
            key === "sessionId" ? fc.constantFrom(chatSessionId, "cs_unknown") : valueFor(inner, depth + 1, complete),
          ]),
        );
        if (complete) return fc.record(model);
        return fc.record(model, { requiredKeys: (s.required ?? []).filter((k: string) => k in properties) });
      }
      case "array": {
        const minLength = Math.min(s.minItems ?? 0, 3);
        return fc.array(valueFor(s.items, depth + 1, complete), {
          minLength: complete ? Math.max(minLength, 1) : minLength,
          maxLength: Math.max(minLength, Math.min(s.maxItems ?? 3, 3)),
        });
      }
      case "string":
        return stringFor(s);
      case "integer":
        return fc.integer({
          min: Math.max(s.minimum ?? -1000, -2_000_000_000),
          max: Math.min(s.maximum ?? 100_000, 2_000_000_000),
        });
      case "number":
        return fc.double({ min: s.minimum ?? -1000, max: s.maximum ?? 100_000, noNaN: true, noDefaultInfinity: true });
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  };

  /** Every place in a JSON value, as key paths (iterative; values here are small). */
  const placesIn = (value: unknown): Array<Array<string | number>> => {
    const places: Array<Array<string | number>> = [[]];
    const pending: Array<[unknown, Array<string | number>]> = [[value, []]];
    while (pending.length) {
      const [node, path] = pending.pop()!;
      if (node === null || typeof node !== "object") continue;
      for (const [key, inner] of Object.entries(node)) {
        const here = [...path, Array.isArray(node) ? Number(key) : key];
        places.push(here);
        pending.push([inner, here]);
      }
    }
    return places;
  };

  const nest = (depth: number, leaf: unknown): unknown => {
    let value = leaf;
    for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
    return value;
  };

  const FAR_TOO_DEEP = "\u0000far-too-deep\u0000";
  const farTooDeep = `${"[".repeat(100_000)}1${"]".repeat(100_000)}`;

  /** A Luhn-valid card number of 13 to 19 digits, written as people do (groups, separators, full-width digits), inside some text. */
  const cardNumberText = fc
    .record({
      prefix: fc.constantFrom("4", "51", "55", "2221", "34", "37", "6011", "35", "62"),
      length: fc.integer({ min: 13, max: 19 }),
      digits: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 19, maxLength: 19 }),
      separator: fc.constantFrom("", " ", "-", ".", " - ", "\u00a0"),
      fullWidth: fc.boolean(),
      before: fc.constantFrom("", "card ", "my number is ", "ref:"),
      after: fc.constantFrom("", " thanks", ".", " exp 12/30"),
    })
    .map(({ prefix, length, digits, separator, fullWidth, before, after }) => {
      const body = (prefix + digits.join("")).slice(0, length - 1);
      let sum = 0;
      for (let i = 0; i < body.length; i++) {
        let d = Number(body[body.length - 1 - i]);
        if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
        sum += d;
      }
      const number = body + String((10 - (sum % 10)) % 10);
      const written = (number.match(/.{1,4}/g) ?? []).join(separator);
      const shown = fullWidth ? written.replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d))) : written;
      return `${before}${shown}${after}`;
    });

  const hostileKinds = [
    cardNumberText, // raw card data (refused with a 400 wherever the guard runs)
    fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}), fc.string()), // wrong types
    fc.constantFrom("x".repeat(300_000), "9".repeat(5_000), "é".repeat(100_000)), // huge strings
    fc.integer({ min: 50, max: 80 }).map((depth) => nest(depth, "deep")), // near and past the depth limit
    fc.constant(FAR_TOO_DEEP), // 100,000 levels, spliced into the text (fast-check and structuredClone recurse)
    fc.string({ unit: "binary", maxLength: 40 }), // any code point, lone surrogates included
    fc.string({
      unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
      minLength: 1,
      maxLength: 20,
    }), // control characters
    fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 1e308, -0, 4242424242424242),
  ];
  const hostile = fc.oneof(...hostileKinds);

  type Extra = { "session-id": string; "idempotency-key": string | undefined; authenticated: boolean };

  type Mutation =
    | { kind: "none" }
    | { kind: "replace"; at: number; value: unknown }
    | { kind: "delete"; at: number }
    | { kind: "proto"; at: number }
    | { kind: "truncate"; at: number };

  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 2, arbitrary: fc.constant({ kind: "none" as const }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant("replace" as const), at: fc.nat(), value: hostile }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("proto" as const), at: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }) },
  );

  /** The body text: the valid value with one mutation applied. */
  const bodyText = (valid: unknown, change: Mutation): string =>
    mutatedText(valid, change).replace(JSON.stringify(FAR_TOO_DEEP), farTooDeep);

  const mutatedText = (valid: unknown, change: Mutation): string => {
    const value = structuredClone(valid);
    if (change.kind === "none") return JSON.stringify(value);
    const text = JSON.stringify(value) ?? "null";
    if (change.kind === "truncate") return text.slice(0, change.at % Math.max(1, text.length));
    const places = placesIn(value);
    const path = places[change.at % places.length]!;
    if (path.length === 0) {
      if (change.kind === "replace") return JSON.stringify(change.value);
      if (change.kind === "proto")
        return `{"__proto__":{"isAdmin":true,"partnerId":"other"},"constructor":{"prototype":{"x":1}}${text.startsWith("{") && text.length > 2 ? `,${text.slice(1)}` : "}"}`;
      return "";
    }
    const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], value);
    const key = path.at(-1)!;
    if (change.kind === "replace") parent[key] = change.value;
    else if (change.kind === "delete") Array.isArray(parent) ? parent.splice(Number(key), 1) : delete parent[key];
    else if (parent[key] && typeof parent[key] === "object" && !Array.isArray(parent[key])) {
      // An own "__proto__" key, as JSON.parse makes one.
      Object.defineProperty(parent[key], "__proto__", {
        value: { isAdmin: true },
        enumerable: true,
        configurable: true,
        writable: true,
      });
    } else parent[key] = JSON.parse('{"__proto__":{"polluted":true}}');
    return JSON.stringify(value);
  };

  const credentialsFor = (security: string[]): Record<string, string> => {
    const scheme = security.find((name) => credentials[name]);
    return scheme ? credentials[scheme]! : {};
  };

  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 20 });
    doc = (await call("GET", "/openapi.json")).json;
    const token = await demoAdminToken();
    credentials = {
      ApiKey: { "api-key": DEMO_KEY },
      ChatApiKey: { "x-partner-api-key": DEMO_KEY },
      ChatBearer: { authorization: `Bearer ${DEMO_KEY}` },
      Bearer: { authorization: `Bearer ${token}` },
      OperatorToken: { authorization: "Bearer demo-operator-token" },
      CollectorKey: { "x-radar-collector-key": "demo-collector-key" },
    };
    const connection = await env.DB.prepare("SELECT id FROM connections WHERE code = 1001").first<string>("id");
    const user = await env.DB.prepare("SELECT id FROM users WHERE email = 'admin@demo.test'").first<string>("id");
    const catalogue = catalogueFor("US000001", 3);
    ids = {
      partnerId: "demo",
      id: connection!,
      accommodationCode: "US000001",
      roomCode: catalogue.rooms[0]!.code,
      ratePlanCode: catalogue.ratePlans[0]!.code,
    };
    const session = await call("POST", "/api/partner/v1/core-chat/sessions", { actor: { actorId: "fuzz" } });
    chatSessionId = session.json.data.sessionId;
    // The user route takes a user id, the connection routes a connection id.
    ids.userId = user!;
  });

  const routesOf = (): Route[] => {
    const routes: Route[] = [];
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        if (method !== "post" && method !== "put") continue;
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) =>
          template.startsWith("/api/users/") ? ids.userId! : (ids[name] ?? name),
        );
        routes.push({
          method: method.toUpperCase() as Route["method"],
          path,
          template,
          security: (op.security ?? []).flatMap((entry: Record<string, unknown>) => Object.keys(entry)),
          body: op.requestBody?.content?.["application/json"]?.schema ?? null,
          headers: (op.parameters ?? []).filter((p: Schema) => p.in === "header"),
          declares501: Boolean(op.responses?.["501"]),
        });
      }
    }
    // Routes that can take the demo partner's access away run last, so the others keep their reach.
    const late = /disable|active-status|api-keys|purge/;
    return routes.sort((a, b) => Number(late.test(a.template)) - Number(late.test(b.template)));
  };

  /** The JSON path of a place as the card-data guard names it: `a.b[0]`. */
  const fieldName = (path: Array<string | number>) =>
    path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? key : `.${key}`)).join("");

  /** Chat and radar bodies are stored as sent: no field of them may carry a card number (issue 25). */
  const CARD_GUARDED = /^\/api\/(partner\/v1\/core-chat|v1\/radar)\//;

  describe("fuzz: a card number in any string field of a chat or radar body is refused", () => {
    it(`holds for every string field of every chat and radar POST (seed ${SEED})`, async () => {
      const routes = routesOf().filter((r) => CARD_GUARDED.test(r.template));
      expect(routes.map((r) => r.template).sort()).toEqual([
        "/api/partner/v1/core-chat/events",
        "/api/partner/v1/core-chat/sessions",
        "/api/v1/radar/checks",
        "/api/v1/radar/sessions/signals",
      ]);
      for (const route of routes) {
        // A body with every field present and no card data of its own; each string field in turn gets a card number.
        const [complete] = fc.sample(
          valueFor(route.body!, 0, true).filter((v) => findCardData(v) === null),
          { seed: SEED, numRuns: 1 },
        );
        const fields = placesIn(complete).filter(
          (path) => typeof path.reduce<any>((node, key) => node[key], complete) === "string",
        );
        expect(fields.length, route.template).toBeGreaterThan(0);
        for (const [i, path] of fields.entries()) {
          await fc.assert(
            fc.asyncProperty(cardNumberText, async (text) => {
              const body = structuredClone(complete) as Record<string, unknown>;
              const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], body);
              parent[path.at(-1)!] = text;
              const headers: Record<string, string> = {
                "content-type": "application/json",
                "session-id": "fuzz-session-00000001",
                ...credentialsFor(route.security),
              };
              const res = await call(route.method, route.path, undefined, {
                raw: JSON.stringify(body),
                apiKey: null,
                headers,
              });
              const digits = text.normalize("NFKC").replace(/\D/g, "");
              if (
                res.status !== 400 ||
                res.json?.code !== "raw_card_data_refused" ||
                res.json?.details?.field !== fieldName(path) ||
                res.text.normalize("NFKC").replace(/\D/g, "").includes(digits)
              ) {
                throw new Error(
                  `${route.template} with a card number in ${fieldName(path)} answered ${res.status}: ${res.text.slice(0, 300)}\nvalue: ${text}\nseed: ${SEED}`,
                );
              }
            }),
            // One card number per field, a different shape from field to field (prefix, length, separators, digits).
            { seed: SEED + i, numRuns: 1, endOnFailure: true },
          );
        }
      }
    }, 120_000);
  });

  describe("fuzz: no 5xx from any POST or PUT route", () => {
    it(`holds for every route (seed ${SEED}, 7 fixed bodies and ${RUNS} random ones per route)`, async () => {
      const routes = routesOf();
      expect(routes.length).toBeGreaterThan(20);
      for (const [i, route] of routes.entries()) {
        const body = valueFor(route.body ?? { type: "object" });
        const [valid] = fc.sample(body, { seed: SEED + i, numRuns: 1 });
        const [replacement] = fc.sample(hostileKinds[i % hostileKinds.length]!, { seed: SEED + i, numRuns: 1 });
        const signedIn: Extra = {
          "session-id": "fuzz-session-00000001",
          "idempotency-key": undefined,
          authenticated: true,
        };
        const examples: Array<[unknown, Mutation, Extra]> = [
          // A known hostile shape first: a body that is one 100,000-deep array, with and without credentials.
          [{}, { kind: "replace", at: 0, value: FAR_TOO_DEEP }, signedIn],
          [{}, { kind: "replace", at: 0, value: FAR_TOO_DEEP }, { ...signedIn, authenticated: false }],
          // Each mutation kind once, at a place that moves from route to route.
          [valid, { kind: "none" }, signedIn],
          [valid, { kind: "replace", at: i + 1, value: replacement }, signedIn],
          [valid, { kind: "delete", at: i + 1 }, signedIn],
          [valid, { kind: "proto", at: i }, signedIn],
          [valid, { kind: "truncate", at: 3 + 7 * i }, signedIn],
        ];
        const headerValues = fc.record({
          "session-id": fc.constantFrom("fuzz-session-00000001", "x", ""),
          "idempotency-key": fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }),
          authenticated: fc.boolean(),
        });
        await fc.assert(
          fc.asyncProperty(body, mutation, headerValues, async (valid, change, extra) => {
            const raw = bodyText(valid, change);
            const headers: Record<string, string> = {
              "content-type": "application/json",
              ...(extra.authenticated ? credentialsFor(route.security) : {}),
            };
            if (route.headers.some((h) => h.name === "session-id")) headers["session-id"] = extra["session-id"];
            if (extra["idempotency-key"] !== undefined)
              headers["idempotency-key"] = extra["idempotency-key"].replace(/[^\x21-\x7e]/g, "k");
            const res = await call(route.method, route.path, undefined, { raw, apiKey: null, headers });
            // 501 is the documented answer of the routes that declare it (TGX shapes): a contract, not a crash.
            if (res.status >= 500 && !(res.status === 501 && route.declares501)) {
              throw new Error(
                `${route.method} ${route.path} (${extra.authenticated ? "with" : "without"} credentials) answered ${res.status}: ${res.text.slice(0, 300)}\nbody: ${raw.slice(0, 500)}\nseed: ${SEED}`,
              );
            }
          }),
          // numRuns counts the examples: all of them, then RUNS drawn from the seed.
          { seed: SEED + i, numRuns: examples.length + RUNS, endOnFailure: true, examples },
        );
      }
    }, 120_000);
  });
});

/**
 * Every `D1 "..."` line of docs/operations.md (the operator tasks run with `wrangler d1 execute`),
 * with its shell parts made literal: a shell substitution or a `<placeholder>` inside quotes
 * becomes a plain string, and the example partner `acme` the demo partner.
 */
const documentedQueries = (markdown: string): string[] =>
  [...markdown.matchAll(/^D1 "(.+)"$/gm)].map((m) =>
    m[1]!
      .replace(/'\$\(.*?\)'/g, "'x'")
      .replace(/'<[^'>]+>'/g, "'x'")
      // The docs' example partner; the demo partner exists in every test database.
      .replaceAll("'acme'", "'demo'"),
  );

describe("operator SQL in docs/operations.md", () => {
  it("runs every documented query against today's tables", async () => {
    const queries = documentedQueries(operations);
    expect(queries.length).toBeGreaterThanOrEqual(10);
    const failures: string[] = [];
    for (const sql of queries) {
      try {
        await env.DB.prepare(sql).run();
      } catch (err) {
        failures.push(`${sql}\n  -> ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
