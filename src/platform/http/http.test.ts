/// <reference types="vite/client" />
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, beforeAll } from "vitest";
import { createApp } from "../../app";
import { call, DEMO_KEY, post, readResponse, callWithEnv } from "../../../test/support/api";
import { expectLogs } from "../../../test/support/expected-logs";
import { ApiError } from "./api-error";
import { type ErrorCode, errorMessages, errorStatus } from "./errors";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { searchBody, bookBody, cancelBody, quoteBody } from "../../../test/support/booking";
import { deepestNesting, MAX_BODY_DEPTH } from "./json-body";
import { operatorAuth } from "../auth/operator";
import { eq } from "drizzle-orm";
import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { CHECKS_PATH, DEMO_COLLECTOR_KEY } from "../../../test/support/radar";
import { staticData } from "../static-data";
import type { RateLimiter } from "../ratelimit/rate-limiter";
import { verify } from "hono/jwt";
import { demoAdminToken, loginBody, OPERATOR } from "../../../test/support/sessions";
import { DEMO, DEMO_OPERATOR_TOKEN } from "../../../test/support/accounts";
import { keyring } from "../crypto/keyring";
import { openToken } from "../crypto/signed-token";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { assertDocumented } from "../../../test/support/openapi-conformance";
import bundleJs from "swagger-ui-dist/swagger-ui-bundle.js?raw";
import uiCss from "swagger-ui-dist/swagger-ui.css?raw";
import licence from "swagger-ui-dist/LICENSE?raw";
import notice from "swagger-ui-dist/NOTICE?raw";
import { SWAGGER_UI_ASSET_DIR, SWAGGER_UI_FILES } from "../docs/api-reference";
import { z } from "@hono/zod-openapi";
import { bookingEvents } from "../../features/booking";
import { declaredDocument } from "../docs/openapi-document";
import * as fullZod from "zod/v4";

describe("request id", () => {
  it("echoes a sane caller id and makes one otherwise, on success and error alike", async () => {
    const given = await call("GET", "/health", undefined, { headers: { "x-request-id": "partner-trace-42" } });
    expect(given.headers.get("x-request-id")).toBe("partner-trace-42");
    const made = await call("GET", "/health");
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await call("GET", "/nowhere", undefined, { headers: { "x-request-id": "<script>" } });
    expect(hostile.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(hostile.json.requestId).toBe(hostile.headers.get("x-request-id"));
  });
});

describe("deployed version (x-edgestay-version)", () => {
  it("is on every answer, success, 404, 401, 405 and the docs page alike, from CF_VERSION_METADATA", async () => {
    const version = env.CF_VERSION_METADATA.id;
    expect(version).toMatch(/\S/);
    const answers = await Promise.all([
      call("GET", "/health"),
      call("GET", "/nowhere"),
      call("POST", "/api/search", {}, { apiKey: null }),
      call("DELETE", "/health"),
      call("GET", "/docs"),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 404, 401, 405, 200]);
    for (const answer of answers) expect(answer.headers.get("x-edgestay-version")).toBe(version);
  });

  it("says local where the binding is absent", async () => {
    const { CF_VERSION_METADATA: _, ...without } = env;
    const res = await createApp().request("/health", {}, without as Env);
    expect(res.headers.get("x-edgestay-version")).toBe("local");
  });
});

describe("routing and errors", () => {
  it("answers /health with one D1 query in the success envelope", async () => {
    const res = await call("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { status: "ok" }, message: "success" });
  });

  it("404s unknown routes as JSON", async () => {
    const res = await call("POST", "/api/nothing-here", {});
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ message: "Route not found: POST /api/nothing-here", code: "not_found" });
  });

  it("answers a known path with another method 405 and the methods it takes in Allow", async () => {
    const health = await call("DELETE", "/health");
    expect(health.status).toBe(405);
    expect(health.headers.get("allow")).toBe("GET, HEAD");
    expect(health.json).toEqual({
      message: "Method not allowed: DELETE /health",
      code: "method_not_allowed",
      requestId: health.headers.get("x-request-id"),
    });

    const search = await call("GET", "/api/search");
    expect(search.status).toBe(405);
    expect(search.headers.get("allow")).toBe("POST");

    // Path parameters match too; the booking read and its cancellation preview are GET only.
    const booking = await call("PATCH", "/api/bookings/BK0000000001", {});
    expect(booking.status).toBe(405);
    expect(booking.headers.get("allow")).toBe("GET, HEAD");
    expect((await call("PUT", "/api/bookings/BK0000000001/cancellation", {})).headers.get("allow")).toBe("GET, HEAD");

    // Chat keeps its own error body.
    const chat = await call("GET", "/api/partner/v1/core-chat/events", undefined, {
      headers: { "x-partner-api-key": DEMO_KEY },
    });
    expect(chat.status).toBe(405);
    expect(chat.headers.get("allow")).toBe("POST");
    expect(chat.json).toMatchObject({
      success: false,
      error: "Method not allowed: GET /api/partner/v1/core-chat/events",
      code: "method_not_allowed",
    });

    // The chat router's error body covers the app's own 404 under its prefix, and only there.
    const chatUnknown = await call("GET", "/api/partner/v1/core-chat/nowhere", undefined, {
      headers: { "x-partner-api-key": DEMO_KEY },
    });
    expect(chatUnknown.status).toBe(404);
    expect(chatUnknown.json).toMatchObject({
      success: false,
      error: "Route not found: GET /api/partner/v1/core-chat/nowhere",
      code: "not_found",
      details: null,
    });
    const lookalike = await call("GET", "/api/partner/v1/core-chatter");
    expect(lookalike.status).toBe(404);
    expect(lookalike.json).toMatchObject({
      message: "Route not found: GET /api/partner/v1/core-chatter",
      code: "not_found",
    });

    // An unknown path stays a 404 without Allow.
    const unknown = await call("GET", "/api/nothing-here");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("allow")).toBeNull();
  });

  it("turns an unexpected error into a 500 that leaks nothing but the request id, and logs it under that id", async () => {
    const errors = expectLogs("error");
    const app = createApp();
    app.get("/boom", () => {
      throw new Error("D1_ERROR: secret table layout");
    });
    const res = await app.request("/boom", {}, env);
    expect(res.status).toBe(500);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      message: "Internal server error",
      code: "internal_error",
      requestId: res.headers.get("x-request-id"),
    });
    expect(JSON.stringify(body)).not.toContain("secret");
    // The details go to the log only, keyed by the id the client got.
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!)).toMatchObject({
      level: "error",
      requestId: body.requestId,
      path: "/boom",
      error: expect.stringContaining("secret table layout"),
    });
  });

  it("maps ApiError to its status, message, code and details", async () => {
    const app = createApp();
    app.get("/teapot", () => {
      throw new ApiError("conflict", "Conflict", { field: "email" });
    });
    const res = await app.request("/teapot", {}, env);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ message: "Conflict", code: "conflict", details: { field: "email" } });
  });

  it("answers a deliberate 5xx ApiError as it is, without logging it as a crash", async () => {
    const errors = expectLogs("error");
    const app = createApp();
    app.get("/later", () => {
      throw new ApiError("not_implemented", "Not implemented here");
    });
    const res = await app.request("/later", {}, env);
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({
      message: "Not implemented here",
      code: "not_implemented",
      requestId: res.headers.get("x-request-id"),
    });
    expect(errors).toEqual([]);
  });
});

describe("API key middleware", () => {
  const content = (apiKey: string | null) => call("POST", "/api/v1/content/accommodations", { size: 1 }, { apiKey });

  it("accepts the demo key and stores only its SHA-256", async () => {
    expect((await content(DEMO_KEY)).status).toBe(200);
    const row = await env.DB.prepare("select key_hash from api_keys where id = 'key_demo'").first<{
      key_hash: string;
    }>();
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(DEMO_KEY));
    expect(row!.key_hash).toBe([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.key_hash).not.toContain(DEMO_KEY);
  });

  it("refuses a revoked key on its very next call", async () => {
    await env.DB.prepare("update api_keys set revoked_at = '2026-01-01T00:00:00Z' where id = 'key_other'").run();
    const res = await content("other-partner-key");
    expect(res.status).toBe(401);
    expect(res.json.message).toBe("Invalid API key");
    await env.DB.prepare("update api_keys set revoked_at = null where id = 'key_other'").run();
  });

  it("refuses the key of an inactive partner", async () => {
    await env.DB.prepare("update partners set is_active = 0 where id = 'other'").run();
    const res = await content("other-partner-key");
    expect(res.status).toBe(401);
    expect(res.json.message).toBe("Invalid API key");
    await env.DB.prepare("update partners set is_active = 1 where id = 'other'").run();
  });
});

type OpenApiOperation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string; schema?: { example?: unknown } }>;
};

