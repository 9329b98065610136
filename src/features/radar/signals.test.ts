import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEMO_KEY } from "../../../test/api";
import { humanSignals, sendSignals, unique } from "./radar-fixtures";
import { SIGNALS_RATE } from "./routes";
import { SIGNALS_RETENTION_MS } from "./service";

describe("POST /api/v1/radar/sessions/signals", () => {
  it("accepts a browser's signals with 202, CORS headers, and keeps them for the session for 24 hours", async () => {
    const sessionId = unique("s");
    const signals = humanSignals();
    const res = await sendSignals(signals, { sessionId, country: "us", ip: "203.0.113.7" });
    expect(res.status).toBe(202);
    expect(res.json.message).toBe("success");
    expect(res.json.data.accepted).toBe(true);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const row = await env.DB.prepare("select * from radar_signals where partner_id = 'demo' and session_id = ?").bind(sessionId).first<any>();
    expect(JSON.parse(row.signals)).toEqual(signals);
    expect(row.ip_country).toBe("US");
    expect(row.ip_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.ip_hash).not.toContain("203.0.113.7");
    expect(row.expires_at_ms - Date.parse(row.received_at)).toBe(SIGNALS_RETENTION_MS);
    expect(res.json.data.expires_at).toBe(new Date(row.expires_at_ms).toISOString());
  });

  it("keeps the latest post of a session and drops fields outside 4.14", async () => {
    const sessionId = unique("s");
    await sendSignals(humanSignals({ language: "en-US" }), { sessionId });
    const res = await sendSignals({ ...humanSignals({ language: "de-DE" }), card_number: "4242424242424242" }, { sessionId });
    expect(res.status).toBe(202);
    const { results } = await env.DB.prepare("select signals from radar_signals where session_id = ?").bind(sessionId).all<any>();
    expect(results).toHaveLength(1);
    expect(JSON.parse(results[0].signals).language).toBe("de-DE");
    expect(results[0].signals).not.toContain("4242");
  });

  it("answers the CORS preflight so partner pages on other origins can post", async () => {
    const res = await sendSignals(undefined, {
      method: "OPTIONS",
      collectorKey: null,
      headers: {
        origin: "https://shop.partner.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,session-id,x-radar-collector-key",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = res.headers.get("access-control-allow-headers")!.split(",").map((h) => h.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(["content-type", "session-id", "x-radar-collector-key"]));
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("needs a collector key (401), and carries CORS headers on errors so the page can read them", async () => {
    const res = await sendSignals(humanSignals(), { sessionId: unique("s"), collectorKey: null });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ message: "Collector key is required", code: "collector_key_required" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("refuses an unknown collector key and an API key presented as a collector key", async () => {
    for (const key of ["nope", DEMO_KEY]) {
      const res = await sendSignals(humanSignals(), { sessionId: unique("s"), collectorKey: key });
      expect(res.status).toBe(401);
      expect(res.json.message).toBe("Invalid collector key");
    }
  });

  it("refuses the collector key of an inactive partner", async () => {
    await env.DB.prepare("update partners set is_active = 0 where id = 'other'").run();
    const res = await sendSignals(humanSignals(), { sessionId: unique("s"), collectorKey: "other-collector-key" });
    await env.DB.prepare("update partners set is_active = 1 where id = 'other'").run();
    expect(res.status).toBe(401);
  });

  it("stores signals under the collector key's partner", async () => {
    const sessionId = unique("s");
    expect((await sendSignals(humanSignals(), { sessionId, collectorKey: "other-collector-key" })).status).toBe(202);
    const row = await env.DB.prepare("select partner_id from radar_signals where session_id = ?").bind(sessionId).first<any>();
    expect(row.partner_id).toBe("other");
  });

  it("requires a sane session-id header", async () => {
    for (const sessionId of [null, "has spaces", "x".repeat(129)]) {
      const res = await sendSignals(humanSignals(), { sessionId });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("session-id header is required (1 to 128 characters of A-Z a-z 0-9 . _ : -)");
    }
  });

  it("rejects malformed JSON, wrong types and a missing visitor id with 400", async () => {
    const sessionId = unique("s");
    const malformed = await sendSignals(undefined, { sessionId, raw: '{"page_url": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toBe("Malformed JSON in request body");
    const wrongType = await sendSignals(humanSignals({ screen: { width: "wide" } }), { sessionId });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.message).toMatch(/^screen\.width/);
    const noVisitor = await sendSignals(humanSignals({ fingerprint: {} }), { sessionId });
    expect(noVisitor.status).toBe(400);
    expect(noVisitor.json.message).toBe("fingerprint.visitor_id is required");
    const notObject = await sendSignals([1, 2], { sessionId });
    expect(notObject.status).toBe(400);
    const textBody = await sendSignals(undefined, { sessionId, raw: "hello", headers: { "content-type": "text/plain" } });
    expect(textBody.status).toBe(400);
  });

  it("limits bodies to 16 KB (413) and huge bodies never reach a 5xx", async () => {
    const sessionId = unique("s");
    const justOver = await sendSignals(humanSignals({ page_url: "x".repeat(16 * 1024) }), { sessionId });
    expect(justOver.status).toBe(413);
    expect(justOver.json.message).toBe("Request body too large: the limit is 16384 bytes");
    const huge = await sendSignals(undefined, { sessionId, raw: JSON.stringify({ page_url: "y".repeat(2 * 1024 * 1024) }) });
    expect(huge.status).toBe(413);
    const { results } = await env.DB.prepare("select 1 from radar_signals where session_id = ?").bind(sessionId).all();
    expect(results).toHaveLength(0);
  });

  it("limits posts per partner and browser IP (429 with Retry-After); other IPs are unaffected", async () => {
    const ip = "198.51.100.77";
    for (let i = 0; i < SIGNALS_RATE.limit; i++) {
      const res = await sendSignals(humanSignals(), { sessionId: unique("s"), ip });
      expect(res.status).toBe(202);
    }
    const limited = await sendSignals(humanSignals(), { sessionId: unique("s"), ip });
    expect(limited.status).toBe(429);
    expect(limited.json.message).toBe("Rate limit exceeded");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    expect((await sendSignals(humanSignals(), { sessionId: unique("s"), ip: "198.51.100.78" })).status).toBe(202);
    expect((await sendSignals(humanSignals(), { sessionId: unique("s"), ip, collectorKey: "other-collector-key" })).status).toBe(202);
  });

  it("prunes expired signals on later writes", async () => {
    const stale = unique("s");
    await sendSignals(humanSignals(), { sessionId: stale });
    await env.DB.prepare("update radar_signals set expires_at_ms = 1 where session_id = ?").bind(stale).run();
    await sendSignals(humanSignals(), { sessionId: unique("s") });
    const row = await env.DB.prepare("select 1 from radar_signals where session_id = ?").bind(stale).first();
    expect(row).toBeNull();
  });
});
