import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../support/demo-content";
import { bookBody, cancelBody, quoteBody, quoteOf, searchBody, searchOne } from "../support/booking";
import { chat, NEW_YORK, say, startSession, attachCard } from "../support/chat";
import { humanSignals, sendSignals, unique } from "../support/radar";
import { BOOKMARK_HEADER, isBookmark, sessionStart } from "../../src/platform/db/client";
import { call, post } from "../support/api";
import { inDays } from "../support/clock";

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
      await post("/api/v1/content/accommodations", { limit: 5 }),
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
      await post("/api/v1/content/accommodations", { limit: 5 }, withBookmark(AHEAD)),
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
