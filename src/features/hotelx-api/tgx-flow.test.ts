import { env } from "cloudflare:test";
import {
  type DocumentNode,
  execute,
  type FieldNode,
  getNullableType,
  getOperationAST,
  type GraphQLObjectType,
  type GraphQLOutputType,
  isListType,
  isObjectType,
  Kind,
  parse,
  type SelectionSetNode,
  validate,
} from "graphql";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { call, DEMO_KEY, OTHER_KEY, post } from "../../../test/support/api";
import {
  bookBody,
  cancelBody,
  createDemoConnection,
  OTHER_CODE,
  quoteBody,
  quoteOf,
  searchOne,
} from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { demoUpstreamUrl, hotelxResultProblems, sandboxAccess } from "../../../test/support/hotelx";
import {
  type Needs,
  PUBLISHED_CASES,
  type PublishedCase,
  type PublishedFacts,
  publishedVariables,
} from "../../../test/support/hotelx-published";
import { sandboxSupplierUrl } from "../../../test/support/accounts";
import type { Offer } from "../supply";
import { search as hotelxSearch } from "../supply/hotelx/client";
import { rememberUpstreamOptions } from "../booking/upstream-options";
import { seedSandboxHotels } from "../../../test/support/seed";
import { demoAdminToken, OPERATOR } from "../../../test/support/sessions";
import { subscribe } from "../../../test/support/webhooks";
import { bookingByClientReference, type HotelxAccess } from "../supply/hotelx/client";
import { circuitFor } from "../supply/upstream-circuit";
import decisions from "../../../docs/api-decisions.md?raw";
import { buildHotelxSchema } from "../../../sandbox/hotelx/src/schema";
import { hotelxApiSdl } from "./hotelx-api-sdl";
import { GRAPHQL_RESPONSE_TYPE as GRAPHQL_RESPONSE } from "./hotelx-graphql";
import { settlePendingBookingsTask } from "../booking/settle-pending";

// The Hotel-X shaped flow (issue 29, item 4): /api/search/tgx, /api/quote/tgx, /api/book/tgx and
// /api/cancel/tgx on the embedded inventory (1001) and the sandbox Hotel-X upstream (1002, the
// auxiliary worker behind HOTELX_SANDBOX). Every 200 answer is checked against the project's
// Hotel-X SDL (sandbox/hotelx/src/schema.ts), and every answer against /openapi.json (test/support/api.ts).
const EMBEDDED = 1001;
const UPSTREAM = 1002;

let ledger: HotelxAccess;
beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 12 });
  await seedSandboxHotels(env.DB);
  ledger = sandboxAccess(await demoUpstreamUrl(), "test");
  await subscribe(await demoAdminToken(), "tgx-flow");
});
// The upstream supplier's circuit is shared by every test here: each starts closed.
beforeEach(async () => {
  await circuitFor(env, "hotelx-1002").record(true, Date.now());
});

/** Hotel-X's payload type of each operation (the SDL's names). */
const PAYLOAD = { quote: "HotelQuote", book: "HotelBookPayload", cancel: "HotelCancelPayload" } as const;

type Options = {
  code?: number;
  apiKey?: string | null;
  headers?: Record<string, string>;
  settings?: Record<string, unknown>;
};

/** POST /api/<op>/tgx; a 200 answer must be a valid value of the operation's SDL payload type. */
const hotelx = async (op: keyof typeof PAYLOAD, payload: Record<string, unknown>, options: Options = {}) => {
  const body = { ...payload, settings: { access: { code: options.code ?? EMBEDDED }, ...options.settings } };
  const res = await post(`/api/${op}/tgx`, body, { apiKey: options.apiKey, headers: options.headers });
  const answer = res.json?.data?.hotelX?.[op];
  if (res.status === 200) expect(await hotelxResultProblems(PAYLOAD[op], answer)).toEqual([]);
  return { ...res, answer };
};

const searchTgx = async (hotel: string, code: number, pick: (o: any) => boolean = () => true) => {
  const res = await post("/api/search/tgx", {
    criteria: {
      checkIn: inDays(30),
      checkOut: inDays(32),
      hotels: [hotel],
      occupancies: [{ paxes: [{ age: 30 }, { age: 31 }] }],
    },
    settings: { access: { code } },
  });
  expect(res.status).toBe(200);
  const option = res.json.data.hotelX.search.options.find(pick);
  if (!option) throw new Error(`no option for ${hotel}: ${res.text}`);
  return option;
};
const refundable = (o: any) => o.cancelPolicy.refundable;

const quoteTgx = (optionRefId: string, options?: Options) => hotelx("quote", { criteria: { optionRefId } }, options);

/** A HotelBookInput for `option` (a searched one: its occupancies name the rooms), every guest named. */
const bookInput = (optionRefId: string, option: any, clientReference: string, extra: Record<string, unknown> = {}) => ({
  input: {
    optionRefId,
    clientReference,
    holder: { name: "Ada", surname: "Lovelace" },
    rooms: option.occupancies.map((o: any) => ({
      occupancyRefId: o.id,
      paxes: o.paxes.map((p: any, i: number) => ({ name: `Guest${i}`, surname: "Lovelace", age: p.age })),
    })),
    ...extra,
  },
});
const reference = () => `TGX-${crypto.randomUUID()}`;
const bookingsUnder = async (clientReference: string) =>
  (await env.DB.prepare("SELECT count(*) AS n FROM bookings WHERE partner_reference = ?")
    .bind(clientReference)
    .first<number>("n"))!;
const eventsOf = async (bookingReference: string) =>
  (
    await env.DB.prepare("SELECT type FROM webhook_events WHERE booking_reference = ?")
      .bind(bookingReference)
      .all<{ type: string }>()
  ).results.map((r) => r.type);
const soldNights = async (code: string) =>
  (await env.DB.prepare("SELECT coalesce(sum(sold), 0) AS n FROM room_nights WHERE accommodation_code = ?")
    .bind(code)
    .first<number>("n"))!;
const upstreamBooking = (hotelCode: string, clientReference: string) =>
  bookingByClientReference(
    ledger,
    { hotelCode, currency: "EUR", accessCode: "sandbox", clientReference },
    { deadlineMs: 5_000 },
  );

describe("a Hotel-X shaped flow: search, quote, book, cancel", () => {
  it("on connection 1001 (embedded inventory): the booking read, webhooks and cancel by bookingID", async () => {
    const option = await searchTgx("US000001", EMBEDDED, refundable);
    const quoted = await quoteTgx(option.id);
    expect(quoted.status).toBe(200);
    const quote = quoted.answer.optionQuote;
    expect(quoted.answer.errors).toEqual([]);
    expect(quote.optionRefId).toMatch(/^qt_/);
    expect(quote).toMatchObject({
      status: "OK",
      price: option.price,
      searchPrice: null,
      paymentType: option.paymentType,
    });
    // The search's penalties (deadline, kind, amount), with Hotel-X's hoursBefore beside them.
    const stated = (p: any) => ({
      deadline: p.deadline,
      penaltyType: p.penaltyType,
      currency: p.currency,
      value: p.value,
    });
    expect(quote.cancelPolicy.refundable).toBe(true);
    expect(quote.cancelPolicy.cancelPenalties.map(stated)).toEqual(option.cancelPolicy.cancelPenalties.map(stated));
    expect(quote.rooms).toEqual(
      option.rooms.map((r: any) => ({
        occupancyRefId: String(r.occupancyRefId),
        legacyRoomId: `${r.occupancyRefId}|${r.code}`,
        code: r.code,
        supplierCode: r.code,
        description: r.description,
      })),
    );

    const clientReference = reference();
    const booked = await hotelx("book", bookInput(quote.optionRefId, option, clientReference));
    expect(booked.status).toBe(200);
    const booking = booked.answer.booking;
    expect(booked.answer.errors).toEqual([]);
    expect(booking).toMatchObject({
      status: "OK",
      reference: { client: clientReference },
      holder: { name: "Ada", surname: "Lovelace" },
      price: quote.price,
      quotePrice: null,
      cancelPolicy: quote.cancelPolicy,
      hotel: {
        hotelCode: "US000001",
        hotelName: option.hotelName,
        boardCode: option.boardCode,
        start: inDays(30),
        end: inDays(32),
        occupancies: option.occupancies,
      },
    });
    expect(booking.hotel.rooms.map((r: any) => r.code)).toEqual(option.rooms.map((r: any) => r.code));
    const bookingID = booking.reference.bookingID;
    const read = await call("GET", `/api/bookings/${bookingID}`);
    expect(read.json.data).toMatchObject({
      status: "success",
      partnerReference: clientReference,
      holder: { name: "Ada", surName: "Lovelace" },
      chargeTotal: quote.price.net,
      occupancies: [{ occupancyId: 1, paxes: [{ age: 30, name: "Guest0", surName: "Lovelace" }, { age: 31 }] }],
    });

    const cancelled = await hotelx("cancel", { input: { bookingID } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.answer.errors).toEqual([]);
    expect(cancelled.answer.cancellation).toMatchObject({
      status: "CANCELLED",
      reference: booking.reference,
      price: { currency: quote.price.currency, net: 0 },
      booking: { status: "CANCELLED", reference: booking.reference },
    });
    expect((await call("GET", `/api/bookings/${bookingID}`)).json.data.status).toBe("cancelled");
    // The same webhooks as /api/book and /api/cancel.
    expect((await eventsOf(bookingID)).sort()).toEqual(["booking.cancelled", "booking.confirmed"]);
  });

  it("on connection 1002 (sandbox upstream): booked upstream under our reference, cancelled by accessCode, hotelCode and clientReference", async () => {
    const option = await searchTgx("HX002", UPSTREAM, refundable);
    expect(option.accessCode).toBe(String(UPSTREAM));
    const quote = (await quoteTgx(option.id, { code: UPSTREAM })).answer.optionQuote;
    expect(quote).toMatchObject({ price: { currency: "EUR", net: option.price.net }, searchPrice: null });
    const clientReference = reference();
    const booked = await hotelx("book", bookInput(quote.optionRefId, option, clientReference), { code: UPSTREAM });
    expect(booked.answer.booking).toMatchObject({ status: "OK", reference: { client: clientReference } });
    const bookingID = booked.answer.booking.reference.bookingID;
    expect(await upstreamBooking("HX002", bookingID)).toMatchObject({ found: true, booking: { status: "OK" } });

    // Hotel-X's other way to name a booking: all of accessCode, hotelCode and reference; each must be the booking's.
    const byReference = { accessCode: String(UPSTREAM), hotelCode: "HX002", reference: { client: clientReference } };
    const wrongHotel = await hotelx("cancel", { input: { ...byReference, hotelCode: "HX001" } }, { code: UPSTREAM });
    expect(wrongHotel.answer).toMatchObject({ cancellation: null, errors: [{ code: "BOOKING_NOT_FOUND" }] });
    const wrongAccess = await hotelx("cancel", { input: { ...byReference, accessCode: "1001" } }, { code: UPSTREAM });
    expect(wrongAccess.answer.errors[0].code).toBe("BOOKING_NOT_FOUND");
    const cancelled = await hotelx("cancel", { input: byReference }, { code: UPSTREAM });
    expect(cancelled.answer.cancellation).toMatchObject({ status: "CANCELLED", booking: { status: "CANCELLED" } });
    expect(await upstreamBooking("HX002", bookingID)).toMatchObject({ booking: { status: "CANCELLED" } });
  });

  it("HXPRICEUP: the quote answers today's price beside searchPrice and books at it; a book from the search option honours deltaPrice", async () => {
    const option = await searchTgx("HXPRICEUP", UPSTREAM);
    const searched = option.price.net;
    const raised = Math.round(searched * 115) / 100;
    const quoted = await quoteTgx(option.id, { code: UPSTREAM });
    expect(quoted.answer.optionQuote).toMatchObject({
      price: { currency: "EUR", net: raised },
      searchPrice: { currency: "EUR", net: searched, gross: searched, binding: false },
    });
    const viaQuote = await hotelx("book", bookInput(quoted.answer.optionQuote.optionRefId, option, reference()), {
      code: UPSTREAM,
    });
    expect(viaQuote.answer.booking).toMatchObject({ status: "OK", price: { net: raised } });

    // From the search option: quoted and booked in one request, the rise allowed only as deltaPrice says.
    const refused = [undefined, { percent: 10, applyBoth: false }, { amount: 1, percent: 20, applyBoth: true }];
    for (const deltaPrice of refused) {
      const clientReference = reference();
      const res = await hotelx(
        "book",
        bookInput(option.id, option, clientReference, deltaPrice ? { deltaPrice } : {}),
        { code: UPSTREAM },
      );
      expect(res.status).toBe(200);
      expect(res.answer.errors).toEqual([
        {
          code: "PRICE_CHANGED",
          type: "SUPPLIER",
          description: `Price changed: from ${searched} to ${raised} EUR`,
        },
      ]);
      expect(res.answer.booking).toMatchObject({
        status: "KO",
        reference: { client: clientReference, bookingID: null },
        price: { currency: "EUR", net: raised },
        quotePrice: { currency: "EUR", net: searched },
      });
      expect(await bookingsUnder(clientReference)).toBe(0);
    }
    for (const deltaPrice of [
      { percent: 15, applyBoth: true },
      { amount: 1, percent: 20, applyBoth: false },
    ]) {
      const res = await hotelx("book", bookInput(option.id, option, reference(), { deltaPrice }), { code: UPSTREAM });
      expect(res.answer.errors).toEqual([]);
      expect(res.answer.booking).toMatchObject({ status: "OK", price: { net: raised } });
    }
  });

  it("HXLOST2000: a lost answer is UNKNOWN (pending); retries under the key and the clientReference answer it; settled to OK", async () => {
    const option = await searchTgx("HXLOST2000", UPSTREAM);
    const quote = (await quoteTgx(option.id, { code: UPSTREAM })).answer.optionQuote;
    const clientReference = reference();
    const body = bookInput(quote.optionRefId, option, clientReference);
    // The sandbox books on arrival and answers 2 s later: a 1.5 s deadline loses the answer after it booked.
    const lost = {
      code: UPSTREAM,
      settings: { timeout: 1500 },
      headers: { "Idempotency-Key": `k-${clientReference}` },
    };
    const first = await hotelx("book", body, lost);
    expect(first.status).toBe(200);
    expect(first.answer.booking).toMatchObject({ status: "UNKNOWN", reference: { client: clientReference } });
    const bookingID = first.answer.booking.reference.bookingID;
    expect((await call("GET", `/api/bookings/${bookingID}`)).json.data.status).toBe("pending");

    const replay = await hotelx("book", body, lost);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.answer.booking).toMatchObject({ status: "UNKNOWN", reference: { bookingID } });
    const again = await hotelx("book", body, { ...lost, headers: { "Idempotency-Key": `n-${clientReference}` } });
    expect(again.answer.booking.reference.bookingID).toBe(bookingID);
    expect(await bookingsUnder(clientReference)).toBe(1);
    // Not cancellable until it settles.
    const early = await hotelx("cancel", { input: { bookingID } }, { code: UPSTREAM });
    expect(early.answer).toMatchObject({ cancellation: null, errors: [{ code: "BOOKING_PENDING", type: "CLIENT" }] });

    expect(await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000))).toBe(1);
    const settled = await hotelx("book", body, lost);
    expect(settled.headers.get("Idempotent-Replayed")).toBe("true");
    expect(settled.answer.booking).toMatchObject({ status: "OK", reference: { bookingID } });
    expect(await upstreamBooking("HXLOST2000", bookingID)).toMatchObject({ found: true, booking: { status: "OK" } });
  });
});

