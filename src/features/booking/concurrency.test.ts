import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, post, DEMO_KEY } from "../../../test/support/api";
import { OPERATOR } from "../../../test/support/sessions";
import { createApp } from "../../app";
import {
  bookBody,
  cancelBody,
  connectionByCode,
  quoteBody,
  quoteOf,
  searchBody,
  searchOne,
} from "../../../test/support/booking";
import { consumeRateLimit } from "./rate-limit";
import { inDays } from "../../../test/support/clock";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 20 });
});

const sold = (code: string) =>
  env.DB.prepare("select coalesce(sum(sold), 0) s from room_nights where accommodation_code = ?")
    .bind(code)
    .first<number>("s");

describe("the last room", () => {
  it("20 parallel bookings of the last room yield exactly one booking", async () => {
    const s = await searchOne("US000001");
    const room = s.option.rooms[0].code;
    // One room left on the first night, plenty on the second.
    await env.DB.prepare(
      "insert into room_nights (accommodation_code, room_code, night, allotment, sold) values ('US000001', ?1, ?2, 4, 3), ('US000001', ?1, ?3, 9, 0)",
    )
      .bind(room, s.checkIn, inDays(31))
      .run();
    const quotes = await Promise.all(Array.from({ length: 20 }, () => quoteOf(s)));
    const results = await Promise.all(quotes.map((q, i) => post("/api/book", bookBody(q, `race-${i}`))));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.json.message).toBe("The booking was not successful.");
    }
    expect(
      await env.DB.prepare("select count(*) n from bookings where partner_reference like 'race-%'").first("n"),
    ).toBe(1);
    const nights = await env.DB.prepare(
      "select night, sold, allotment from room_nights where accommodation_code = 'US000001' and room_code = ? order by night",
    )
      .bind(room)
      .all();
    expect(nights.results).toEqual([
      { night: s.checkIn, sold: 4, allotment: 4 },
      { night: inDays(31), sold: 1, allotment: 9 },
    ]);
    // Sold out now: search no longer offers the room type for these dates.
    const again = await post("/api/search", searchBody({ destinations: { accommodations: [{ code: "US000001" }] } }));
    expect(again.json.data.accommodations[0]?.options.every((o: any) => o.rooms[0].code !== room) ?? true).toBe(true);
  });
});

describe("partnerReference retries", () => {
  it("the same request returns the first booking without taking allotment twice; another request gets 409", async () => {
    const q = await quoteOf(await searchOne("US000002"));
    const first = await post("/api/book", bookBody(q, "retry-1"));
    expect(first.status).toBe(200);
    const taken = await sold("US000002");
    const retry = await post("/api/book", bookBody(q, "retry-1"));
    expect(retry.status).toBe(200);
    expect(retry.json.data.bookingReference).toBe(first.json.data.bookingReference);
    expect(await sold("US000002")).toBe(taken);
    const different = await post("/api/book", bookBody(q, "retry-1", { holder: { name: "Someone", surName: "Else" } }));
    expect(different.status).toBe(409);
    expect(different.json.message).toBe("partnerReference is already used by a different booking");
    expect(await sold("US000002")).toBe(taken);
  });

  it("parallel retries of one partnerReference make one booking and take allotment once", async () => {
    const q = await quoteOf(await searchOne("US000003"));
    const results = await Promise.all(
      Array.from({ length: 5 }, () => post("/api/book", bookBody(q, "retry-parallel"))),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map((r) => r.json.data.bookingReference)).size).toBe(1);
    expect(await sold("US000003")).toBe(2); // one room, two nights
  });
});