describe("OpenAPI and docs", () => {
  it("generates /openapi.json from the validating schemas", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    const operation = res.json.paths["/api/v1/content/accommodations"].post;
    const schema = operation.requestBody.content["application/json"].schema;
    const resolved = schema.$ref ? res.json.components.schemas[schema.$ref.split("/").pop()] : schema;
    expect(resolved.properties.size).toMatchObject({ minimum: 1, maximum: 100 });
    expect(operation.security).toEqual([{ ApiKey: [] }]);
    expect(res.json.components.securitySchemes.ApiKey).toEqual({
      type: "apiKey",
      in: "header",
      name: "api-key",
      description: "From POST /api/partner/api-keys",
    });
  });

  it("keeps the operator token and the partner bearer token apart: two schemes, and each route refuses the other's token", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    const schemes = doc.components.securitySchemes;
    expect([schemes.OperatorToken.bearerFormat, schemes.Bearer.bearerFormat]).toEqual(["opaque", "JWT"]);
    const partnerToken = await demoAdminToken();
    // Path parameters filled with their documented examples; JSON bodies empty (authentication comes first).
    const operations = Object.entries(doc.paths as Record<string, Record<string, OpenApiOperation>>).flatMap(
      ([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          method: method.toUpperCase(),
          url: path.replace(/\{(\w+)\}/g, (_, name: string) =>
            String(operation.parameters?.find((p) => p.in === "path" && p.name === name)?.schema?.example),
          ),
          schemes: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
        })),
    );
    const answers = async (schemeName: string, token: string) =>
      Promise.all(
        operations
          .filter(({ schemes }) => schemes.length === 1 && schemes[0] === schemeName)
          .map(async ({ method, url }) => {
            const body = ["POST", "PUT", "PATCH"].includes(method) ? {} : undefined;
            const res = await call(method, url, body, { apiKey: null, headers: { authorization: `Bearer ${token}` } });
            return `${method} ${url} ${res.status} ${res.json?.message}`;
          }),
      );
    const operatorRoutes = await answers("OperatorToken", partnerToken);
    const partnerRoutes = await answers("Bearer", DEMO_OPERATOR_TOKEN);
    expect(operatorRoutes.length).toBeGreaterThan(20);
    expect(partnerRoutes.length).toBeGreaterThan(10);
    expect(operatorRoutes.filter((answer) => !answer.endsWith(" 403 Invalid operator token"))).toEqual([]);
    expect(partnerRoutes.filter((answer) => !answer.endsWith(" 401 Invalid or expired token"))).toEqual([]);
  });

  it("serves a docs page that loads the document", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain("/openapi.json");
  });
});

