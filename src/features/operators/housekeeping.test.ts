import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, post } from "../../../test/support/api";
import { LOGIN_LOCKOUT } from "../partners/login";
import { loginBody, md5, OPERATOR } from "../../../test/support/sessions";
import { DEMO } from "../../../test/support/accounts";

const PURGE = "/api/operator/login-failures/purge";
const fail = async (email: string) => post("/api/auth/login", loginBody(email, await md5("wrong")), { apiKey: null });

describe("POST /api/operator/login-failures/purge", () => {
  it("unlocks one account at once", async () => {
    for (let i = 0; i < LOGIN_LOCKOUT.maxFailures; i++) await fail(DEMO.admin.email);
    expect(
      (await post("/api/auth/login", loginBody(DEMO.admin.email, DEMO.admin.passwordMd5), { apiKey: null })).status,
    ).toBe(429);
    const res = await call("POST", PURGE, { email: "ADMIN@demo.test" }, OPERATOR);
    expect(res.status).toBe(200);
    // Its counters from every IP and from all IPs together.
    expect(res.json.data).toEqual({ deleted: 2 });
    expect(
      (await post("/api/auth/login", loginBody(DEMO.admin.email, DEMO.admin.passwordMd5), { apiKey: null })).status,
    ).toBe(200);
  });

  it("purges only counters whose window and lock have run out", async () => {
    await fail("stale@nowhere.test");
    await fail("fresh@nowhere.test");
    await env.DB.prepare("update login_failure_counters set window_started_at = ? where email = 'stale@nowhere.test'")
      .bind(Date.now() - LOGIN_LOCKOUT.windowMs - 1)
      .run();
    const res = await call("POST", PURGE, {}, OPERATOR);
    expect(res.json.data).toEqual({ deleted: 2 });
    const left = await env.DB.prepare("select email from login_failure_counters").all<{ email: string }>();
    expect(left.results.map((r) => r.email)).toEqual(["fresh@nowhere.test", "fresh@nowhere.test"]);
  });

  it("needs the operator token and a valid e-mail", async () => {
    expect((await call("POST", PURGE, {}, { apiKey: null })).status).toBe(401);
    expect((await call("POST", PURGE, { email: "nope" }, OPERATOR)).status).toBe(400);
  });
});
