import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO, DEMO_OPERATOR_TOKEN } from "../support/accounts";
import { freePort } from "../../local/server";
import { inDays } from "../support/clock";
import { startLocalWorker, type LocalWorker } from "../support/local-worker";
import { prismFindings, startPrismProxy, type PrismProxy } from "../support/prism-proxy";
import { checkBody, humanSignals, unique } from "../support/radar-fixtures";

// Issue 30 item 3: the contract checked from outside. Prism, in proxy mode with --errors, stands
// in front of a real Worker (wrangler, out of process, migrated and seeded) with the document
// that Worker serves at /openapi.json; every call of a partner's whole flow goes through it, and
// any answer the document does not describe (an undocumented status, a body that breaks its
// schema, a request the document refuses) fails the call with Prism's own words.

let worker: LocalWorker;
let prism: PrismProxy;
let document: string;
/** No call of this flow takes a second; one that takes this long hangs, and fails with what each side says. */
const CALL_DEADLINE_MS = 30_000;

/** Method and path of every call, to tell how many documented operations the flow reached. */
const exercised = new Set<string>();

type Answer = { status: number; headers: Headers; text: string; json: any };
type Auth = { apiKey?: string; bearer?: string; headers?: Record<string, string>; via?: PrismProxy };

/** One call through Prism; throws with Prism's findings when the document does not describe the exchange. */
const call = async (method: string, path: string, body?: unknown, auth: Auth = {}): Promise<Answer> => {
  const headers: Record<string, string> = { ...auth.headers };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (auth.apiKey) headers["api-key"] = auth.apiKey;
  if (auth.bearer) headers.authorization = `Bearer ${auth.bearer}`;
  const via = auth.via ?? prism;
  const res = await fetch(`${via.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_DEADLINE_MS),
  }).catch(async (error: Error) => {
    // A call that never answers: say which side kept it, the Worker asked directly or Prism.
    const direct = await fetch(`${worker.url}/health`, { signal: AbortSignal.timeout(5_000) })
      .then((r) => `answers /health directly with ${r.status}`)
      .catch((e: Error) => `does not answer /health directly either (${e.name})`);
    throw new Error(
      `${method} ${path} through Prism: ${error.name} after ${CALL_DEADLINE_MS} ms; the Worker ${direct}\nPrism's output:\n${via.output().slice(-3000)}`,
    );
  });
  exercised.add(`${method} ${new URL(path, prism.url).pathname}`);
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON: Prism still checked its status and media type */
  }
  const answer = { status: res.status, headers: res.headers, text, json };
  const findings = prismFindings(answer);
  if (findings) {
    throw new Error(
      `${method} ${path} (${res.status}) is not what the document describes:\n${findings}\nbody: ${text.slice(0, 600)}`,
    );
  }
  return answer;
};

/** The status a call must answer, with its body in the failure message. */
const expectStatus = (answer: Answer, status: number) => expect(answer.status, answer.text.slice(0, 600)).toBe(status);

const partner = { apiKey: DEMO.apiKey.key };
const operator = { bearer: DEMO_OPERATOR_TOKEN };
const settings = { access: { code: DEMO.connection.code } };
/** The demo admin's bearer token, from a login through the proxy. */
const adminToken = async () => {
  const login = await call("POST", "/api/auth/login", {
    accountType: "email",
    accountValue: DEMO.admin.email,
    password: DEMO.admin.passwordMd5,
  });
  expectStatus(login, 200);
  return login.json.data.token.accessToken as string;
};
const stay = { occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }], checkIn: inDays(30), checkOut: inDays(32) };

beforeAll(async () => {
  const started = Date.now();
  worker = await startLocalWorker({ accommodations: 20 });
  // The document this very Worker serves, as a generated client would download it.
  document = join(worker.stateDir, "openapi.json");
  writeFileSync(document, await (await fetch(`${worker.url}/openapi.json`)).text());
  const workerReady = Date.now();
  prism = await startPrismProxy(document, worker.url);
  console.log(
    `Worker ready in ${((workerReady - started) / 1000).toFixed(1)} s, Prism in ${((Date.now() - workerReady) / 1000).toFixed(1)} s`,
  );
});