describe("Hotel-X shaped book: retries", () => {
  it("the same Idempotency-Key replays; the same clientReference answers its booking; another request under either is refused", async () => {
    const option = await searchTgx("US000002", EMBEDDED);
    const quote = (await quoteTgx(option.id)).answer.optionQuote;
    const clientReference = reference();
    const body = bookInput(quote.optionRefId, option, clientReference);
    const key = { headers: { "Idempotency-Key": `k-${clientReference}` } };
    const first = await hotelx("book", body, key);
    expect(first.answer.booking.status).toBe("OK");
    const bookingID = first.answer.booking.reference.bookingID;

    const replay = await hotelx("book", body, key);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.answer).toEqual(first.answer);
    const sameReference = await hotelx("book", body, { headers: { "Idempotency-Key": `other-${clientReference}` } });
    expect(sameReference.answer.booking.reference.bookingID).toBe(bookingID);
    const noKey = await hotelx("book", body);
    expect(noKey.answer.booking.reference.bookingID).toBe(bookingID);
    expect(await bookingsUnder(clientReference)).toBe(1);

    const otherBody = bookInput(quote.optionRefId, option, clientReference, {
      holder: { name: "Grace", surname: "Hopper" },
    });
    const reused = await hotelx("book", otherBody, key);
    expect(reused.status).toBe(409);
    expect(reused.json.code).toBe("idempotency_key_reused");
    const duplicated = await hotelx("book", otherBody);
    expect(duplicated.status).toBe(200);
    expect(duplicated.answer).toMatchObject({ booking: null, errors: [{ code: "DUPLICATED_CLIENT_REFERENCE" }] });
    expect(await bookingsUnder(clientReference)).toBe(1);
  });

  it("a book from a search option (one step): replayed under its key; its clientReference again without the key is DUPLICATED_CLIENT_REFERENCE", async () => {
    const option = await searchTgx("US000003", EMBEDDED);
    const clientReference = reference();
    const body = bookInput(option.id, option, clientReference);
    const key = { headers: { "Idempotency-Key": `k-${clientReference}` } };
    const first = await hotelx("book", body, key);
    expect(first.answer.booking).toMatchObject({ status: "OK", price: option.price });
    const replay = await hotelx("book", body, key);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.answer.booking.reference.bookingID).toBe(first.answer.booking.reference.bookingID);
    const withoutKey = await hotelx("book", body);
    expect(withoutKey.answer.errors).toMatchObject([{ code: "DUPLICATED_CLIENT_REFERENCE", type: "CLIENT" }]);
    expect(await bookingsUnder(clientReference)).toBe(1);
  });
});

describe("Hotel-X shaped refusals", () => {
  it("another partner's booking is not found on cancel, like one that does not exist; the booking stays", async () => {
    const option = await searchTgx("US000004", EMBEDDED, refundable);
    const quote = (await quoteTgx(option.id)).answer.optionQuote;
    const clientReference = reference();
    const bookingID = (await hotelx("book", bookInput(quote.optionRefId, option, clientReference))).answer.booking
      .reference.bookingID;
    const asOther = { apiKey: OTHER_KEY, code: OTHER_CODE };
    const theirs = await hotelx("cancel", { input: { bookingID } }, asOther);
    const none = await hotelx("cancel", { input: { bookingID: "BKNOSUCHBOOKING" } }, asOther);
    expect(theirs.status).toBe(200);
    expect(theirs.answer).toEqual({
      cancellation: null,
      errors: [
        {
          code: "BOOKING_NOT_FOUND",
          type: "CLIENT",
          description: `Booking not found with bookingReference: ${bookingID}`,
        },
      ],
      warnings: [],
    });
    expect(none.answer.errors[0].description).toBe("Booking not found with bookingReference: BKNOSUCHBOOKING");
    const byReference = await hotelx(
      "cancel",
      { input: { accessCode: String(OTHER_CODE), hotelCode: "US000004", reference: { client: clientReference } } },
      asOther,
    );
    expect(byReference.answer.errors[0].code).toBe("BOOKING_NOT_FOUND");
    expect((await call("GET", `/api/bookings/${bookingID}`)).json.data.status).toBe("success");
  });

  it("refusals of the option, the quote and the supplier are Hotel-X errors in the payload (HTTP 200)", async () => {
    const forged = await quoteTgx("not-an-option-id");
    expect(forged.status).toBe(200);
    expect(forged.answer).toEqual({
      optionQuote: null,
      errors: [
        { code: "OPTION_EXPIRED_OR_INVALID", type: "CLIENT", description: "Option reference expired or invalid" },
      ],
      warnings: [],
    });
    const option = await searchTgx("US000005", EMBEDDED);
    const unknownQuote = await hotelx("book", bookInput("qt_nosuchquote", option, reference()));
    expect(unknownQuote.answer).toMatchObject({ booking: null, errors: [{ code: "QUOTE_EXPIRED_OR_INVALID" }] });
    // A room left out of the quoted occupancies.
    const quote = (await quoteTgx(option.id)).answer.optionQuote;
    const wrongRoom = bookInput(quote.optionRefId, option, reference());
    wrongRoom.input.rooms[0].occupancyRefId = 9;
    expect((await hotelx("book", wrongRoom)).answer.errors).toMatchObject([{ code: "OCCUPANCY_NOT_FOUND" }]);

    const soldOut = await searchTgx("HXSOLDOUT", UPSTREAM);
    const soldOutQuote = (await quoteTgx(soldOut.id, { code: UPSTREAM })).answer.optionQuote;
    const clientReference = reference();
    const refused = await hotelx("book", bookInput(soldOutQuote.optionRefId, soldOut, clientReference), {
      code: UPSTREAM,
    });
    expect(refused.answer).toMatchObject({
      booking: null,
      errors: [{ code: "SOLD_OUT", type: "SUPPLIER", description: "The booking was not successful. (unavailable)" }],
    });
    expect(await bookingsUnder(clientReference)).toBe(0);

    const nonRefundable = await searchTgx("US000006", EMBEDDED, (o) => !o.cancelPolicy.refundable);
    const nrQuote = (await quoteTgx(nonRefundable.id)).answer.optionQuote;
    const nr = await hotelx("book", bookInput(nrQuote.optionRefId, nonRefundable, reference()));
    const cancel = await hotelx("cancel", { input: { bookingID: nr.answer.booking.reference.bookingID } });
    expect(cancel.answer.errors).toMatchObject([{ code: "NOT_REFUNDABLE", type: "CLIENT" }]);
  });

  it("a language other than English is a warning; auditTransactions answers the upstream exchange as auditData", async () => {
    const option = await searchTgx("HX001", UPSTREAM);
    const res = await hotelx(
      "quote",
      { criteria: { optionRefId: option.id, language: "es" } },
      { code: UPSTREAM, settings: { auditTransactions: true } },
    );
    expect(res.answer.warnings).toEqual([
      { code: "LANGUAGE_NOT_AVAILABLE", type: "CONTENT", description: "Texts are in English; es was requested" },
    ]);
    expect(res.answer.auditData.transactions).toHaveLength(1);
    expect(res.answer.auditData.transactions[0].request).toContain("authorization: [REDACTED]");
  });

  it("the SDL check is strict: a wrong enum value, a missing non-null field and an unknown key are problems", async () => {
    const option = await searchTgx("US000007", EMBEDDED);
    const { answer } = await quoteTgx(option.id);
    const problemsWith = (change: Record<string, unknown>) =>
      hotelxResultProblems("HotelQuote", { ...answer, optionQuote: { ...answer.optionQuote, ...change } });
    expect(await problemsWith({})).toEqual([]);
    expect((await problemsWith({ paymentType: "CASH" })).join()).toMatch(/PaymentType.*CASH/);
    expect((await problemsWith({ status: undefined })).join()).toMatch(/non-nullable field HotelOptionQuote\.status/);
    expect(await problemsWith({ cost: 1 })).toEqual(["HotelQuote.optionQuote.cost is not a field of HotelOptionQuote"]);
  });
});

