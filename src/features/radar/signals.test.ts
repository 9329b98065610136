import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEMO_KEY, call } from "../../../test/support/api";
import { humanSignals, sendSignals, unique } from "../../../test/support/radar";
import { SIGNALS_RATE } from "./routes";
import { MAX_SIGNAL_POSTS, SIGNALS_RETENTION_MS } from "./service";
import { OPERATOR } from "../../../test/support/sessions";
describe("POST /api/v1/radar/sessions/signals", () => {
  it("accepts a browser's signals with 202, CORS headers, and keeps them for the session for 24 hours", async () => {
    const sessionId = unique("s");
    const signals = humanSignals();
    const res = await sendSignals(signals, { sessionId, country: "us", ip: "203.0.113.7" });
    expect(res.status).toBe(202);
    expect(res.json.message).toBe("success");
    expect(res.json.data.accepted).toBe(true);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const row = await env.DB.prepare("select * from radar_signals where partner_id = 'demo' and session_id = ?")
      .bind(sessionId)
      .first<any>();
    expect(JSON.parse(row.signals)).toEqual(signals);
    expect(row.ip_country).toBe("US");
    expect(row.ip_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.ip_hash).not.toContain("203.0.113.7");
    expect(row.expires_at_ms - Date.parse(row.received_at)).toBe(SIGNALS_RETENTION_MS);
    expect(res.json.data.expires_at).toBe(new Date(row.expires_at_ms).toISOString());
  });

  it("keeps the first post of a session and stores a later one beside it, never in its place", async () => {
    const sessionId = unique("s");
    await sendSignals(humanSignals({ language: "en-US" }), { sessionId });
    // A post with card data in any field is refused (issue 25) and stored nowhere.
    const withCard = await sendSignals(
      { ...humanSignals({ language: "fr-FR" }), card_number: "4242424242424242" },
      { sessionId },
    );
    expect([withCard.status, withCard.json.code]).toEqual([400, "raw_card_data_refused"]);
    // So is an unknown field (issue 37), by name.
    const unknown = await sendSignals({ ...humanSignals({ language: "it-IT" }), unknown_field: "x" }, { sessionId });
    expect([unknown.status, unknown.json.message]).toEqual([400, "Unknown field: unknown_field"]);
    const res = await sendSignals(humanSignals({ language: "de-DE" }), { sessionId });
    expect(res.status).toBe(202);
    const { results } = await env.DB.prepare(
      "select signals from radar_signals where session_id = ? order by received_at, rowid",
    )
      .bind(sessionId)
      .all<any>();
    expect(results.map((r) => JSON.parse(r.signals).language)).toEqual(["en-US", "de-DE"]);
  });

  it(`stores at most ${MAX_SIGNAL_POSTS} posts per session, even when they arrive in parallel`, async () => {
    const sessionId = unique("s");
    const posts = await Promise.all(
      Array.from({ length: MAX_SIGNAL_POSTS + 5 }, () => sendSignals(humanSignals(), { sessionId })),
    );
    expect(posts.every((r) => r.status === 202)).toBe(true);
    const row = await env.DB.prepare("select count(*) as n from radar_signals where session_id = ?")
      .bind(sessionId)
      .first<{ n: number }>();
    expect(row!.n).toBe(MAX_SIGNAL_POSTS);
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
    const allowed = res.headers
      .get("access-control-allow-headers")!
      .split(",")
      .map((h) => h.trim().toLowerCase());
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
    const row = await env.DB.prepare("select partner_id from radar_signals where session_id = ?")
      .bind(sessionId)
      .first<any>();
    expect(row.partner_id).toBe("other");
  });

  it("requires a sane session-id header", async () => {
    for (const sessionId of [null, "has spaces", "x".repeat(129), "short-sess-id15"]) {
      const res = await sendSignals(humanSignals(), { sessionId });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("session-id header is required (16 to 128 characters of A-Z a-z 0-9 . _ : -)");
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
    const textBody = await sendSignals(undefined, {
      sessionId,
      raw: "hello",
      headers: { "content-type": "text/plain" },
    });
    expect(textBody.status).toBe(400);
  });

  it("limits bodies to 16 KB (413) and huge bodies never reach a 5xx", async () => {
    const sessionId = unique("s");
    const justOver = await sendSignals(humanSignals({ page_url: "x".repeat(16 * 1024) }), { sessionId });
    expect(justOver.status).toBe(413);
    expect(justOver.json.message).toBe("Request body too large: the limit is 16384 bytes");
    const huge = await sendSignals(undefined, {
      sessionId,
      raw: JSON.stringify({ page_url: "y".repeat(2 * 1024 * 1024) }),
    });
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
    // A browser page can read only the headers listed in Access-Control-Expose-Headers.
    const exposed = (limited.headers.get("access-control-expose-headers") ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase());
    expect(exposed).toEqual(
      expect.arrayContaining(["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]),
    );
    for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
      expect(limited.headers.get(name), name).toMatch(/^\d+$/);
    expect((await sendSignals(humanSignals(), { sessionId: unique("s"), ip: "198.51.100.78" })).status).toBe(202);
    expect(
      (await sendSignals(humanSignals(), { sessionId: unique("s"), ip, collectorKey: "other-collector-key" })).status,
    ).toBe(202);
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

describe("collector key origin allowlist: PUT /api/partners/:partnerId/radar-settings", () => {
  const settings = (partnerId: string, body: unknown, options: Parameters<typeof call>[3] = OPERATOR) =>
    call("PUT", `/api/partners/${partnerId}/radar-settings`, body, options);

  it("limits the partner's collector key to the listed origins: others get 403; other partners are unaffected", async () => {
    const set = await settings("demo", { allowedOrigins: ["https://shop.example", "http://localhost:8080"] });
    expect(set.status).toBe(200);
    expect(set.json.data).toEqual({
      partnerId: "demo",
      allowedOrigins: ["https://shop.example", "http://localhost:8080"],
    });

    const listed = await sendSignals(humanSignals(), {
      sessionId: unique("s"),
      headers: { origin: "https://shop.example" },
    });
    expect(listed.status).toBe(202);
    for (const origin of ["https://evil.example", "https://shop.example.evil.example", null]) {
      const sessionId = unique("s");
      const res = await sendSignals(humanSignals(), { sessionId, headers: origin ? { origin } : { origin: "" } });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({
        message: "This origin may not post signals with this collector key",
        code: "origin_not_allowed",
      });
      expect(
        await env.DB.prepare("select 1 from radar_signals where session_id = ?").bind(sessionId).first(),
      ).toBeNull();
    }
    // Partner "other" set no list: any origin.
    expect(
      (
        await sendSignals(humanSignals(), {
          sessionId: unique("s"),
          collectorKey: "other-collector-key",
          headers: { origin: "https://evil.example" },
        })
      ).status,
    ).toBe(202);

    // [] (or no field) lifts the limit.
    expect((await settings("demo", { allowedOrigins: [] })).json.data.allowedOrigins).toEqual([]);
    expect(
      (await sendSignals(humanSignals(), { sessionId: unique("s"), headers: { origin: "https://evil.example" } }))
        .status,
    ).toBe(202);
    await settings("demo", { allowedOrigins: ["https://shop.example"] });
    expect((await settings("demo", {})).json.data.allowedOrigins).toEqual([]);
  });

  it("accepts only origins (scheme, host, port), with a clear 400", async () => {
    for (const bad of [
      "shop.example",
      "https://shop.example/",
      "https://shop.example/path",
      "ftp://shop.example",
      "*",
      42,
    ]) {
      const res = await settings("demo", { allowedOrigins: [bad] });
      expect(res.status, String(bad)).toBe(400);
      expect(res.json.message).toMatch(/^allowedOrigins\[0\]/);
    }
    expect((await settings("demo", { allowedOrigins: "https://shop.example" })).status).toBe(400);
    expect(
      (
        await call("PUT", "/api/partners/demo/radar-settings", undefined, {
          ...OPERATOR,
          raw: "{",
          headers: { ...OPERATOR.headers, "content-type": "application/json" },
        })
      ).status,
    ).toBe(400);
  });

  it("refuses wildcard origins with a 400 naming the field, and stores nothing", async () => {
    await settings("demo", { allowedOrigins: [] });
    for (const wildcard of [
      "https://*.example",
      "https://*.shop.example",
      "https://shop.example:*",
      "*://shop.example",
    ]) {
      const res = await settings("demo", { allowedOrigins: ["https://shop.example", wildcard] });
      expect(res.status, wildcard).toBe(400);
      expect(res.json.message).toBe(
        "allowedOrigins[1]: wildcards are not supported: list each origin, such as https://shop.example",
      );
    }
    // Other characters no browser sends in a host are refused too.
    for (const odd of ["https://shop!.example", "https://sh$op.example"]) {
      const res = await settings("demo", { allowedOrigins: [odd] });
      expect(res.status, odd).toBe(400);
      expect(res.json.message).toMatch(/^allowedOrigins\[0\]: must be an origin/);
    }
    const row = await env.DB.prepare("select allowed_origins from radar_settings where partner_id = 'demo'").first();
    expect(row).toEqual({ allowed_origins: "[]" });
    // IDNs (as punycode), IP literals and ports are origins.
    const good = ["https://xn--bcher-kva.example", "http://127.0.0.1:8080", "https://[2001:db8::1]:8443"];
    expect((await settings("demo", { allowedOrigins: good })).json.data.allowedOrigins).toEqual(good);
    await settings("demo", { allowedOrigins: [] });
  });

  it("needs the operator token (a partner's key or bearer gets 401) and a known partner (404)", async () => {
    expect((await settings("demo", { allowedOrigins: [] }, { apiKey: DEMO_KEY })).status).toBe(401);
    const unknown = await settings("no-such-partner", { allowedOrigins: [] });
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe("Partner not found");
  });
});