describe("a quote books once (issue 28)", () => {
  const QUOTE_SPENT = "Quote reference expired or invalid. Please quote again.";

  it("50 parallel books of one quote under different partnerReferences make one booking; the others 400", async () => {
    const q = await quoteOf(await searchOne("US000013"));
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post("/api/book", bookBody(q, `once-${i}`))),
    );
    const booked = results.filter((r) => r.status === 200);
    expect(booked).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200))
      expect([r.status, r.json.code, r.json.message]).toEqual([400, "quote_expired_or_invalid", QUOTE_SPENT]);
    expect(
      await env.DB.prepare("select count(*) n from bookings where partner_reference like 'once-%'").first("n"),
    ).toBe(1);
    expect(await sold("US000013")).toBe(2); // one room, two nights: taken once
    // A retry of the booking that won (its partnerReference) still answers it.
    const winner = booked[0]!.json.data;
    const retry = await post("/api/book", bookBody(q, winner.partnerReference));
    expect([retry.status, retry.json.data.bookingReference]).toEqual([200, winner.bookingReference]);
  });

  it("a second book of a booked quote is refused, before and after a cancel; a retry by key or reference answers the booking", async () => {
    const q = await quoteOf(await searchOne("US000014", { pick: (o) => o.isRefundable }));
    const headers = { "idempotency-key": "once-key-1" };
    const first = await post("/api/book", bookBody(q, "once-first"), { headers });
    expect(first.status).toBe(200);
    const second = await post("/api/book", bookBody(q, "once-second"));
    expect([second.status, second.json.message]).toEqual([400, QUOTE_SPENT]);
    expect(await sold("US000014")).toBe(2);
    const byKey = await post("/api/book", bookBody(q, "once-first"), { headers });
    expect([byKey.status, byKey.headers.get("Idempotent-Replayed")]).toEqual([200, "true"]);
    expect(byKey.json.data.bookingReference).toBe(first.json.data.bookingReference);
    const byReference = await post("/api/book", bookBody(q, "once-first"));
    expect(byReference.json.data.bookingReference).toBe(first.json.data.bookingReference);
    // Cancelled: the quote stays spent (book again from a new quote).
    expect((await post("/api/cancel", cancelBody(first.json.data.bookingReference))).status).toBe(200);
    const afterCancel = await post("/api/book", bookBody(q, "once-third"));
    expect([afterCancel.status, afterCancel.json.message]).toEqual([400, QUOTE_SPENT]);
  });
});

/** Sets a room type's allotment for the nights `from` to `to` (included) through the operator's inventory route. */
const setAllotment = async (code: string, room: string, from: string, to: string, allotment: number) =>
  expect((await call("PUT", `/api/inventory/${code}/rooms/${room}`, { from, to, allotment }, OPERATOR)).status).toBe(
    200,
  );

const roomNights = (code: string, room: string) =>
  env.DB.prepare(
    "select night, sold, allotment from room_nights where accommodation_code = ?1 and room_code = ?2 order by night",
  )
    .bind(code, room)
    .all()
    .then((r) => r.results);

describe("retries of one partnerReference with the last rooms (issue 25)", () => {
  it("50 parallel retries, each under its own Idempotency-Key, all answer the one booking; so do their replays", async () => {
    const s = await searchOne("US000010");
    const room = s.option.rooms[0].code;
    const q = await quoteOf(s);
    // Two rooms left on the first night, one on the second: a retry taking rooms before it looks finds none.
    await setAllotment("US000010", room, s.checkIn, s.checkIn, 2);
    await setAllotment("US000010", room, inDays(31), inDays(31), 1);
    const keys = Array.from({ length: 50 }, (_, i) => `last-rooms-${i}`);
    const send = (key: string) => post("/api/book", bookBody(q, "last-rooms"), { headers: { "idempotency-key": key } });
    const results = await Promise.all(keys.map(send));
    expect(results.map((r) => [r.status, r.json.message])).toEqual(keys.map(() => [200, "success"]));
    const reference = results[0]!.json.data.bookingReference;
    expect(new Set(results.map((r) => r.json.data.bookingReference))).toEqual(new Set([reference]));
    expect(
      await env.DB.prepare("select reference, status from bookings where partner_reference = 'last-rooms'").all(),
    ).toMatchObject({ results: [{ reference, status: "success" }] });
    expect(await roomNights("US000010", room)).toEqual([
      { night: s.checkIn, sold: 1, allotment: 2 },
      { night: inDays(31), sold: 1, allotment: 1 },
    ]);
    // Every key keeps the booking as its answer.
    const replays = await Promise.all(keys.map(send));
    for (const replay of replays) {
      expect(replay.status).toBe(200);
      expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
      expect(replay.json.data.bookingReference).toBe(reference);
    }
    expect(await sold("US000010")).toBe(2);
  });

  it("a refusal stored under a key is not replayed once the same request has booked under another key", async () => {
    const s = await searchOne("US000011");
    const room = s.option.rooms[0].code;
    const q = await quoteOf(s);
    await setAllotment("US000011", room, s.checkIn, inDays(31), 0);
    const send = (key: string, body = bookBody(q, "freed-later")) =>
      post("/api/book", body, { headers: { "idempotency-key": key } });
    const refused = await send("freed-1");
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe("The booking was not successful.");
    expect((await send("freed-1")).json.message).toBe("The booking was not successful.");
    // A room comes free; the same booking retried under another key books it.
    await setAllotment("US000011", room, s.checkIn, inDays(31), 1);
    const booked = await send("freed-2");
    expect(booked.status).toBe(200);
    const replay = await send("freed-1");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.json.data.bookingReference).toBe(booked.json.data.bookingReference);
    expect(await sold("US000011")).toBe(2);
  });

  it("a stored refusal of another request under the same partnerReference stays what it was", async () => {
    const s = await searchOne("US000012");
    const room = s.option.rooms[0].code;
    const q = await quoteOf(s);
    await setAllotment("US000012", room, s.checkIn, inDays(31), 0);
    const other = bookBody(q, "taken-by-other", { holder: { name: "Someone", surName: "Else" } });
    const headers = { "idempotency-key": "other-1" };
    expect((await post("/api/book", other, { headers })).status).toBe(400);
    await setAllotment("US000012", room, s.checkIn, inDays(31), 1);
    expect((await post("/api/book", bookBody(q, "taken-by-other"))).status).toBe(200);
    // Replayed: that request was not booked, and the booking that exists is not its booking.
    const replay = await post("/api/book", other, { headers });
    expect(replay.status).toBe(400);
    expect(replay.json.message).toBe("The booking was not successful.");
  });
});