describe("Hotel-X shaped requests: what the request itself gets wrong is the API's 400", () => {
  it.each([
    ["quote", {}, "criteria is required"],
    ["quote", { criteria: {} }, "criteria.optionRefId is required"],
    ["quote", { criteria: { optionRefId: "x", hotel: "US000001" } }, /criteria: .*hotel/],
    [
      "book",
      { input: { optionRefId: "qt_x", clientReference: "r", rooms: [] } },
      /^input\.holder is required|^input\.rooms/,
    ],
    [
      "book",
      {
        input: {
          optionRefId: "qt_x",
          clientReference: "r",
          holder: { name: "Ada" },
          rooms: [{ occupancyRefId: 1, paxes: [{ name: "A", surname: "B", age: 3 }] }],
        },
      },
      "input.holder.surname is required",
    ],
    [
      "book",
      {
        input: {
          optionRefId: "qt_x",
          clientReference: "r",
          remarks: "x".repeat(2001),
          holder: { name: "A", surname: "B" },
          rooms: [{ occupancyRefId: 1, paxes: [{ name: "A", surname: "B", age: 3 }] }],
        },
      },
      "input.remarks",
    ],
    [
      "book",
      {
        input: {
          optionRefId: "qt_x",
          clientReference: "r",
          deltaPrice: { percent: 5 },
          holder: { name: "A", surname: "B" },
          rooms: [{ occupancyRefId: 1, paxes: [{ name: "A", surname: "B", age: 3 }] }],
        },
      },
      "input.deltaPrice.applyBoth is required",
    ],
    [
      "cancel",
      { input: {} },
      /input\.bookingID, or input\.accessCode, input\.hotelCode and input\.reference\.client or input\.reference\.supplier, is required/,
    ],
    [
      "cancel",
      { input: { hotelCode: "US000001", reference: { client: "r" } } },
      /input\.bookingID, or input\.accessCode/,
    ],
  ] as const)("%s %j: 400", async (op, payload, message) => {
    const res = await hotelx(op, payload);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("invalid_request");
    expect(res.json.message).toMatch(message);
  });

  it("a card in Hotel-X's paymentCard is refused before anything reads it; no API key is 401", async () => {
    const res = await hotelx("book", {
      input: {
        optionRefId: "qt_x",
        clientReference: "r",
        holder: { name: "A", surname: "B" },
        rooms: [{ occupancyRefId: 1, paxes: [{ name: "A", surname: "B", age: 30 }] }],
        paymentCard: {
          holder: { name: "A", surname: "B" },
          number: "4111111111111111",
          CVC: "123",
          expire: { month: 1, year: 2030 },
        },
      },
    });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("raw_card_data_refused");
    expect(res.text).not.toContain("4111111111111111");
    const anonymous = await post(
      "/api/quote/tgx",
      { criteria: { optionRefId: "x" }, settings: { access: { code: 1001 } } },
      { apiKey: null },
    );
    expect(anonymous.status).toBe(401);
  });
});

// POST /api/graphql (item 5): a Hotel-X client's own documents, executed against the same SDL.
const ISSUES = "errors { code type description } warnings { code type description }";
const PRICE = "price { currency binding net gross exchange { currency rate } }";
const SEARCH = `query Search($criteria: HotelCriteriaSearchInput!, $settings: HotelSettingsInput) {
  hotelX { search(criteria: $criteria, settings: $settings) {
    context
    options { id accessCode supplierCode hotelCode hotelName boardCode paymentType status ${PRICE}
      occupancies { id paxes { age } }
      rooms { occupancyRefId code description refundable roomPrice { ${PRICE} } }
      cancelPolicy { refundable cancelPenalties { deadline isCalculatedDeadline penaltyType currency value } } }
    ${ISSUES} } } }`;
const QUOTE = `query Quote($criteria: HotelCriteriaQuoteInput!, $settings: HotelSettingsInput) {
  hotelX { quote(criteria: $criteria, settings: $settings) {
    optionQuote { optionRefId status ${PRICE} searchPrice { currency net gross binding } paymentType remarks
      cancelPolicy { refundable cancelPenalties { deadline hoursBefore isCalculatedDeadline penaltyType currency value } }
      surcharges { code chargeType mandatory description ${PRICE} }
      rooms { occupancyRefId legacyRoomId code supplierCode description } }
    ${ISSUES} } } }`;
const DETAIL = `reference { client supplier hotel bookingID } holder { name surname } status remarks ${PRICE}
  quotePrice { currency net gross binding }
  hotel { bookingDate start end hotelCode hotelName boardCode occupancies { id paxes { age } }
    rooms { occupancyRefId code description ${PRICE} } }
  cancelPolicy { refundable cancelPenalties { deadline hoursBefore isCalculatedDeadline penaltyType currency value } }`;
const BOOK = `mutation Book($input: HotelBookInput!, $settings: HotelSettingsInput) {
  hotelX { book(input: $input, settings: $settings) { booking { ${DETAIL} } ${ISSUES} } } }`;
const BOOKING = `query Booking($criteria: HotelCriteriaBookingInput!, $settings: HotelSettingsInput) {
  hotelX { booking(criteria: $criteria, settings: $settings) { bookings { ${DETAIL} } ${ISSUES} } } }`;
const CANCEL = `mutation Cancel($input: HotelCancelInput!, $settings: HotelSettingsInput) {
  hotelX { cancel(input: $input, settings: $settings) {
    cancellation { reference { client bookingID } cancelReference status ${PRICE} booking { status } } ${ISSUES} } } }`;

type GraphqlOptions = { header?: number; headers?: Record<string, string>; apiKey?: string | null };
const graphql = (query: string, variables: Record<string, unknown>, options: GraphqlOptions = {}) =>
  post(
    "/api/graphql",
    { query, variables },
    {
      apiKey: options.apiKey,
      headers: { ...(options.header ? { "access-code": String(options.header) } : {}), ...options.headers },
    },
  );
/** A document that must run without a GraphQL error: its `data.hotelX`. */
const hotelxData = async (query: string, variables: Record<string, unknown>, options?: GraphqlOptions) => {
  const res = await graphql(query, variables, options);
  expect(res.status).toBe(200);
  expect(res.json.errors, JSON.stringify(res.json.errors)).toBeUndefined();
  return { ...res, hotelX: res.json.data.hotelX };
};

describe("POST /api/graphql: Hotel-X documents against the same SDL", () => {
  it.each([
    ["1001, the connection in the access-code header", EMBEDDED, "US000008", true],
    ["1002, the connection in the settings variable", UPSTREAM, "HX003", false],
  ])(
    "on %s: search, quote, book (replayed under its key), booking by id, references and dates, cancel",
    async (_, code, hotel, byHeader) => {
      const how = byHeader ? { header: code } : {};
      const settings = byHeader ? {} : { access: { code } };
      const criteria = {
        checkIn: inDays(30),
        checkOut: inDays(32),
        hotels: [hotel],
        occupancies: [{ paxes: [{ age: 30 }, { age: 31 }] }],
      };
      const searched = await hotelxData(SEARCH, { criteria, settings }, how);
      const option = searched.hotelX.search.options.find(refundable);
      expect(option).toMatchObject({ accessCode: String(code), hotelCode: hotel });

      const quoted = await hotelxData(QUOTE, { criteria: { optionRefId: option.id }, settings }, how);
      const quote = quoted.hotelX.quote.optionQuote;
      expect(quote).toMatchObject({ status: "OK", price: option.price, searchPrice: null });

      const clientReference = reference();
      const input = bookInput(quote.optionRefId, option, clientReference).input;
      const key = { ...how, headers: { "Idempotency-Key": `g-${clientReference}` } };
      const booked = await hotelxData(BOOK, { input, settings }, key);
      expect(booked.hotelX.book).toMatchObject({
        errors: [],
        booking: { status: "OK", reference: { client: clientReference }, price: { net: quote.price.net } },
      });
      const bookingID = booked.hotelX.book.booking.reference.bookingID;
      const replayed = await hotelxData(BOOK, { input, settings }, key);
      expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
      expect(replayed.hotelX).toEqual(booked.hotelX);
      expect(await bookingsUnder(clientReference)).toBe(1);

      const byId = await hotelxData(BOOKING, { criteria: { bookingID }, settings }, how);
      expect(byId.hotelX.booking).toEqual({ bookings: [booked.hotelX.book.booking], errors: [], warnings: [] });
      const byReference = await hotelxData(
        BOOKING,
        {
          criteria: {
            accessCode: String(code),
            typeSearch: "REFERENCES",
            references: { hotelCode: hotel, currency: "EUR", references: [{ client: clientReference }] },
          },
          settings,
        },
        how,
      );
      expect(byReference.hotelX.booking.bookings.map((b: any) => b.reference.bookingID)).toEqual([bookingID]);
      const byDates = await hotelxData(
        BOOKING,
        {
          criteria: { typeSearch: "DATES", dates: { dateType: "ARRIVAL", start: inDays(30), end: inDays(30) } },
          settings,
        },
        how,
      );
      expect(byDates.hotelX.booking.bookings.map((b: any) => b.reference.bookingID)).toContain(bookingID);

      const cancelled = await hotelxData(CANCEL, { input: { bookingID }, settings }, how);
      expect(cancelled.hotelX.cancel).toMatchObject({
        errors: [],
        cancellation: {
          status: "CANCELLED",
          reference: { client: clientReference, bookingID },
          booking: { status: "CANCELLED" },
        },
      });
      expect((await call("GET", `/api/bookings/${bookingID}`)).json.data.status).toBe("cancelled");
    },
  );

  it.each([
    ["a syntax error", "query { hotelX { quote(", /Syntax Error/],
    [
      "an unknown field",
      '{ hotelX { quote(criteria: {optionRefId: "x"}) { optionQuote { cost } } } }',
      /Cannot query field "cost"/,
    ],
    [
      "an unknown argument",
      '{ hotelX { quote(criteria: {optionRefId: "x"}, filter: 1) { errors { code } } } }',
      /Unknown argument "filter"/,
    ],
    [
      "a bad enum value",
      "{ hotelX { booking(criteria: {typeSearch: SOMETIMES}) { errors { code } } } }",
      /Value "SOMETIMES" does not exist in "BookingCriteriaType" enum/,
    ],
    [
      "a bad scalar",
      '{ hotelX { booking(criteria: {dates: {dateType: ARRIVAL, start: "tomorrow", end: "2027-01-01"}}) { errors { code } } } }',
      /Date must be an ISO 8601 date/,
    ],
    [
      "a missing required argument",
      "{ hotelX { quote { errors { code } } } }",
      /argument "criteria" of type "HotelCriteriaQuoteInput!" is required/,
    ],
  ])("%s: GraphQL errors and no data, nothing run", async (_, query, message) => {
    const res = await graphql(query, {}, { header: EMBEDDED });
    expect(res.status).toBe(200);
    expect(res.json.data).toBeUndefined();
    expect(res.json.errors[0].message).toMatch(message);
  });

  it("a book with a guest missing a surname is refused by the SDL: nothing booked", async () => {
    const option = await searchTgx("US000009", EMBEDDED);
    const quote = (await quoteTgx(option.id)).answer.optionQuote;
    const clientReference = reference();
    const input = bookInput(quote.optionRefId, option, clientReference).input;
    input.rooms[0].paxes[0] = { name: "Ada", age: 30 };
    const res = await graphql(BOOK, { input }, { header: EMBEDDED });
    expect(res.json.data).toBeUndefined();
    expect(res.json.errors[0].message).toMatch(/Field "surname" of required type "String!" was not provided/);
    expect(await bookingsUnder(clientReference)).toBe(0);
  });

  it("refusals: PRICE_CHANGED, a field the route refuses and a connection not the caller's are the payload's errors; two names for the connection refuse the document", async () => {
    const option = await searchTgx("HXPRICEUP", UPSTREAM);
    const input = bookInput(option.id, option, reference()).input;
    const refused = await hotelxData(BOOK, { input }, { header: UPSTREAM });
    expect(refused.hotelX.book).toMatchObject({ booking: { status: "KO" }, errors: [{ code: "PRICE_CHANGED" }] });

    // Met while running: in data.hotelX.<operation>.errors, where Hotel-X clients read it (issue 40).
    const blank = await hotelxData(BOOK, { input: { ...input, clientReference: "  " } }, { header: UPSTREAM });
    expect(blank.hotelX.book).toEqual({
      booking: null,
      errors: [{ code: "INVALID_REQUEST", type: "CLIENT", description: expect.stringMatching(/clientReference/) }],
      warnings: [],
    });
    const theirs = await hotelxData(QUOTE, { criteria: { optionRefId: option.id } }, { apiKey: OTHER_KEY });
    expect(theirs.hotelX.quote).toMatchObject({
      optionQuote: null,
      errors: [{ code: "INVALID_CONNECTION_CODE", type: "ACCESS" }],
    });
    const mine = await hotelxData(QUOTE, { criteria: { optionRefId: option.id } }, { header: OTHER_CODE });
    expect(mine.hotelX.quote.errors).toMatchObject([{ code: "INVALID_CONNECTION_CODE", type: "ACCESS" }]);

    // Refused before running: GraphQL errors and no data.
    const two = await graphql(
      QUOTE,
      { criteria: { optionRefId: option.id }, settings: { access: { code: UPSTREAM } } },
      { header: EMBEDDED },
    );
    expect(two.status).toBe(200);
    expect(two.json).not.toHaveProperty("data");
    expect(two.json.errors[0].message).toBe(
      "The access-code header and settings.access.code name different connections",
    );
    const card = await graphql(
      BOOK,
      {
        input: {
          ...input,
          paymentCard: {
            holder: { name: "A", surname: "B" },
            number: "4111111111111111",
            CVC: "123",
            expire: { month: 1, year: 2030 },
          },
        },
      },
      { header: UPSTREAM },
    );
    expect([card.status, card.json.code]).toEqual([400, "raw_card_data_refused"]);
  });
});