afterAll(async () => {
  if (document) {
    const paths = JSON.parse(readFileSync(document, "utf8")).paths as Record<string, Record<string, unknown>>;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map((method) => ({
          method: method.toUpperCase(),
          pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
          path,
        })),
    );
    const reached = operations.filter((op) =>
      [...exercised].some(
        (call) => call.startsWith(`${op.method} `) && op.pattern.test(call.slice(op.method.length + 1)),
      ),
    );
    const missed = operations.filter((op) => !reached.includes(op)).map((op) => `${op.method} ${op.path}`);
    console.log(
      `Through Prism: ${reached.length} of ${operations.length} documented operations${missed.length ? `; not reached: ${missed.join(", ")}` : ""}`,
    );
  }
  await prism?.stop();
  await worker?.stop();
});

describe("the whole partner flow through a Prism validation proxy", () => {
  let first: any;
  let option: any;
  /** The accommodation of `option`. */
  let optionHotel: string;
  let quote: any;
  let bookingReference: string;

  it("health and content, page by page", async () => {
    expectStatus(await call("GET", "/health"), 200);
    const page = await call("POST", "/api/v1/content/accommodations", { size: 2 }, partner);
    expectStatus(page, 200);
    expect(page.json.data.accommodations.map((a: any) => a.code)).toEqual(["US000001", "US000002"]);
    first = page.json.data.accommodations[0];
    const next = await call(
      "POST",
      "/api/v1/content/accommodations",
      { pageToken: page.json.data.nextPageToken },
      partner,
    );
    expectStatus(next, 200);
    expect(next.json.data.accommodations[0].code).toBe("US000003");
  });

  it("searches by codes, by geo and by name", async () => {
    const codes = ["US000001", "US000002", "US000003", "US000004"];
    const byCodes = await call(
      "POST",
      "/api/search",
      { searchCriteria: { destinations: { accommodations: codes.map((code) => ({ code })) }, ...stay }, settings },
      partner,
    );
    expectStatus(byCodes, 200);
    // A refundable option paid to us, so the booking can be cancelled at the end of the flow.
    for (const hotel of byCodes.json.data.accommodations) {
      if (option) break;
      option = hotel.options.find((o: any) => o.isRefundable && o.paymentType === "MerchantPay");
      optionHotel = hotel.accommodationCode;
    }
    expect(option).toBeDefined();

    const [lng, lat] = first.location;
    const byGeo = await call(
      "POST",
      "/api/search",
      { searchCriteria: { geo: { lat, lng, radiusKm: 5 }, ...stay }, settings },
      partner,
    );
    expectStatus(byGeo, 200);
    expect(byGeo.json.data.accommodations.map((a: any) => a.accommodationCode)).toContain(first.code);

    const name = first.localizedName[0].content;
    const byName = await call(
      "POST",
      "/api/search",
      { searchCriteria: { accommodationName: name, ...stay }, settings },
      partner,
    );
    expectStatus(byName, 200);
    expect(byName.json.data.accommodations.map((a: any) => a.accommodationCode)).toContain(first.code);
  });

  it("quotes, books, reads and cancels", async () => {
    const quoteRequest = {
      quoteCriteria: { optionId: option.id, accommodation: { code: optionHotel }, ...stay },
      settings,
    };
    const quoted = await call("POST", "/api/quote", quoteRequest, partner);
    expectStatus(quoted, 200);
    quote = quoted.json.data;

    // The sandbox's forced refusals (SANDBOX_SCENARIOS=on locally): documented 400s of quote and book.
    const priced = await call("POST", "/api/quote", quoteRequest, {
      ...partner,
      headers: { "test-scenario": "price_changed" },
    });
    expectStatus(priced, 400);
    expect(priced.json.message).toBe("Price changed");

    const bookRequest = {
      bookCriteria: {
        quoteId: quote.id,
        accommodation: { code: optionHotel },
        partnerReference: unique("proxy-"),
        holder: { name: "Ada", surName: "Lovelace" },
        checkIn: stay.checkIn,
        checkOut: stay.checkOut,
      },
      settings,
    };
    const failed = await call("POST", "/api/book", bookRequest, {
      ...partner,
      headers: { "test-scenario": "booking_failed" },
    });
    expectStatus(failed, 400);
    expect(failed.json.message).toBe("The booking was not successful.");
    const booked = await call("POST", "/api/book", bookRequest, partner);
    expectStatus(booked, 200);
    bookingReference = booked.json.data.bookingReference;
    expect(booked.json.data.status).toBe("success");

    const read = await call("GET", `/api/bookings/${bookingReference}`, undefined, partner);
    expectStatus(read, 200);
    expectStatus(await call("GET", "/api/bookings?size=5", undefined, partner), 200);
    expectStatus(await call("GET", `/api/bookings/${bookingReference}/cancellation`, undefined, partner), 200);

    // A change of holder, previewed then committed at the previewed price.
    const previewed = await call(
      "POST",
      `/api/bookings/${bookingReference}/modifications/preview`,
      { settings, change: { holder: { name: "Ada", surName: "Byron" } } },
      partner,
    );
    expectStatus(previewed, 200);
    const changed = await call(
      "POST",
      `/api/bookings/${bookingReference}/modifications`,
      { settings, previewId: previewed.json.data.previewId },
      partner,
    );
    expectStatus(changed, 200);

    const cancelled = await call(
      "POST",
      "/api/cancel",
      { input: { reference: { bookingReference } }, settings },
      partner,
    );
    expectStatus(cancelled, 200);
    expect(cancelled.json.data.status).toBe("cancelled");

    // A hold, committed: the same option quoted again (a quote books once).
    const requoted = await call("POST", "/api/quote", quoteRequest, partner);
    expectStatus(requoted, 200);
    const held = await call(
      "POST",
      "/api/book",
      {
        ...bookRequest,
        bookCriteria: {
          ...bookRequest.bookCriteria,
          quoteId: requoted.json.data.id,
          partnerReference: unique("hold-"),
          hold: true,
        },
      },
      partner,
    );
    expectStatus(held, 200);
    const committed = await call(
      "POST",
      `/api/bookings/${held.json.data.bookingReference}/commit`,
      { settings },
      partner,
    );
    expectStatus(committed, 200);
  });

  it("the Hotel-X way: search, quote, book, cancel, and a GraphQL document", async () => {
    const criteria = {
      checkIn: stay.checkIn,
      checkOut: stay.checkOut,
      hotels: [optionHotel],
      occupancies: stay.occupancies,
    };
    const found = await call("POST", "/api/search/tgx", { criteria, settings }, partner);
    expectStatus(found, 200);
    const tgxOption = found.json.data.hotelX.search.options.find((o: any) => o.cancelPolicy.refundable);
    expect(tgxOption).toBeDefined();

    const quoted = await call("POST", "/api/quote/tgx", { criteria: { optionRefId: tgxOption.id }, settings }, partner);
    expectStatus(quoted, 200);
    const optionQuote = quoted.json.data.hotelX.quote.optionQuote;

    const input = {
      optionRefId: optionQuote.optionRefId,
      clientReference: unique("TGX-"),
      holder: { name: "Ada", surname: "Lovelace" },
      rooms: tgxOption.occupancies.map((o: any) => ({
        occupancyRefId: o.id,
        paxes: o.paxes.map((p: any, i: number) => ({ name: `Guest${i}`, surname: "Lovelace", age: p.age })),
      })),
    };
    const booked = await call("POST", "/api/book/tgx", { input, settings }, partner);
    expectStatus(booked, 200);
    expect(booked.json.data.hotelX.book.errors).toEqual([]);
    const bookingID = booked.json.data.hotelX.book.booking.reference.bookingID;

    const cancelled = await call("POST", "/api/cancel/tgx", { input: { bookingID }, settings }, partner);
    expectStatus(cancelled, 200);
    expect(cancelled.json.data.hotelX.cancel.cancellation.status).toBe("CANCELLED");

    const graphql = await call(
      "POST",
      "/api/graphql",
      {
        query:
          "query Search($criteria: HotelCriteriaSearchInput!) { hotelX { search(criteria: $criteria) { options { id hotelCode } errors { code } } } }",
        variables: { criteria },
      },
      { ...partner, headers: { "access-code": String(DEMO.connection.code) } },
    );
    expectStatus(graphql, 200);
    expect(graphql.json.data.hotelX.search.options.length).toBeGreaterThan(0);
  });

  it("webhooks and the event log", async () => {
    const admin = { bearer: await adminToken() };
    // A loopback port nothing listens on: deliveries are attempted locally and fail, never leave the machine.
    const url = `http://127.0.0.1:${await freePort()}/hooks`;
    const endpoint = await call("POST", "/api/partner/webhooks", { url, events: ["booking.confirmed"] }, admin);
    expectStatus(endpoint, 201);
    expectStatus(await call("GET", "/api/partner/webhooks", undefined, admin), 200);
    const endpointId = endpoint.json.data.id;
    expectStatus(await call("GET", `/api/partner/webhooks/${endpointId}/deliveries`, undefined, admin), 200);
    expectStatus(await call("DELETE", `/api/partner/webhooks/${endpointId}`, undefined, admin), 200);

    const events = await call("GET", "/api/events?limit=5", undefined, partner);
    expectStatus(events, 200);
  });

  it("operator: a partner and its connection, radar origins, exchange rates, erasure, inventory", async () => {
    const partnerId = unique("proxy-").toLowerCase();
    const onboarded = await call(
      "POST",
      "/api/partners",
      {
        id: partnerId,
        name: "Proxy Travel",
        admin: { email: `admin@${partnerId}.example`, password: DEMO.admin.passwordMd5, firstName: "Ada" },
      },
      operator,
    );
    expectStatus(onboarded, 201);
    expectStatus(await call("GET", "/api/partners", undefined, operator), 200);
    const connection = await call(
      "POST",
      "/api/connections",
      { partnerId, apiType: "b2b", connectionType: "direct", rateLimit: 60, rateLimitWindowMs: 60_000, netMarkups: 0 },
      operator,
    );
    expectStatus(connection, 201);
    const connectionId = connection.json.data.id;
    expectStatus(await call("PATCH", `/api/connections/${connectionId}`, { rateLimit: 120 }, operator), 200);
    expectStatus(await call("PUT", `/api/connections/${connectionId}/enable`, undefined, operator), 200);
    expectStatus(await call("PUT", `/api/connections/${connectionId}/disable`, undefined, operator), 200);
    // An upstream on a loopback port nothing listens on: stored, read back (credentials hidden), removed.
    const upstream = {
      kind: "hotelx",
      url: `http://127.0.0.1:${await freePort()}/`,
      client: "edgestay",
      context: "HOTELX",
      credentials: { apiKey: "supplier-api-key" },
    };
    expectStatus(await call("PUT", `/api/connections/${connectionId}/upstream`, upstream, operator), 200);
    expectStatus(await call("GET", `/api/connections/${connectionId}/upstream`, undefined, operator), 200);
    expectStatus(await call("DELETE", `/api/connections/${connectionId}/upstream`, undefined, operator), 200);
    expectStatus(await call("DELETE", `/api/connections/${connectionId}`, undefined, operator), 200);
    expectStatus(
      await call(
        "PUT",
        `/api/partners/${partnerId}/radar-settings`,
        { allowedOrigins: ["https://partner.example"] },
        operator,
      ),
      200,
    );

    const rates = await call("GET", "/api/operator/exchange-rates", undefined, operator);
    expectStatus(rates, 200);
    expectStatus(
      await call("PUT", "/api/operator/exchange-rates", { base: "USD", rates: { EUR: 0.92 } }, operator),
      200,
    );
    expectStatus(await call("POST", "/api/operator/login-failures/purge", {}, operator), 200);
    expectStatus(await call("POST", "/api/operator/data-subjects/erase", { email: "nobody@demo.test" }, operator), 200);
    const inventory = await call(
      "GET",
      `/api/inventory/${optionHotel}?from=${stay.checkIn}&to=${stay.checkOut}`,
      undefined,
      operator,
    );
    expectStatus(inventory, 200);
    const room = inventory.json.data.rooms[0];
    const nights = { from: stay.checkIn, to: stay.checkIn };
    expectStatus(
      await call("PUT", `/api/inventory/${optionHotel}/rooms/${room.code}`, { ...nights, allotment: 9 }, operator),
      200,
    );
    expectStatus(
      await call(
        "PUT",
        `/api/inventory/${optionHotel}/rate-plans/${room.ratePlans[0].code}`,
        { ...nights, stopSell: false },
        operator,
      ),
      200,
    );
    const fee = {
      type: "FEE",
      code: "RESORT_FEE",
      description: "Resort fee",
      basis: "PER_ROOM_PER_NIGHT",
      value: 25,
      included: false,
    };
    expectStatus(await call("PUT", `/api/inventory/${optionHotel}/fees`, { mandatory: [fee] }, operator), 200);
    // The content export's own document, put back as the operator's edit.
    expectStatus(await call("PUT", `/api/operator/accommodations/${first.code}`, first, operator), 200);
  });

  it("manages users, API keys and connections", async () => {
    const admin = { bearer: await adminToken() };

    expectStatus(await call("GET", "/api/users/me", undefined, admin), 200);
    expectStatus(await call("GET", "/api/users", undefined, admin), 200);
    const user = await call(
      "POST",
      "/api/users",
      { email: `${unique("agent")}@demo.test`, password: DEMO.admin.passwordMd5, role: "user" },
      admin,
    );
    expectStatus(user, 201);
    const userId = user.json.data.id;
    expectStatus(await call("POST", `/api/users/${userId}/active-status`, { isActive: false }, admin), 200);
    expectStatus(await call("DELETE", `/api/users/${userId}`, undefined, admin), 200);

    expectStatus(await call("GET", "/api/partner/api-keys", undefined, admin), 200);
    const key = await call("POST", "/api/partner/api-keys", { name: "proxy test" }, admin);
    expectStatus(key, 201);
    expectStatus(await call("DELETE", `/api/partner/api-keys/${key.json.data.id}`, undefined, admin), 200);

    const partnerId = DEMO.partner.id;
    const mine = await call("GET", `/api/partners/${partnerId}/connections`, undefined, admin);
    expectStatus(mine, 200);
    const connectionId = DEMO.connection.id;
    expectStatus(await call("GET", `/api/partners/${partnerId}/connections/${connectionId}`, undefined, admin), 200);
    expectStatus(
      await call(
        "PUT",
        `/api/partners/${partnerId}/connections/${connectionId}/notification-email`,
        { notificationEmail: "ops@demo.test" },
        admin,
      ),
      200,
    );

    expectStatus(await call("GET", `/api/connections?partnerId=${partnerId}`, undefined, operator), 200);
    expectStatus(await call("GET", `/api/connections/${connectionId}`, undefined, operator), 200);
  });

  it("chats: a session, a message, the session read back", async () => {
    const chatKey = { headers: { "x-partner-api-key": DEMO.apiKey.key } };
    const session = await call(
      "POST",
      "/api/partner/v1/core-chat/sessions",
      { actor: { actorId: unique("user-") } },
      chatKey,
    );
    expectStatus(session, 201);
    const sessionId = session.json.data.sessionId;
    const said = await call(
      "POST",
      "/api/partner/v1/core-chat/events",
      { sessionId, text: `Hotel in ${first.address.city} for 2 adults from ${stay.checkIn} to ${stay.checkOut}` },
      chatKey,
    );
    expectStatus(said, 200);
    expectStatus(await call("GET", `/api/partner/v1/core-chat/sessions/${sessionId}`, undefined, chatKey), 200);
    // The hotel page a chat links to; a booking's page without its signed token is a 404 page.
    expectStatus(await call("GET", `/chat/accommodations/${optionHotel}`), 200);
    const untokened = await call("GET", `/chat/bookings/${bookingReference}`);
    expectStatus(untokened, 404);
    expect(untokened.headers.get("content-type")).toMatch(/^text\/html/);
  });

  it("radar: a browser's signals, then a check of the booking attempt", async () => {
    const sessionId = unique("s");
    const signals = await call("POST", "/api/v1/radar/sessions/signals", humanSignals(), {
      headers: {
        "x-radar-collector-key": DEMO.collectorKey,
        "session-id": sessionId,
        origin: "https://partner.example",
      },
    });
    expectStatus(signals, 202);
    const check = await call("POST", "/api/v1/radar/checks", checkBody(), {
      ...partner,
      headers: { "session-id": sessionId },
    });
    expectStatus(check, 200);
  });

  it("deliberate 4xx answers are documented too: a wrong key, unknown codes and references, a bad body", async () => {
    const wrongKey = await call("POST", "/api/v1/content/accommodations", { size: 1 }, { apiKey: "not-a-key" });
    expectStatus(wrongKey, 401);
    expect(wrongKey.json.message).toBe("Invalid API key");

    const unknownConnection = await call(
      "POST",
      "/api/search",
      {
        searchCriteria: { destinations: { accommodations: [{ code: "US000001" }] }, ...stay },
        settings: { access: { code: 999_999 } },
      },
      partner,
    );
    expectStatus(unknownConnection, 401);
    expect(unknownConnection.json.message).toBe("Connection not found");

    const unknownBooking = await call("GET", "/api/bookings/BKNOTTHERE", undefined, partner);
    expectStatus(unknownBooking, 404);
    expect(unknownBooking.json.message).toBe("Booking not found with bookingReference: BKNOTTHERE");

    const unknownEvent = await call(
      "POST",
      "/api/partner/webhooks/whk_not_there/deliveries/evt_not_there/redeliver",
      undefined,
      { bearer: await adminToken() },
    );
    expectStatus(unknownEvent, 404);
    expect(unknownEvent.json.message).toBe("Webhook endpoint not found");
    // The card step's page (under both of its paths) and its attach call, with a token never issued.
    for (const page of ["/card-setup", "/card-setup.html"]) {
      const noCardLink = await call("GET", `${page}?token=not-a-token`);
      expectStatus(noCardLink, 404);
      expect(noCardLink.text).toContain("This link is not valid");
    }
    const attach = await call("POST", "/v1/hotel-ea/payment-methods/attach", {
      portalToken: "not-a-token",
      paymentMethodId: "pm_test0000",
      cardBrand: "visa",
      cardLast4: "4242",
      expMonth: 12,
      expYear: 2099,
    });
    expectStatus(attach, 401);
    expect(attach.json.message).toBe("portalToken is invalid, expired or already used");

    // Two selectors at once: a body the schema lets through (each selector is optional) that the rule refuses.
    const twoSelectors = await call(
      "POST",
      "/api/search",
      {
        searchCriteria: {
          destinations: { accommodations: [{ code: "US000001" }] },
          accommodationName: "Anything",
          ...stay,
        },
        settings,
      },
      partner,
    );
    expectStatus(twoSelectors, 400);
    expect(twoSelectors.json.message).toBe(
      "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
    );
  });
});

