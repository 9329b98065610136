import { env } from "cloudflare:test";
import { getVariableValues } from "graphql/execution/values";
import {
  type GraphQLSchema,
  NoDeprecatedCustomRule,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
} from "graphql";
import { describe, expect, it } from "vitest";
import { buildHotelxSchema } from "../../../../sandbox/hotelx/src/schema";
import { sandboxAccess } from "../../../../test/support/hotelx";
import * as documents from "./documents";
import {
  book,
  bookingByClientReference,
  cancel,
  quote,
  search,
  SupplierCallError,
  type BookInput,
  type ProviderTransaction,
} from "./client";

// Every call crosses a real Worker-to-Worker HTTP hop to the sandbox (an auxiliary worker).
const access = sandboxAccess();
const STAY = { checkIn: "2027-03-10", checkOut: "2027-03-12", occupancies: [{ paxes: [{ age: 30 }, { age: 28 }] }] };
const OK_DEADLINE = { deadlineMs: 5_000 };
/** Slow scenarios sleep 2 s; a 200 ms deadline leaves a wide gap either way. */
const SHORT_DEADLINE = { deadlineMs: 200 };
/** The access the sandbox's options are sold through (HotelOptionSearch.accessCode). */
const ACCESS_CODE = "sandbox";
const reference = () => `ES-${crypto.randomUUID().slice(0, 8)}`;

const firstOption = async (hotel: string) => {
  const found = await search(access, { ...STAY, hotels: [hotel] }, OK_DEADLINE);
  expect(found.options.length).toBeGreaterThan(0);
  return found.options[0]!;
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

    const quoted = await quote(access, option.id, OK_DEADLINE);
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
    const quoted = await quote(access, option.id, OK_DEADLINE);
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

  it("committed upstream but the answer never arrives (HXLOST2000): answer_lost within the deadline, and the booking is found by client reference", async () => {
    const option = await firstOption("HXLOST2000");
    const clientReference = reference();
    const { result, ms } = await timed(() => book(access, bookInput(option.id, clientReference), SHORT_DEADLINE));
    expect(result).toMatchObject({ outcome: "answer_lost", clientReference, cause: "supplier_timeout" });
    expect(ms).toBeLessThan(1_500);
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
    expect(text).not.toContain("424242");
    expect(text).not.toContain("737");
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
    // Scenario hotels fail every operation, so their options are taken from a healthy search and re-addressed.
    const healthy = await firstOption("HX005");
    const reAddress = (id: string, hotel: string) => {
      const key = JSON.parse(atob(id.replaceAll("-", "+").replaceAll("_", "/")));
      return btoa(JSON.stringify({ ...key, h: hotel }))
        .replaceAll("+", "-")
        .replaceAll("/", "_")
        .replaceAll("=", "");
    };
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
    expect((await failure(quote(access, reAddress(healthy.id, "HX500"), OK_DEADLINE))).code).toBe("supplier_error");
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
  const schema = buildHotelxSchema();

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
    const quoted = await quote(recording, option.id, { ...OK_DEADLINE, language: "en" });
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

    // Every document of documents.ts went out, and each with its variables is valid.
    expect(new Set(sent.map((b) => b.query))).toEqual(new Set(Object.values(documents)));
    for (const body of sent) expect(problemsOf(schema, body.query, body.variables), body.query).toEqual([]);

    // The same check fails on a misspelt field, argument, type or enum value, and on a variable of the wrong type.
    const search0 = sent[0]!;
    expect(problemsOf(schema, search0.query.replace("hotelName", "hotelNmae"), search0.variables)).toEqual([
      expect.stringContaining('Cannot query field "hotelNmae" on type "HotelOptionSearch"'),
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