describe("Idempotency-Key", () => {
  it("replays book and cancel responses; the same key with another request is 409", async () => {
    const q = await quoteOf(await searchOne("US000004", { pick: (o) => o.isRefundable }));
    const headers = { "idempotency-key": "book-key-1" };
    const first = await post("/api/book", bookBody(q, "idem-1"), { headers });
    expect(first.status).toBe(200);
    const replay = await post("/api/book", bookBody(q, "idem-1"), { headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.json).toEqual(first.json);
    const misuse = await post("/api/book", bookBody(q, "idem-2"), { headers });
    expect(misuse.status).toBe(409);
    expect(misuse.json.code).toBe("idempotency_key_reused");

    const ref = first.json.data.bookingReference;
    const cancelHeaders = { "idempotency-key": "cancel-key-1" };
    const cancelled = await post("/api/cancel", cancelBody(ref), { headers: cancelHeaders });
    expect(cancelled.status).toBe(200);
    const cancelReplay = await post("/api/cancel", cancelBody(ref), { headers: cancelHeaders });
    expect(cancelReplay.status).toBe(200);
    expect(cancelReplay.json).toEqual(cancelled.json);
    expect(await sold("US000004")).toBe(0);
    // Without the key the second cancel is refused as the spec says.
    expect((await post("/api/cancel", cancelBody(ref))).json.message).toBe(
      "Booking cannot be cancelled. Current status: cancelled",
    );
  });
});

describe("sandbox scenarios (test-scenario header)", () => {
  it("forces price_changed and room_unavailable on quote, booking_failed on book", async () => {
    const s = await searchOne("US000005");
    const priced = await post("/api/quote", quoteBody(s), { headers: { "test-scenario": "price_changed" } });
    expect(priced.status).toBe(400);
    expect(priced.json.message).toBe("Price changed");
    expect(priced.json.details.currentTotal).toBeGreaterThan(priced.json.details.previousTotal);
    const gone = await post("/api/quote", quoteBody(s), { headers: { "test-scenario": "room_unavailable" } });
    expect(gone.json.message).toBe("Room is unavailable");
    const q = await quoteOf(s);
    const failed = await post("/api/book", bookBody(q, "sandbox-fail"), {
      headers: { "test-scenario": "booking_failed" },
    });
    expect(failed.status).toBe(400);
    expect(failed.json.message).toBe("The booking was not successful.");
    expect(
      await env.DB.prepare("select count(*) n from bookings where partner_reference = 'sandbox-fail'").first("n"),
    ).toBe(0);
    expect(await sold("US000005")).toBe(0);
    // The same quote still books normally afterwards.
    expect((await post("/api/book", bookBody(q, "sandbox-fail"))).status).toBe(200);
  });

  it("answers 400 naming the known scenarios for an unknown one, on quote and on book", async () => {
    const s = await searchOne("US000005");
    const typo = await post("/api/quote", quoteBody(s), { headers: { "test-scenario": "price_change" } });
    expect(typo.status).toBe(400);
    expect(typo.json.message).toBe("test-scenario must be one of: price_changed, room_unavailable, booking_failed");
    const q = await quoteOf(s);
    const book = await post("/api/book", bookBody(q, "sandbox-typo"), { headers: { "test-scenario": "fail" } });
    expect(book.status).toBe(400);
    expect(book.json.message).toBe("test-scenario must be one of: price_changed, room_unavailable, booking_failed");
    expect(
      await env.DB.prepare("select count(*) n from bookings where partner_reference = 'sandbox-typo'").first("n"),
    ).toBe(0);
  });

  it("is ignored where SANDBOX_SCENARIOS is off", async () => {
    const app = createApp();
    const off = { ...env, SANDBOX_SCENARIOS: "off" };
    const s = await searchOne("US000006");
    const send = (path: string, body: unknown, scenario: string) =>
      app.request(
        path,
        {
          method: "POST",
          headers: { "content-type": "application/json", "api-key": DEMO_KEY, "test-scenario": scenario },
          body: JSON.stringify(body),
        },
        off,
      );
    const quoted = await send("/api/quote", quoteBody(s), "price_changed");
    expect(quoted.status).toBe(200);
    const q = ((await quoted.json()) as any).data;
    const booked = await send("/api/book", bookBody(q, "sandbox-off"), "booking_failed");
    expect(booked.status).toBe(200);
  });
});

describe("rate limits (section 8)", () => {
  it("admits exactly rateLimit parallel searches per window, then 429 with Retry-After", async () => {
    // api_type is an enum; reuse the remaining values for distinct in-use connections.
    await env.DB.prepare(
      "insert into connections (id, code, partner_id, api_type, connection_type, rate_limit, rate_limit_window_ms, current_in_use) values ('con_rl', 7001, 'demo', 'mobile', 'direct', 5, 60000, 1)",
    ).run();
    const body = searchBody(
      { destinations: { accommodations: [{ code: "US000007" }] } },
      { settings: { access: { code: 7001 } } },
    );
    const results = await Promise.all(Array.from({ length: 12 }, () => post("/api/search", body)));
    const admitted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(admitted).toHaveLength(5);
    expect(refused).toHaveLength(7);
    expect(admitted.map((r) => r.headers.get("X-RateLimit-Remaining")).sort()).toEqual(["0", "1", "2", "3", "4"]);
    for (const r of refused) {
      expect(r.json.message).toBe("Rate limit exceeded");
      expect(r.headers.get("X-RateLimit-Limit")).toBe("5");
      expect(r.headers.get("X-RateLimit-Remaining")).toBe("0");
      expect(Number(r.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect(Number(r.headers.get("Retry-After"))).toBeLessThanOrEqual(60);
      expect(Number(r.headers.get("X-RateLimit-Reset"))).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it("a refused caller whose clock read before the window opened waits at most the window: Retry-After 60, not 61", async () => {
    // A limiter of its own (keyed by the connection id), one request a minute.
    const connection = { ...(await connectionByCode()), id: "con_rl3", rateLimit: 1, rateLimitWindowMs: 60_000 };
    const opened = Date.now();
    await consumeRateLimit(env.RATE_LIMITER, connection, opened);
    // Parallel requests read the clock before they reach the limiter: this one read it 700 ms before the first.
    const refused = await consumeRateLimit(env.RATE_LIMITER, connection, opened - 700).catch((error) => error);
    expect(refused).toMatchObject({ code: "rate_limit_exceeded" });
    expect(refused.headers["Retry-After"]).toBe("60");
  });

  it("counts quote against the same window, and a new window admits again", async () => {
    await env.DB.prepare(
      "insert into connections (id, code, partner_id, api_type, connection_type, rate_limit, rate_limit_window_ms, current_in_use) values ('con_rl2', 7002, 'demo', 'cug', 'direct', 3, 1500, 1)",
    ).run();
    const s = await searchOne("US000008");
    const search = searchBody(
      { destinations: { accommodations: [{ code: "US000008" }] } },
      { settings: { access: { code: 7002 } } },
    );
    expect((await post("/api/search", search)).status).toBe(200);
    const quotes = await Promise.all(Array.from({ length: 4 }, () => post("/api/quote", quoteBody(s, {}, 7002))));
    expect(quotes.filter((r) => r.status === 200)).toHaveLength(2);
    expect(quotes.filter((r) => r.status === 429)).toHaveLength(2);
    // Once the window (1.5 s) has passed, it admits again: the limiter's clock moved on, not waited for.
    const connection = await connectionByCode(7002);
    expect(await consumeRateLimit(env.RATE_LIMITER, connection, Date.now() + 1_600)).toMatchObject({
      "X-RateLimit-Limit": "3",
      "X-RateLimit-Remaining": "2",
    });
  });

  it("rateLimit 0 means not limited: no rate headers", async () => {
    await env.DB.prepare("update connections set rate_limit = 0 where id = 'con_rl'").run();
    const body = searchBody(
      { destinations: { accommodations: [{ code: "US000007" }] } },
      { settings: { access: { code: 7001 } } },
    );
    const results = await Promise.all(Array.from({ length: 8 }, () => post("/api/search", body)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results[0]!.headers.get("X-RateLimit-Limit")).toBeNull();
  });

  it("book, cancel and booking read are not rate limited", async () => {
    await env.DB.prepare("update connections set rate_limit = 1 where id = 'con_rl'").run();
    const res = await call("GET", "/api/bookings?partnerReference=nothing");
    expect(res.status).toBe(404);
    expect(res.headers.get("X-RateLimit-Limit")).toBeNull();
  });
});
