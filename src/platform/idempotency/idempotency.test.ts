import { env } from "cloudflare:test";
import { database } from "../db/client";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { post } from "../../../test/support/api";
import { bookBody, quoteOf, searchOne } from "../../../test/support/booking";
import { chat, startSession } from "../../../test/support/chat";
import { checkBody, runCheckCall, unique } from "../../../test/support/radar";
import { sha256Hex } from "../crypto/digest";
import { ApiError } from "../http/api-error";
import { canonicalJson } from "./canonical-json";
import { expiredIdempotency, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, withIdempotency } from "./idempotency";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 20 });
});

/** A piece of work the test finishes when it chooses; `running` resolves once it has started (after the reservation). */
const gate = () => {
  let open!: () => void;
  let began!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const running = new Promise<void>((resolve) => (began = resolve));
  const started = { count: 0 };
  const work = (body: unknown) => async () => {
    started.count++;
    began();
    await opened;
    return { status: 200, body };
  };
  return { open, running, started, work };
};

const scope = (key: string, request: unknown = { a: 1 }, now?: number) => ({
  scope: "test",
  partnerId: "demo",
  key,
  request,
  ...(now !== undefined ? { now } : {}),
});
const rows = (key: string) =>
  env.DB.prepare("SELECT state, status FROM idempotency_keys WHERE key = ?")
    .bind(key)
    .all<{ state: string; status: number | null }>();
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error as ApiError,
  );