/** JSON Schema 2020-12 keywords that Prism's draft-7 validator skips without a word. */
const SKIPPED_BY_DRAFT_7 = [
  "unevaluatedProperties",
  "unevaluatedItems",
  "dependentRequired",
  "dependentSchemas",
  "minContains",
  "maxContains",
  "$dynamicRef",
  "contentSchema",
];

/** Where the document uses a keyword Prism would not check: `prefixItems` counts unless `items` and `maxItems` say it too. */
const uncheckedKeywords = (node: unknown, at: string, found: string[] = []): string[] => {
  if (!node || typeof node !== "object") return found;
  if (!Array.isArray(node)) {
    for (const keyword of SKIPPED_BY_DRAFT_7) if (keyword in node) found.push(`${at}/${keyword}`);
    if ("prefixItems" in node && !("items" in node && "maxItems" in node)) found.push(`${at}/prefixItems`);
  }
  for (const [key, value] of Object.entries(node)) uncheckedKeywords(value, `${at}/${key}`, found);
  return found;
};

describe("the proxy itself", () => {
  it("checks every schema keyword the document uses (Prism validates OpenAPI 3.1 schemas as JSON Schema draft 7)", () => {
    expect(uncheckedKeywords(JSON.parse(readFileSync(document, "utf8")), "#")).toEqual([]);
  });

  it("fails an answer the document does not describe: a body its schema refuses, a status it does not list", async () => {
    // The same document with two lies in it: /health promises an `uptime`, content never answers 401.
    const lying = JSON.parse(readFileSync(document, "utf8"));
    lying.paths["/health"].get.responses["200"].content["application/json"].schema = {
      type: "object",
      required: ["uptime"],
      properties: { uptime: { type: "number" } },
    };
    delete lying.paths["/api/v1/content/accommodations"].post.responses["401"];
    const lyingDocument = join(worker.stateDir, "lying-openapi.json");
    writeFileSync(lyingDocument, JSON.stringify(lying));
    const strict = await startPrismProxy(lyingDocument, worker.url);
    try {
      await expect(call("GET", "/health", undefined, { via: strict })).rejects.toThrow(
        /GET \/health \(500\) is not what the document describes:\nPrism answered 500 itself[\s\S]*must have required property 'uptime'/,
      );
      await expect(
        call("POST", "/api/v1/content/accommodations", { size: 1 }, { apiKey: "not-a-key", via: strict }),
      ).rejects.toThrow(
        /\(401\) is not what the document describes:\nsl-violations:\n.*Unable to match the returned status code/,
      );
      // Under --errors a request the document refuses is Prism's 422, never the Worker's answer, so
      // the flow's deliberate 4xx send bodies the schema accepts and only the Worker's rules refuse.
      await expect(call("POST", "/api/search", { settings }, { ...partner, via: strict })).rejects.toThrow(
        /\(422\) is not what the document describes:\nPrism answered 422 itself[\s\S]*searchCriteria/,
      );
      // Missing credentials are Prism's 401 too, for the same reason.
      await expect(call("POST", "/api/v1/content/accommodations", { size: 1 }, { via: strict })).rejects.toThrow(
        /\(401\) is not what the document describes:\nPrism answered 401 itself/,
      );
    } finally {
      await strict.stop();
    }
  });
});
