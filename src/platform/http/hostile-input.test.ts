import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, post } from "../../../test/support/api";
import { searchBody } from "../../../test/support/booking";
import { deepestNesting, MAX_BODY_DEPTH } from "./json-body";

const nested = (depth: number, leaf: unknown = 1) => `${"[".repeat(depth)}${JSON.stringify(leaf)}${"]".repeat(depth)}`;
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