describe("secure-headers", () => {
  const directive = (csp: string, name: string) =>
    csp
      .split(";")
      .map((d) => d.trim())
      .find((d) => d.startsWith(`${name} `)) ?? "";

  describe("every HTML response carries the page security headers", () => {
    it.each([
      ["a static page the Worker serves", "/", 200],
      ["the API reference", "/docs", 200],
      ["a card-setup page (unknown link)", "/card-setup", 404],
      ["a card-setup page (.html, unknown link)", "/card-setup.html?token=nope", 404],
      ["a chat accommodation page (unknown code)", "/chat/accommodations/NOSUCHHOTEL", 404],
      ["a chat booking page (unknown reference)", "/chat/bookings/BKNOSUCHBOOKING", 404],
    ])("%s (%s)", async (_what, path, status) => {
      const res = await call("GET", path, undefined, { apiKey: null });
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toContain("text/html");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(directive(csp, "default-src")).toBe("default-src 'none'");
      expect(directive(csp, "script-src")).toBe("script-src 'self'");
      expect(directive(csp, "frame-ancestors")).toBe("frame-ancestors 'none'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    });
  });

  it("the partner console's page is stricter: no inline style, no form sent by the browser", async () => {
    const res = await call("GET", "/console/", undefined, { apiKey: null });
    expect(res.status).toBe(200);
    expect(res.text).toContain('<script type="module" src="/console/console.js">');
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(directive(csp, "script-src")).toBe("script-src 'self'");
    expect(directive(csp, "style-src")).toBe("style-src 'self'");
    expect(directive(csp, "form-action")).toBe("form-action 'none'");
    expect(directive(csp, "frame-ancestors")).toBe("frame-ancestors 'none'");
    // /console itself leads there (the asset router's redirect, followed), under the same policy.
    const bare = await call("GET", "/console", undefined, { apiKey: null });
    expect(bare.status).toBe(200);
    expect(bare.text).toBe(res.text);
    expect(directive(bare.headers.get("content-security-policy") ?? "", "style-src")).toBe("style-src 'self'");
  });
});

describe("hostile-input", () => {
  const nested = (depth: number, leaf: unknown = 1) =>
    `${"[".repeat(depth)}${JSON.stringify(leaf)}${"]".repeat(depth)}`;
  const nestedObject = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  const TOO_DEEP = { message: "Request body nests too deeply", code: "body_too_deep", requestId: expect.any(String) };

  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 50 });
  });

  describe("JSON nesting depth", () => {
    it("refuses a 6,000-deep array on the attach endpoint with 400 body_too_deep, not a 500", async () => {
      const res = await call("POST", "/v1/hotel-ea/payment-methods/attach", undefined, {
        raw: nested(6000),
        apiKey: null,
        headers: { "content-type": "application/json" },
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual(TOO_DEEP);
    });

    it("refuses deep bodies on every kind of route, authenticated or not, before authentication", async () => {
      const routes = [
        "/api/search",
        "/api/book",
        "/api/auth/login",
        "/api/v1/radar/checks",
        "/api/partner/v1/core-chat/events",
        "/api/nothing-here",
      ];
      for (const path of routes) {
        for (const raw of [nested(65), nestedObject(100_000 / 5)]) {
          const res = await call("POST", path, undefined, { raw, headers: { "content-type": "application/json" } });
          expect([path, res.status, res.json?.code]).toEqual([path, 400, "body_too_deep"]);
        }
      }
      const anonymous = await call("PUT", "/api/anything", undefined, {
        raw: nestedObject(70),
        apiKey: null,
        headers: { "content-type": "application/json" },
      });
      expect(anonymous.status).toBe(400);
      expect(anonymous.json.code).toBe("body_too_deep");
    });

    it("lets 64 levels through to the route (which then judges the body)", async () => {
      const res = await call("POST", "/v1/hotel-ea/payment-methods/attach", undefined, {
        raw: nested(MAX_BODY_DEPTH - 1),
        headers: { "content-type": "application/json" },
      });
      expect(res.status).toBe(400);
      expect(res.json.code).not.toBe("body_too_deep");
    });

    it("measures depth without recursion, stopping at the first level past the limit", () => {
      expect(deepestNesting(JSON.parse(nested(0)), 64)).toBe(0);
      expect(deepestNesting({ a: [{ b: 1 }] }, 64)).toBe(3);
      expect(deepestNesting(JSON.parse(nested(200_000)), 64)).toBe(65);
      expect(deepestNesting([[], [[]], {}], 64)).toBe(3);
    });
  });

  describe("charset of a JSON body (issue 37)", () => {
    it.each(["utf-16", "UTF-16LE", "iso-8859-1", '"utf-32"'])(
      "refuses UTF-8 bytes labelled charset=%s with 400 unsupported_content_type",
      async (charset) => {
        const res = await call("POST", "/api/search", undefined, {
          raw: JSON.stringify(searchBody({ accommodationName: "Inn" })),
          headers: { "content-type": `application/json; charset=${charset}` },
        });
        expect(res.status).toBe(400);
        expect(res.json).toMatchObject({
          code: "unsupported_content_type",
          message: "Content-Type charset must be utf-8 (or left out): JSON is read as UTF-8",
        });
      },
    );

    it.each(["application/json; charset=utf-8", "application/json;charset=UTF8", "application/json"])(
      "takes %s",
      async (contentType) => {
        const res = await call("POST", "/api/search", undefined, {
          raw: JSON.stringify(searchBody({ accommodationName: "Inn" })),
          headers: { "content-type": contentType },
        });
        expect([res.status, res.json.code]).toEqual([200, undefined]);
      },
    );
  });

  describe("control characters in a name search", () => {
    it.each([
      ["NUL", "Gr\u0000and"],
      ["NUL alone", "\u0000\u0000\u0000"],
      ["escape", "\u001b[31mInn"],
      ["quotes and stars", '"*" OR NEAR('],
      ["bell", "ab\u0007"],
    ])("%s is a 400 or a normal search, never a 500", async (_label, name) => {
      const res = await post("/api/search", searchBody({ accommodationName: name }));
      expect(res.status).toBeLessThan(500);
      if (res.status === 200) expect(Array.isArray(res.json.data.accommodations)).toBe(true);
    });
  });
});

describe("operator", () => {
  const appWithOperatorRoute = () => {
    const app = createApp();
    app.get("/ops-probe", operatorAuth(), (c) => c.json({ ok: true }));
    return app;
  };

  describe("operator auth", () => {
    it.each([
      [undefined, 401, "Operator token is required"],
      ["Basic abc", 401, "Operator token is required"],
      ["Bearer demo-operator-tokem", 403, "Invalid operator token"],
      [`Bearer ${DEMO_KEY}`, 403, "Invalid operator token"],
      ["Bearer demo-operator-token extra", 403, "Invalid operator token"],
      ["Bearer", 401, "Operator token is required"],
      ["bearer demo-operator-token!", 403, "Invalid operator token"],
    ])("%s gives %i %s", async (authorization, status, message) => {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const res = await appWithOperatorRoute().request("/ops-probe", { headers }, env);
      expect(res.status).toBe(status);
      expect(((await res.json()) as { message: string }).message).toBe(message);
    });

    it("admits the operator token", async () => {
      const res = await appWithOperatorRoute().request(
        "/ops-probe",
        { headers: { authorization: "Bearer demo-operator-token" } },
        env,
      );
      expect(res.status).toBe(200);
    });
  });
});

describe("request-log", () => {
  const requestLines = (logs: string[]) =>
    logs.filter((line) => line.includes('"event":"request"')).map((line) => JSON.parse(line));

  describe("request log", () => {
    it("writes one JSON line per request: route pattern, partner, status, duration, colo", async () => {
      const logs = expectLogs("log");
      const app = createApp();
      const request = new Request("https://edgestay.test/api/bookings/BKNOSUCHBOOKING1", {
        headers: { "api-key": DEMO_KEY, "x-request-id": "req-log-1" },
        cf: { colo: "FRA" },
      });
      const res = await app.request(request, undefined, env);
      expect(res.status).toBe(404);
      expect(requestLines(logs)).toEqual([
        {
          level: "info",
          event: "request",
          requestId: "req-log-1",
          partnerId: "demo",
          method: "GET",
          route: "/api/bookings/:bookingReference",
          status: 404,
          durationMs: expect.any(Number),
          colo: "FRA",
        },
      ]);
    });

    it("leaves partnerId null before authentication and omits colo when the request has none", async () => {
      const logs = expectLogs("log");
      const res = await createApp().request("/api/bookings/BKNOSUCHBOOKING1", {}, env);
      expect(res.status).toBe(401);
      const [line] = requestLines(logs);
      expect(line).toMatchObject({ partnerId: null, status: 401, route: "/api/bookings/:bookingReference" });
      expect(line).not.toHaveProperty("colo");
    });

    it("logs a failure's stack once (onError) and the request line without it", async () => {
      const logs = expectLogs("log");
      const errors = expectLogs("error");
      const app = createApp();
      app.get("/boom-probe", () => {
        throw new Error("kaboom in a handler");
      });
      const res = await app.request("/boom-probe", { headers: { "x-request-id": "req-boom" } }, env);
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({
        message: "Internal server error",
        code: "internal_error",
        requestId: "req-boom",
      });
      const stacks = [...errors, ...logs].filter((line) => line.includes("kaboom in a handler"));
      expect(stacks).toHaveLength(1);
      expect(JSON.parse(stacks[0]!)).toMatchObject({
        level: "error",
        requestId: "req-boom",
        error: expect.stringContaining("Error: kaboom in a handler\n    at "),
      });
      expect(requestLines(logs)).toEqual([
        expect.objectContaining({ level: "error", requestId: "req-boom", route: "/boom-probe", status: 500 }),
      ]);
    });

    it("logs a failed drizzle query with its SQL and D1's error, never its bound values", async () => {
      const errors = expectLogs("error");
      expectLogs("log");
      const missing = sqliteTable("no_such_table", { secret: text("secret") });
      const app = createApp();
      app.get("/query-probe", async (c) => {
        await c.get("db").select().from(missing).where(eq(missing.secret, "esk_a-secret-value-in-a-query"));
        return c.text("unreachable");
      });
      const res = await app.request("/query-probe", { headers: { "x-request-id": "req-query" } }, env);
      expect(res.status).toBe(500);
      expect(errors).toHaveLength(1);
      expect(JSON.parse(errors[0]!)).toMatchObject({
        requestId: "req-query",
        error: expect.stringMatching(
          /^Failed query: select "secret" from "no_such_table" where .*\ncaused by: .*no such table/s,
        ),
      });
      expect(errors[0]).not.toContain("esk_a-secret-value-in-a-query");
    });
  });
});

describe("usage", () => {
  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 10 });
  });

  /**
   * The local runtime binds USAGE to miniflare's Analytics Engine simulator, which keeps nothing to
   * read back. These tests give the Worker an env whose USAGE records the points it is handed,
   * with the binding's own `writeDataPoint` signature.
   */
  const recordingEnv = () => {
    const points: AnalyticsEngineDataPoint[] = [];
    const USAGE = { writeDataPoint: (point?: AnalyticsEngineDataPoint) => void points.push(point!) };
    return { vars: { ...env, USAGE } as Env, points };
  };

  const app = createApp();
  const send = async (vars: Env, path: string, body: unknown, headers: Record<string, string> = {}) =>
    readResponse(
      await app.request(
        path,
        {
          method: "POST",
          headers: { "content-type": "application/json", "api-key": DEMO_KEY, ...headers },
          body: JSON.stringify(body),
        },
        vars,
      ),
      { method: "POST", url: path },
    );

  const stay = searchBody(
    { destinations: { accommodations: [{ code: "US000004" }] } },
    { filters: { rateRuleFilter: { excludes: ["NON_REFUNDABLE"] } } },
  );
  const searched = (res: Awaited<ReturnType<typeof send>>) => ({
    accommodationCode: "US000004",
    option: res.json.data.accommodations[0].options[0],
    checkIn: stay.searchCriteria.checkIn,
    checkOut: stay.searchCriteria.checkOut,
    occupancies: stay.searchCriteria.occupancies,
  });

  describe("USAGE: one data point per billable call", () => {
    it("records search, quote, book and cancel, indexed by partner, and not a replay or a refusal", async () => {
      const { vars, points } = recordingEnv();
      const search = await send(vars, "/api/search", stay, { "x-request-id": "req-usage-search" });
      expect(search.status).toBe(200);
      const quote = await send(vars, "/api/quote", quoteBody(searched(search)));
      expect(quote.status).toBe(200);
      const reference = `usage-${Date.now()}`;
      const book = await send(vars, "/api/book", bookBody(quote.json.data, reference), {
        "idempotency-key": reference,
      });
      expect(book.status).toBe(200);
      const replay = await send(vars, "/api/book", bookBody(quote.json.data, reference), {
        "idempotency-key": reference,
      });
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      const cancel = await send(vars, "/api/cancel", cancelBody(book.json.data.bookingReference));
      expect(cancel.status, cancel.text).toBe(200);
      // Refused calls are not billed.
      expect((await send(vars, "/api/quote", quoteBody(searched(search), { optionId: "forged" }))).status).toBe(400);
      expect((await send(vars, "/api/search", stay, { "api-key": "wrong-key" })).status).toBe(401);

      expect(points.map((p) => p.blobs![0])).toEqual(["search", "quote", "book", "cancel"]);
      for (const point of points) {
        expect(point.indexes).toEqual(["demo"]);
        expect(point.blobs![1]).toBe("1001");
        expect(point.doubles).toEqual([1]);
      }
      expect(points[0]!.blobs![2]).toBe("req-usage-search");
    });

    it("records a billable radar check once, and not its replay", async () => {
      const { vars, points } = recordingEnv();
      const check = () =>
        send(
          vars,
          CHECKS_PATH,
          { booker: { email: "jane@example.com" }, payment: { billing_address: { country: "US" } } },
          {
            "session-id": "sess_usage_000001",
            "idempotency-key": "usage-check-1",
          },
        );
      const first = await check();
      expect(first.status).toBe(200);
      expect(first.json.data.billable).toBe(true);
      expect((await check()).headers.get("idempotent-replayed")).toBe("true");
      expect(points).toEqual([{ indexes: ["demo"], blobs: ["radar_check", "", expect.any(String)], doubles: [1] }]);
    });

    it("records a Hotel-X search as a search", async () => {
      const { vars, points } = recordingEnv();
      const { checkIn, checkOut, occupancies } = stay.searchCriteria;
      const criteria = {
        checkIn,
        checkOut,
        hotels: ["US000004"],
        occupancies,
        currency: "USD",
        language: "en",
        nationality: "US",
        market: "US",
      };
      const res = await send(vars, "/api/search/tgx", { criteria, settings: { access: { code: 1001 } } });
      expect(res.status).toBe(200);
      expect(points.map((p) => [p.indexes, p.blobs![0], p.blobs![1]])).toEqual([[["demo"], "search", "1001"]]);
    });

    it("indexes another partner's calls under its own id", async () => {
      const { vars, points } = recordingEnv();
      const res = await send(
        vars,
        "/api/search",
        { ...stay, settings: { access: { code: 2001 } } },
        { "api-key": "other-partner-key" },
      );
      expect(res.status).toBe(200);
      expect(points.map((p) => [p.indexes, p.blobs![1]])).toEqual([[["other"], "2001"]]);
    });

    it("still serves where the runtime has no USAGE binding, and with the local simulator", async () => {
      const { USAGE: _bound, ...unbound } = env;
      expect((await send(unbound as Env, "/api/search", stay)).status).toBe(200);
      expect(typeof env.USAGE.writeDataPoint).toBe("function");
      expect((await send(env, "/api/search", stay)).status).toBe(200);
    });
  });
});

