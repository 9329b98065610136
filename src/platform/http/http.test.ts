import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../app";
import { call, DEMO_KEY } from "../../../test/support/api";
import { expectLogs } from "../../../test/support/expected-logs";
import { ApiError } from "./api-error";

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

describe("OpenAPI and docs", () => {
  it("generates /openapi.json from the validating schemas", async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    const operation = res.json.paths["/api/v1/content/accommodations"].post;
    const schema = operation.requestBody.content["application/json"].schema;
    const resolved = schema.$ref ? res.json.components.schemas[schema.$ref.split("/").pop()] : schema;
    expect(resolved.properties.size).toMatchObject({ minimum: 1, maximum: 100 });
    expect(operation.security).toEqual([{ ApiKey: [] }]);
    expect(res.json.components.securitySchemes.ApiKey).toEqual({ type: "apiKey", in: "header", name: "api-key" });
  });

  it("serves a docs page that loads the document", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toContain("/openapi.json");
  });
});