// Issue 37, item 4: a document is measured before it runs; one refused before it runs is errors and no data.
const COMMIT = `mutation Commit($input: HotelCommitInput!, $settings: HotelSettingsInput) {
  hotelX { commit(input: $input, settings: $settings) {
    commitDetails { reference { client supplier bookingID } status } ${ISSUES} } } }`;
const SEARCH_FIELD = `search(criteria: $criteria) { options { id } errors { code } }`;
/** A document refused whole, before anything ran: errors (the limit's code when one is named), no data. */
const refusedWhole = async (query: string, variables: Record<string, unknown> = {}, options: GraphqlOptions = {}) => {
  const res = await graphql(query, variables, { header: EMBEDDED, ...options });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(res.json).not.toHaveProperty("data");
  expect(res.json.errors.length).toBeGreaterThan(0);
  return res.json.errors as Array<{ message: string; extensions?: Record<string, unknown> }>;
};

describe("POST /api/graphql within a budget", () => {
  const criteria = {
    checkIn: inDays(30),
    checkOut: inDays(32),
    hotels: ["US000008"],
    occupancies: [{ paxes: [{ age: 30 }] }],
  };

  it.each([
    [6, /The document has 6 hotelX search, quote and booking fields, more than 5/],
    [50, /The document has 50 hotelX search, quote and booking fields, more than 5/],
    [300, /The document has more than 5000 tokens/],
  ])("%i search aliases are refused before any search runs", async (aliases, message) => {
    const fields = Array.from({ length: aliases }, (_, i) => `s${i}: ${SEARCH_FIELD}`).join("\n");
    const query = `query ($criteria: HotelCriteriaSearchInput!) { hotelX { ${fields} } }`;
    const errors = await refusedWhole(query, { criteria });
    expect(errors.every((e) => e.extensions?.code === "document_too_costly")).toBe(true);
    expect(errors.map((e) => e.message).join("\n")).toMatch(message);
  });

  it("a booking read of 3,000 references is refused; 50 are read", async () => {
    const references = (n: number) => ({
      criteria: {
        typeSearch: "REFERENCES",
        references: {
          hotelCode: "US000008",
          currency: "EUR",
          references: Array.from({ length: n }, (_, i) => ({ client: `nobody-${i}` })),
        },
      },
    });
    const errors = await refusedWhole(BOOKING, references(3_000));
    expect(errors).toMatchObject([
      {
        message: "The document has 3000 criteria.references.references, more than 50",
        extensions: { code: "document_too_costly", limit: 50 },
      },
    ]);
    const fifty = await hotelxData(BOOKING, references(50), { header: EMBEDDED });
    expect(fifty.hotelX.booking.errors[0]!.code).toBe("BOOKING_NOT_FOUND");
  });

  it("introspection is bounded: 2,000 aliases (past the token limit) and 3 __schema fields are refused; one runs", async () => {
    const schemas = (n: number) => `{${Array.from({ length: n }, (_, i) => `i${i}:__schema{types{name}}`).join(" ")}}`;
    const many = await refusedWhole(schemas(2_000));
    expect(many).toMatchObject([{ message: "The document has more than 5000 tokens", extensions: { limit: 5000 } }]);
    const three = await refusedWhole(schemas(3));
    expect(three.map((e) => e.message)).toContain("The document has 3 introspection fields, more than 2");
    const one = await graphql("{ __schema { queryType { name } } }", {}, { header: EMBEDDED });
    expect(one.json).toEqual({ data: { __schema: { queryType: { name: "Query" } } } });
  });

  it("aliases, depth and fields past their limits are refused, through fragments too", async () => {
    const aliased = `{ ${Array.from({ length: 21 }, (_, i) => `t${i}: __typename`).join(" ")} }`;
    expect((await refusedWhole(aliased))[0]!.message).toBe("The document has 21 aliased fields, more than 20");
    // Fragments spreading fragments: a small source, a large walk.
    const levels = 12;
    const fragments = Array.from(
      { length: levels },
      (_, i) => `fragment F${i} on HotelXQuery { __typename ${i + 1 < levels ? `...F${i + 1} ...F${i + 1}` : ""} }`,
    ).join("\n");
    const fields = await refusedWhole(`{ hotelX { ...F0 } }\n${fragments}`);
    expect(fields[0]!.message).toMatch(/^The document has (\d+|more than 500) selected fields/);
    const ofTypes = "ofType { ".repeat(12);
    const deep = `{ __schema { types { fields { type { ${ofTypes}name ${"} ".repeat(12)}} } } } }`;
    expect((await refusedWhole(deep))[0]!.message).toBe("The document's selections nest 17 deep, more than 16");
  });

  it("a list literal nested 5,000 deep (10 KB) is refused before graphql-js parses it: 200 with errors, 400 under application/graphql-response+json", async () => {
    const literal = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
    const query = `{ hotelX { quote(criteria: { optionRefId: "x", language: ${literal} }) { errors { code } } } }`;
    expect(await refusedWhole(query)).toMatchObject([
      { message: "The document nests brackets more than 32 deep", extensions: { code: "document_too_costly" } },
    ]);
    const strict = await graphql(query, {}, { header: EMBEDDED, headers: { accept: GRAPHQL_RESPONSE } });
    expect([strict.status, strict.headers.get("content-type")]).toEqual([400, GRAPHQL_RESPONSE]);
    expect(strict.json).not.toHaveProperty("data");
    // Brackets inside strings and comments are text, not nesting.
    const quoted = `{ hotelX { quote(criteria: { optionRefId: "${"[".repeat(100)}" }) { errors { code } } } } # ${"{".repeat(100)}`;
    const text = await graphql(quoted, {}, { header: EMBEDDED });
    expect(text.json.data.hotelX.quote.errors[0]!.code).toBe("OPTION_EXPIRED_OR_INVALID");
    // A block string, its escaped \""" included, and an escaped quote in a plain string.
    const block = `{ hotelX { a: quote(criteria: { optionRefId: """ \\""" ${"(".repeat(100)} """ }) { errors { code } }
      b: quote(criteria: { optionRefId: "\\" ${"{".repeat(100)}" }) { errors { code } } } }`;
    const blockText = await graphql(block, {}, { header: EMBEDDED });
    expect(blockText.json.data.hotelX.b.errors[0]!.code).toBe("OPTION_EXPIRED_OR_INVALID");
  });

  it("application/graphql-response+json: 400 for a document refused before it ran, 200 once it ran; application/json always 200", async () => {
    const accept = { accept: `${GRAPHQL_RESPONSE}, application/json;q=0.9` };
    const syntax = await graphql("{ hotelX {", {}, { header: EMBEDDED, headers: accept });
    expect([syntax.status, syntax.headers.get("content-type")]).toEqual([400, GRAPHQL_RESPONSE]);
    expect(syntax.json.errors[0]!.message).toMatch(/Syntax Error/);
    const invalid = await graphql("{ hotelX { cost } }", {}, { header: EMBEDDED, headers: accept });
    expect([invalid.status, invalid.json.data]).toEqual([400, undefined]);
    const ran = await graphql(
      '{ hotelX { quote(criteria: { optionRefId: "x" }) { errors { code } } } }',
      {},
      { header: EMBEDDED, headers: accept },
    );
    expect([ran.status, ran.headers.get("content-type")]).toEqual([200, GRAPHQL_RESPONSE]);
    expect(ran.json.data.hotelX.quote.errors[0]!.code).toBe("OPTION_EXPIRED_OR_INVALID");
    const legacy = await graphql("{ hotelX {", {}, { header: EMBEDDED, headers: { accept: "application/json" } });
    expect([legacy.status, legacy.json.data]).toEqual([200, undefined]);
  });

  it("two book aliases under one Idempotency-Key are refused whole: nothing booked", async () => {
    const option = await searchTgx("US000010", EMBEDDED);
    const quote = (await quoteTgx(option.id)).answer.optionQuote;
    const clientReference = reference();
    const input = bookInput(quote.optionRefId, option, clientReference).input;
    const other = { ...input, clientReference: reference() };
    const twice = `mutation ($a: HotelBookInput!, $b: HotelBookInput!) { hotelX {
      a: book(input: $a) { booking { status } errors { code } }
      b: book(input: $b) { booking { status } errors { code } } } }`;
    const key = { headers: { "Idempotency-Key": `twice-${clientReference}` } };
    const errors = await refusedWhole(twice, { a: input, b: other }, key);
    expect(errors[0]!.message).toMatch(/The document has 2 hotelX book, cancel and commit fields, more than 1/);
    // Through two root aliases as well.
    const roots = `mutation ($a: HotelBookInput!) { x: hotelX { book(input: $a) { errors { code } } }
      y: hotelX { book(input: $a) { errors { code } } } }`;
    await refusedWhole(roots, { a: input }, key);
    expect(await bookingsUnder(clientReference)).toBe(0);
    expect(await bookingsUnder(other.clientReference)).toBe(0);
  });

  it("mutation { hotelX { commit } } commits the partner's hold through its own connection, or says why not", async () => {
    const bare = await refusedWhole("mutation { hotelX { commit } }");
    expect(bare[0]!.message).toMatch(/must have a selection of subfields|argument "input"/);

    const searched = await searchOne("US000011", { checkIn: inDays(45) });
    const held = await post(
      "/api/book",
      bookBody(await quoteOf(searched), `gql-hold-${crypto.randomUUID()}`, { hold: true }),
    );
    expect(held.status, held.text).toBe(200);
    const { bookingReference, partnerReference } = held.json.data;
    expect(held.json.data.status).toBe("held");

    const elsewhere = await hotelxData(
      COMMIT,
      { input: { accessCode: String(OTHER_CODE), reference: { client: partnerReference } } },
      { header: EMBEDDED },
    );
    expect(elsewhere.hotelX.commit).toMatchObject({ commitDetails: null, errors: [{ code: "BOOKING_NOT_FOUND" }] });
    const another = await hotelxData(
      COMMIT,
      { input: { accessCode: String(OTHER_CODE), reference: { client: partnerReference } } },
      { header: OTHER_CODE, apiKey: OTHER_KEY },
    );
    expect(another.hotelX.commit).toMatchObject({ commitDetails: null, errors: [{ code: "BOOKING_NOT_FOUND" }] });

    const input = { accessCode: String(EMBEDDED), reference: { client: partnerReference } };
    const committed = await hotelxData(
      COMMIT,
      { input },
      { header: EMBEDDED, headers: { "Idempotency-Key": `c-${bookingReference}` } },
    );
    expect(committed.hotelX.commit).toEqual({
      commitDetails: {
        reference: expect.objectContaining({ client: partnerReference, bookingID: bookingReference }),
        status: "OK",
      },
      errors: [],
      warnings: [],
    });
    expect((await call("GET", `/api/bookings/${bookingReference}`)).json.data.status).toBe("success");
    const replayed = await hotelxData(
      COMMIT,
      { input },
      { header: EMBEDDED, headers: { "Idempotency-Key": `c-${bookingReference}` } },
    );
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replayed.hotelX).toEqual(committed.hotelX);

    const booked = await post(
      "/api/book",
      bookBody(
        await quoteOf(await searchOne("US000011", { checkIn: inDays(46) })),
        `gql-nohold-${crypto.randomUUID()}`,
      ),
    );
    expect(booked.status, booked.text).toBe(200);
    const notHeld = await hotelxData(
      COMMIT,
      { input: { ...input, reference: { client: booked.json.data.partnerReference } } },
      { header: EMBEDDED },
    );
    expect(notHeld.hotelX.commit).toMatchObject({
      commitDetails: null,
      errors: [{ code: "BOOKING_NOT_HELD", type: "CLIENT" }],
    });
    // A refusal met while running is the payload's (issue 40): where Hotel-X clients read it.
    const unnamed = await hotelxData(COMMIT, { input: { accessCode: String(EMBEDDED) } }, { header: EMBEDDED });
    expect(unnamed.hotelX.commit).toMatchObject({ commitDetails: null, errors: [{ code: "INVALID_REQUEST" }] });
  });
});

