import {
  createExecutionContext,
  createMessageBatch,
  env,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { seedSandboxHotels } from "../../../../test/support/seed";
import { call, DEMO_KEY, post } from "../../../../test/support/api";
import { bookBody, cancelBody, quoteBody, searchOne } from "../../../../test/support/booking";
import { inDays } from "../../../../test/support/clock";
import { DEMO_UPSTREAM_CONNECTION } from "../../../../test/support/accounts";
import { OPERATOR } from "../../../../test/support/sessions";
import { demoUpstreamUrl, sandboxAccess, twoStepBooking1002, withEmbedded1002 } from "../../../../test/support/hotelx";
import { settleBooking, settlePendingBookingsTask } from "../../booking/settle-pending";
import { bookingDeps } from "../../booking/deps";
import { bookingByReference } from "../../booking/bookings";
import { upstreamOptionsKeyOf } from "../../booking/upstream-options";
import { SupplierFailure } from "../supplier";
import { expireHold } from "../../booking/hold";
import type { HoldExpiry } from "../../booking/hold-expiry";
import { BOOKING_TIMERS_QUEUE, type BookingTimer } from "../../booking/booking-timers";
import { createApp } from "../../../app";
import worker from "../../../index";
import { requestServices } from "../../../services";
import { expectLogs } from "../../../../test/support/expected-logs";
import { circuitFor } from "../upstream-circuit";
import { bookingByClientReference, cancel, commit as hotelxCommit, type HotelxAccess } from "./client";
import { paymentTypeOf } from "./hotelx-price";

// Connection 1002 (seeded by test/support/setup.ts) sells the sandbox Hotel-X supplier, an auxiliary
// worker reached through the HOTELX_SANDBOX service binding: every call below crosses that hop.
const UPSTREAM = 1002;
const SUPPLIER = "hotelx-1002";
let upstreamUrl: string;
let ledger: HotelxAccess;

beforeAll(async () => {
  await seedSandboxHotels(env.DB);
  upstreamUrl = await demoUpstreamUrl();
  ledger = sandboxAccess(upstreamUrl, "test");
});
// The supplier's circuit is shared by every test here: each starts closed.
const circuit = () => circuitFor(env, SUPPLIER);
beforeEach(async () => {
  await circuit().record(true, Date.now());
});

const search = (codes: string[], settings: Record<string, unknown> = {}) =>
  post("/api/search", {
    searchCriteria: {
      destinations: { accommodations: codes.map((code) => ({ code })) },
      occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
      checkIn: inDays(30),
      checkOut: inDays(32),
    },
    settings: { access: { code: UPSTREAM }, ...settings },
  });
const searched = (code: string, pick?: (o: any) => boolean) => searchOne(code, { connection: UPSTREAM, pick });
const quoted = async (code: string, pick?: (o: any) => boolean) => {
  const res = await post("/api/quote", quoteBody(await searched(code, pick), {}, UPSTREAM));
  expect(res.status).toBe(200);
  return res.json.data;
};
const upstreamBooking = (hotelCode: string, clientReference: string) =>
  bookingByClientReference(
    ledger,
    { hotelCode, currency: "EUR", accessCode: "sandbox", clientReference },
    { deadlineMs: 5_000 },
  );
const reference = () => `PR-${crypto.randomUUID()}`;
/** The operations the sandbox answered connection 1002 so far, by name. */
const upstreamRequests = async (): Promise<Record<string, number>> =>
  (
    await env.HOTELX_SANDBOX.fetch(
      `https://hotelx-sandbox.test/requests?client=${DEMO_UPSTREAM_CONNECTION.upstream.client}`,
      { headers: { authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` } },
    )
  ).json();
/** Searches and quotes the sandbox answered between two counts. */
const countsSince = (before: Record<string, number>, after: Record<string, number>) => ({
  search: (after.search ?? 0) - (before.search ?? 0),
  quote: (after.quote ?? 0) - (before.quote ?? 0),
});

/** A queue that keeps what it is sent (and with which delay) instead of delivering it. */
const recordingQueue = () => {
  const sent: Array<{ body: BookingTimer; options?: QueueSendOptions }> = [];
  const queue = {
    send: async (body: BookingTimer, options?: QueueSendOptions) => {
      sent.push({ body, options });
    },
    sendBatch: async () => {
      throw new Error("not used");
    },
  } as unknown as Queue<BookingTimer>;
  return { sent, queue };
};
/** The timer through the Worker's own queue handler, as the queue delivers it; what it acked and sent. */
const deliver = async (timer: BookingTimer) => {
  const next = recordingQueue();
  const batch = createMessageBatch<BookingTimer>(BOOKING_TIMERS_QUEUE, [
    { id: `timer-${timer.attempt}`, timestamp: new Date(), attempts: 1, body: timer },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, { ...env, BOOKING_TIMERS: next.queue });
  return { ...(await getQueueResult(batch, ctx)), sent: next.sent };
};
const eventsOf = async (bookingReference: string) =>
  (await call("GET", `/api/events?limit=500&bookingReference=${bookingReference}`)).json.data.events.map((e: any) => [
    e.type,
    e.data.status,
  ]);

describe("connection 1002 through the sandbox Hotel-X supplier", () => {
  it("searches by codes, geo and name: the codes our content index resolves, priced by the upstream (EUR), ids naming the supplier", async () => {
    const res = await search(["HX001", "HX002", "NOPE"]);
    expect(res.status).toBe(200);
    expect(res.json.data.warnings).toBeUndefined();
    expect(res.json.data.accommodations.map((a: any) => a.accommodationCode)).toEqual(["HX001", "HX002"]);
    const hx001 = res.json.data.accommodations[0];
    expect(hx001.accommodationName).toBe("Hotel Sandbox Barcelona");
    expect(hx001.options.map((o: any) => [o.boardCode, o.rate.currency, o.rate.chargeTotal])).toEqual([
      ["RO", "EUR", 210],
      ["RO", "EUR", 240],
      ["BB", "EUR", 276],
    ]);
    expect(hx001.options.every((o: any) => o.id.endsWith(`~${SUPPLIER}`))).toBe(true);
    expect(hx001.options[0].isRefundable).toBe(false);

    const geo = await post("/api/search", {
      searchCriteria: {
        geo: { lat: 38.72, lng: -9.14, radiusKm: 5 },
        occupancies: [{ paxes: [{ age: 30 }] }],
        checkIn: inDays(30),
        checkOut: inDays(31),
      },
      settings: { access: { code: UPSTREAM } },
    });
    expect(geo.json.data.accommodations.map((a: any) => a.accommodationCode)).toEqual(["HX003"]);
    const named = await post("/api/search", {
      searchCriteria: {
        accommodationName: "sandbox paris",
        occupancies: [{ paxes: [{ age: 30 }] }],
        checkIn: inDays(30),
        checkOut: inDays(31),
      },
      settings: { access: { code: UPSTREAM } },
    });
    expect(named.json.data.accommodations.map((a: any) => a.accommodationCode)).toEqual(["HX004"]);
  });

  it("quotes, books (our reference is the upstream's client reference), reads and cancels", async () => {
    const quote = await quoted("HX002", (o) => o.isRefundable);
    expect(quote.rate).toMatchObject({ currency: "EUR" });
    const booked = await post("/api/book", bookBody(quote, reference(), {}, UPSTREAM));
    expect(booked.status).toBe(200);
    expect(booked.json.data).toMatchObject({ status: "success", currency: "EUR", chargeTotal: quote.rate.chargeTotal });
    const ref = booked.json.data.bookingReference;
    expect(await upstreamBooking("HX002", ref)).toMatchObject({
      found: true,
      booking: { status: "OK", reference: { client: ref } },
    });

    const read = await call("GET", `/api/bookings/${ref}`);
    expect(read.status).toBe(200);
    expect(read.json.data.status).toBe("success");

    const cancelled = await post("/api/cancel", cancelBody(ref, UPSTREAM));
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.data.status).toBe("cancelled");
    expect(await upstreamBooking("HX002", ref)).toMatchObject({ found: true, booking: { status: "CANCELLED" } });
  });

  it("keeps the upstream's accessCode and bookingID on the booking; cancel sends the bookingID alone", async () => {
    const quote = await quoted("HX003", (o) => o.isRefundable);
    const booked = await post("/api/book", bookBody(quote, reference(), {}, UPSTREAM));
    expect(booked.status).toBe(200);
    const ref = booked.json.data.bookingReference;
    const row = await env.DB.prepare(
      "SELECT upstream_access_code AS accessCode, upstream_booking_id AS bookingId, supplier_reference AS supplierRef FROM bookings WHERE reference = ?",
    )
      .bind(ref)
      .first<{ accessCode: string; bookingId: string; supplierRef: string }>();
    const upstream = await upstreamBooking("HX003", ref);
    expect(upstream.found && upstream.booking.reference.bookingID).toMatch(/^HXB-/);
    expect(row).toEqual({
      accessCode: "sandbox",
      bookingId: upstream.found && upstream.booking.reference.bookingID,
      supplierRef: upstream.found && upstream.booking.reference.supplier,
    });

    const cancelled = await post("/api/cancel", {
      ...cancelBody(ref, UPSTREAM),
      settings: { access: { code: UPSTREAM }, includeProviderTransactions: true },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const sent = JSON.parse(cancelled.json.data.providerTransactions[0].request.split("\n\n")[1]).variables.input;
    expect(sent).toEqual({ bookingID: row!.bookingId });
    expect(await upstreamBooking("HX003", ref)).toMatchObject({ found: true, booking: { status: "CANCELLED" } });
  });

  it("without a bookingID, cancel sends accessCode + hotelCode + reference", async () => {
    const quote = await quoted("HX004", (o) => o.isRefundable);
    const booked = await post("/api/book", bookBody(quote, reference(), {}, UPSTREAM));
    const ref = booked.json.data.bookingReference;
    // A booking made before bookingIDs were kept.
    await env.DB.prepare("UPDATE bookings SET upstream_booking_id = NULL WHERE reference = ?").bind(ref).run();
    const cancelled = await post("/api/cancel", {
      ...cancelBody(ref, UPSTREAM),
      settings: { access: { code: UPSTREAM }, includeProviderTransactions: true },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const sent = JSON.parse(cancelled.json.data.providerTransactions[0].request.split("\n\n")[1]).variables.input;
    expect(sent).toEqual({
      accessCode: "sandbox",
      hotelCode: "HX004",
      reference: { client: ref, supplier: expect.stringMatching(/^SBX-/) },
    });
    expect(await upstreamBooking("HX004", ref)).toMatchObject({ found: true, booking: { status: "CANCELLED" } });
  });

  it("PENDING_COMMIT (HXCOMMIT) to a plain book: Edgestay commits it, once (issue 40); booked OK, a replay commits nothing more", async () => {
    const commits = async (): Promise<number> =>
      (
        await (
          await env.HOTELX_SANDBOX.fetch(
            `https://hotelx-sandbox.test/requests?client=${DEMO_UPSTREAM_CONNECTION.upstream.client}`,
            { headers: { authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` } },
          )
        ).json<Record<string, number>>()
      ).commit ?? 0;
    const quote = await quoted("HXCOMMIT", (o) => o.isRefundable);
    const before = await commits();
    const body = bookBody(quote, reference(), {}, UPSTREAM);
    const key = { headers: { "Idempotency-Key": `hxcommit-${crypto.randomUUID()}` } };
    const booked = await post("/api/book", body, key);
    expect([booked.status, booked.json.data.status]).toEqual([200, "success"]);
    const ref = booked.json.data.bookingReference;
    expect(await upstreamBooking("HXCOMMIT", ref)).toMatchObject({ found: true, booking: { status: "OK" } });
    expect((await commits()) - before).toBe(1);
    const replayed = await post("/api/book", body, key);
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    expect((await commits()) - before).toBe(1);
  });

  it("a quote asks the upstream once (the searched option's own id), not a search and then a quote", async () => {
    const quotedOnce = async (option: any) => {
      const before = await upstreamRequests();
      const res = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
      expect(res.status, res.text).toBe(200);
      expect(countsSince(before, await upstreamRequests())).toEqual({ search: 0, quote: 1 });
      return res;
    };
    const res = await quotedOnce(await searched("HX005", (o) => o.isRefundable));
    expect(res.json.data.roomNames).toEqual(["Double room"]);
    // Paid at the hotel (0 charged): its id names it by the stay's value, and so does what search kept.
    const direct = await quotedOnce(await searched("HXDIRECT", (o) => o.isRefundable));
    expect(direct.json.data.paymentType).toBe("PayAtProperty");
  });

  it("a slow upstream: 200 with a supplier_timeout warning, within the partner's settings.timeout", async () => {
    const started = Date.now();
    const res = await search(["HX001", "HXSLOW5000"], { timeout: "300" });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(res.status).toBe(200);
    expect(res.json.data.accommodations).toEqual([]);
    expect(res.json.data.warnings).toEqual([
      { code: "supplier_timeout", supplier: SUPPLIER, message: expect.any(String) },
    ]);
  });

  it.each([["HX500"], ["HXBADJSON"], ["HXGQLERR"], ["HXBADSHAPE"]])(
    "%s: 200 with a supplier_error warning",
    async (code) => {
      const res = await search([code]);
      expect(res.status).toBe(200);
      expect(res.json.data.accommodations).toEqual([]);
      expect(res.json.data.warnings).toEqual([
        { code: "supplier_error", supplier: SUPPLIER, message: expect.any(String) },
      ]);
    },
  );

  it("five failures in a row open the circuit: the upstream is not asked, supplier_unavailable (search warning, quote 503)", async () => {
    const option = await searched("HX001");
    for (let i = 0; i < 5; i++) expect((await search(["HX500"])).json.data.warnings[0].code).toBe("supplier_error");
    const open = await search(["HX001"]);
    expect(open.status).toBe(200);
    expect(open.json.data.warnings).toEqual([
      { code: "supplier_unavailable", supplier: SUPPLIER, message: expect.stringContaining("unavailable") },
    ]);
    const quote = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
    expect(quote.status).toBe(503);
    expect(quote.json.message).toBe("The supplier is unavailable; retry later");
  });

  it("a cancel the upstream cannot take (circuit open): 503, the booking stays booked here and upstream", async () => {
    const quote = await quoted("HX005", (o) => o.isRefundable);
    const booked = await post("/api/book", bookBody(quote, reference(), {}, UPSTREAM));
    expect(booked.status).toBe(200);
    const ref = booked.json.data.bookingReference;
    const now = Date.now();
    for (let i = 0; i < 5; i++) await circuit().record(false, now);
    const cancel = await post("/api/cancel", cancelBody(ref, UPSTREAM));
    expect(cancel.status).toBe(503);
    expect(cancel.json.message).toBe("The supplier is unavailable; retry later");
    expect((await call("GET", `/api/bookings/${ref}`)).json.data.status).toBe("success");
    expect(await upstreamBooking("HX005", ref)).toMatchObject({ found: true, booking: { status: "OK" } });
    // Once the circuit closes, the same cancel goes through.
    await circuit().record(true, Date.now());
    expect((await post("/api/cancel", cancelBody(ref, UPSTREAM))).json.data.status).toBe("cancelled");
  });

  it("withEmbedded: one search asks both and merges their options per accommodation, all in the connection's EUR", async () => {
    await withEmbedded1002(true);
    try {
      // No USD rate: the embedded inventory (USD) is not asked and says so; the upstream's options are answered.
      await env.DB.prepare("DELETE FROM exchange_rates").run();
      const unrated = await search(["HX001"]);
      expect(unrated.status).toBe(200);
      expect(unrated.json.data.accommodations[0].options.every((o: any) => o.id.endsWith(`~${SUPPLIER}`))).toBe(true);
      expect(unrated.json.data.warnings).toEqual([
        expect.objectContaining({ code: "currency_not_convertible", supplier: "embedded", currency: "USD" }),
      ]);

      expect(
        (await call("PUT", "/api/operator/exchange-rates", { base: "EUR", rates: { USD: 1.25 } }, OPERATOR)).status,
      ).toBe(200);
      const res = await search(["HX001"]);
      expect(res.status).toBe(200);
      const options: any[] = res.json.data.accommodations[0].options;
      const ids: string[] = options.map((o) => o.id);
      expect(ids.filter((id) => id.endsWith(`~${SUPPLIER}`))).toHaveLength(3);
      expect(ids.filter((id) => !id.endsWith(`~${SUPPLIER}`)).length).toBeGreaterThan(0);
      expect(options.every((o) => o.rate.currency === "EUR")).toBe(true);
    } finally {
      await withEmbedded1002(false);
    }
  });

  it("price up at quote: 400 Price changed with both totals", async () => {
    const option = await searched("HXPRICEUP");
    const res = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Price changed");
    expect(res.json.details).toMatchObject({
      previousTotal: option.option.rate.chargeTotal,
      currentTotal: Math.round(option.option.rate.chargeTotal * 115) / 100,
    });
  });

  describe("the upstream refuses the quote", () => {
    /** The KV key of the upstream ids the search of `option` kept (upstream-options.ts), once written. */
    const keptUpstreamIds = async (option: any) => {
      const key = await upstreamOptionsKeyOf(option.option.id);
      for (let i = 0; (await env.CACHE.get(key)) === null && i < 50; i++) await new Promise((r) => setTimeout(r, 20));
      return key;
    };
    // The searched option's own id refused: its hotel is not searched again, but for OPTION_NOT_FOUND
    // (the id aged upstream), searched again and its option quoted, here refused again.
    const ONCE = { search: 0, quote: 1 };
    it.each([
      ["HXQUOTESOLDOUT", "SOLD_OUT", 400, "room_unavailable", "Room is unavailable", ONCE],
      ["HXQUOTENOAVAIL", "NO_AVAILABILITY", 400, "room_unavailable", "Room is unavailable", ONCE],
      ["HXQUOTEGONE", "OPTION_NOT_FOUND", 400, "room_unavailable", "Room is unavailable", { search: 1, quote: 2 }],
      ["HXQUOTEPRICE", "PRICE_CHANGED", 400, "price_changed", "Price changed", ONCE],
      [
        "HXQUOTEERROR",
        "RATE_ENGINE_FAILURE, a code of no refusal",
        502,
        "supplier_error",
        "The supplier answered with an error",
        ONCE,
      ],
    ])("%s (error %s): %i %s %s", async (hotel, _error, status, code, message, asked) => {
      const option = await searched(hotel);
      const before = await upstreamRequests();
      const res = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
      expect([res.status, res.json.code, res.json.message]).toEqual([status, code, message]);
      expect(countsSince(before, await upstreamRequests())).toEqual(asked);
    });

    it("a kept id the upstream no longer knows (OPTION_NOT_FOUND): its hotel is searched again and the option found there quoted", async () => {
      const option = await searched("HX005", (o) => o.isRefundable);
      // Every id the search kept, aged: one the upstream no longer knows.
      const key = await keptUpstreamIds(option);
      const kept = await env.CACHE.get<Record<string, [string, string | null]>>(key, "json");
      const aged = Object.entries(kept!).map(([product, [, accessCode]]) => [product, ["aged-option", accessCode]]);
      await env.CACHE.put(key, JSON.stringify(Object.fromEntries(aged)));
      const before = await upstreamRequests();
      const res = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.rate.chargeTotal).toBe(option.option.rate.chargeTotal);
      expect(countsSince(before, await upstreamRequests())).toEqual({ search: 1, quote: 2 });
    });

    it("PRICE_CHANGED names no new price: the details give the searched total alone", async () => {
      const option = await searched("HXQUOTEPRICE");
      const res = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
      expect(res.json.details).toEqual({ previousTotal: option.option.rate.chargeTotal, currency: "EUR" });
    });

    it("without the searched option's upstream id, the hotel is searched again and its quote refused the same way", async () => {
      const option = await searched("HXQUOTEGONE");
      // The upstream ids the search kept, once written, are dropped: the quote misses them.
      await env.CACHE.delete(await keptUpstreamIds(option));
      const before = await upstreamRequests();
      const res = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
      expect([res.status, res.json.message]).toEqual([400, "Room is unavailable"]);
      const after = await upstreamRequests();
      expect(countsSince(before, after)).toEqual({ search: 1, quote: 1 });
    });

    it("a refusal is the upstream's answer: a success in its circuit, as a refused book; an unknown code counts for nothing", async () => {
      /** Four failures in a row, then the quote of `hotel` (searched first: a search is a success of its own). */
      const quotedAfterFailures = async (hotel: string) => {
        const option = await searched(hotel);
        const now = Date.now();
        for (let i = 0; i < 4; i++) await circuit().record(false, now);
        const before = await upstreamRequests();
        const res = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
        // The quote alone reached the upstream: no search of the hotel counted in between.
        expect(countsSince(before, await upstreamRequests())).toEqual({ search: 0, quote: 1 });
        return { status: res.status, circuit: await circuit().record(false, now) };
      };
      // The count started again: one more failure is the first.
      expect(await quotedAfterFailures("HXQUOTESOLDOUT")).toEqual({
        status: 400,
        circuit: { failures: 1, openUntil: null },
      });
      // Neither a success nor a failure: one more failure is the fifth, and opens the circuit.
      expect(await quotedAfterFailures("HXQUOTEERROR")).toMatchObject({
        status: 502,
        circuit: { failures: 5, openUntil: expect.any(Number) },
      });
    });
  });

  it.each([["HXSOLDOUT"], ["HXREFUSE"]])(
    "%s at book: 400 The booking was not successful, nothing stored as booked",
    async (code) => {
      const quote = await quoted(code);
      const partnerReference = reference();
      const res = await post("/api/book", bookBody(quote, partnerReference, {}, UPSTREAM));
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("The booking was not successful.");
      expect(res.json.details).toEqual({ reason: code === "HXSOLDOUT" ? "unavailable" : "failed" });
      expect(
        await env.DB.prepare("SELECT count(*) AS n FROM bookings WHERE partner_reference = ?")
          .bind(partnerReference)
          .first("n"),
      ).toBe(0);
    },
  );

  it("an answer lost after the upstream booked: 202 pending, settled to success by upkeep; retries make one upstream booking", async () => {
    const quote = await quoted("HXLOST2000");
    const partnerReference = reference();
    const body = bookBody(quote, partnerReference, {}, UPSTREAM);
    // The sandbox books on arrival and answers 2 s later: any deadline under 2 s loses the answer, and
    // 1.5 s (not 0.3 s) leaves a loaded machine time to deliver the request, so the upstream did book.
    (body.settings as Record<string, unknown>).timeout = "1500";
    const key = { headers: { "Idempotency-Key": `k-${partnerReference}` } };
    // Ten at once under one key: one books, the others wait (409) or replay it.
    const first = await Promise.all(Array.from({ length: 10 }, () => post("/api/book", body, key)));
    const answered = first.filter((r) => r.status === 202);
    expect(answered.length).toBeGreaterThan(0);
    expect(
      first.every((r) => r.status === 202 || (r.status === 409 && r.json.message.includes("still being processed"))),
    ).toBe(true);
    const ref = answered[0]!.json.data.bookingReference;
    expect(answered.every((r) => r.json.data.status === "pending" && r.json.data.bookingReference === ref)).toBe(true);

    const pending = await call("GET", `/api/bookings/${ref}`);
    expect(pending.json.data.status).toBe("pending");
    // Ten more with new keys and the same partnerReference: the same booking, nothing sent upstream.
    const retried = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post("/api/book", body, { headers: { "Idempotency-Key": `n${i}-${partnerReference}` } }),
      ),
    );
    expect(retried.map((r) => [r.status, r.json.data.bookingReference])).toEqual(
      Array.from({ length: 10 }, () => [202, ref]),
    );
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM bookings WHERE partner_reference = ?")
        .bind(partnerReference)
        .first("n"),
    ).toBe(1);

    // Upkeep asks the upstream by our reference (its client reference) and settles the booking.
    expect(await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000))).toBe(1);
    const settled = await call("GET", `/api/bookings/${ref}`);
    expect(settled.json.data.status).toBe("success");
    const upstream = await upstreamBooking("HXLOST2000", ref);
    expect(upstream).toMatchObject({ found: true, booking: { status: "OK", reference: { client: ref } } });
    // The replay of the key now answers the booking as it is: confirmed.
    const replay = await post("/api/book", body, key);
    expect([replay.status, replay.json.data.status, replay.json.data.bookingReference]).toEqual([200, "success", ref]);
  });

  describe("a lost answer settles in minutes (issue 28): timers at 1, 2, 5, 10 and 30 minutes, then the hourly upkeep", () => {
    /** Books a lost answer through the app, its booking timers recorded: 202 pending. */
    const bookLost = async (timers: Queue<BookingTimer>) => {
      const app = createApp({
        services: (bindings) => {
          const services = requestServices(bindings);
          return { ...services, booking: { ...services.booking, timers } };
        },
      });
      const body = bookBody(await quoted("HXLOST2000"), reference(), {}, UPSTREAM);
      // As above: the sandbox books on arrival and answers after 2 s; 1.5 s loses the answer.
      (body.settings as Record<string, unknown>).timeout = "1500";
      const res = await app.request(
        "/api/book",
        {
          method: "POST",
          headers: { "content-type": "application/json", "api-key": DEMO_KEY },
          body: JSON.stringify(body),
        },
        env,
      );
      const booked = ((await res.json()) as { data: { bookingReference: string; status: string } }).data;
      expect([res.status, booked.status]).toEqual([202, "pending"]);
      return booked.bookingReference;
    };
    const statusOf = (ref: string) =>
      env.DB.prepare("SELECT status, quote_id AS quoteId FROM bookings WHERE reference = ?")
        .bind(ref)
        .first<{ status: string; quoteId: string | null }>();

    it("the book asks again in 60 s; that timer finds the upstream's booking and confirms it, logged after booking.pending", async () => {
      const timers = recordingQueue();
      const ref = await bookLost(timers.queue);
      expect(timers.sent).toEqual([
        {
          body: { kind: "settle-pending", reference: ref, attempt: 1 },
          options: { contentType: "json", delaySeconds: 60 },
        },
      ]);
      expect(await eventsOf(ref)).toEqual([["booking.pending", "pending"]]);

      const first = await deliver(timers.sent[0]!.body);
      expect(first.explicitAcks).toEqual(["timer-1"]);
      expect(first.sent).toEqual([]);
      expect((await statusOf(ref))!.status).toBe("success");
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.confirmed", "success"],
      ]);
      // A later timer of the same booking (or the upkeep) finds it settled: nothing more, nothing logged twice.
      expect((await deliver({ kind: "settle-pending", reference: ref, attempt: 2 })).explicitAcks).toEqual(["timer-2"]);
      expect(await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000))).toBe(0);
      expect(await eventsOf(ref)).toHaveLength(2);
    });

    it("a booking the upstream no longer has settles failed (booking.failed) and frees its quote", async () => {
      const timers = recordingQueue();
      const ref = await bookLost(timers.queue);
      const dropped = await cancel(
        ledger,
        { hotelCode: "HXLOST2000", accessCode: "sandbox", clientReference: ref },
        { deadlineMs: 5_000 },
      );
      expect(dropped.outcome).toBe("cancelled");
      expect((await deliver(timers.sent[0]!.body)).sent).toEqual([]);
      expect(await statusOf(ref)).toEqual({ status: "failed", quoteId: null });
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.failed", "failed"],
      ]);
    });

    it("while the upstream cannot answer, each timer schedules the next (after 2, 5, 10, 30 minutes); after the last the hourly upkeep settles it", async () => {
      const timers = recordingQueue();
      const ref = await bookLost(timers.queue);
      const warnings = expectLogs("error"); // pending_booking_not_settled, on purpose
      const now = Date.now();
      for (let i = 0; i < 5; i++) await circuit().record(false, now);
      const waits: number[] = [];
      let timer: BookingTimer | undefined = timers.sent[0]!.body;
      while (timer) {
        const result = await deliver(timer);
        expect(result.explicitAcks).toEqual([`timer-${timer.attempt}`]);
        const [next] = result.sent;
        if (next) {
          expect(next.body).toEqual({ kind: "settle-pending", reference: ref, attempt: timer.attempt + 1 });
          waits.push(next.options!.delaySeconds!);
        }
        timer = next?.body;
      }
      // Attempts at 1, 2, 5, 10 and 30 minutes after the answer: the first 60 s, then these waits.
      expect(waits).toEqual([60, 180, 300, 1200]);
      expect(warnings.filter((w) => w.includes("pending_booking_not_settled"))).toHaveLength(5);
      expect((await statusOf(ref))!.status).toBe("pending");
      await circuit().record(true, Date.now());
      expect(await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000))).toBe(1);
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.confirmed", "success"],
      ]);
    });
  });

  it("ten first books at once under one partnerReference, each with its own Idempotency-Key: one upstream booking", async () => {
    const quote = await quoted("HX001");
    const partnerReference = reference();
    const body = bookBody(quote, partnerReference, {}, UPSTREAM);
    (body.settings as Record<string, unknown>).includeProviderTransactions = true;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post("/api/book", body, { headers: { "Idempotency-Key": `p${i}-${partnerReference}` } }),
      ),
    );
    const refs = new Set(answers.map((r) => r.json.data.bookingReference));
    expect(refs.size).toBe(1);
    expect(answers.every((r) => [200, 202].includes(r.status))).toBe(true);
    // Every request that reached the upstream shows its exchanges: exactly one of them is a book.
    const books = answers.flatMap((r) =>
      (r.json.data.providerTransactions ?? []).filter((t: any) => t.operation === "book"),
    );
    expect(books).toHaveLength(1);
    const [ref] = refs;
    expect(await upstreamBooking("HX001", ref!)).toMatchObject({ found: true, booking: { status: "OK" } });
    expect((await call("GET", `/api/bookings/${ref}`)).json.data.status).toBe("success");
  });

  it("includeProviderTransactions shows the upstream exchange, the API key and the operator's URL, client and context redacted", async () => {
    const res = await search(["HX005"], { includeProviderTransactions: true });
    expect(res.status).toBe(200);
    const [exchange, ...rest] = res.json.data.providerTransactions;
    expect(rest).toEqual([]);
    expect(exchange).toMatchObject({ supplier: SUPPLIER, operation: "search", status: 200 });
    expect(exchange.request).toMatch(/^POST \[REDACTED\]\n/);
    expect(exchange.request).toContain("authorization: [REDACTED]");
    expect(exchange.request).toContain('"hotels":["HX005"]');
    expect(exchange.request).toContain('"settings":{"client":"[REDACTED]","context":"[REDACTED]","timeout":');
    expect(JSON.parse(exchange.response).data.hotelX.search.options.length).toBe(3);
    expect(res.text).not.toContain(env.HOTELX_SANDBOX_API_KEY);
    // Connection 1002's upstream: http://127.0.0.1:8791/, client edgestay-demo, context SANDBOX.
    expect(res.text).not.toContain(new URL(upstreamUrl).host);
    expect(res.text).not.toContain(DEMO_UPSTREAM_CONNECTION.upstream.client);
    expect(res.text).not.toContain(`\\"${DEMO_UPSTREAM_CONNECTION.upstream.context}\\"`);
  });

  it("a redirecting upstream is not followed: 302 is a supplier_error warning showing the 302 itself; a book answered 307 is not successful", async () => {
    const res = await search(["HX302"], { includeProviderTransactions: true });
    expect(res.status).toBe(200);
    expect(res.json.data.warnings).toEqual([
      { code: "supplier_error", supplier: SUPPLIER, message: "Hotel-X search answered HTTP 302" },
    ]);
    expect(res.json.data.providerTransactions).toMatchObject([
      { operation: "search", status: 302, response: JSON.stringify({ errors: [{ message: "Moved to /redirected" }] }) },
    ]);
    // The sandbox's redirect target books what it is sent: followed, the 307 would book there (200 success).
    const quote = await quoted("HXBOOK307");
    const partnerReference = reference();
    const booked = await post("/api/book", bookBody(quote, partnerReference, {}, UPSTREAM));
    expect(booked.status).toBe(400);
    expect(booked.json.message).toBe("The booking was not successful.");
    expect(booked.json.details).toEqual({ reason: "failed" });
  });

  it("/api/search/tgx: the upstream's options in the Hotel-X shape; a failed upstream is a warning", async () => {
    const body = (hotels: string[]) => ({
      criteria: {
        checkIn: inDays(30),
        checkOut: inDays(32),
        hotels,
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
        currency: "EUR",
      },
      settings: { access: { code: UPSTREAM } },
    });
    const ok = await post("/api/search/tgx", body(["HX004"]));
    expect(ok.status).toBe(200);
    const search = ok.json.data.hotelX.search;
    expect(search.options.map((o: any) => o.hotelCode)).toEqual(["HX004", "HX004", "HX004"]);
    expect(search.errors).toEqual([]);
    const failed = await post("/api/search/tgx", body(["HX500"]));
    expect(failed.status).toBe(200);
    expect(failed.json.data.hotelX.search.warnings).toContainEqual(
      expect.objectContaining({ code: "SUPPLIER_ERROR", type: "SUPPLIER" }),
    );
  });

  describe("restricted rates of the upstream (issue 27): HXPACKAGE has a PACKAGE, a MOBILE and a WARRANTY rate", () => {
    const searchAs = async (distributionContext?: unknown, filters?: unknown) => {
      const res = await post("/api/search", {
        searchCriteria: {
          destinations: { accommodations: [{ code: "HXPACKAGE" }] },
          occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
          checkIn: inDays(30),
          checkOut: inDays(32),
        },
        settings: { access: { code: UPSTREAM } },
        ...(distributionContext ? { distributionContext } : {}),
        ...(filters ? { filters } : {}),
      });
      expect(res.status).toBe(200);
      expect(res.json.data.warnings).toBeUndefined();
      return res.json.data.accommodations[0].options as any[];
    };
    const tgxAs = async (distributionContext?: unknown) => {
      const res = await post("/api/search/tgx", {
        criteria: {
          checkIn: inDays(30),
          checkOut: inDays(32),
          hotels: ["HXPACKAGE"],
          occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
        },
        settings: { access: { code: UPSTREAM } },
        ...(distributionContext ? { distributionContext } : {}),
      });
      expect(res.status).toBe(200);
      return res.json.data.hotelX.search.options as any[];
    };
    const plansOf = (options: any[]) => options.map((o) => [o.id.split("~")[3], o.rateRules, o.visibility]);

    it("/api/search: [PUBLIC] never returns the PACKAGE rate, [PUBLIC, PACKAGE] does; MOBILE only on APP; WARRANTY always, passed through", async () => {
      const publicOnly = await searchAs({ supportedVisibilityTypes: ["PUBLIC"] });
      expect(plansOf(publicOnly)).toEqual([
        ["STD-NR-RO", ["NON_REFUNDABLE"], "PUBLIC"],
        ["DBL-RO", [], "PUBLIC"],
        ["DBL-WAR-RO-WARRANTY", ["WARRANTY"], "PUBLIC"],
        ["DBL-BB-BB", [], "PUBLIC"],
      ]);
      expect(plansOf(await searchAs())).toEqual(plansOf(publicOnly));
      const withPackages = await searchAs({ supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] });
      expect(plansOf(withPackages)).toEqual([["DBL-PKG-RO-PACKAGE", ["PACKAGE"], "PACKAGE"], ...plansOf(publicOnly)]);
      expect(withPackages[0].rate.chargeTotal).toBe(160);
      const app = await searchAs({ salesChannel: "APP" });
      expect(plansOf(app)).toContainEqual(["DBL-MOB-RO-MOBILE", ["NON_REFUNDABLE", "MOBILE"], "PUBLIC"]);
      expect(app.some((o) => o.visibility === "PACKAGE")).toBe(false);
      // A filter cannot open the package rate.
      const asked = await searchAs(undefined, { rateRuleFilter: { includes: ["PACKAGE", "MOBILE"] } });
      expect(asked.some((o) => o.rateRules.includes("PACKAGE") || o.rateRules.includes("MOBILE"))).toBe(false);
    });

    it("/api/search/tgx: the same, in Hotel-X rateRules", async () => {
      const publicOnly = await tgxAs({ supportedVisibilityTypes: ["PUBLIC"] });
      expect(publicOnly.length).toBe(4);
      expect(publicOnly.some((o) => o.rateRules.includes("PACKAGE"))).toBe(false);
      expect(publicOnly.map((o) => o.rateRules)).toContainEqual(["WARRANTY"]);
      const withPackages = await tgxAs({ supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] });
      expect(withPackages.filter((o) => o.rateRules.includes("PACKAGE")).map((o) => o.rooms[0].code)).toEqual([
        "DBL-PKG",
      ]);
      expect(withPackages.length).toBe(5);
    });

    it("the upstream's package option quotes and books when its search could show it; a public id rewritten to it is refused", async () => {
      const stay = { checkIn: inDays(30), checkOut: inDays(32), occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }] };
      const pkg = (await searchAs({ supportedVisibilityTypes: ["PUBLIC", "PACKAGE"] })).find(
        (o) => o.visibility === "PACKAGE",
      );
      const quote = await post(
        "/api/quote",
        quoteBody({ accommodationCode: "HXPACKAGE", option: pkg, ...stay }, {}, UPSTREAM),
      );
      expect(quote.status).toBe(200);
      expect(quote.json.data).toMatchObject({ rateRules: ["PACKAGE"], visibility: "PACKAGE", roomCodes: ["DBL-PKG"] });
      const partnerReference = reference();
      const booked = await post("/api/book", bookBody(quote.json.data, partnerReference, {}, UPSTREAM));
      expect(booked.status).toBe(200);
      const publicOption = (await searchAs())[0];
      const parts = publicOption.id.split("~");
      parts[2] = "DBL-PKG";
      parts[3] = "DBL-PKG-RO-PACKAGE";
      const forged = await post(
        "/api/quote",
        quoteBody({ accommodationCode: "HXPACKAGE", option: { id: parts.join("~") }, ...stay }, {}, UPSTREAM),
      );
      expect([forged.status, forged.json.code]).toEqual([400, "option_invalid"]);
    });
  });

  describe("prices of the upstream (issue 27): HXUSD in USD, HXGBP in GBP without a rate, HXFEES with surcharges and penalties of each kind", () => {
    const setRates = async (rates: Record<string, number>) =>
      expect((await call("PUT", "/api/operator/exchange-rates", { base: "EUR", rates }, OPERATOR)).status).toBe(200);
    const checkIn = inDays(30);
    const hoursBeforeCheckIn = (hours: number) =>
      new Date(Date.parse(`${checkIn}T00:00:00Z`) - hours * 3_600_000).toISOString();
    const dbl = (o: any) => o.rooms[0].code === "DBL";

    it("HXUSD is converted with the operator's rate into the search's currency; searched, quoted and booked", async () => {
      await setRates({ USD: 1.25 });
      const res = await search(["HXUSD"]);
      expect(res.status).toBe(200);
      expect(res.json.data.warnings).toBeUndefined();
      const options = res.json.data.accommodations[0].options;
      // 135, 150 and 168 USD a night for two nights, at 0.8 EUR per USD.
      expect(options.map((o: any) => [o.rate.currency, o.rate.chargeTotal, o.rate.exchange])).toEqual([
        ["EUR", 216, { currency: "USD", rate: 0.8 }],
        ["EUR", 240, { currency: "USD", rate: 0.8 }],
        ["EUR", 268.8, { currency: "USD", rate: 0.8 }],
      ]);
      // The non-refundable IMPORT of 270 USD and the refundable 100 % are amounts in EUR.
      expect(options[0].cancelPolicy.cancelPenalties[0]).toMatchObject({
        penaltyType: "IMPORT",
        currency: "EUR",
        value: 216,
        supplierPenalty: { penaltyType: "IMPORT", value: 270, currency: "USD" },
      });
      expect(options[1].cancelPolicy.cancelPenalties).toEqual([
        {
          penaltyType: "IMPORT",
          currency: "EUR",
          deadline: hoursBeforeCheckIn(48),
          value: 240,
          // The supplier's statement as given: by hours before check-in, no deadline of its own.
          supplierPenalty: { penaltyType: "PERCENT", value: 100, currency: "USD", hoursBefore: 48 },
        },
      ]);
      const quote = await quoted("HXUSD", dbl);
      expect(quote.rate).toMatchObject({ currency: "EUR", chargeTotal: 240, exchange: { currency: "USD", rate: 0.8 } });
      const booked = await post("/api/book", bookBody(quote, reference(), {}, UPSTREAM));
      expect(booked.status).toBe(200);
      expect(booked.json.data).toMatchObject({ status: "success", currency: "EUR", chargeTotal: 240 });
    });

    it("HXGBP without a GBP rate: 200 with a currency_not_convertible warning, the other hotels' options kept; its quote is 422", async () => {
      await setRates({ USD: 1.25 });
      const res = await search(["HXGBP", "HX001"]);
      expect(res.status).toBe(200);
      expect(res.json.data.accommodations.map((a: any) => a.accommodationCode)).toEqual(["HX001"]);
      expect(res.json.data.warnings).toEqual([
        {
          code: "currency_not_convertible",
          supplier: SUPPLIER,
          message: expect.stringContaining("no exchange rate from GBP to EUR"),
          currency: "GBP",
          requestedCurrency: "EUR",
          accommodationCodes: ["HXGBP"],
          options: 3,
        },
      ]);
      // Issue 29: offered, and left out for the search's currency.
      expect(res.json.data.statuses).toEqual([
        {
          accommodationCode: "HXGBP",
          status: "filtered_out",
          suppliers: [{ code: "hotelx-1002", status: "filtered_out" }],
        },
        { accommodationCode: "HX001", status: "available", suppliers: [{ code: "hotelx-1002", status: "available" }] },
      ]);
      const tgx = await post("/api/search/tgx", {
        criteria: { checkIn, checkOut: inDays(32), hotels: ["HXGBP"], occupancies: [{ paxes: [{ age: 30 }] }] },
        settings: { access: { code: UPSTREAM } },
      });
      expect(tgx.status).toBe(200);
      expect(tgx.json.data.hotelX.search.warnings).toContainEqual(
        expect.objectContaining({ code: "CURRENCY_NOT_CONVERTIBLE", type: "SUPPLIER" }),
      );
      expect(tgx.json.data.hotelX.search.errors).toEqual([
        expect.objectContaining({ code: "FILTERED_OUT", description: expect.stringMatching(/^HXGBP: /) }),
      ]);

      // Searched while the operator had a GBP rate, quoted after it was taken away.
      await setRates({ USD: 1.25, GBP: 0.8 });
      const option = await searched("HXGBP", dbl);
      expect(option.option.rate).toMatchObject({ currency: "EUR", chargeTotal: 225 });
      await setRates({ USD: 1.25 });
      const quote = await post("/api/quote", quoteBody(option, {}, UPSTREAM));
      expect([quote.status, quote.json.code]).toEqual([422, "currency_not_convertible"]);
      expect(quote.json.message).toBe(
        "The supplier prices this option in GBP; there is no exchange rate from GBP to EUR",
      );
    });

    it("HXFEES: INCLUDE is an included charge out of the net, a mandatory EXCLUDE is due at the property, an optional one is not", async () => {
      const res = await search(["HXFEES"], { includePriceBreakdown: true });
      expect(res.status).toBe(200);
      const [option] = res.json.data.accommodations[0].options;
      // 100 EUR a night holds a 4.50 city tax; the 25 EUR resort fee a night is paid at the hotel; parking is optional.
      expect(option.rate).toEqual({
        currency: "EUR",
        baseRate: 191,
        taxesAndFees: 9,
        chargeTotal: 200,
        charges: [
          { type: "FEE", code: "CITYTAX", description: "City tax", amount: 9, included: true },
          { type: "FEE", code: "RESORT", description: "Resort fee", amount: 50, included: false },
        ],
        dueAtProperty: {
          amount: 50,
          currency: "EUR",
          charges: [{ type: "FEE", code: "RESORT", description: "Resort fee", amount: 50, currency: "EUR" }],
        },
        totalStayPrice: 250,
        nights: [
          { date: checkIn, baseRate: 95.5, taxesAndFees: 4.5 },
          { date: inDays(31), baseRate: 95.5, taxesAndFees: 4.5 },
        ],
      });
      // Penalties of each kind, as amounts of what is charged: 50 EUR, one night, 100 %.
      expect(option.cancelPolicy.cancelPenalties).toEqual([
        {
          penaltyType: "IMPORT",
          currency: "EUR",
          deadline: hoursBeforeCheckIn(336),
          value: 50,
          supplierPenalty: { penaltyType: "IMPORT", value: 50, currency: "EUR", hoursBefore: 336 },
        },
        {
          penaltyType: "IMPORT",
          currency: "EUR",
          deadline: hoursBeforeCheckIn(168),
          value: 100,
          supplierPenalty: { penaltyType: "NIGHTS", value: 1, currency: "EUR", hoursBefore: 168 },
        },
        {
          penaltyType: "IMPORT",
          currency: "EUR",
          deadline: hoursBeforeCheckIn(48),
          value: 200,
          supplierPenalty: { penaltyType: "PERCENT", value: 100, currency: "EUR", hoursBefore: 48 },
        },
      ]);

      // Quoted (the quote's own surcharges) and booked: the same breakdown to the cent.
      const quote = await quoted("HXFEES", dbl);
      expect(quote.rate).toEqual(option.rate);
      expect(quote.cancelPolicy).toEqual(option.cancelPolicy);
      const booked = await post("/api/book", bookBody(quote, reference(), {}, UPSTREAM));
      expect(booked.status).toBe(200);
      expect(booked.json.data).toMatchObject({ status: "success", chargeTotal: 200 });
      const read = await call("GET", `/api/bookings/${booked.json.data.bookingReference}`);
      expect(read.json.data.rate ?? read.json.data).toMatchObject({ totalStayPrice: 250 });
    });

    it("HXFEES in USD: the fee due stays in EUR with amountInRateCurrency at the operator's rate", async () => {
      await setRates({ USD: 1.1 });
      const res = await search(["HXFEES"], { currency: "USD" });
      expect(res.status).toBe(200);
      const rate = res.json.data.accommodations[0].options[0].rate;
      expect(rate).toMatchObject({
        currency: "USD",
        baseRate: 210.1,
        taxesAndFees: 9.9,
        chargeTotal: 220,
        dueAtProperty: { amount: 50, currency: "EUR", amountInRateCurrency: 55 },
        totalStayPrice: 275,
        exchange: { currency: "EUR", rate: 1.1 },
      });
    });

    it("/api/search/tgx: HXFEES surcharges INCLUDE and EXCLUDE, gross never null, a PERCENT penalty as a percentage", async () => {
      const res = await post("/api/search/tgx", {
        criteria: {
          checkIn,
          checkOut: inDays(32),
          hotels: ["HXFEES"],
          occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
        },
        settings: { access: { code: UPSTREAM } },
      });
      expect(res.status).toBe(200);
      const [option] = res.json.data.hotelX.search.options;
      expect(option.paymentType).toBe("MERCHANT");
      expect(option.price).toEqual({
        currency: "EUR",
        binding: false,
        net: 200,
        gross: 200,
        exchange: { currency: "EUR", rate: 1 },
      });
      const eur = (amount: number) => ({
        currency: "EUR",
        binding: false,
        net: amount,
        gross: amount,
        exchange: { currency: "EUR", rate: 1 },
      });
      expect(option.surcharges).toEqual([
        { code: "CITYTAX", chargeType: "INCLUDE", mandatory: true, description: "City tax", price: eur(9) },
        { code: "RESORT", chargeType: "EXCLUDE", mandatory: true, description: "Resort fee", price: eur(50) },
      ]);
      expect(option.cancelPolicy.cancelPenalties.map((p: any) => [p.penaltyType, p.value, p.currency])).toEqual([
        ["IMPORT", 50, "EUR"],
        ["IMPORT", 100, "EUR"],
        ["PERCENT", 100, "EUR"],
      ]);
    });
  });
});

describe("payment types of the upstream (issue 27): HXDIRECT answers paymentType DIRECT", () => {
  it("maps Hotel-X PaymentType: DIRECT and CARD_CHECK_IN are paid at the hotel, the rest at booking", () => {
    expect(
      ["MERCHANT", "DIRECT", "CARD_CHECK_IN", "CARD_BOOKING", "PAYX", "", null].map((t) => paymentTypeOf(t)),
    ).toEqual([
      "MerchantPay",
      "PayAtProperty",
      "PayAtProperty",
      "MerchantPay",
      "MerchantPay",
      "MerchantPay",
      "MerchantPay",
    ]);
  });

  it("DIRECT is PayAtProperty through search, quote and book: chargeTotal 0, the stay due at the property", async () => {
    const res = await search(["HXDIRECT"]);
    expect(res.status).toBe(200);
    const options = res.json.data.accommodations[0].options;
    expect(options.length).toBeGreaterThan(0);
    for (const option of options) {
      expect(option.paymentType).toBe("PayAtProperty");
      expect([option.rate.chargeTotal, option.rate.baseRate, option.rate.taxesAndFees]).toEqual([0, 0, 0]);
      expect(option.rate.dueAtProperty.amount).toBe(option.rate.totalStayPrice);
      expect(option.rate.dueAtProperty.charges.map((c: any) => [c.type, c.amount])).toEqual([
        ["ROOM", option.rate.totalStayPrice],
      ]);
      expect(option.rate.totalStayPrice).toBeGreaterThan(0);
    }
    const quote = await quoted("HXDIRECT", (o) => o.isRefundable);
    expect(quote.paymentType).toBe("PayAtProperty");
    expect(quote.rate.chargeTotal).toBe(0);
    // Sandbox DBL at 90 EUR, two nights.
    expect(quote.rate.dueAtProperty).toMatchObject({ amount: 180, currency: "EUR" });
    const noCard = await post("/api/book", bookBody(quote, reference(), {}, UPSTREAM));
    expect([noCard.status, noCard.json.code]).toEqual([400, "payment_card_required"]);
    await env.DB.prepare(
      "insert or ignore into payment_methods (partner_id, actor_id, payment_method_id, brand, last4, exp_month, exp_year, is_default, created_at) values ('demo', 'hx-guest', 'pm_hxdirect0001', 'visa', '4242', 12, 2099, 1, '2026-01-01T00:00:00Z')",
    ).run();
    const booked = await post(
      "/api/book",
      bookBody(
        quote,
        reference(),
        { paymentType: "PayAtProperty", paymentCard: { actorId: "hx-guest", paymentMethodId: "pm_hxdirect0001" } },
        UPSTREAM,
      ),
    );
    expect(booked.status).toBe(200);
    expect(booked.json.data).toMatchObject({ chargeTotal: 0, paymentType: "PayAtProperty", currency: "EUR" });
  });

  it("HXDIRECTFEE: the room moved to the property is converted into the currency of its local fee, not left in the rate's", async () => {
    // 1 EUR = 1.25 USD. The stay: 2 nights at 100 EUR, and a 20 USD resort fee a night due at the hotel.
    expect(
      (await call("PUT", "/api/operator/exchange-rates", { base: "EUR", rates: { USD: 1.25 } }, OPERATOR)).status,
    ).toBe(200);
    const res = await search(["HXDIRECTFEE"], { includePriceBreakdown: true });
    expect(res.status).toBe(200);
    const [option] = res.json.data.accommodations[0].options;
    expect(option.paymentType).toBe("PayAtProperty");
    expect(option.rate).toMatchObject({
      currency: "EUR",
      chargeTotal: 0,
      charges: [
        { type: "ROOM", code: "ROOM", amount: 200, included: false },
        { type: "FEE", code: "RESORT", amount: 32, included: false },
      ],
      // What the hotel collects is in USD: the room's 200 EUR are 250 USD (never "200 USD").
      dueAtProperty: {
        amount: 290,
        currency: "USD",
        amountInRateCurrency: 232,
        charges: [
          { type: "ROOM", code: "ROOM", amount: 250, currency: "USD" },
          { type: "FEE", code: "RESORT", amount: 40, currency: "USD" },
        ],
      },
      totalStayPrice: 232,
    });
    const quote = await quoted("HXDIRECTFEE");
    expect(quote.rate).toEqual(option.rate);
  });
});

describe("holds on the upstream (issue 28): Hotel-X's two-step book, settings.commitRequired then commit", () => {
  const sentOf = (transaction: { request: string }) => JSON.parse(transaction.request.split("\n\n")[1]!);
  const hold = async (code: string, partnerReference = reference()) => {
    const quote = await quoted(code, (o) => o.isRefundable);
    const body = bookBody(quote, partnerReference, { hold: true, holdMinutes: 5 }, UPSTREAM);
    (body.settings as Record<string, unknown>).includeProviderTransactions = true;
    const res = await post("/api/book", body);
    expect(res.status, res.text).toBe(200);
    return { quote, booked: res.json.data };
  };
  const commit = (ref: string) =>
    post(`/api/bookings/${ref}/commit`, {
      settings: { access: { code: UPSTREAM }, includeProviderTransactions: true },
    });

  it("a hold is booked PENDING_COMMIT upstream and held here, nothing charged; commit commits it there and here at the held price", async () => {
    const { quote, booked } = await hold("HX002");
    expect(booked).toMatchObject({ status: "held", chargeTotal: 0, rate: quote.rate });
    expect(sentOf(booked.providerTransactions[0]).variables.settings.commitRequired).toBe(true);
    const ref = booked.bookingReference;
    expect(await upstreamBooking("HX002", ref)).toMatchObject({ found: true, booking: { status: "PENDING_COMMIT" } });

    const committed = await commit(ref);
    expect(committed.status, committed.text).toBe(200);
    expect(committed.json.data).toMatchObject({ status: "success", chargeTotal: quote.rate.chargeTotal });
    const sent = sentOf(committed.json.data.providerTransactions[0]);
    expect(sent.query).toContain("commit(input: $input, settings: $settings)");
    expect(sent.variables.input).toEqual({
      accessCode: "sandbox",
      reference: { client: ref, supplier: expect.stringMatching(/^SBX-/) },
    });
    expect(await upstreamBooking("HX002", ref)).toMatchObject({ found: true, booking: { status: "OK" } });
    expect((await call("GET", `/api/bookings/${ref}`)).json.data).toMatchObject({ status: "success" });
  });

  it("settling commits a plain book left waiting for its commit (issue 40)", async () => {
    const counts = await env.DB.prepare(
      "select holds, room_nights from partner_holds where partner_id = 'demo'",
    ).first<{
      holds: number;
      room_nights: number;
    }>();
    const quote = await quoted("HXLOST2000", (o) => o.isRefundable);
    const body = bookBody(quote, reference(), { hold: true, holdMinutes: 5 }, UPSTREAM);
    // The sandbox books on arrival, in two steps as a hold asks, and answers 2 s later: the answer is lost.
    (body.settings as Record<string, unknown>).timeout = "1500";
    const lost = await post("/api/book", body);
    expect([lost.status, lost.json.data.status]).toEqual([202, "pending"]);
    const ref = lost.json.data.bookingReference;
    const status = async () => (await call("GET", `/api/bookings/${ref}`)).json.data.status;
    expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({
      found: true,
      booking: { status: "PENDING_COMMIT" },
    });
    // Asked to hold, settling makes it held and never commits it ("a hold whose answer was lost", below).
    // The row a plain book leaves when the upstream took it in two steps and Edgestay's own commit got
    // no answer: the same, without a hold's end (the sandbox cannot lose a commit's answer unapplied).
    await env.DB.prepare("UPDATE bookings SET hold_expires_at = NULL WHERE reference = ?").bind(ref).run();
    // A plain book is not counted as a hold (a lost hold is, until it ends).
    await env.DB.prepare("UPDATE partner_holds SET holds = ?, room_nights = ? WHERE partner_id = 'demo'")
      .bind(counts?.holds ?? 0, counts?.room_nights ?? 0)
      .run();
    await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000));
    expect(await status()).toBe("success");
    expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ booking: { status: "OK" } });
  });

  it("a hold its supplier has cancelled already ends at its end though the supplier refuses to cancel it again", async () => {
    // As when an earlier expiry cancelled it there while a settler made the row held: that try wrote nothing.
    const { booked } = await hold("HX002");
    const ref: string = booked.bookingReference;
    const dropped = await cancel(
      ledger,
      { hotelCode: "HX002", accessCode: "sandbox", clientReference: ref },
      { deadlineMs: 5_000 },
    );
    expect(dropped.outcome).toBe("cancelled");
    const deps = bookingDeps(env);
    const real = (await deps.supply.named((await bookingByReference(deps.db, ref))!.supplier))!;
    // A supplier that refuses a second cancel (the sandbox accepts one): its booking read says cancelled.
    const refusing = {
      ...real,
      cancel: async () => {
        throw new SupplierFailure("supplier_error", real.name, "booking already cancelled");
      },
    };
    const ended = await expireHold(
      { ...deps, supply: { ...deps.supply, named: async () => refusing } },
      ref,
      Date.now() + 3_600_000,
    );
    expect(ended).toBe("expired");
    expect((await call("GET", `/api/bookings/${ref}`)).json.data).toMatchObject({ status: "expired", chargeTotal: 0 });
  });

  it("20 parallel commits of one upstream hold commit it there once (issue 37)", async () => {
    const ledger = async (): Promise<number> =>
      (
        (await (
          await env.HOTELX_SANDBOX.fetch(
            `https://hotelx-sandbox.test/requests?client=${DEMO_UPSTREAM_CONNECTION.upstream.client}`,
            { headers: { authorization: `Apikey ${env.HOTELX_SANDBOX_API_KEY}` } },
          )
        ).json()) as Record<string, number>
      ).commit ?? 0;
    const { quote, booked } = await hold("HX005");
    const ref = booked.bookingReference;
    const before = await ledger();
    const results = await Promise.all(Array.from({ length: 20 }, () => commit(ref)));
    // One claims the commit and makes it; the others are told it runs (retry in a second) or, once it
    // is done, answer the committed booking.
    for (const r of results) {
      if (r.status === 200)
        expect(r.json.data).toMatchObject({ status: "success", chargeTotal: quote.rate.chargeTotal });
      else expect([r.status, r.json.code, r.headers.get("retry-after")]).toEqual([409, "idempotency_key_in_use", "1"]);
    }
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    const retried = await commit(ref);
    expect([retried.status, retried.json.data.status]).toEqual([200, "success"]);
    expect(await ledger()).toBe(before + 1);
    expect(await upstreamBooking("HX005", ref)).toMatchObject({ found: true, booking: { status: "OK" } });
    const row = await env.DB.prepare("SELECT version FROM bookings WHERE reference = ?").bind(ref).first("version");
    expect(row).toBe(2); // booked (1), committed once (2)
  });

  it("released by cancel or at its end, the upstream's booking is cancelled; an expired hold is not committed", async () => {
    const released = (await hold("HX003")).booked.bookingReference;
    const cancelled = await post("/api/cancel", cancelBody(released, UPSTREAM));
    expect(cancelled.json.data).toMatchObject({ cancelPrice: { amount: 0 }, booking: { status: "cancelled" } });
    expect(await upstreamBooking("HX003", released)).toMatchObject({ booking: { status: "CANCELLED" } });

    const ended = (await hold("HX003")).booked.bookingReference;
    expect(await runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(ended))).toBe(true);
    expect(await upstreamBooking("HX003", ended)).toMatchObject({ booking: { status: "CANCELLED" } });
    expect((await call("GET", `/api/bookings/${ended}`)).json.data.status).toBe("expired");
    const late = await commit(ended);
    expect([late.status, late.json.code]).toEqual([409, "hold_expired"]);
  });

  it("an upstream hold counts against the partner's live-hold limit (issue 37): past it 409 before the upstream is asked; a commit or cancel gives it back", async () => {
    const limits = (await call("GET", "/api/operator/hold-limits", undefined, OPERATOR)).json.data;
    const { updatedAt: _, ...defaults } = limits;
    expect(
      (await call("PUT", "/api/operator/hold-limits", { ...defaults, maxHoldsPerPartner: 1 }, OPERATOR)).status,
    ).toBe(200);
    const counted = () =>
      env.DB.prepare("select holds, room_nights as roomNights from partner_holds where partner_id = 'demo'").first();
    const first = (await hold("HX002")).booked.bookingReference;
    expect(await counted()).toEqual({ holds: 1, roomNights: 2 });

    const quote = await quoted("HX002", (o) => o.isRefundable);
    const partnerReference = reference();
    const refused = await post("/api/book", bookBody(quote, partnerReference, { hold: true }, UPSTREAM));
    expect([refused.status, refused.json.code, refused.json.message]).toEqual([
      409,
      "hold_limit_reached",
      "This partner has reached its limit of 1 live holds: commit or cancel one first (nothing was held)",
    ]);
    // Refused before the upstream was asked: no reservation here either.
    const rows = await env.DB.prepare("select count(*) as n from bookings where partner_reference = ?")
      .bind(partnerReference)
      .first();
    expect(rows).toEqual({ n: 0 });

    expect((await commit(first)).status).toBe(200);
    expect(await counted()).toEqual({ holds: 0, roomNights: 0 });
    const second = (await hold("HX002")).booked.bookingReference;
    expect((await post("/api/cancel", cancelBody(second, UPSTREAM))).status).toBe(200);
    expect(await counted()).toEqual({ holds: 0, roomNights: 0 });
    expect((await call("PUT", "/api/operator/hold-limits", defaults, OPERATOR)).status).toBe(200);
  });

  it("the upstream cancels whole bookings only: a partial cancel is 409 and changes nothing, every room is the whole cancel", async () => {
    const searched = await searchOne("HX001", {
      connection: UPSTREAM,
      occupancies: [{ paxes: [{ age: 30 }] }, { paxes: [{ age: 30 }] }],
      pick: (o) => o.isRefundable,
    });
    const quote = (await post("/api/quote", quoteBody(searched, {}, UPSTREAM))).json.data;
    const booked = await post("/api/book", bookBody(quote, reference(), {}, UPSTREAM));
    expect(booked.status, booked.text).toBe(200);
    const ref = booked.json.data.bookingReference;
    const partial = await post("/api/cancel", {
      ...cancelBody(ref, UPSTREAM),
      input: { reference: { bookingReference: ref }, rooms: [2] },
    });
    expect([partial.status, partial.json.code, partial.json.message]).toEqual([
      409,
      "partial_cancel_not_supported",
      "This booking's supplier cancels whole bookings only: cancel every room (without input.rooms)",
    ]);
    expect(await upstreamBooking("HX001", ref)).toMatchObject({ booking: { status: "OK" } });
    expect((await call("GET", `/api/bookings/${ref}`)).json.data.rooms.map((r: any) => r.status)).toEqual([
      "success",
      "success",
    ]);
    const whole = await post("/api/cancel", {
      ...cancelBody(ref, UPSTREAM),
      input: { reference: { bookingReference: ref }, rooms: [1, 2] },
    });
    expect([whole.status, whole.json.data.booking.status]).toEqual([200, "cancelled"]);
    expect(await upstreamBooking("HX001", ref)).toMatchObject({ booking: { status: "CANCELLED" } });
  });

  describe("a hold whose answer was lost: held once its supplier is found holding it, ended at its end as any hold", () => {
    /** A hold HXLOST2000 took in two steps on arrival and answered after 2 s: 202 pending here, PENDING_COMMIT there. */
    const lostHold = async () => {
      const quote = await quoted("HXLOST2000", (o) => o.isRefundable);
      const body = bookBody(quote, reference(), { hold: true, holdMinutes: 5 }, UPSTREAM);
      // 1.5 s loses the answer and leaves a loaded machine time to deliver the request (as above).
      (body.settings as Record<string, unknown>).timeout = "1500";
      const lost = await post("/api/book", body);
      expect([lost.status, lost.json.data.status]).toEqual([202, "pending"]);
      const ref: string = lost.json.data.bookingReference;
      expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({
        found: true,
        booking: { status: "PENDING_COMMIT" },
      });
      const read = (await call("GET", `/api/bookings/${ref}`)).json.data;
      return { ref, end: Date.parse(read.holdExpiresAt), version: read.version as number };
    };
    const read = async (ref: string) => (await call("GET", `/api/bookings/${ref}`)).json.data;
    const alarmOf = (ref: string) =>
      runInDurableObject(env.HOLD_EXPIRY.getByName(ref), (_: HoldExpiry, state) => state.storage.getAlarm());
    /** Its five minutes run out now: its end moved back, for the timers, which read the clock. */
    const endNow = (ref: string) =>
      env.DB.prepare("UPDATE bookings SET hold_expires_at = ? WHERE reference = ?")
        .bind(new Date(Date.now() - 1_000).toISOString(), ref)
        .run();
    /** The `hold_outcome` lines logged for `ref` (hold-limits.ts logHoldOutcome). */
    const outcomesOf = (lines: string[], ref: string) =>
      lines.filter((l) => l.includes('"event":"hold_outcome"') && l.includes(ref)).map((l) => JSON.parse(l).outcome);
    const openCircuit = async () => {
      for (let i = 0; i < 5; i++) await circuit().record(false, Date.now());
    };
    /** The demo partner's live holds and the room-nights they take (hold-limits.ts); no row yet: none. */
    const counted = async () =>
      (await env.DB.prepare(
        "select holds, room_nights as roomNights from partner_holds where partner_id = 'demo'",
      ).first<{ holds: number; roomNights: number }>()) ?? { holds: 0, roomNights: 0 };

    it("at its end its alarm cancels the upstream's hold and expires it here, with one booking.hold_expired", async () => {
      const { ref, end, version } = await lostHold();
      const logged = expectLogs("log");
      // Set at the hold's end before the upstream was asked, like any hold's.
      expect(await alarmOf(ref)).toBe(end);
      expect(await runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(ref))).toBe(true);

      expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ found: true, booking: { status: "CANCELLED" } });
      expect(await read(ref)).toMatchObject({ status: "expired", chargeTotal: 0, version: version + 1 });
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.hold_expired", "expired"],
      ]);
      // Nothing is left to a later timer, expirer or commit, and nothing more is logged.
      const timer = await deliver({ kind: "settle-pending", reference: ref, attempt: 5 });
      expect([timer.explicitAcks, timer.sent]).toEqual([["timer-5"], []]);
      expect(await expireHold(bookingDeps(env), ref, end + 3_600_000)).toBe("not_held");
      const late = await commit(ref);
      expect([late.status, late.json.code]).toEqual([409, "hold_expired"]);
      expect(await read(ref)).toMatchObject({ status: "expired", version: version + 1 });
      expect(await eventsOf(ref)).toHaveLength(2);
      expect(outcomesOf(logged, ref)).toEqual(["expired"]);
    });

    it("its alarm, settle timers, a settler and expirers at once end it once: one change, one event", async () => {
      const { ref, version } = await lostHold();
      await endNow(ref);
      const deps = bookingDeps(env);
      const booking = (await bookingByReference(deps.db, ref))!;
      const logged = expectLogs("log");
      const now = Date.now();
      const [, timers, settled, expired] = await Promise.all([
        runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(ref)),
        Promise.all([2, 3].map((attempt) => deliver({ kind: "settle-pending", reference: ref, attempt }))),
        Promise.all([1, 2].map(() => settleBooking(deps, booking, now))),
        Promise.all([1, 2].map(() => expireHold(deps, ref, now))),
      ]);
      expect(timers.map((t) => t.explicitAcks)).toEqual([["timer-2"], ["timer-3"]]);
      // Whoever changed the row, the others found it changed and changed nothing.
      expect(settled.filter(Boolean).length + expired.filter((e) => e === "expired").length).toBeLessThanOrEqual(1);
      expect(expired.every((e) => e === "expired" || e === "not_held")).toBe(true);
      expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ found: true, booking: { status: "CANCELLED" } });
      expect(await read(ref)).toMatchObject({ status: "expired", chargeTotal: 0, version: version + 1 });
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.hold_expired", "expired"],
      ]);
      expect(outcomesOf(logged, ref)).toEqual(["expired"]);
    });

    it("while the upstream cannot take the cancel it stays pending and held there; a later run expires it", async () => {
      const { ref, version } = await lostHold();
      await endNow(ref);
      const warnings = expectLogs("error"); // hold_not_expired, on purpose
      const logged = expectLogs("log");
      await openCircuit();
      const stub = env.HOLD_EXPIRY.getByName(ref);
      // The alarm throws, so that the platform runs it again with backoff.
      await expect(runDurableObjectAlarm(stub)).rejects.toThrow("unavailable");
      const timer = await deliver({ kind: "settle-pending", reference: ref, attempt: 2 });
      expect(timer.sent).toMatchObject([{ body: { kind: "settle-pending", reference: ref, attempt: 3 } }]);
      await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000));
      expect(warnings.filter((w) => w.includes("hold_not_expired") && w.includes(ref))).toHaveLength(2);
      expect(await read(ref)).toMatchObject({ status: "pending", version });
      expect(await eventsOf(ref)).toEqual([["booking.pending", "pending"]]);
      expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ booking: { status: "PENDING_COMMIT" } });

      // The upstream back, the hourly upkeep ends it; the alarm run again then finds nothing to do.
      await circuit().record(true, Date.now());
      await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000));
      expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ booking: { status: "CANCELLED" } });
      expect(await read(ref)).toMatchObject({ status: "expired", chargeTotal: 0, version: version + 1 });
      await runInDurableObject(stub, (hold: HoldExpiry) => hold.alarm());
      expect(await runInDurableObject(stub, (_: HoldExpiry, state) => state.storage.get("hold"))).toBeUndefined();
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.hold_expired", "expired"],
      ]);
      expect(outcomesOf(logged, ref)).toEqual(["expired"]);
    });

    it("before its end its first timer makes it held, as an answer in time would have: never committed, nothing else ends it until its alarm", async () => {
      const { ref, end, version } = await lostHold();
      const counts = await counted();
      const logged = expectLogs("log");
      const timer = await deliver({ kind: "settle-pending", reference: ref, attempt: 1 });
      // Settled: no next attempt.
      expect(timer.sent).toEqual([]);
      const held = await read(ref);
      expect(held).toMatchObject({
        status: "held",
        chargeTotal: 0,
        holdExpiresAt: new Date(end).toISOString(),
        version,
      });
      // With the references the supplier names it by, as a hold answered in time (its commit sends them).
      const row = await env.DB.prepare("SELECT supplier_reference FROM bookings WHERE reference = ?").bind(ref).first();
      expect(row).toEqual({ supplier_reference: expect.stringMatching(/^SBX-/) });
      // Still waiting for its commit there, still counted here as the hold it is.
      expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ booking: { status: "PENDING_COMMIT" } });
      expect(await counted()).toEqual(counts);
      await settlePendingBookingsTask.run(env, new Date(end - 60_000));
      expect(await expireHold(bookingDeps(env), ref, end - 1)).toBe("not_yet");
      expect(await read(ref)).toMatchObject({ status: "held", version });
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.held", "held"],
      ]);
      // Its alarm, at its end, ends it as any held hold (and leaves no live hold to the tests after this one).
      expect(await runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(ref))).toBe(true);
      expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ booking: { status: "CANCELLED" } });
      expect(await read(ref)).toMatchObject({ status: "expired", chargeTotal: 0 });
      expect(await counted()).toEqual({ holds: counts.holds - 1, roomNights: counts.roomNights - 2 });
      expect(outcomesOf(logged, ref)).toEqual(["expired"]);
    });

    it("one its supplier holds, the partner commits: committed there and here at the held price", async () => {
      const { ref } = await lostHold();
      expect((await deliver({ kind: "settle-pending", reference: ref, attempt: 1 })).sent).toEqual([]);
      const held = await read(ref);
      expect(held.status).toBe("held");
      const counts = await counted();
      const committed = await commit(ref);
      expect(committed.status, committed.text).toBe(200);
      expect(committed.json.data).toMatchObject({ status: "success", chargeTotal: held.rate.chargeTotal });
      expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ booking: { status: "OK" } });
      expect(await counted()).toEqual({ holds: counts.holds - 1, roomNights: counts.roomNights - 2 });
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.held", "held"],
        ["booking.committed", "success"],
      ]);
    });

    describe("one its supplier booked outright (OK, as if it ignored commitRequired)", () => {
      /** A lost hold, confirmed at the sandbox before anyone here asks: what a supplier that books at once holds. */
      const bookedOutright = async () => {
        const lost = await lostHold();
        const confirmed = await hotelxCommit(
          ledger,
          { accessCode: "sandbox", clientReference: lost.ref },
          { deadlineMs: 5_000 },
        );
        expect(confirmed.outcome).toBe("committed");
        expect(await upstreamBooking("HXLOST2000", lost.ref)).toMatchObject({ booking: { status: "OK" } });
        return lost;
      };

      it("settles held, not success, once however many settle it at once; the partner commits it, charged once", async () => {
        const { ref, end, version } = await bookedOutright();
        const counts = await counted();
        const deps = bookingDeps(env);
        const booking = (await bookingByReference(deps.db, ref))!;
        const now = Date.now();
        const [, settled] = await Promise.all([
          Promise.all([1, 2].map((attempt) => deliver({ kind: "settle-pending", reference: ref, attempt }))),
          Promise.all([1, 2].map(() => settleBooking(deps, booking, now))),
          settlePendingBookingsTask.run(env, new Date(now + 120_000)),
        ]);
        expect(settled.filter(Boolean).length).toBeLessThanOrEqual(1);
        const held = await read(ref);
        expect(held).toMatchObject({
          status: "held",
          chargeTotal: 0,
          holdExpiresAt: new Date(end).toISOString(),
          version,
        });
        // Held, not booked: still counted as a hold, nothing counted as committed.
        expect(await counted()).toEqual(counts);
        expect(await eventsOf(ref)).toEqual([
          ["booking.pending", "pending"],
          ["booking.held", "held"],
        ]);

        const logged = expectLogs("log");
        const committed = await commit(ref);
        expect(committed.status, committed.text).toBe(200);
        expect(committed.json.data).toMatchObject({ status: "success", chargeTotal: held.rate.chargeTotal });
        // Committing a committed hold answers it again; nothing is charged or logged twice.
        const again = await commit(ref);
        expect([again.status, again.json.data.chargeTotal]).toEqual([200, held.rate.chargeTotal]);
        expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ booking: { status: "OK" } });
        expect(await read(ref)).toMatchObject({ status: "success", chargeTotal: held.rate.chargeTotal });
        expect(await counted()).toEqual({ holds: counts.holds - 1, roomNights: counts.roomNights - 2 });
        expect(await eventsOf(ref)).toEqual([
          ["booking.pending", "pending"],
          ["booking.held", "held"],
          ["booking.committed", "success"],
        ]);
        expect(outcomesOf(logged, ref)).toEqual(["committed"]);
      });

      it("left uncommitted, it ends at its end: cancelled there, expired here, its count given back", async () => {
        const { ref } = await bookedOutright();
        expect((await deliver({ kind: "settle-pending", reference: ref, attempt: 1 })).sent).toEqual([]);
        expect((await read(ref)).status).toBe("held");
        const counts = await counted();
        const logged = expectLogs("log");
        expect(await runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(ref))).toBe(true);
        expect(await upstreamBooking("HXLOST2000", ref)).toMatchObject({ booking: { status: "CANCELLED" } });
        expect(await read(ref)).toMatchObject({ status: "expired", chargeTotal: 0 });
        expect(await counted()).toEqual({ holds: counts.holds - 1, roomNights: counts.roomNights - 2 });
        expect(await eventsOf(ref)).toEqual([
          ["booking.pending", "pending"],
          ["booking.held", "held"],
          ["booking.hold_expired", "expired"],
        ]);
        const late = await commit(ref);
        expect([late.status, late.json.code]).toEqual([409, "hold_expired"]);
        expect(outcomesOf(logged, ref)).toEqual(["expired"]);
      });
    });

    it("it counts against the partner's hold limits until it ends: lost answers hold no rooms past the limits", async () => {
      const limits = (await call("GET", "/api/operator/hold-limits", undefined, OPERATOR)).json.data;
      const { updatedAt: _, ...defaults } = limits;
      const before = await counted();
      const { ref } = await lostHold();
      // Lost, and still held at the supplier: counted as the hold it was asked to be.
      expect(await counted()).toEqual({ holds: before.holds + 1, roomNights: before.roomNights + 2 });
      const max = { ...defaults, maxHoldsPerPartner: before.holds + 1 };
      expect((await call("PUT", "/api/operator/hold-limits", max, OPERATOR)).status).toBe(200);
      try {
        // A second hold, with the same tiny deadline, is refused before the upstream is asked.
        const quote = await quoted("HXLOST2000", (o) => o.isRefundable);
        const body = bookBody(quote, reference(), { hold: true, holdMinutes: 5 }, UPSTREAM);
        (body.settings as Record<string, unknown>).timeout = "1500";
        const refused = await post("/api/book", body);
        expect([refused.status, refused.json.code]).toEqual([409, "hold_limit_reached"]);
        // At its end it is given back, once, whoever ends it.
        await endNow(ref);
        await Promise.all([
          runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(ref)),
          settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000)),
        ]);
        expect((await read(ref)).status).toBe("expired");
        expect(await counted()).toEqual(before);
      } finally {
        expect((await call("PUT", "/api/operator/hold-limits", defaults, OPERATOR)).status).toBe(200);
      }
    });

    it("before its end, one the upstream does not have settles failed as before; its alarm then leaves it so", async () => {
      const { ref } = await lostHold();
      const dropped = await cancel(
        ledger,
        { hotelCode: "HXLOST2000", accessCode: "sandbox", clientReference: ref },
        { deadlineMs: 5_000 },
      );
      expect(dropped.outcome).toBe("cancelled");
      const held = await counted();
      expect((await deliver({ kind: "settle-pending", reference: ref, attempt: 1 })).sent).toEqual([]);
      expect((await read(ref)).status).toBe("failed");
      // Settled, it is no longer counted as a hold.
      expect(await counted()).toEqual({ holds: held.holds - 1, roomNights: held.roomNights - 2 });
      expect(await runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(ref))).toBe(true);
      expect((await read(ref)).status).toBe("failed");
      expect(await eventsOf(ref)).toEqual([
        ["booking.pending", "pending"],
        ["booking.failed", "failed"],
      ]);
    });
  });

  it("an upstream that does not book in two steps: 409 hold_not_supported, nothing booked there or here", async () => {
    const quote = await quoted("HX004", (o) => o.isRefundable);
    await twoStepBooking1002(false);
    const partnerReference = reference();
    try {
      const res = await post("/api/book", bookBody(quote, partnerReference, { hold: true }, UPSTREAM));
      expect([res.status, res.json.code, res.json.message]).toEqual([
        409,
        "hold_not_supported",
        "This option's supplier cannot hold rooms: book it without bookCriteria.hold (nothing was booked)",
      ]);
    } finally {
      await twoStepBooking1002(true);
    }
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM bookings WHERE partner_reference = ?")
        .bind(partnerReference)
        .first("n"),
    ).toBe(0);
  });
});
