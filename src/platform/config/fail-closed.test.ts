import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { callWithEnv, DEMO_KEY } from "../../../test/support/api";
import { DEMO_SECRET_VALUES, REQUIRED_SECRETS } from "./secrets";

/** Strong values, as `wrangler secret put` would set them on a deploy. */
const DEPLOYED = {
  ENVIRONMENT: "production",
  PAGE_TOKEN_SECRET: "p".repeat(32),
  JWT_SECRET: "j".repeat(40),
  OPERATOR_TOKEN: "o".repeat(48),
  WEBHOOK_SECRET_KEY: "w".repeat(32),
  PII_HASH_SECRET: "h".repeat(32),
  UPSTREAM_CREDENTIALS_KEY: "u".repeat(32),
};
const deployed = (changes: Record<string, string | undefined> = {}) => {
  const vars: Record<string, unknown> = { ...env, ...DEPLOYED, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete vars[name];
  return vars as unknown as Env;
};

const content = (vars: Env) =>
  callWithEnv(vars, "POST", "/api/v1/content/accommodations", { "api-key": DEMO_KEY }, { size: 1 });

let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  errors = vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => errors.mockRestore());
const misconfiguredLines = () =>
  errors.mock.calls.map((args) => String(args[0])).filter((line) => line.includes('"misconfigured"'));

