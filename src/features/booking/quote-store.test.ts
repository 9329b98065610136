import { env } from "cloudflare:test";
import { database } from "../../platform/db/client";
import { toMinor } from "../../platform/money";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, OTHER_KEY, post } from "../../../test/support/api";
import { bookBody, quoteOf, searchOne } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { expectLogs } from "../../../test/support/expected-logs";
import { expiredQuotes, QUOTE_TTL_SECONDS, quoteStore, type StoredQuote } from "./quote-store";

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