// Issue 40 item 2: Hotel-X's documented header, `Authorization: Apikey <key>`, on the Hotel-X routes only.
describe("Authorization: Apikey <key>, Hotel-X's header, beside api-key", () => {
  const hotelxKey = (key: string) => ({ apiKey: null, headers: { authorization: `Apikey ${key}` } });
  const refusal = (res: { status: number; json: any }) => [res.status, res.json.code, res.json.message];

  it("alone, it carries search, quote, book and cancel on /api/*/tgx, and a document on /api/graphql", async () => {
    const criteria = {
      checkIn: inDays(30),
      checkOut: inDays(32),
      hotels: ["US000002"],
      occupancies: [{ paxes: [{ age: 30 }, { age: 31 }] }],
    };
    const searched = await post(
      "/api/search/tgx",
      { criteria, settings: { access: { code: EMBEDDED } } },
      hotelxKey(DEMO_KEY),
    );
    expect(searched.status).toBe(200);
    const option = searched.json.data.hotelX.search.options.find(refundable);
    const quoted = await quoteTgx(option.id, hotelxKey(DEMO_KEY));
    expect(quoted.status).toBe(200);
    const clientReference = reference();
    const booked = await hotelx(
      "book",
      bookInput(quoted.answer.optionQuote.optionRefId, option, clientReference),
      hotelxKey(DEMO_KEY),
    );
    expect(booked.answer.booking).toMatchObject({ status: "OK", reference: { client: clientReference } });
    const bookingID = booked.answer.booking.reference.bookingID;
    const cancelled = await hotelx("cancel", { input: { bookingID } }, hotelxKey(DEMO_KEY));
    expect(cancelled.answer.cancellation).toMatchObject({ status: "CANCELLED" });
    // The scheme's name is case-insensitive (RFC 9110), as HTTP clients may send it.
    const read = await hotelxData(
      BOOKING,
      { criteria: { bookingID } },
      { header: EMBEDDED, apiKey: null, headers: { authorization: `APIKEY ${DEMO_KEY}` } },
    );
    expect(read.hotelX.booking.bookings).toMatchObject([
      { status: "CANCELLED", reference: { client: clientReference } },
    ]);
  });

  it("a wrong key is refused as under api-key; a key under both headers must be the same key", async () => {
    const body = { criteria: { optionRefId: "qt_unknown" }, settings: { access: { code: EMBEDDED } } };
    const underApiKey = await post("/api/quote/tgx", body, { apiKey: "esk_wrong" });
    const underAuthorization = await post("/api/quote/tgx", body, hotelxKey("esk_wrong"));
    expect(refusal(underAuthorization)).toEqual(refusal(underApiKey));
    expect(refusal(underAuthorization)).toEqual([401, "invalid_api_key", "Invalid API key"]);
    const graphqlWrong = await post("/api/graphql", { query: "{ __typename }" }, hotelxKey("esk_wrong"));
    expect(refusal(graphqlWrong)).toEqual([401, "invalid_api_key", "Invalid API key"]);

    // Two valid keys of two partners: refused whole, neither is picked.
    const both = await post(
      "/api/search/tgx",
      { criteria: {}, settings: { access: { code: EMBEDDED } } },
      {
        apiKey: DEMO_KEY,
        headers: { authorization: `Apikey ${OTHER_KEY}` },
      },
    );
    expect(refusal(both)).toEqual([401, "invalid_api_key", "api-key and Authorization: Apikey name different keys"]);
    const same = await graphql(
      "{ __typename }",
      {},
      { header: EMBEDDED, apiKey: DEMO_KEY, headers: { authorization: `Apikey ${DEMO_KEY}` } },
    );
    expect(same.status, same.text).toBe(200);
    // A bearer token is not a key: api-key decides alone.
    const bearer = await graphql(
      "{ __typename }",
      {},
      { header: EMBEDDED, apiKey: DEMO_KEY, headers: { authorization: "Bearer abc" } },
    );
    expect(bearer.status, bearer.text).toBe(200);
  });

  it("is not a key outside the Hotel-X routes: /api/search answers api_key_required, a booking read (which takes a login token too) bearer_token_required", async () => {
    const search = await post("/api/search", { settings: { access: { code: EMBEDDED } } }, hotelxKey(DEMO_KEY));
    expect(refusal(search)).toEqual([401, "api_key_required", "API key is required"]);
    // The console's routes read an Authorization header as a login token: Apikey is not one.
    const read = await call("GET", "/api/bookings", undefined, hotelxKey(DEMO_KEY));
    expect(refusal(read)).toEqual([401, "bearer_token_required", "Bearer token is required"]);
  });

  it("is documented: the Hotel-X operations take either scheme, the others api-key alone", async () => {
    const document = (await call("GET", "/openapi.json")).json;
    expect(document.components.securitySchemes.HotelxApiKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "Authorization",
    });
    for (const path of ["/api/graphql", "/api/search/tgx", "/api/quote/tgx", "/api/book/tgx", "/api/cancel/tgx"])
      expect(document.paths[path].post.security, path).toEqual([{ ApiKey: [] }, { HotelxApiKey: [] }]);
    expect(document.paths["/api/search"].post.security).toEqual([{ ApiKey: [] }]);
  });
});

