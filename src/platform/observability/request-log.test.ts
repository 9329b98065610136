import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { expectLogs } from "../../../test/support/expected-logs";
import { createApp } from "../../app";
import { DEMO_KEY } from "../../../test/support/api";

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