describe("withIdempotency (the module)", () => {
  it("does the work once: a second call while it runs is 409 in use with Retry-After 1, after it a replay", async () => {
    const g = gate();
    const running = withIdempotency(database(env.DB), scope("k-run"), g.work({ booked: 1 }));
    await g.running;
    const busy = await rejection(withIdempotency(database(env.DB), scope("k-run"), g.work({ booked: 2 })));
    expect(busy).toMatchObject({ status: 409, code: "idempotency_key_in_use", headers: { "Retry-After": "1" } });
    g.open();
    expect(await running).toEqual({ status: 200, body: { booked: 1 }, replayed: false });
    expect(await withIdempotency(database(env.DB), scope("k-run"), g.work({ booked: 3 }))).toEqual({
      status: 200,
      body: { booked: 1 },
      replayed: true,
    });
    expect(g.started.count).toBe(1);
  });

  it("hashes the canonical request: key order does not matter, a different request is 409 reused", async () => {
    await withIdempotency(database(env.DB), scope("k-hash", { a: 1, b: [1, { c: 2, d: 3 }] }), async () => ({
      status: 200,
      body: "x",
    }));
    const same = await withIdempotency(
      database(env.DB),
      scope("k-hash", { b: [1, { d: 3, c: 2 }], a: 1 }),
      async () => ({
        status: 200,
        body: "y",
      }),
    );
    expect(same).toEqual({ status: 200, body: "x", replayed: true });
    const other = await rejection(
      withIdempotency(database(env.DB), { ...scope("k-hash", { a: 2 }), keyName: "idempotencyKey" }, async () => ({
        status: 200,
        body: "z",
      })),
    );
    expect(other).toMatchObject({
      status: 409,
      code: "idempotency_key_reused",
      message: "idempotencyKey was already used with a different request",
    });
    // Keys are per scope and per partner.
    expect(
      (
        await withIdempotency(database(env.DB), { ...scope("k-hash", { a: 2 }), partnerId: "other" }, async () => ({
          status: 200,
          body: "p",
        }))
      ).replayed,
    ).toBe(false);
    expect(
      (
        await withIdempotency(database(env.DB), { ...scope("k-hash", { a: 2 }), scope: "test-2" }, async () => ({
          status: 200,
          body: "q",
        }))
      ).replayed,
    ).toBe(false);
  });

  it("releases the key when the work throws or answers 5xx, so a retry runs", async () => {
    const boom = await rejection(
      withIdempotency(database(env.DB), scope("k-fail"), async () => {
        throw new Error("D1 went away");
      }),
    );
    expect(boom).toBeInstanceOf(Error);
    expect((await rows("k-fail")).results).toEqual([]);
    const unavailable = await rejection(
      withIdempotency(database(env.DB), scope("k-fail"), async () => {
        throw new ApiError("supplier_unavailable", "Unavailable");
      }),
    );
    expect(unavailable).toMatchObject({ status: 503 });
    expect(
      (await withIdempotency(database(env.DB), scope("k-fail"), async () => ({ status: 502, body: "bad gateway" })))
        .status,
    ).toBe(502);
    // A 429 says "not now": the retry after Retry-After must run, not replay it.
    const limited = await rejection(
      withIdempotency(database(env.DB), scope("k-fail"), async () => {
        throw new ApiError("rate_limit_exceeded", "Rate limit exceeded");
      }),
    );
    expect(limited).toMatchObject({ status: 429 });
    expect((await rows("k-fail")).results).toEqual([]);
    expect(await withIdempotency(database(env.DB), scope("k-fail"), async () => ({ status: 200, body: "ok" }))).toEqual(
      {
        status: 200,
        body: "ok",
        replayed: false,
      },
    );
  });

  it("stores a 4xx from the work and replays it (like Stripe), marked as replayed", async () => {
    let runs = 0;
    const refuse = async () => {
      runs++;
      throw new ApiError("quote_expired_or_invalid", "Quote reference expired or invalid. Please quote again.", {
        reason: "gone",
      });
    };
    const first = await rejection(withIdempotency(database(env.DB), scope("k-4xx"), refuse));
    const again = await rejection(withIdempotency(database(env.DB), scope("k-4xx"), refuse));
    expect(runs).toBe(1);
    expect(again).toMatchObject({
      status: 400,
      message: first!.message,
      code: "quote_expired_or_invalid",
      details: { reason: "gone" },
      headers: { "Idempotent-Replayed": "true" },
    });
  });

  it("refuses a malformed key", async () => {
    expect(
      await rejection(withIdempotency(database(env.DB), scope("has space"), async () => ({ status: 200, body: 1 }))),
    ).toMatchObject({ status: 400, code: "invalid_idempotency_key" });
  });

  it("a reservation whose owner died is taken over by the same request after its lease, never by another", async () => {
    const now = Date.UTC(2026, 0, 10);
    await env.DB.prepare(
      "INSERT INTO idempotency_keys (scope, partner_id, key, request_hash, state, token, locked_until_ms, expires_at_ms) VALUES ('test', 'demo', 'k-dead', ?, 'running', 'gone', ?, ?)",
    )
      .bind(await sha256Hex(canonicalJson({ a: 1 })), now + IDEMPOTENCY_LEASE_MS, now + IDEMPOTENCY_TTL_MS)
      .run();
    expect(
      await rejection(
        withIdempotency(database(env.DB), scope("k-dead", { a: 1 }, now + 1000), async () => ({
          status: 200,
          body: 1,
        })),
      ),
    ).toMatchObject({ code: "idempotency_key_in_use" });
    const later = now + IDEMPOTENCY_LEASE_MS + 1;
    expect(
      await rejection(
        withIdempotency(database(env.DB), scope("k-dead", { a: 2 }, later), async () => ({ status: 200, body: 2 })),
      ),
    ).toMatchObject({ code: "idempotency_key_reused" });
    expect(
      await withIdempotency(database(env.DB), scope("k-dead", { a: 1 }, later), async () => ({ status: 200, body: 3 })),
    ).toEqual({ status: 200, body: 3, replayed: false });
  });

  it("records expire after 24 hours: the upkeep task deletes them and the key may be used afresh", async () => {
    const now = Date.UTC(2026, 0, 1);
    await withIdempotency(database(env.DB), scope("k-old", { a: 1 }, now), async () => ({
      status: 200,
      body: "first",
    }));
    await withIdempotency(database(env.DB), scope("k-young", { a: 1 }, now + 12 * 3_600_000), async () => ({
      status: 200,
      body: "young",
    }));
    // Before the upkeep ran, an expired record is already no obstacle.
    expect(
      await withIdempotency(database(env.DB), scope("k-old", { a: 9 }, now + IDEMPOTENCY_TTL_MS), async () => ({
        status: 200,
        body: "again",
      })),
    ).toEqual({ status: 200, body: "again", replayed: false });
    expect(expiredIdempotency.name).toBe("expired-idempotency");
    const removed = await expiredIdempotency.run(env, new Date(now + 2 * IDEMPOTENCY_TTL_MS));
    expect(removed).toBeGreaterThanOrEqual(2);
    expect((await rows("k-old")).results).toEqual([]);
    expect((await rows("k-young")).results).toEqual([]);
    expect(await expiredIdempotency.run(env, new Date(now + 2 * IDEMPOTENCY_TTL_MS))).toBe(0);
  });
});