describe("a connection selling the embedded inventory and a Hotel-X supplier (issue 39 item 5)", () => {
  // Its own supplier (the sandbox, identity-coded as 1002's is) and connection, so that removing and
  // deactivating it leaves the rest of this file as it was.
  const SUPPLIER = "sbx-bookings";
  const MAPPED = "rnx-bookings";
  let mixed: { id: string; code: number };
  beforeAll(async () => {
    const created = await call(
      "POST",
      "/api/operator/suppliers",
      {
        code: SUPPLIER,
        kind: "hotelx",
        name: "Sandbox (bookings)",
        settings: {
          url: await demoUpstreamUrl(),
          client: "edgestay-demo",
          context: "SANDBOX",
          hotelCodes: "identity",
          credentials: { apiKey: env.HOTELX_SANDBOX_API_KEY },
        },
      },
      OPERATOR,
    );
    expect(created.status, created.text).toBe(201);
    mixed = await createDemoConnection("mobile", 0);
    // A supplier with hotel codes of its own (the sandbox's roomnexus, USD): its hotel map names one of ours.
    const own = await call(
      "POST",
      "/api/operator/suppliers",
      {
        code: MAPPED,
        kind: "hotelx",
        name: "Sandbox roomnexus (bookings)",
        settings: {
          url: sandboxSupplierUrl("roomnexus"),
          client: "edgestay-demo",
          context: "SANDBOX",
          currency: "USD",
          hotelCodes: "mapped",
          credentials: { apiKey: env.HOTELX_SANDBOX_API_KEY },
        },
      },
      OPERATOR,
    );
    expect(own.status, own.text).toBe(201);
    const mapped = await call(
      "PUT",
      `/api/operator/suppliers/${MAPPED}/hotel-map`,
      [{ supplierHotelCode: "VG75P8WR", accommodationCode: "US000002" }],
      OPERATOR,
    );
    expect(mapped.status, mapped.text).toBe(200);
    // Its room 1Q is our STD of US000002, its board EP our RO.
    const rooms = await call(
      "PUT",
      `/api/operator/suppliers/${MAPPED}/room-map`,
      [{ supplierHotelCode: "VG75P8WR", supplierRoomCode: "1Q", roomCode: "STD" }],
      OPERATOR,
    );
    expect(rooms.status, rooms.text).toBe(200);
    const boards = await call("PUT", `/api/operator/suppliers/${MAPPED}/board-map`, { EP: "RO" }, OPERATOR);
    expect(boards.status, boards.text).toBe(200);
    const sold = await call(
      "PUT",
      `/api/connections/${mixed.id}/suppliers`,
      { suppliers: [{ code: "embedded" }, { code: SUPPLIER }, { code: MAPPED }] },
      OPERATOR,
    );
    expect(sold.status, sold.text).toBe(200);
    // It prices in EUR and the connection sells in USD: asked only with a rate (taken away after).
    const rates = await call("PUT", "/api/operator/exchange-rates", { base: "EUR", rates: { USD: 1.087 } }, OPERATOR);
    expect(rates.status, rates.text).toBe(200);
  });
  afterAll(async () => {
    await env.DB.prepare("DELETE FROM exchange_rates").run();
    // The last bookings' webhooks are delivered before the file ends (none cut off mid-request).
    await vi.waitFor(
      async () =>
        expect(
          await env.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").first("n"),
        ).toBe(0),
      { timeout: 10_000, interval: 50 },
    );
  });

  // An option id names its supplier last, but the embedded inventory's (whose ids stay as they were).
  const ofSupplier = (code: string) => (o: any) =>
    (code === "embedded" ? o.id.split("~").length === 5 : o.id.endsWith(`~${code}`)) && o.cancelPolicy.refundable;
  /** Searched, quoted and booked over REST on the mixed connection: the book answer. */
  const bookOn = async (hotel: string, pick: (o: any) => boolean, partnerReference: string) => {
    const searched = await searchOne(hotel, { connection: mixed.code, pick });
    const quoted = await post("/api/quote", quoteBody(searched, {}, mixed.code));
    expect(quoted.status, quoted.text).toBe(200);
    const booked = await post("/api/book", bookBody(quoted.json.data, partnerReference, {}, mixed.code));
    expect(booked.status, booked.text).toBe(200);
    return booked.json.data;
  };
  const rowOf = (reference: string) =>
    env.DB.prepare("SELECT supplier, supplier_hotel_code, upstream_booking_id FROM bookings WHERE reference = ?")
      .bind(reference)
      .first<{ supplier: string; supplier_hotel_code: string | null; upstream_booking_id: string | null }>();
  const cancelOn = (reference: string) => post("/api/cancel", cancelBody(reference, mixed.code));
  const searchCriteriaOf = (s: { checkIn: string; checkOut: string; occupancies: any[] }) => ({
    checkIn: s.checkIn,
    checkOut: s.checkOut,
    occupancies: s.occupancies.map((o) => ({ paxes: o.paxes.map((p: any) => ({ age: p.age })) })),
  });

  it("an option of the Hotel-X supplier books there and names it; one of the embedded inventory books locally; each cancels at its own", async () => {
    const upstream = await bookOn("HX002", ofSupplier(SUPPLIER), reference());
    expect(upstream.supplierCode).toBe(SUPPLIER);
    // Identity-coded: the supplier's hotel code is ours, so none is kept or shown.
    expect(upstream).not.toHaveProperty("supplierHotelCode");
    const row = await rowOf(upstream.bookingReference);
    expect(row).toMatchObject({ supplier: SUPPLIER, supplier_hotel_code: null });
    expect(row!.upstream_booking_id).toBeTruthy();
    // Booked at the supplier, under our booking reference as its client reference.
    expect(await upstreamBooking("HX002", upstream.bookingReference)).toMatchObject({
      found: true,
      booking: { status: "OK" },
    });
    const read = await call("GET", `/api/bookings/${upstream.bookingReference}`);
    expect(read.json.data).toMatchObject({ supplierCode: SUPPLIER, supplierHotelCode: null });

    const soldBefore = await soldNights("US000002");
    const local = await bookOn("US000002", ofSupplier("embedded"), reference());
    expect(local.supplierCode).toBe("embedded");
    expect(await rowOf(local.bookingReference)).toMatchObject({ supplier: "embedded", upstream_booking_id: null });
    // The rooms were taken in our own D1: two nights of one room.
    expect(await soldNights("US000002")).toBe(soldBefore + 2);
    expect(await upstreamBooking("US000002", local.bookingReference)).toMatchObject({ found: false });
    const listed = await call("GET", `/api/bookings?partnerReference=${local.partnerReference}`);
    expect(listed.json.data).toMatchObject({ bookingReference: local.bookingReference, supplierCode: "embedded" });

    expect((await cancelOn(upstream.bookingReference)).status).toBe(200);
    expect(await upstreamBooking("HX002", upstream.bookingReference)).toMatchObject({
      booking: { status: "CANCELLED" },
    });
    expect((await cancelOn(local.bookingReference)).status).toBe(200);
    expect(await soldNights("US000002")).toBe(soldBefore);
  });

  it("a supplier with its own hotel codes is quoted in them; the booking keeps its hotel code, which settling and a cancel without its booking id send", async () => {
    // The id a search of that supplier makes (its answer read through its maps): the product in our
    // codes (its 1Q EP is our STD RO), its code last; the signed stay is this search's, the total
    // above any price (a price below the searched one is no price change).
    const searched = await searchOne("US000002", { connection: mixed.code, pick: ofSupplier("embedded") });
    const signedStay = searched.option.id.split("~")[0];
    const option = { ...searched.option, id: `${signedStay}~US000002~STD~STD-RO~99999999~${MAPPED}` };
    const quoteIt = () => {
      const body = quoteBody({ ...searched, option }, {}, mixed.code);
      return post("/api/quote", { ...body, settings: { ...body.settings, includeProviderTransactions: true } });
    };
    // No upstream id kept for it: its hotel is searched again, in its code, and the option quoted.
    const quoted = await quoteIt();
    expect(quoted.status, quoted.text).toBe(200);
    expect(quoted.json.data).toMatchObject({ roomCodes: ["STD"], boardCode: "RO" });
    const [asked] = quoted.json.data.providerTransactions;
    expect(asked).toMatchObject({ operation: "search" });
    expect(asked.request).toContain('"hotels":["VG75P8WR"]');
    // With the upstream id its search kept (upstream-options.ts), quoted at once: its answer, in its codes, is the product.
    const itsOption = (
      await hotelxSearch(
        sandboxAccess(sandboxSupplierUrl("roomnexus")),
        { ...searchCriteriaOf(searched), hotels: ["VG75P8WR"], currency: "USD" },
        { deadlineMs: 5_000 },
      )
    ).options.find((o) => o.rooms[0]!.code === "1Q" && o.boardCode === "EP" && o.cancelPolicy?.refundable)!;
    // In KV (this test module is not the Worker's instance of the isolate's unsettled entries).
    const { written } = await rememberUpstreamOptions(env.CACHE, [
      {
        optionId: option.id,
        supplier: MAPPED,
        accommodationCode: "US000002",
        offer: {
          ratePlanCode: "STD-RO",
          rate: { chargeTotal: 99999999 },
          paymentType: "MerchantPay",
          upstreamOptionId: itsOption.id,
          upstreamAccessCode: itsOption.accessCode,
        } as Offer,
      },
    ]);
    await written;
    const again = await quoteIt();
    expect(again.status, again.text).toBe(200);
    expect(again.json.data).toMatchObject({ roomCodes: ["STD"], boardCode: "RO" });
    expect(again.json.data.providerTransactions.map((t: any) => t.operation)).toEqual(["quote"]);
    const booked = await post("/api/book", bookBody(quoted.json.data, reference(), {}, mixed.code));
    expect(booked.status, booked.text).toBe(200);
    const bookingReference = booked.json.data.bookingReference;
    expect(booked.json.data).toMatchObject({ supplierCode: MAPPED, supplierHotelCode: "VG75P8WR" });
    expect(await rowOf(bookingReference)).toMatchObject({ supplier: MAPPED, supplier_hotel_code: "VG75P8WR" });
    expect((await call("GET", `/api/bookings/${bookingReference}`)).json.data).toMatchObject({
      accommodation: { code: "US000002" },
      supplierCode: MAPPED,
      supplierHotelCode: "VG75P8WR",
    });
    // Hotel-X's booking read names the supplier and its hotel code (the public schema's fields).
    const read = await hotelxData(
      `query B($criteria: HotelCriteriaBookingInput!) { hotelX { booking(criteria: $criteria) {
        bookings { supplierCode hotel { hotelCode hotelCodeSupplier } } ${ISSUES} } } }`,
      { criteria: { bookingID: bookingReference } },
      { header: mixed.code },
    );
    expect(read.hotelX.booking.bookings).toEqual([
      { supplierCode: MAPPED, hotel: { hotelCode: "US000002", hotelCodeSupplier: "VG75P8WR" } },
    ]);
    // At the supplier it is a booking of its own hotel.
    const itsLedger = sandboxAccess(sandboxSupplierUrl("roomnexus"), "test");
    const atSupplier = (hotelCode: string) =>
      bookingByClientReference(
        itsLedger,
        { hotelCode, currency: "USD", accessCode: "rnx-us-77", clientReference: bookingReference },
        { deadlineMs: 5_000 },
      );
    expect(await atSupplier("VG75P8WR")).toMatchObject({ found: true, booking: { status: "OK" } });
    // Had its answer been lost, settling asks the supplier for it at its own hotel code.
    await env.DB.prepare("UPDATE bookings SET status = 'pending' WHERE reference = ?").bind(bookingReference).run();
    await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000));
    expect((await call("GET", `/api/bookings/${bookingReference}`)).json.data.status).toBe("success");
    // Without its booking id, Hotel-X finds a booking by access, hotel and reference: the hotel in its code.
    await env.DB.prepare("UPDATE bookings SET upstream_booking_id = NULL WHERE reference = ?")
      .bind(bookingReference)
      .run();
    const cancelled = await cancelOn(bookingReference);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await atSupplier("VG75P8WR")).toMatchObject({ booking: { status: "CANCELLED" } });
  });

  it("once the connection stops selling the supplier, and once the supplier is deactivated, its bookings still read and cancel there", async () => {
    const first = await bookOn("HX002", ofSupplier(SUPPLIER), reference());
    const second = await bookOn("HX003", ofSupplier(SUPPLIER), reference());
    const unsold = await call(
      "PUT",
      `/api/connections/${mixed.id}/suppliers`,
      { suppliers: [{ code: "embedded" }] },
      OPERATOR,
    );
    expect(unsold.status, unsold.text).toBe(200);
    // Not sold any more: a search no longer asks it.
    const searched = await searchOne("US000003", { connection: mixed.code });
    expect(searched.hotel.options.every((o: any) => !o.id.endsWith(`~${SUPPLIER}`))).toBe(true);

    const read = await call("GET", `/api/bookings/${first.bookingReference}`);
    expect(read.json.data).toMatchObject({ status: "success", supplierCode: SUPPLIER });
    const cancelled = await cancelOn(first.bookingReference);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await upstreamBooking("HX002", first.bookingReference)).toMatchObject({
      booking: { status: "CANCELLED" },
    });

    // With bookings, DELETE deactivates it (never erased): its other booking still cancels through it.
    const removed = await call("DELETE", `/api/operator/suppliers/${SUPPLIER}`, undefined, OPERATOR);
    expect([removed.status, removed.json.data?.active]).toEqual([200, false]);
    expect((await call("GET", `/api/bookings/${second.bookingReference}`)).json.data.supplierCode).toBe(SUPPLIER);
    const late = await cancelOn(second.bookingReference);
    expect(late.status, late.text).toBe(200);
    expect(await upstreamBooking("HX003", second.bookingReference)).toMatchObject({
      booking: { status: "CANCELLED" },
    });
  });
});

// Issue 40 item 2: the connection chosen the Hotel-X way, by what the document names; the key alone authenticates.
const SEARCH_ACCESSES = `query Search($criteria: HotelCriteriaSearchInput, $settings: HotelSettingsInput, $filterSearch: HotelXFilterSearchInput) {
  hotelX { search(criteria: $criteria, settings: $settings, filterSearch: $filterSearch) {
    options { id accessCode hotelCode ${PRICE} occupancies { id paxes { age } } cancelPolicy { refundable } }
    ${ISSUES} } } }`;
const apikeyOnly = { apiKey: null, headers: { authorization: `Apikey ${DEMO_KEY}` } };