describe("static-data", () => {
  const ASSET = "/_data/timezone-countries.json";

  // The real ASSETS binding, answering 503 to the first `failures` reads: an asset read that fails
  // once (a deploy in flight, a transient error) must not stay failed for the isolate's life.
  const flakyAssets = (failures: number) => {
    let reads = 0;
    const fetcher = {
      fetch: (request: Request) =>
        ++reads <= failures ? Promise.resolve(new Response("", { status: 503 })) : env.ASSETS.fetch(request),
    } as unknown as Fetcher;
    return { fetcher, reads: () => reads };
  };

  describe("staticData", () => {
    it("reads the asset once and answers every later call from the first read", async () => {
      let parses = 0;
      const load = staticData(ASSET, (res) => {
        parses++;
        return res.json<Record<string, string[]>>();
      });
      const assets = flakyAssets(0);
      const [a, b] = await Promise.all([load(assets.fetcher), load(assets.fetcher)]);
      expect(a["Europe/Madrid"]).toContain("ES");
      expect(await load(assets.fetcher)).toBe(a);
      expect(b).toBe(a);
      expect(assets.reads()).toBe(1);
      expect(parses).toBe(1);
    });

    it("names the asset and its status when the read fails", async () => {
      const load = staticData("/_data/no-such-file.json", (res) => res.json());
      await expect(load(env.ASSETS)).rejects.toThrow("/_data/no-such-file.json unavailable (404)");
    });

    it("does not keep a failed read: the next call reads again and succeeds", async () => {
      const load = staticData(ASSET, (res) => res.json<Record<string, string[]>>());
      const assets = flakyAssets(1);
      await expect(load(assets.fetcher)).rejects.toThrow(`${ASSET} unavailable (503)`);
      expect((await load(assets.fetcher))["Europe/Madrid"]).toContain("ES");
      expect(assets.reads()).toBe(2);
    });
  });
});