const bookingsLike = (prefix: string) =>
  env.DB.prepare("SELECT count(*) AS n FROM bookings WHERE partner_reference LIKE ?")
    .bind(`${prefix}%`)
    .first<number>("n");

describe("Idempotency-Key under concurrency, through the API", () => {
  it("20 parallel books with one key and one body: one booking; every answer is that booking, identical, or 409 in use", async () => {
    const q = await quoteOf(await searchOne("US000011"));
    const headers = { "idempotency-key": "parallel-same-body" };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post("/api/book", bookBody(q, "idem-par-same"), { headers })),
    );
    expect(await bookingsLike("idem-par-same")).toBe(1);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of ok) expect(a.json).toEqual(ok[0]!.json);
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a.status).toBe(409);
      expect(a.json.code).toBe("idempotency_key_in_use");
      expect(a.headers.get("retry-after")).toBe("1");
    }
    const replay = await post("/api/book", bookBody(q, "idem-par-same"), { headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json).toEqual(ok[0]!.json);
  });

  it("20 parallel books with one key and different partnerReferences: at most one booking", async () => {
    const q = await quoteOf(await searchOne("US000012"));
    const headers = { "idempotency-key": "parallel-other-bodies" };
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post("/api/book", bookBody(q, `idem-par-diff-${i}`), { headers })),
    );
    expect(await bookingsLike("idem-par-diff-")).toBeLessThanOrEqual(1);
    expect(answers.filter((a) => a.status === 200).length).toBeLessThanOrEqual(1);
    for (const a of answers.filter((a) => a.status !== 200)) {
      expect(a.status).toBe(409);
      expect(["idempotency_key_in_use", "idempotency_key_reused"]).toContain(a.json.code);
    }
  });

  it("radar checks: parallel calls with one key and different bodies store at most one check", async () => {
    const sessionId = unique("s");
    const key = unique("radar-par");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => runCheckCall(checkBody(), { sessionId, idempotencyKey: key })),
    );
    const stored = await env.DB.prepare("SELECT count(*) AS n FROM radar_checks WHERE idempotency_key = ?")
      .bind(key)
      .first<number>("n");
    expect(stored).toBeLessThanOrEqual(1);
    expect(answers.filter((a) => a.status === 200).length).toBe(stored);
    for (const a of answers.filter((a) => a.status !== 200))
      expect(["idempotency_key_in_use", "idempotency_key_reused"]).toContain(a.json.code);
  });

  it("chat events: parallel events with one key run once; the replay after completion is identical", async () => {
    const id = await startSession("idem-chat");
    const texts = ["Hotel in Chicago next week", "Hotel in Boston next week", "Hotel in Denver next week"];
    const answers = await Promise.all(
      texts.map((text) => chat("POST", "/events", { sessionId: id, text, idempotencyKey: "chat-par" })),
    );
    const history = (await chat("GET", `/sessions/${id}`)).json.data.events;
    expect(history.length).toBeLessThanOrEqual(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(history.length);
    for (const a of answers.filter((a) => a.status !== 200))
      expect(["idempotency_key_in_use", "idempotency_key_reused"]).toContain(a.json.code);

    const one = await Promise.all(
      Array.from({ length: 4 }, () =>
        chat("POST", "/events", { sessionId: id, text: "Hotel in Miami next week", idempotencyKey: "chat-same-2" }),
      ),
    );
    const done = one.filter((a) => a.status === 200);
    expect(done.length).toBeGreaterThanOrEqual(1);
    for (const a of done) expect(a.json).toEqual(done[0]!.json);
    for (const a of one.filter((a) => a.status !== 200)) expect(a.json.code).toBe("idempotency_key_in_use");
    const replay = await chat("POST", "/events", {
      sessionId: id,
      text: "Hotel in Miami next week",
      idempotencyKey: "chat-same-2",
    });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json).toEqual(done[0]!.json);
    const events = (await chat("GET", `/sessions/${id}`)).json.data.events;
    expect(events.filter((e: { kind: string }) => e.kind === "search_query").length).toBe(history.length + 1);
  });
});