describe("fail closed on configuration", () => {
  it("serves a deploy whose secrets are all strong", async () => {
    expect((await content(deployed())).status).toBe(200);
    expect(misconfiguredLines()).toEqual([]);
  });

  const SHORT = "s".repeat(31);
  const cases = REQUIRED_SECRETS.flatMap(
    (name) =>
      [
        [name, "missing", undefined],
        [name, "too_short", SHORT],
        [name, "demo_value", (env as unknown as Record<string, string>)[name]],
      ] as const,
  );

  it.each(cases)(
    "%s %s: every route but GET /health answers 503, one log line names it",
    async (name, problem, value) => {
      const vars = deployed({ [name]: value });
      const requests = [
        () => content(vars),
        () => callWithEnv(vars, "GET", "/api/partners", { authorization: `Bearer ${DEPLOYED.OPERATOR_TOKEN}` }),
        () =>
          callWithEnv(
            vars,
            "POST",
            "/api/partner/v1/core-chat/sessions",
            { "x-partner-api-key": DEMO_KEY },
            { actor: { actorId: "a" } },
          ),
        () => callWithEnv(vars, "GET", "/openapi.json"),
        () => callWithEnv(vars, "GET", "/no/such/route", { "x-request-id": "req-misconfigured-1" }),
      ];
      for (const [index, request] of requests.entries()) {
        const res = await request();
        expect(res.status).toBe(503);
        // The chat API answers in its own error body (spec section 7), the rest in the core one.
        expect(res.json).toEqual(
          index === 2
            ? {
                success: false,
                error: "Service misconfigured",
                code: "misconfigured",
                details: null,
                requestId: expect.any(String),
              }
            : { message: "Service misconfigured", code: "misconfigured", requestId: expect.any(String) },
        );
        expect(res.headers.get("x-request-id")).toBe(res.json.requestId);
      }
      expect((await callWithEnv(vars, "GET", "/no/such/route", { "x-request-id": "req-42" })).json.requestId).toBe(
        "req-42",
      );
      const health = await callWithEnv(vars, "GET", "/health");
      expect(health.status).toBe(200);
      expect(health.json.data).toEqual({ status: "ok" });

      // Once per env object (per isolate in production), however many requests came.
      const lines = misconfiguredLines();
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toEqual({ level: "error", event: "misconfigured", secrets: [{ name, problem }] });
      for (const secret of [DEPLOYED.PAGE_TOKEN_SECRET, DEPLOYED.JWT_SECRET, DEPLOYED.OPERATOR_TOKEN])
        expect(lines[0]).not.toContain(secret);
      if (value) expect(lines[0]).not.toContain(value);
    },
  );

  it("judges the optional *_PREVIOUS secrets when they are set", async () => {
    for (const name of ["JWT_SECRET_PREVIOUS", "PAGE_TOKEN_SECRET_PREVIOUS"]) {
      expect((await content(deployed({ [name]: "x".repeat(32) }))).status).toBe(200);
      expect((await content(deployed({ [name]: "short" }))).status).toBe(503);
      expect((await content(deployed({ [name]: "local-demo-jwt-secret-change-me" }))).status).toBe(503);
    }
    expect(misconfiguredLines().map((line) => JSON.parse(line).secrets[0].name)).toEqual([
      "JWT_SECRET_PREVIOUS",
      "JWT_SECRET_PREVIOUS",
      "PAGE_TOKEN_SECRET_PREVIOUS",
      "PAGE_TOKEN_SECRET_PREVIOUS",
    ]);
  });

  it("refuses a deploy without a valid https PUBLIC_BASE_URL, which every link is built on", async () => {
    expect((await content(deployed({ PUBLIC_BASE_URL: "https://api.edgestay.example" }))).status).toBe(200);
    for (const value of [undefined, "", "not a url", "http://api.edgestay.example"]) {
      const res = await content(deployed({ PUBLIC_BASE_URL: value }));
      expect(res.status, String(value)).toBe(503);
    }
    expect(misconfiguredLines().map((line) => JSON.parse(line).secrets)).toEqual([
      [{ name: "PUBLIC_BASE_URL", problem: "missing" }],
      [{ name: "PUBLIC_BASE_URL", problem: "missing" }],
      [{ name: "PUBLIC_BASE_URL", problem: "invalid" }],
      [{ name: "PUBLIC_BASE_URL", problem: "invalid" }],
    ]);
    // Local development may leave it empty (links then use the request's origin).
    expect((await content({ ...env, PUBLIC_BASE_URL: "" } as Env)).status).toBe(200);
  });

  it("names every faulty secret in the one line", async () => {
    await content(deployed({ JWT_SECRET: undefined, OPERATOR_TOKEN: "demo-operator-token" }));
    expect(JSON.parse(misconfiguredLines()[0]!).secrets).toEqual([
      { name: "JWT_SECRET", problem: "missing" },
      { name: "OPERATOR_TOKEN", problem: "demo_value" },
    ]);
  });

  it("refuses an OPERATOR_TOKEN that cannot be sent as a bearer token (RFC 6750 token68)", async () => {
    expect((await content(deployed({ OPERATOR_TOKEN: `${"o".repeat(40)}+/._~-==` }))).status).toBe(200);
    for (const value of [`${"o".repeat(40)} spaced`, `${"o".repeat(40)}!`, `${"o".repeat(40)}=x`]) {
      expect((await content(deployed({ OPERATOR_TOKEN: value }))).status, value).toBe(503);
    }
    expect(misconfiguredLines().map((line) => JSON.parse(line).secrets)).toEqual(
      Array.from({ length: 3 }, () => [{ name: "OPERATOR_TOKEN", problem: "invalid" }]),
    );
  });

  it("accepts the demo values only with ENVIRONMENT=local", async () => {
    expect(env.ENVIRONMENT).toBe("local");
    const local = { ...env } as Env;
    expect((await content(local)).status).toBe(200);
    expect(
      (await callWithEnv(local, "GET", "/api/partners", { authorization: "Bearer demo-operator-token" })).status,
    ).toBe(200);
    expect((await content({ ...env, ENVIRONMENT: "staging" } as Env)).status).toBe(503);
    expect((await content({ ...env, ENVIRONMENT: undefined } as unknown as Env)).status).toBe(503);
    // Local or not, a missing secret is never accepted.
    expect((await content({ ...env, JWT_SECRET: "" } as Env)).status).toBe(503);
  });

  it("knows every demo value of .dev.vars.example (the tests' env is read from that file)", () => {
    for (const name of REQUIRED_SECRETS)
      expect(DEMO_SECRET_VALUES.has((env as unknown as Record<string, string>)[name]!)).toBe(true);
    expect(DEMO_SECRET_VALUES.size).toBe(REQUIRED_SECRETS.length);
  });
});