describe("rate-limiter", () => {
  describe("RateLimiter Durable Object", () => {
    it("admits exactly the limit under parallel calls, then refuses until the window resets", async () => {
      const stub = env.RATE_LIMITER.getByName("connection-parallel");
      const now = Date.now();
      const decisions = await Promise.all(Array.from({ length: 25 }, () => stub.consume(10, 60_000, now)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      expect(
        decisions
          .filter((d) => !d.allowed)
          .every((d) => d.remaining === 0 && d.resetAt === now + 60_000 && d.retryAfterMs === 60_000),
      ).toBe(true);
      expect((await stub.consume(10, 60_000, now + 59_999)).allowed).toBe(false);
      const fresh = await stub.consume(10, 60_000, now + 60_000);
      expect(fresh).toEqual({ allowed: true, limit: 10, remaining: 9, resetAt: now + 120_000, retryAfterMs: 0 });
    });

    it("removes idle state when its alarm fires", async () => {
      const stub = env.RATE_LIMITER.getByName("connection-idle");
      await stub.consume(5, 1_000);
      expect(await runInDurableObject(stub, (_: RateLimiter, state) => state.storage.get("window"))).toBeDefined();
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect(await runInDurableObject(stub, (_: RateLimiter, state) => state.storage.get("window"))).toBeUndefined();
    });
  });
});

describe("rotation", () => {
  beforeAll(async () => {
    await seedDemoAccommodations(env.DB, { accommodations: 10 });
  });

  const OLD = "old-secret-used-before-the-rotation-000";
  const NEW = "new-secret-set-by-the-rotation-11111111";

  /** The three moments of a rotation, for one secret: before, during (previous kept), after. */
  const stages = (name: "JWT_SECRET" | "PAGE_TOKEN_SECRET") => ({
    before: { ...env, [name]: OLD } as Env,
    during: { ...env, [name]: NEW, [`${name}_PREVIOUS`]: OLD } as Env,
    after: { ...env, [name]: NEW } as Env,
  });

  const API_KEY = { "api-key": DEMO_KEY };

  describe("JWT_SECRET rotation", () => {
    const { before, during, after } = stages("JWT_SECRET");
    const login = async (vars: Env) =>
      (await callWithEnv(vars, "POST", "/api/auth/login", {}, loginBody(DEMO.admin.email, DEMO.admin.passwordMd5))).json
        .data.token.accessToken as string;
    const me = (vars: Env, token: string) =>
      callWithEnv(vars, "GET", "/api/users/me", { authorization: `Bearer ${token}` });

    it("keeps tokens issued before the rotation working, signs new ones with the new secret", async () => {
      const issuedBefore = await login(before);
      expect((await me(during, issuedBefore)).status).toBe(200);

      const issuedDuring = await login(during);
      await expect(verify(issuedDuring, NEW, "HS256")).resolves.toMatchObject({ sub: DEMO.admin.id });
      await expect(verify(issuedDuring, OLD, "HS256")).rejects.toThrow();

      // Once the previous secret is dropped, only the new tokens work.
      const refused = await me(after, issuedBefore);
      expect(refused.status).toBe(401);
      expect(refused.json.message).toBe("Invalid or expired token");
      expect((await me(after, issuedDuring)).status).toBe(200);
    });

    it("does not stretch the life of an expired old token", async () => {
      const { sign } = await import("hono/jwt");
      const past = Math.floor(Date.now() / 1000) - 7200;
      const expired = await sign(
        { sub: DEMO.admin.id, pid: "demo", iss: "edgestay", iat: past, exp: past + 3600 },
        OLD,
        "HS256",
      );
      expect((await me(during, expired)).status).toBe(401);
    });
  });

  describe("PAGE_TOKEN_SECRET rotation", () => {
    const { before, during, after } = stages("PAGE_TOKEN_SECRET");
    const CONTENT = "/api/v1/content/accommodations";

    it("keeps content page tokens working across the rotation; new tokens use the new secret", async () => {
      const first = await callWithEnv(before, "POST", CONTENT, API_KEY, { size: 2 });
      const issuedBefore = first.json.data.nextPageToken as string;

      const second = await callWithEnv(during, "POST", CONTENT, API_KEY, { pageToken: issuedBefore });
      expect(second.status).toBe(200);
      expect(second.json.data.accommodations[0].code > first.json.data.accommodations[1].code).toBe(true);
      const issuedDuring = second.json.data.nextPageToken as string;
      expect((await openToken(keyring(NEW), "content-page", issuedDuring, Date.now())).kind).toBe("ok");
      expect((await openToken(keyring(OLD), "content-page", issuedDuring, Date.now())).kind).toBe("bad_signature");

      const refused = await callWithEnv(after, "POST", CONTENT, API_KEY, { pageToken: issuedBefore });
      expect(refused.status).toBe(401);
      expect(refused.json.message).toBe("Invalid pageToken signature");
      expect((await callWithEnv(after, "POST", CONTENT, API_KEY, { pageToken: issuedDuring })).status).toBe(200);
    });

    it("keeps option ids from a search before the rotation quotable", async () => {
      const search = async (vars: Env) => {
        const res = await callWithEnv(
          vars,
          "POST",
          "/api/search",
          API_KEY,
          searchBody({ destinations: { accommodations: [{ code: "US000003" }] } }),
        );
        expect(res.status).toBe(200);
        const body = searchBody({});
        return {
          accommodationCode: "US000003",
          option: res.json.data.accommodations[0].options[0],
          checkIn: body.searchCriteria.checkIn,
          checkOut: body.searchCriteria.checkOut,
          occupancies: body.searchCriteria.occupancies,
        };
      };
      const searchedBefore = await search(before);
      expect((await callWithEnv(during, "POST", "/api/quote", API_KEY, quoteBody(searchedBefore))).status).toBe(200);

      const searchedDuring = await search(during);
      const refused = await callWithEnv(after, "POST", "/api/quote", API_KEY, quoteBody(searchedBefore));
      expect(refused.status).toBe(400);
      expect(refused.json.message).toBe("Option reference expired or invalid");
      expect((await callWithEnv(after, "POST", "/api/quote", API_KEY, quoteBody(searchedDuring))).status).toBe(200);
    });
  });
});

describe("every error code is documented where it can be answered", () => {
  type Schema = { $ref?: string; allOf?: Schema[]; properties?: Record<string, Schema>; enum?: string[] };
  type Operation = {
    operationId: string;
    responses: Record<string, { content?: Record<string, { schema?: Schema; examples?: Record<string, unknown> }> }>;
  };

  // Every source file that ships: what the code can throw, read as text.
  const sources = import.meta.glob(["../../**/*.ts", "!../../**/*.test.ts"], {
    query: "?raw",
    import: "default",
    eager: true,
  }) as Record<string, string>;

  /** The codes a source file throws or hands to the error type by name. */
  const codesThrownIn = (text: string) =>
    [...text.matchAll(/new (?:ApiError|SupplierFailure|LoginLocked)\([^";]*?"([a-z_]+)"/g)].map(([, code]) => code!);

  // Answered before any route matches, or only by a test's own route: no operation can list them.
  const OFF_ROUTE: ErrorCode[] = ["not_found", "method_not_allowed", "not_implemented"];

  const codesOf = (schema: Schema | undefined): string[] =>
    schema?.properties?.code?.enum ?? (schema?.allOf ?? []).flatMap((part) => codesOf(part));

  const loadOperations = async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    const document = res.json as { paths: Record<string, Record<string, Operation>> };
    return Object.values(document.paths).flatMap((item) => Object.values(item));
  };

  /** operationId -> status -> the codes its error response lists. */
  const documentedCodes = (operations: Operation[]) =>
    new Map(
      operations.map((operation) => [
        operation.operationId,
        new Map(
          Object.entries(operation.responses)
            .filter(([status]) => Number(status) >= 400)
            .map(([status, answer]) => [status, codesOf(answer.content?.["application/json"]?.schema)]),
        ),
      ]),
    );

  it("lists each code under the one status the error table gives it, with an example of each of its messages", async () => {
    const operations = await loadOperations();
    const wrong: string[] = [];
    for (const operation of operations)
      for (const [status, answer] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const media = answer.content?.["application/json"];
        if (!media) continue; // a page's own HTML answer
        const codes = codesOf(media?.schema);
        if (codes.length === 0) wrong.push(`${operation.operationId} ${status}: no code enum`);
        for (const code of codes) {
          if (String(errorStatus[code as ErrorCode]) !== status)
            wrong.push(`${operation.operationId} ${status}: ${code} is a ${errorStatus[code as ErrorCode]}`);
          if (!media?.examples?.[code]) wrong.push(`${operation.operationId} ${status}: no example of ${code}`);
        }
      }
    expect(wrong).toEqual([]);
  });

  it("documents every code of the table on some operation (or it is answered before any route)", async () => {
    const documented = new Set(
      [...documentedCodes(await loadOperations()).values()].flatMap((statuses) => [...statuses.values()].flat()),
    );
    const undocumented = (Object.keys(errorStatus) as ErrorCode[]).filter(
      (code) => !documented.has(code) && !OFF_ROUTE.includes(code),
    );
    expect(undocumented).toEqual([]);
  });

  it("has every code the sources throw in the table, with at least one message", () => {
    const thrown = new Set(Object.values(sources).flatMap(codesThrownIn));
    expect(thrown.size).toBeGreaterThan(100);
    expect([...thrown].filter((code) => !(code in errorStatus) || !errorMessages[code as ErrorCode]?.length)).toEqual(
      [],
    );
    // And no line of the table that nothing sends.
    const sent = new Set([...thrown, "supplier_error", "supplier_timeout", "supplier_unavailable"]);
    expect(
      Object.keys(errorStatus).filter((code) => !sent.has(code) && !OFF_ROUTE.includes(code as ErrorCode)),
    ).toEqual([]);
  });

  it("fills every documented code's messages into the served document, one example each", async () => {
    const operations = await loadOperations();
    const book = operations.find((operation) => operation.operationId === "createBooking")!;
    const refused = book.responses["400"]!.content!["application/json"]!.examples!;
    expect(refused.booking_failed).toEqual({
      summary: "booking_failed",
      value: { message: "The booking was not successful.", code: "booking_failed", requestId: expect.any(String) },
    });
    const chat = operations.find((operation) => operation.operationId === "getChatSession")!;
    expect(chat.responses["404"]!.content!["application/json"]!.examples!.session_not_found).toMatchObject({
      value: { success: false, error: "session_not_found", code: "session_not_found" },
    });
    const cancel = operations.find((operation) => operation.operationId === "cancelBooking")!;
    const conflicts = cancel.responses["409"]!.content!["application/json"]!.examples!;
    expect(Object.keys(conflicts)).toEqual(expect.arrayContaining(["booking_pending", "booking_pending_2"]));
    expect(JSON.stringify(operations)).not.toContain('"{message}"');
  });

  it("documents the supplier's failures where a supplier is asked: 502 supplier_error, 503 and 504 on quote and cancel", async () => {
    const codes = documentedCodes(await loadOperations());
    for (const operationId of ["createQuote", "cancelBooking", "commitBooking"]) {
      expect(codes.get(operationId)?.get("502"), operationId).toContain("supplier_error");
      expect(codes.get(operationId)?.get("503"), operationId).toContain("supplier_unavailable");
      expect(codes.get(operationId)?.get("504"), operationId).toContain("supplier_timeout");
    }
  });

  it("documents book's 202 pending beside its refusals", async () => {
    const operations = await loadOperations();
    const book = operations.find((operation) => operation.operationId === "createBooking")!;
    expect(Object.keys(book.responses)).toContain("202");
    expect(documentedCodes(operations).get("createBooking")?.get("400")).toContain("booking_failed");
  });
});

describe("the OpenAPI document", () => {
  type Schema = {
    $ref?: string;
    example?: unknown;
    examples?: unknown[];
    type?: string | string[];
    properties?: Record<string, Schema>;
    required?: string[];
    const?: unknown;
    enum?: unknown[];
    anyOf?: Schema[];
    oneOf?: Schema[];
    items?: Schema;
    additionalProperties?: boolean | Schema;
  };
  type Media = { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };
  type Operation = {
    operationId?: string;
    summary?: string;
    description?: string;
    tags?: string[];
    security?: unknown[];
    parameters?: Array<{ name: string; in: string; required?: boolean; example?: unknown; schema?: Schema }>;
    requestBody?: { content?: Record<string, Media> };
    responses: Record<string, { content?: Record<string, Media>; headers?: Record<string, { required?: boolean }> }>;
  };

  const METHODS = ["get", "put", "post", "delete", "patch"];

  const loadDocument = async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    return res.json as {
      servers?: Array<{ url: string }>;
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, Schema> };
    };
  };

  const operationsOf = (document: Awaited<ReturnType<typeof loadDocument>>) =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({
        where: `${method.toUpperCase()} ${path}`,
        operation: item[method]!,
      })),
    );

  /**
   * The example a schema shows, as a reference renders it: its own `example`, else its `const` (or only enum value), its
   * first variant's, its items' as a one-item list, or one composed from its properties' examples
   * (every required property needs one).
   */
  const exampleOf = (schema: Schema | undefined, schemas: Record<string, Schema>, depth = 0): unknown => {
    if (!schema || depth > 20) return undefined;
    if (schema.$ref) return exampleOf(schemas[schema.$ref.split("/").pop()!], schemas, depth + 1);
    if (schema.example !== undefined) return schema.example;
    if (schema.examples?.length) return schema.examples[0];
    if (schema.const !== undefined) return schema.const;
    if (schema.enum?.length === 1) return schema.enum[0];
    for (const branch of schema.anyOf ?? schema.oneOf ?? []) {
      const value = exampleOf(branch, schemas, depth + 1);
      if (value !== undefined) return value;
    }
    if (schema.items) {
      const item = exampleOf(schema.items, schemas, depth + 1);
      return item === undefined ? undefined : [item];
    }
    if (schema.properties) {
      const composed: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(schema.properties)) {
        const value = exampleOf(property, schemas, depth + 1);
        if (value !== undefined) composed[name] = value;
        else if (schema.required?.includes(name)) return undefined;
      }
      return composed;
    }
    return undefined;
  };

  const mediaExample = (media: Media, schemas: Record<string, Schema>) =>
    media.example ?? Object.values(media.examples ?? {})[0]?.value ?? exampleOf(media.schema, schemas);

  /** A moment (ISO 8601 with its time) or a calendar day, as a value looks. */
  const TIME_VALUE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
  const DATE_VALUE = /^\d{4}-\d{2}-\d{2}$/;
  /** Names that say a moment: `*At`, `*_at`, deadlines, time stamps, `*Since`. */
  const TIME_NAME = /^(at|deadline|timestamp|timeStamp)$|[a-z0-9](At|Deadline|Since|TimeStamp|Timestamp)$|_at$/;
  /** Names that say a calendar day: stay dates, nights, `*Date`, `*_date`. */
  const DATE_NAME = /^(date|night|checkIn|checkOut|start|end|from|to|creation)$|[a-z0-9]Date$|_date$/;
  /** Descriptions that say a moment or a day. */
  const TIME_WORDS = /\(UTC\)|\bmoment\b|\bdate-?time\b|\btimestamp\b/i;
  const DATE_WORDS = /\bYYYY-MM-DD\b|\bdate\b/i;

  /**
   * What the format rule leaves alone, each with its reason (JSON pointer into the document -> why). Kept
   * short on purpose: a new field is held to the rule unless it is named here.
   */
  const FORMAT_EXCEPTIONS: Record<string, string> = {
    "/paths/~1api~1bookings/get/parameters/createdFrom": "a UTC date or a date-time: either is taken",
    "/paths/~1api~1bookings/get/parameters/createdTo": "a UTC date or a date-time: either is taken",
  };

  type Node = Record<string, unknown>;
  const isNode = (value: unknown): value is Node =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  const pointer = (where: string, key: string) => `${where}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;

  /** A schema's string branches (itself, or the string variants of its anyOf/oneOf): where a format belongs. */
  const stringBranches = (schema: Node): Node[] => {
    const types = ([] as unknown[]).concat(schema.type ?? []);
    if (schema.enum || schema.const !== undefined) return []; // a closed list of words is no time
    if (types.includes("string")) return [schema];
    return [...((schema.anyOf as Node[]) ?? []), ...((schema.oneOf as Node[]) ?? [])]
      .filter(isNode)
      .flatMap(stringBranches);
  };

  /** What a named string says it holds: a moment (date-time), a day (date), or neither. */
  const expectedFormat = (name: string, schema: Node, parentExample: unknown): "date-time" | "date" | undefined => {
    const description = [schema.description, ...stringBranches(schema).map((b) => b.description)].join(" ");
    const examples = [schema.example, ...((schema.examples as unknown[]) ?? []), parentExample]
      .concat(stringBranches(schema).flatMap((b) => [b.example, ...((b.examples as unknown[]) ?? [])]))
      .filter((value): value is string => typeof value === "string");
    if (TIME_NAME.test(name) || TIME_WORDS.test(description) || examples.some((e) => TIME_VALUE.test(e)))
      return "date-time";
    if (DATE_NAME.test(name) || examples.some((e) => DATE_VALUE.test(e))) return "date";
    if (DATE_WORDS.test(description) && !examples.length) return "date";
    return undefined;
  };

  /**
   * Every named string of a document (schema properties and parameters, anywhere: components, paths,
   * webhooks) whose name, description or example says it is a moment or a day, and whose format does
   * not say so: `date-time` for moments, `date` for days. Names the place of each by JSON pointer.
   */
  const timeFormatGaps = (document: unknown, exceptions = FORMAT_EXCEPTIONS): string[] => {
    const gaps: string[] = [];
    const seen = new Set<string>();
    const check = (where: string, name: string, schema: Node, parentExample: unknown) => {
      const branches = stringBranches(schema);
      seen.add(where);
      if (!branches.length || exceptions[where]) return;
      const expected = expectedFormat(name, schema, parentExample);
      if (!expected) return;
      const formats = new Set(branches.map((b) => b.format ?? schema.format));
      if (formats.size !== 1 || !formats.has(expected))
        gaps.push(`${where}: ${name} needs format ${expected} (has ${[...formats].map(String).join(", ")})`);
    };
    // `shown` is the example an enclosing schema or media shows for this node, carried down to every property.
    const walk = (node: unknown, where: string, shown?: unknown): void => {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries()) walk(item, `${where}/${i}`);
        return;
      }
      if (!isNode(node)) return;
      if (typeof node.name === "string" && typeof node.in === "string" && isNode(node.schema)) {
        check(
          `${where.replace(/\/\d+$/, "")}/${node.name}`,
          node.name,
          { description: node.description, ...node.schema },
          node.example,
        );
      }
      const own = node.example ?? (node.examples as unknown[] | undefined)?.[0] ?? shown;
      for (const [key, value] of Object.entries(node)) {
        const at = pointer(where, key);
        if (key === "properties" && isNode(value)) {
          for (const [name, property] of Object.entries(value)) {
            const example = isNode(own) ? own[name] : undefined;
            if (isNode(property)) check(pointer(at, name), name, property, example);
            walk(property, pointer(at, name), example);
          }
        } else if (key === "items") walk(value, at, Array.isArray(own) ? own[0] : undefined);
        else if (key === "anyOf" || key === "oneOf" || key === "allOf")
          for (const [i, branch] of (value as unknown[]).entries()) walk(branch, `${at}/${i}`, own);
        else if (key === "schema") walk(value, at, node.example);
        else walk(value, at);
      }
    };
    walk(document, "");
    for (const where of Object.keys(exceptions))
      if (!seen.has(where)) gaps.push(`${where}: an exception for a field the document no longer has`);
    return gaps;
  };

  describe("the OpenAPI document is complete", () => {
    it("serves the document the routes declare, built with the Worker (snippet/_data/openapi.json), naming each answer's server", async () => {
      const app = createApp();
      const served = async (base: string) =>
        (await app.request("/openapi.json", {}, { ...env, PUBLIC_BASE_URL: base })).text();
      const declared = (base: string) =>
        JSON.stringify({
          ...declaredDocument(app, errorMessages),
          servers: [{ url: base, description: "This deployment" }],
        });
      // Byte for byte what the routes declare today: a stale asset fails here (npm run build writes it).
      for (const base of ["https://a.example", "https://b.example"]) {
        const [answer, expected] = [await served(base), declared(base)];
        expect(answer.length, "snippet/_data/openapi.json is stale: npm run build").toBe(expected.length);
        expect(answer === expected, "snippet/_data/openapi.json is stale: npm run build").toBe(true);
      }
    });

    it("has servers, and every operation an operationId (camelCase, unique), a tag, a summary, a description and a security statement", async () => {
      const document = await loadDocument();
      expect(document.servers?.[0]?.url).toBe("https://edgestay.test");
      const operations = operationsOf(document);
      expect(operations.length).toBeGreaterThan(50);
      const ids = operations.map(({ operation }) => operation.operationId);
      expect(new Set(ids).size).toBe(ids.length);
      const incomplete = operations.filter(
        ({ operation }) =>
          !/^[a-z][a-zA-Z0-9]*$/.test(operation.operationId ?? "") ||
          !operation.tags?.length ||
          !operation.summary ||
          !operation.description ||
          !Array.isArray(operation.security),
      );
      expect(incomplete.map(({ where }) => where)).toEqual([]);
    });

    it("shows an example of every parameter (path, query, header)", async () => {
      const operations = operationsOf(await loadDocument());
      const bare = operations.flatMap(({ where, operation }) =>
        (operation.parameters ?? [])
          .filter((p) => p.example === undefined && p.schema?.example === undefined)
          .map((p) => `${where} ${p.in} ${p.name}`),
      );
      expect(bare).toEqual([]);
    });

    it("gives every moment format date-time and every day format date, wherever it is", async () => {
      expect(timeFormatGaps(await loadDocument())).toEqual([]);
    });

    it("the format rule finds a planted moment or day by its name, its description or its example (its own or an enclosing one's)", () => {
      const planted = {
        components: {
          schemas: {
            Stay: {
              type: "object",
              properties: {
                heldAt: { type: "string" },
                firstNight: { type: "string", description: "The date of the first night" },
                lastSeen: { anyOf: [{ type: "string", example: "2027-03-10T12:00:00.000Z" }, { type: "null" }] },
                checkOut: { type: "string", format: "date-time" },
                createdAt: { type: "string", format: "date-time" },
                label: { type: "string" },
                window: { type: "object", properties: { opens: { type: "string" } } },
              },
              example: { label: "x", window: { opens: "2027-03-10T00:00:00Z" } },
            },
          },
        },
        paths: { "/x": { get: { parameters: [{ name: "arrivalDate", in: "query", schema: { type: "string" } }] } } },
      };
      expect(timeFormatGaps(planted, { "/paths/~1x/get/parameters/since": "either form" })).toEqual([
        "/components/schemas/Stay/properties/heldAt: heldAt needs format date-time (has undefined)",
        "/components/schemas/Stay/properties/firstNight: firstNight needs format date (has undefined)",
        "/components/schemas/Stay/properties/lastSeen: lastSeen needs format date-time (has undefined)",
        "/components/schemas/Stay/properties/checkOut: checkOut needs format date (has date-time)",
        "/components/schemas/Stay/properties/window/properties/opens: opens needs format date-time (has undefined)",
        "/paths/~1x/get/parameters/arrivalDate: arrivalDate needs format date (has undefined)",
        "/paths/~1x/get/parameters/since: an exception for a field the document no longer has",
      ]);
    });

    it("documents the platform's errors on every operation: 500 always, 401 where a credential is required", async () => {
      const operations = operationsOf(await loadDocument());
      const missing = operations.filter(
        ({ operation }) =>
          !operation.responses["500"] || (operation.security!.length > 0 && !operation.responses["401"]),
      );
      expect(missing.map(({ where }) => where)).toEqual([]);
    });

    it("documents x-d1-bookmark: answered on every response, taken by exactly the reads a replica may answer", async () => {
      const operations = operationsOf(await loadDocument());
      const unanswered = operations.flatMap(({ where, operation }) =>
        Object.entries(operation.responses)
          .filter(([, response]) => response.headers?.["x-d1-bookmark"]?.required !== false)
          .map(([status]) => `${where} ${status}`),
      );
      expect(unanswered).toEqual([]);
      const takers = operations
        .filter(({ operation }) =>
          operation.parameters?.some((p) => p.in === "header" && p.name === "x-d1-bookmark" && p.required === false),
        )
        .map(({ operation }) => operation.operationId)
        .sort();
      // The routes that declare replicaReadsAllowed (test/workers/d1-session.test.ts checks each continues from it).
      expect(takers).toEqual([
        "getBooking",
        "listAccommodationContent",
        "listBookings",
        "previewCancellation",
        "searchAvailability",
        "searchAvailabilityTgx",
      ]);
    });

    it("documents every event type as an OpenAPI 3.1 webhook: signed headers, a payload schema and an example", async () => {
      const document = (await call("GET", "/openapi.json")).json as {
        webhooks: Record<string, { post: Operation }>;
      };
      expect(Object.keys(document.webhooks)).toEqual(Object.keys(bookingEvents));
      for (const [type, { post }] of Object.entries(document.webhooks)) {
        expect(post.summary && post.description, type).toBeTruthy();
        expect(post.parameters?.map((p) => `${p.in} ${p.name} ${p.required}`)).toEqual([
          "header Edgestay-Signature true",
          "header Edgestay-Event-Id true",
        ]);
        const body = post.requestBody?.content?.["application/json"]?.schema as Schema & { example?: { type: string } };
        expect(body.example?.type, type).toBe(type);
      }
    });

    it("shows GET /health's answer as its own example", async () => {
      const document = await loadDocument();
      const up = document.paths["/health"]!.get!.responses["200"]!.content!["application/json"]!;
      expect(up.example).toEqual({ data: { status: "ok" }, message: "success" });
    });

    it("shows a pending booking as the 202 of POST /api/book", async () => {
      const document = await loadDocument();
      const pending = document.paths["/api/book"]!.post!.responses["202"]!.content!["application/json"]!;
      expect((mediaExample(pending, document.components.schemas) as { data: { status: string } }).data.status).toBe(
        "pending",
      );
    });

    it("has a request example for every JSON body and a response example for every JSON success, each valid against its schema", async () => {
      const document = await loadDocument();
      const schemas = document.components.schemas;
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
      addFormats(ajv);
      ajv.addSchema(document, "openapi");
      const problems: string[] = [];
      const check = (where: string, media: Media, pointer: string) => {
        const example = mediaExample(media, schemas);
        if (example === undefined) return problems.push(`${where}: no example`);
        const validate = ajv.compile({ $ref: `openapi#${pointer}` });
        if (!validate(example))
          problems.push(`${where}: example breaks the schema: ${ajv.errorsText(validate.errors)}`);
      };
      for (const [path, item] of Object.entries(document.paths)) {
        for (const method of METHODS.filter((m) => item[m])) {
          const operation = item[method]!;
          const base = `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}`;
          const request = operation.requestBody?.content?.["application/json"];
          if (request)
            check(
              `${method.toUpperCase()} ${path} request`,
              request,
              `${base}/requestBody/content/application~1json/schema`,
            );
          for (const [status, answer] of Object.entries(operation.responses)) {
            const media = answer.content?.["application/json"];
            if (status.startsWith("2") && media)
              check(
                `${method.toUpperCase()} ${path} ${status}`,
                media,
                `${base}/responses/${status}/content/application~1json/schema`,
              );
          }
        }
      }
      expect(problems).toEqual([]);
    });
  });

  // The Hotel-X routes follow the Hotel-X rules (their schemas say which objects are strict).
  const HOTELX_RULES = /\/tgx$|^\/api\/graphql$/;
  // The free-form maps the contract leaves open (docs/api-decisions.md, "Issue 37: unknown fields are refused by name").
  const OPEN_MAPS = ["settings.access.parameters", "distributionContext.customer", "rates", "payload"];
  // Bodies that are a map as a whole (issue 39: a supplier's board codes are the keys): an unknown key is a bad value.
  const OPEN_BODIES = ["PUT /api/operator/suppliers/{code}/board-map"];
  // Row uploads are judged a row at a time: a row with an unknown field is a rejected row (maps.test.ts), never a 400.
  const isRowUpload = (operation: { requestBody?: { content?: Record<string, unknown> } }) =>
    operation.requestBody?.content?.["application/x-ndjson"] !== undefined;

  /** Every object of a schema that does not refuse an undeclared key, by its path in the body. */
  const openObjectsOf = (
    schema: Schema | undefined,
    schemas: Record<string, Schema>,
    path = "",
    seen = new Set<string>(),
  ): string[] => {
    if (!schema) return [];
    if (schema.$ref) {
      const name = schema.$ref.split("/").pop()!;
      if (seen.has(name)) return [];
      return openObjectsOf(schemas[name], schemas, path, new Set([...seen, name]));
    }
    const open = (schema.type === "object" || schema.properties) && schema.additionalProperties !== false ? [path] : [];
    if (open.length > 0 && OPEN_MAPS.includes(path)) return [];
    const inner = [
      ...Object.entries(schema.properties ?? {}).map(([name, property]) =>
        openObjectsOf(property, schemas, path ? `${path}.${name}` : name, seen),
      ),
      ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map((branch) => openObjectsOf(branch, schemas, path, seen)),
      schema.items ? openObjectsOf(schema.items, schemas, `${path}[]`, seen) : [],
    ];
    return [...open, ...inner.flat()];
  };

  describe("every JSON request body refuses an unknown field by name (issue 37)", () => {
    it("documents every object of every body as closed (additionalProperties: false), but the open maps", async () => {
      const document = await loadDocument();
      const open = operationsOf(document)
        .filter(({ where }) => !HOTELX_RULES.test(where.split(" ")[1]!))
        .flatMap(({ where, operation }) => {
          const media = operation.requestBody?.content?.["application/json"];
          return media
            ? openObjectsOf(media.schema, document.components.schemas)
                .filter((path) => path !== "" || !OPEN_BODIES.includes(where))
                .map((path) => `${where} ${path || "(body)"}`)
            : [];
        });
      expect(open).toEqual([]);
    });

    it("answers 400 naming the field when a route's valid example carries one more field", async () => {
      const document = await loadDocument();
      const admin = await demoAdminToken();
      const credentials: Record<string, { apiKey?: null; headers: Record<string, string> }> = {
        ApiKey: { headers: {} },
        ChatApiKey: { headers: {} },
        Bearer: { apiKey: null, headers: { authorization: `Bearer ${admin}` } },
        OperatorToken: { apiKey: null, headers: { ...OPERATOR.headers } },
        CollectorKey: { apiKey: null, headers: { "x-radar-collector-key": DEMO_COLLECTOR_KEY } },
      };
      const routes = operationsOf(document).filter(
        ({ where, operation }) =>
          operation.requestBody?.content?.["application/json"] &&
          !HOTELX_RULES.test(where.split(" ")[1]!) &&
          !isRowUpload(operation),
      );
      expect(routes.length).toBeGreaterThan(25);
      const answers: string[] = [];
      for (const { where, operation } of routes) {
        const [method, template] = where.split(" ") as [string, string];
        const example = mediaExample(operation.requestBody!.content!["application/json"]!, document.components.schemas);
        const scheme = Object.keys((operation.security?.[0] ?? {}) as object)[0];
        const options = scheme ? credentials[scheme]! : { apiKey: null, headers: {} };
        const headers = {
          ...options.headers,
          "idempotency-key": crypto.randomUUID(),
          "session-id": "sess-unknown-fields-0001",
        };
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
          const parameter = operation.parameters?.find((p) => p.in === "path" && p.name === name);
          return encodeURIComponent(String(parameter?.example ?? parameter?.schema?.example));
        });
        const res = await call(
          method,
          path,
          { ...(example as object), unexpectedField: true },
          { ...options, headers },
        );
        const message = res.json?.message ?? res.json?.error;
        answers.push(`${where}: ${res.status} ${message}`);
      }
      expect(answers).toEqual(
        routes.map(({ where }) =>
          OPEN_BODIES.includes(where)
            ? expect.stringMatching(new RegExp(`^${where.replace(/[{}]/g, "\\$&")}: 400 unexpectedField: `))
            : `${where}: 400 Unknown field: unexpectedField`,
        ),
      );
    });
  });

  describe("every response a test receives is checked against the document", () => {
    const json = (status: number, body: unknown, type = "application/json") => ({
      status,
      headers: new Headers({ "content-type": type, "x-request-id": "r", "x-edgestay-version": "local" }),
      text: JSON.stringify(body),
      json: body,
    });

    it("refuses an undocumented status, naming the operation and the statuses it documents", async () => {
      await expect(
        assertDocumented({ method: "GET", url: "/health" }, json(418, { message: "x", code: "x", requestId: "r" })),
      ).rejects.toThrow(/GET \/health answered 418, a status GET \/health does not document \(documented: 200, 500\)/);
    });

    it("refuses a body that breaks the documented schema, naming the field", async () => {
      await expect(
        assertDocumented(
          { method: "GET", url: "/health" },
          json(200, { data: { status: "down" }, message: "success" }),
        ),
      ).rejects.toThrow(
        /breaks the documented schema of GET \/health 200:\n {2}\/data\/status must be equal to one of the allowed values/,
      );
      await expect(
        assertDocumented({ method: "POST", url: "/api/search" }, json(400, { error: "wrong shape" })),
      ).rejects.toThrow(/POST \/api\/search 400/);
    });

    it("accepts what is documented, path parameters included, and skips bodies that are not JSON", async () => {
      await assertDocumented(
        { method: "GET", url: "https://edgestay.test/health?x=1" },
        json(200, { data: { status: "ok" }, message: "success" }),
      );
      await assertDocumented(
        { method: "GET", url: "/api/bookings/BK1" },
        json(404, {
          message: "Booking not found with bookingReference: BK1",
          code: "booking_not_found",
          requestId: "r",
        }),
      );
      await assertDocumented(
        { method: "GET", url: "/chat/accommodations/US000001" },
        { ...json(200, null, "text/html; charset=UTF-8"), text: "<!doctype html>" },
      );
    });

    it("refuses a response without a header its operation documents as required", async () => {
      const answer = json(200, { data: { status: "ok" }, message: "success" });
      answer.headers.delete("x-edgestay-version");
      await expect(assertDocumented({ method: "GET", url: "/health" }, answer)).rejects.toThrow(
        "OpenAPI: GET /health answered 200 without the header(s) x-edgestay-version that GET /health documents as required for 200",
      );
    });

    it("refuses a code the operation does not document for the status, and a message the error table does not list", async () => {
      await expect(
        assertDocumented(
          { method: "GET", url: "/api/bookings/BK1" },
          json(404, { message: "Route not found: GET /x", code: "not_found", requestId: "r" }),
        ),
      ).rejects.toThrow(
        /GET \/api\/bookings\/BK1 answered 404 with code not_found, a code GET \/api\/bookings\/\{bookingReference\} \(getBooking\) does not document for 404 \(documented: booking_not_found\)/,
      );
      await expect(
        assertDocumented(
          { method: "GET", url: "/api/bookings/BK1" },
          json(404, { message: "Booking not found", code: "booking_not_found", requestId: "r" }),
        ),
      ).rejects.toThrow(
        /code booking_not_found and the message "Booking not found", which errorMessages .* does not list/,
      );
      await expect(
        assertDocumented(
          { method: "GET", url: "/nowhere" },
          json(404, { message: "x", code: "no_such_code", requestId: "r" }),
        ),
      ).rejects.toThrow(/code no_such_code, which is not in the error table/);
    });

    it("holds errors answered before any route (404, 405, refused bodies) to a documented error body", async () => {
      await assertDocumented(
        { method: "GET", url: "/nowhere" },
        json(404, { message: "Route not found: GET /nowhere", code: "not_found", requestId: "r" }),
      );
      await expect(assertDocumented({ method: "GET", url: "/nowhere" }, json(404, { oops: true }))).rejects.toThrow(
        /on no documented operation/,
      );
    });
  });

  describe("api-reference", () => {
    const PACKAGE_FILES: Record<(typeof SWAGGER_UI_FILES)[number], string> = {
      "swagger-ui-bundle.js": bundleJs,
      "swagger-ui.css": uiCss,
      LICENSE: licence,
      NOTICE: notice,
    };

    const get = (path: string) => call("GET", path, undefined, { apiKey: null });
    const directive = (csp: string, name: string) =>
      csp
        .split(";")
        .map((d) => d.trim())
        .find((d) => d.startsWith(`${name} `)) ?? "";
    const attributes = (html: string, tag: string, attribute: string) =>
      [...html.matchAll(new RegExp(`<${tag}\\b[^>]*\\b${attribute}="([^"]*)"`, "gi"))].map((m) => m[1]!);

    describe("Swagger UI, shipped as static assets from the pinned package", () => {
      it.each(SWAGGER_UI_FILES)(
        "%s is the package's file (run `npm run assets` after upgrading swagger-ui-dist)",
        async (file) => {
          const res = await env.ASSETS.fetch(new Request(`https://assets.local${SWAGGER_UI_ASSET_DIR}/${file}`));
          expect(res.status).toBe(200);
          const served = await res.text();
          expect(served.length).toBe(PACKAGE_FILES[file].length);
          expect(served === PACKAGE_FILES[file]).toBe(true);
        },
      );
    });

    describe("/docs and / are finished pages under the strict policy", () => {
      it.each(["/docs", "/"])(
        "%s answers 200 HTML with the CSP, only same-origin scripts and nothing inline",
        async (path) => {
          const res = await get(path);
          expect(res.status).toBe(200);
          expect(res.headers.get("content-type")).toContain("text/html");
          const csp = res.headers.get("content-security-policy") ?? "";
          expect(directive(csp, "default-src")).toBe("default-src 'none'");
          expect(directive(csp, "frame-ancestors")).toBe("frame-ancestors 'none'");
          expect(directive(csp, "script-src")).toBe("script-src 'self'");
          expect(directive(csp, "style-src")).toBe("style-src 'self' 'unsafe-inline'");
          expect(csp).not.toMatch(/cdn|https?:/);
          expect(res.headers.get("x-content-type-options")).toBe("nosniff");
          expect(res.headers.get("x-frame-options")).toBe("DENY");
          expect(res.headers.get("referrer-policy")).toBe("no-referrer");
          // Every script is a file on this origin; no inline script, no handler attribute.
          expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
          expect(res.text).not.toMatch(/\son[a-z]+=/i);
          for (const src of [...attributes(res.text, "script", "src"), ...attributes(res.text, "link", "href")]) {
            expect(src, src).toMatch(/^\/(?!\/)|^data:,$/);
          }
        },
      );

      it("every script and stylesheet the pages load is served, and the bootstrap points the UI at /openapi.json", async () => {
        const docs = await get("/docs");
        const index = await get("/");
        const files = new Set(
          [docs.text, index.text]
            .flatMap((html) => [...attributes(html, "script", "src"), ...attributes(html, "link", "href")])
            .filter((f) => f.startsWith("/")),
        );
        expect([...files].sort()).toEqual([
          "/docs.js",
          "/site.css",
          `${SWAGGER_UI_ASSET_DIR}/swagger-ui-bundle.js`,
          `${SWAGGER_UI_ASSET_DIR}/swagger-ui.css`,
        ]);
        for (const file of files) {
          const res = await get(file);
          expect(res.status, file).toBe(200);
          expect(res.headers.get("content-type"), file).toMatch(file.endsWith(".css") ? /text\/css/ : /javascript/);
        }
        const bootstrap = (await get("/docs.js")).text;
        expect(bootstrap).toContain('url: "/openapi.json"');
        expect(bootstrap).not.toMatch(/https?:/);
        expect((await get("/openapi.json")).status).toBe(200);
      });

      it("the landing page links the reference, the document, the radar snippet and names the README sections", async () => {
        const { text } = await get("/");
        expect(attributes(text, "a", "href")).toEqual(expect.arrayContaining(["/docs", "/openapi.json", "/radar.js"]));
        for (const section of [
          "Set-up: two commands",
          "Search, quote, book and cancel with curl",
          "Booking through the chat API with curl",
          "Deploying",
        ]) {
          expect(text).toContain(section);
        }
      });
    });
  });

  describe("zod-without-locales", () => {
    // The names src/platform/zod-without-locales/api.ts leaves out of the bundle.
    const leftOut = ["locales", "core", "fromJSONSchema", "compile", "withParser"];
    // "zod/v4" adds a default export (the namespace) to the classic API; zod-without-locales has its own.
    const notClassic = ["default"];

    describe("zod as bundled", () => {
      it("is the trimmed module, so the suite runs what ships", () => {
        expect((z as Record<string, unknown>).locales).toBeUndefined();
      });

      it("keeps every other export of zod's classic API, as the same values", () => {
        const missing = Object.keys(fullZod).filter(
          (name) =>
            !leftOut.includes(name) &&
            !notClassic.includes(name) &&
            (z as Record<string, unknown>)[name] !== (fullZod as Record<string, unknown>)[name],
        );
        expect(missing).toEqual([]);
      });

      it("still answers in English", () => {
        const result = z
          .object({ name: z.string(), nights: z.number().int().min(1) })
          .safeParse({ name: 1, nights: 0 });
        expect(result.error?.issues.map((issue) => issue.message)).toEqual([
          "Invalid input: expected string, received number",
          "Too small: expected number to be >=1",
        ]);
      });

      it("still describes schemas for /openapi.json", () => {
        expect(z.string().openapi({ example: "x" }).toJSONSchema()).toMatchObject({ type: "string" });
      });
    });
  });
});