describe("POST /api/graphql and /api/*/tgx: the connection chosen the Hotel-X way (issue 40)", () => {
  const addOne = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const criteria = (hotels: string[], checkIn = inDays(50)) => ({
    checkIn,
    checkOut: addOne(checkIn),
    hotels,
    occupancies: [{ paxes: [{ age: 30 }, { age: 31 }] }],
  });

  it("with the key alone: a search names its access in filterSearch, and quote, book, read and cancel need no code", async () => {
    const searched = await hotelxData(
      SEARCH_ACCESSES,
      {
        criteria: criteria(["HX003"]),
        settings: { context: "EDGESTAY" },
        filterSearch: { access: { includes: ["1002"] } },
      },
      apikeyOnly,
    );
    const option = searched.hotelX.search.options.find(refundable);
    // The option names its access, and its id carries it, as Hotel-X's optionRefId does.
    expect(option).toMatchObject({ accessCode: "1002", hotelCode: "HX003", id: expect.stringMatching(/^1002@/) });
    const quoted = await hotelxData(QUOTE, { criteria: { optionRefId: option.id } }, apikeyOnly);
    const quote = quoted.hotelX.quote.optionQuote;
    expect(quote).toMatchObject({ status: "OK", price: option.price });
    const clientReference = reference();
    const booked = await hotelxData(
      BOOK,
      { input: bookInput(quote.optionRefId, option, clientReference).input },
      apikeyOnly,
    );
    expect(booked.hotelX.book).toMatchObject({
      errors: [],
      booking: { status: "OK", reference: { client: clientReference } },
    });
    const { bookingID } = booked.hotelX.book.booking.reference;
    const row = await env.DB.prepare(
      "SELECT c.code FROM bookings b JOIN connections c ON c.id = b.connection_id WHERE b.reference = ?",
    )
      .bind(bookingID)
      .first<{ code: number }>();
    expect(row?.code).toBe(1002);
    const read = await hotelxData(BOOKING, { criteria: { bookingID } }, apikeyOnly);
    expect(read.hotelX.booking.bookings).toMatchObject([{ reference: { bookingID } }]);
    const cancelled = await hotelxData(CANCEL, { input: { bookingID } }, apikeyOnly);
    expect(cancelled.hotelX.cancel).toMatchObject({ errors: [], cancellation: { status: "CANCELLED" } });

    // The same through the REST Hotel-X routes: no settings.access.code anywhere.
    const rest = await post(
      "/api/search/tgx",
      { criteria: criteria(["HX003"], inDays(51)), settings: {}, filterSearch: { access: { includes: [1002] } } },
      apikeyOnly,
    );
    expect(rest.status, rest.text).toBe(200);
    const restOption = rest.json.data.hotelX.search.options.find(refundable);
    expect(restOption.accessCode).toBe("1002");
    const restQuote = await post(
      "/api/quote/tgx",
      { criteria: { optionRefId: restOption.id }, settings: {} },
      apikeyOnly,
    );
    expect(restQuote.json.data.hotelX.quote.optionQuote).toMatchObject({ status: "OK" });
    // The Hotel-X id is also POST /api/quote's optionId: its access prefix is routing only.
    const core = await post("/api/quote", {
      quoteCriteria: {
        optionId: restOption.id,
        accommodation: { code: "HX003" },
        checkIn: inDays(51),
        checkOut: addOne(inDays(51)),
        occupancies: [{ paxes: [{ age: 30 }, { age: 31 }] }],
      },
      settings: { access: { code: 1002 } },
    });
    expect(core.status, core.text).toBe(200);
  });

  it("without any access a search runs on every tgx connection; several accesses each answer their options; a code not the caller's is refused", async () => {
    const everyTgx = await hotelxData(SEARCH_ACCESSES, { criteria: criteria(["HX004", "US000007"]) }, apikeyOnly);
    const accesses = (search: any) => [...new Set(search.options.map((o: any) => o.accessCode))];
    // The demo partner's only tgx connection is 1002 (1001 is direct).
    expect(accesses(everyTgx.hotelX.search)).toEqual(["1002"]);

    const both = await hotelxData(
      SEARCH_ACCESSES,
      { criteria: criteria(["HX004", "US000007"]), filterSearch: { access: { includes: ["1001", "1002"] } } },
      apikeyOnly,
    );
    const { options, warnings } = both.hotelX.search;
    expect(accesses(both.hotelX.search).sort()).toEqual(["1001", "1002"]);
    for (const o of options) expect(o.id.startsWith(`${o.accessCode}@`)).toBe(true);
    const hotelsOn = (code: string) =>
      new Set(options.filter((o: any) => o.accessCode === code).map((o: any) => o.hotelCode));
    expect(hotelsOn("1001").has("US000007")).toBe(true);
    expect(hotelsOn("1002")).toEqual(new Set(["HX004"]));
    // What one access could not answer is a warning naming it, beside the other's options.
    expect(warnings.some((w: any) => /^access 1002: US000007/.test(w.description))).toBe(true);

    const excluded = await hotelxData(
      SEARCH_ACCESSES,
      { criteria: criteria(["HX004"]), filterSearch: { access: { excludes: ["1002"] } } },
      apikeyOnly,
    );
    expect(excluded.hotelX.search).toMatchObject({ options: [], errors: [{ code: "NO_ACCESS", type: "ACCESS" }] });
    const theirs = await hotelxData(
      SEARCH_ACCESSES,
      { criteria: criteria(["HX004"]), filterSearch: { access: { includes: [String(OTHER_CODE)] } } },
      apikeyOnly,
    );
    expect(theirs.hotelX.search).toMatchObject({
      options: [],
      errors: [{ code: "CONNECTION_ACCESS_DENIED", type: "ACCESS" }],
    });
    // The other partner has no tgx connection: a search naming no access finds none to run on.
    const none = await hotelxData(SEARCH_ACCESSES, { criteria: criteria(["US000007"]) }, { apiKey: OTHER_KEY });
    expect(none.hotelX.search).toMatchObject({ options: [], errors: [{ code: "NO_ACCESS", type: "ACCESS" }] });
  });

  it("a filterSearch beside the settings variable's access.code is Hotel-X's, not read as Edgestay's settings", async () => {
    const agreed = await hotelxData(
      SEARCH_ACCESSES,
      {
        criteria: criteria(["US000007"]),
        settings: { access: { code: EMBEDDED } },
        filterSearch: { access: { includes: [String(EMBEDDED)] } },
      },
      apikeyOnly,
    );
    expect(agreed.hotelX.search.options.length).toBeGreaterThan(0);
    const outside = await hotelxData(
      SEARCH_ACCESSES,
      { criteria: criteria(["US000007"]), filterSearch: { access: { includes: ["1002"] } } },
      { header: EMBEDDED },
    );
    expect(outside.hotelX.search).toMatchObject({ options: [], errors: [{ code: "NO_ACCESS" }] });
  });

  it("cancel by accessCode, hotelCode and reference.supplier alone (item 4), as the published cancel does", async () => {
    const option = await searchTgx("HX002", UPSTREAM, refundable);
    const clientReference = reference();
    const booked = await hotelx("book", bookInput(option.id, option, clientReference), { code: UPSTREAM });
    const { bookingID, supplier } = booked.answer.booking.reference;
    expect(supplier).toEqual(expect.any(String));
    const bySupplier = { accessCode: String(UPSTREAM), hotelCode: "HX002", reference: { supplier } };
    const wrong = await hotelxData(
      CANCEL,
      { input: { ...bySupplier, reference: { supplier: `${supplier}-not` } } },
      apikeyOnly,
    );
    expect(wrong.hotelX.cancel).toMatchObject({ cancellation: null, errors: [{ code: "BOOKING_NOT_FOUND" }] });
    const cancelled = await hotelxData(CANCEL, { input: bySupplier }, apikeyOnly);
    expect(cancelled.hotelX.cancel).toMatchObject({
      errors: [],
      cancellation: { status: "CANCELLED", reference: { client: clientReference, bookingID } },
    });
    expect(await upstreamBooking("HX002", bookingID)).toMatchObject({ booking: { status: "CANCELLED" } });
  });

  it("item 4: each pax's own name and the remarks go upstream; the remarks are kept and shown on every read", async () => {
    const option = await searchTgx("HX002", UPSTREAM, refundable);
    const clientReference = reference();
    const remarks = "Late arrival, around 23:00";
    const input = {
      ...bookInput(option.id, option, clientReference).input,
      rooms: option.occupancies.map((o: any) => ({
        occupancyRefId: o.id,
        paxes: o.paxes.map((p: any, i: number) => ({
          name: ["Ada", "Charles"][i] ?? `G${i}`,
          surname: ["Lovelace", "Babbage"][i] ?? "X",
          age: p.age,
        })),
      })),
      remarks,
    };
    const booked = await hotelxData(BOOK, { input }, apikeyOnly);
    expect(booked.hotelX.book).toMatchObject({ errors: [], booking: { status: "OK", remarks } });
    const { bookingID } = booked.hotelX.book.booking.reference;
    // What the sandbox received: our bookingReference is its clientReference.
    const sent = await (
      await env.HOTELX_SANDBOX.fetch(`https://hotelx-sandbox.test/booking?clientReference=${bookingID}`, {
        headers: { authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` },
      })
    ).json<any>();
    expect(sent).toMatchObject({
      remarks,
      holderName: "Ada",
      paxes: [
        [
          { name: "Ada", surname: "Lovelace", age: 30 },
          { name: "Charles", surname: "Babbage", age: 31 },
        ],
      ],
    });
    const read = await hotelxData(BOOKING, { criteria: { bookingID } }, apikeyOnly);
    expect(read.hotelX.booking.bookings[0].remarks).toBe(remarks);
    const cancelled = await hotelxData(
      CANCEL.replace("booking { status }", "booking { status remarks }"),
      { input: { bookingID } },
      apikeyOnly,
    );
    expect(cancelled.hotelX.cancel.cancellation.booking).toEqual({ status: "CANCELLED", remarks });
  });

  it("item 4: nationality, language and markets go upstream with the search, the language with the quote", async () => {
    const res = await post("/api/search/tgx", {
      criteria: {
        checkIn: inDays(52),
        checkOut: inDays(53),
        hotels: ["HX002"],
        occupancies: [{ paxes: [{ age: 30 }] }],
        nationality: "ES",
        language: "es",
        markets: ["ES"],
      },
      settings: { access: { code: UPSTREAM }, auditTransactions: true },
    });
    expect(res.status, res.text).toBe(200);
    const [sent] = res.json.data.hotelX.search.auditData.transactions;
    const criteria = JSON.parse(sent.request.split("\n\n")[1]).variables.criteria;
    expect(criteria).toMatchObject({ nationality: "ES", language: "es", markets: ["ES"], hotels: ["HX002"] });
    // A quote's language goes too, in Hotel-X's form (ISO 639-1: "es-ES" is sent "es").
    const option = res.json.data.hotelX.search.options[0];
    const quoted = await post("/api/quote/tgx", {
      criteria: { optionRefId: option.id, language: "es-ES" },
      settings: { access: { code: UPSTREAM }, auditTransactions: true },
    });
    expect(quoted.json.data.hotelX.quote.optionQuote, quoted.text).not.toBeNull();
    const [quoteSent] = quoted.json.data.hotelX.quote.auditData.transactions;
    expect(JSON.parse(quoteSent.request.split("\n\n")[1]).variables.criteria).toMatchObject({ language: "es" });
  });

  it("several accesses: each is admitted under its own rate limit; one past it is an error of that access, the other's options still answered", async () => {
    const setLimit = (code: number, limit: number) =>
      env.DB.prepare("UPDATE connections SET rate_limit = ? WHERE code = ?").bind(limit, code).run();
    await setLimit(EMBEDDED, 1);
    try {
      const both = {
        criteria: criteria(["HX004", "US000007"]),
        filterSearch: { access: { includes: ["1001", "1002"] } },
      };
      // The first may still fit 1001's window; the second cannot.
      await hotelxData(SEARCH_ACCESSES, both, apikeyOnly);
      const limited = await hotelxData(SEARCH_ACCESSES, both, apikeyOnly);
      const { options, warnings } = limited.hotelX.search;
      expect(new Set(options.map((o: any) => o.accessCode))).toEqual(new Set(["1002"]));
      expect(warnings).toContainEqual({
        code: "RATE_LIMIT_EXCEEDED",
        type: "ACCESS",
        description: expect.stringMatching(/^access 1001: /),
      });
    } finally {
      await setLimit(EMBEDDED, 600);
    }
  });
});

// Issue 40 item 1: every collected published Hotel-X document (test/fixtures/hotelx-published) runs
// on 1001 and 1002, its variables changed only through the partner's overlay (test/support/hotelx-published.ts).
const PUBLISHED = import.meta.glob("../../../test/fixtures/hotelx-published/**/*.{graphql,json}", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;
const publishedFile = (file: string) => {
  const text = PUBLISHED[`../../../test/fixtures/hotelx-published/${file}`];
  if (text === undefined) throw new Error(`no collected file ${file}`);
  return text;
};
const apiSchema = buildHotelxSchema(hotelxApiSdl());
/**
 * The fields docs/api-decisions.md lists as answered null where Edgestay has nothing (its section
 * "Issue 40: Hotel-X fields Edgestay answers null"): each bullet names its `Type.field`s first.
 */
const listedNulls = new Set(
  (/### Issue 40: Hotel-X fields Edgestay answers null\n([\s\S]*?)(?=\n### |\n## |$)/.exec(decisions)?.[1] ?? "")
    .split("\n")
    .filter((line) => line.startsWith("- "))
    .flatMap((line) => [...(line.split(":")[0] ?? "").matchAll(/`(\w+\.\w+)`/g)].map((m) => m[1]!)),
);

/**
 * What is wrong with `data` as the answer to `document`: a selected field missing, a null the
 * decisions do not list (by `Type.field`), an empty string, a negative or non-finite number.
 */
const answerProblems = (document: DocumentNode, data: unknown): string[] => {
  // One line per field and kind of problem, at its first path: an answer of many options stays readable.
  const found = new Map<string, string>();
  const problem = (name: string, at: string, what: string) => {
    if (!found.has(`${name} ${what}`)) found.set(`${name} ${what}`, `${at}: ${what}`);
  };
  const operation = getOperationAST(document)!;
  const walk = (parent: GraphQLObjectType, set: SelectionSetNode, value: Record<string, unknown>, at: string) => {
    for (const selection of set.selections) {
      if (selection.kind !== Kind.FIELD) throw new Error(`a published document with a ${selection.kind}`);
      const key = selection.alias?.value ?? selection.name.value;
      const field = parent.getFields()[selection.name.value]!;
      if (!(key in value)) problem(`${parent.name}.${field.name}`, `${at}.${key}`, "missing");
      else leaf(field.type, selection, value[key], `${at}.${key}`, `${parent.name}.${field.name}`);
    }
  };
  const leaf = (type: GraphQLOutputType, selection: FieldNode, value: unknown, at: string, name: string): void => {
    if (value === null) {
      if (!listedNulls.has(name)) problem(name, at, `null, and docs/api-decisions.md does not list ${name}`);
      return;
    }
    const inner = getNullableType(type);
    if (isListType(inner)) {
      for (const [i, item] of (value as unknown[]).entries()) leaf(inner.ofType, selection, item, `${at}[${i}]`, name);
      return;
    }
    if (isObjectType(inner)) {
      walk(inner, selection.selectionSet!, value as Record<string, unknown>, at);
      return;
    }
    if (typeof value === "string" && value.trim() === "") problem(name, at, "an empty string");
    if (typeof value === "number" && !(Number.isFinite(value) && value >= 0)) problem(name, at, String(value));
  };
  const root = operation.operation === "mutation" ? apiSchema.getMutationType()! : apiSchema.getQueryType()!;
  walk(root, operation.selectionSet, data as Record<string, unknown>, "data");
  return [...found.values()];
};

/** The option, quote and booking a run's overlay names, made through /api/*\/tgx on `code` (our bodies). */
const publishedFacts = async (code: number, hotels: string[], needs: Needs): Promise<PublishedFacts> => {
  const facts: PublishedFacts = {
    code,
    hotels,
    checkIn: inDays(47),
    checkOut: inDays(48),
    from: inDays(-1),
    to: inDays(48),
    clientReference: `PUB-${crypto.randomUUID()}`,
  };
  if (needs === "nothing") return facts;
  const criteria = {
    checkIn: facts.checkIn,
    checkOut: facts.checkOut,
    hotels: [hotels[0]],
    occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
  };
  const searched = await post("/api/search/tgx", { criteria, settings: { access: { code } } });
  const option = searched.json.data.hotelX.search.options.find(refundable);
  if (!option) throw new Error(`no refundable option on ${code}: ${searched.text}`);
  facts.optionId = option.id;
  if (needs === "option") return facts;
  facts.quoteId = (await quoteTgx(option.id, { code })).answer.optionQuote.optionRefId;
  if (needs === "quote") return facts;
  const client = reference();
  const booked = (await hotelx("book", bookInput(facts.quoteId!, option, client), { code })).answer.booking;
  facts.booking = { bookingID: booked.reference.bookingID, client, supplier: booked.reference.supplier };
  return facts;
};

/** One published document on one connection, through POST /api/graphql, and what its answer must be. */
const publishedRun = async (code: number, hotels: readonly string[], item: PublishedCase) => {
  const facts = await publishedFacts(code, [...hotels], item.needs);
  const query = publishedFile(item.document);
  const variables = publishedVariables(item, facts, publishedFile);
  // As a Hotel-X client sends it: its own header, the connection named by the document alone.
  const res = await post(
    "/api/graphql",
    { query, variables },
    { apiKey: null, headers: { authorization: `Apikey ${DEMO_KEY}` } },
  );
  expect(res.status, res.text).toBe(200);
  expect(res.json.errors, JSON.stringify(res.json.errors)).toBeUndefined();
  const payload = res.json.data.hotelX[item.operation];
  expect(payload.errors ?? [], JSON.stringify(payload.errors)).toEqual([]);
  // The answer validates against the schema: executed over the answer itself, graphql-js serializes it unchanged.
  const document = parse(query);
  expect(validate(apiSchema, document).map((e) => e.message)).toEqual([]);
  const again = await execute({ schema: apiSchema, document, rootValue: res.json.data, variableValues: variables });
  expect(again.errors, JSON.stringify(again.errors)).toBeUndefined();
  expect(again.data).toEqual(res.json.data);
  expect(answerProblems(document, res.json.data)).toEqual([]);
  // Plausible for what was asked: options found, a booking made, read and cancelled.
  if (item.operation === "search") expect(payload.options.length).toBeGreaterThan(0);
  if (item.operation === "quote") expect(payload.optionQuote.status).toBe("OK");
  if (item.operation === "book") expect(payload.booking.status).toBe("OK");
  if (item.operation === "booking")
    expect(payload.bookings.map((b: any) => b.reference.client)).toContain(facts.booking!.client);
  if (item.operation === "cancel") expect(payload.cancellation.status).toBe("CANCELLED");
};

describe("the published Hotel-X documents run unchanged on 1001 and 1002 (issue 40 item 1)", () => {
  const connections = [
    [EMBEDDED, ["US000010", "US000011"]],
    [UPSTREAM, ["HX001", "HX002"]],
  ] as const;
  const runs = connections.flatMap(([code, hotels]) =>
    PUBLISHED_CASES.map((item) => [code, item.name, hotels, item] as const),
  );
  it.each(runs)("on %s: %s", (code, _, hotels, item) =>
    // A search naming no access runs on every tgx connection of the partner (1002 here, not the direct 1001): its hotels.
    item.everyAccess ? publishedRun(UPSTREAM, connections[1][1], item) : publishedRun(code, hotels, item),
  );
});

describe("POST /api/graphql: the public schema's fields, their values (issue 40 item 3)", () => {
  const FIELDS = `query Search($criteria: HotelCriteriaSearchInput, $settings: HotelSettingsInput) {
    hotelX { search(criteria: $criteria, settings: $settings) {
      options { id accessCode paymentType
        price { net currency markups { channel currency net gross rules { id name type value } } }
        surcharges { price { markups { channel } } }
        rooms { code description descriptionSupplier beds { type count description shared } promotions { code }
          ratePlans { code name start end effectiveDate expireDate }
          roomPrice { price { net markups { net rules { value } } } breakdown { start end effectiveDate price { net } } } }
        supplements { code } }
      ${ISSUES} } } }`;

  it("markups are the connection's own (none on a connection without one, none on fees); beds are the room type's; a rate plan per room", async () => {
    const marked = await createDemoConnection("cug", 10);
    const criteria = {
      checkIn: inDays(61),
      checkOut: inDays(63),
      hotels: ["US000012"],
      occupancies: [{ paxes: [{ age: 30 }, { age: 31 }] }],
    };
    const { hotelX } = await hotelxData(FIELDS, { criteria, settings: { access: { code: marked.code } } });
    const option = hotelX.search.options.find((o: any) => o.rooms[0].code === "STD");
    expect(option.price.markups).toEqual([
      {
        channel: String(marked.code),
        currency: option.price.currency,
        net: option.price.net,
        gross: option.price.net,
        rules: [{ id: `connection-${marked.code}`, name: "Connection markup", type: "PERCENT", value: 10 }],
      },
    ]);
    expect(option.rooms[0].roomPrice.price.markups).toEqual([
      { net: option.rooms[0].roomPrice.price.net, rules: [{ value: 10 }] },
    ]);
    for (const surcharge of option.surcharges) expect(surcharge.price.markups).toEqual([]);
    expect(option.rooms[0]).toMatchObject({
      descriptionSupplier: option.rooms[0].description,
      beds: [{ type: "QUEEN", count: 1, description: "1 queen", shared: false }],
      promotions: [],
      ratePlans: [{ start: inDays(61), end: inDays(63), effectiveDate: inDays(61), expireDate: inDays(63) }],
    });
    expect(option.rooms[0].ratePlans[0].code).toMatch(/^STD-/);
    expect(option.rooms[0].roomPrice.breakdown.map((b: any) => [b.start, b.end, b.effectiveDate])).toEqual([
      [inDays(61), inDays(62), inDays(61)],
      [inDays(62), inDays(63), inDays(62)],
    ]);
    expect(option.supplements).toEqual([]);

    // The demo connection has no markup: none is shown.
    const plain = await hotelxData(FIELDS, { criteria, settings: { access: { code: EMBEDDED } } });
    for (const o of plain.hotelX.search.options) expect(o.price.markups).toEqual([]);

    // Both accesses sell the same rooms, the marked-up one dearer: cheapest_price keeps the demo connection's.
    const accesses = { access: { includes: [String(EMBEDDED), String(marked.code)] } };
    const cheapest = {
      plugins: [{ step: "RESPONSE", pluginsType: [{ type: "AGGREGATION", name: "cheapest_price" }] }],
    };
    const both = await hotelxData(SEARCH_ACCESSES, { criteria, filterSearch: accesses }, apikeyOnly);
    const aggregated = await hotelxData(
      SEARCH_ACCESSES,
      { criteria, filterSearch: accesses, settings: cheapest },
      apikeyOnly,
    );
    const codes = (search: any) => [...new Set(search.options.map((o: any) => o.accessCode))];
    expect(codes(both.hotelX.search)).toEqual(expect.arrayContaining([String(EMBEDDED), String(marked.code)]));
    expect(codes(aggregated.hotelX.search)).toEqual([String(EMBEDDED)]);
    expect(aggregated.hotelX.search.options.map((o: any) => o.price.net).sort()).toEqual(
      plain.hotelX.search.options.map((o: any) => o.price.net).sort(),
    );
  });

  it("a booking's payable, deprecated dates, connection and card types come from the booking and its payment type", async () => {
    const option = await searchTgx("US000012", EMBEDDED, refundable);
    const quote = await graphql(
      `query Q($criteria: HotelCriteriaQuoteInput!) { hotelX { quote(criteria: $criteria) {
        optionQuote { optionRefId paymentType cardTypes cancelPolicy { description } } ${ISSUES} } } }`,
      { criteria: { optionRefId: option.id } },
    );
    const quoted = quote.json.data.hotelX.quote.optionQuote;
    expect(quoted).toMatchObject({ paymentType: "MERCHANT", cardTypes: [] });
    expect(quoted.cancelPolicy.description).toMatch(
      /^From \d{4}-\d{2}-\d{2}T.+, cancelling costs \d+(\.\d+)? [A-Z]{3}/,
    );
    const clientReference = reference();
    const booked = await hotelxData(
      `mutation B($input: HotelBookInput!) { hotelX { book(input: $input) {
        booking { payable supplierCode accessCode hotel { bookingDate creationDate start checkIn end checkOut hotelCode hotelCodeSupplier boardCode boardCodeSupplier rooms { description descriptionSupplier } } } ${ISSUES} } } }`,
      bookInput(quoted.optionRefId, option, clientReference),
      apikeyOnly,
    );
    const booking = booked.hotelX.book.booking;
    expect(booking).toMatchObject({ payable: "Edgestay", supplierCode: "EDGESTAY", accessCode: String(EMBEDDED) });
    expect(booking.hotel).toMatchObject({
      creationDate: booking.hotel.bookingDate,
      checkIn: booking.hotel.start,
      checkOut: booking.hotel.end,
      hotelCodeSupplier: booking.hotel.hotelCode,
      boardCodeSupplier: booking.hotel.boardCode,
    });
    for (const room of booking.hotel.rooms) expect(room.descriptionSupplier).toBe(room.description);
  });
});
