import { keyring } from "../../platform/crypto/keyring";
import { env } from "cloudflare:test";
import { decode, sign } from "hono/jwt";
import type { JWTPayload } from "hono/utils/jwt/types";
import { describe, expect, it, beforeAll } from "vitest";
import { call, post, DEMO_KEY, textWithoutRequestId } from "../../../test/support/api";
import { ACCESS_TOKEN_LIFETIME_SECONDS } from "../../platform/auth/bearer";
import { database } from "../../platform/db/client";
import { INVALID_CREDENTIALS, login, LOGIN_LOCKOUT, LoginLocked, PHONE_UNSUPPORTED } from "./login";
import { staleLoginFailures } from "./upkeep";
import {
  asBearer,
  createUser,
  demoAdminToken,
  loginAs,
  loginBody,
  md5,
  otherAdminToken,
} from "../../../test/support/sessions";
import { DEMO, DEMO_ACCOUNTS, OTHER } from "../../../test/support/accounts";
import { verifyPassword } from "../../platform/crypto/password";

// First: it checks afterwards that nothing of demo changed, and the login tests below change demo.
describe("isolation", () => {
  /**
   * Tenant isolation: every credential of partner `other` against every resource of partner `demo`.
   * Each attempt must fail with 401, 403 or 404 and carry no data; afterwards demo's state is unchanged.
   */
  type Credential = { name: string; headers: () => Record<string, string> };

  let demoUser: { id: string };
  let demoSecondKeyId: string;
  const credentials: Credential[] = [];

  beforeAll(async () => {
    const demoAdmin = await demoAdminToken();
    demoUser = (await createUser(demoAdmin, "victim@demo.test")).profile;
    demoSecondKeyId = (await asBearer(demoAdmin).post("/api/partner/api-keys", { name: "second" })).json.data.id;

    const otherAdmin = await otherAdminToken();
    const { password } = await createUser(otherAdmin, "member@other.test");
    const otherUser = await loginAs("member@other.test", password);
    credentials.push(
      { name: "other's admin bearer token", headers: () => ({ authorization: `Bearer ${otherAdmin}` }) },
      { name: "other's user bearer token", headers: () => ({ authorization: `Bearer ${otherUser}` }) },
      { name: "other's API key", headers: () => ({ "api-key": OTHER.apiKey.key }) },
      { name: "other's API key as a bearer token", headers: () => ({ authorization: `Bearer ${OTHER.apiKey.key}` }) },
      { name: "other's collector key", headers: () => ({ "x-radar-collector-key": OTHER.collectorKey }) },
    );
  });

  const demoResources = () =>
    [
      ["GET", `/api/partners/demo/connections`],
      ["GET", `/api/partners/demo/connections/${DEMO.connection.id}`],
      ["GET", `/api/partners/other/connections/${DEMO.connection.id}`],
      [
        "PUT",
        `/api/partners/demo/connections/${DEMO.connection.id}/notification-email`,
        { notificationEmail: "evil@other.test" },
      ],
      [
        "PUT",
        `/api/partners/other/connections/${DEMO.connection.id}/notification-email`,
        { notificationEmail: "evil@other.test" },
      ],
      ["DELETE", `/api/users/${DEMO.admin.id}`],
      ["DELETE", `/api/users/${demoUser.id}`],
      ["POST", `/api/users/${demoUser.id}/active-status`, { isActive: false }],
      ["POST", `/api/users/${DEMO.admin.id}/active-status`, { isActive: false }],
      ["DELETE", `/api/partner/api-keys/${DEMO.apiKey.id}`],
      ["DELETE", `/api/partner/api-keys/${demoSecondKeyId}`],
      // Operator routes: partner credentials never reach them.
      ["GET", "/api/connections?partnerId=demo"],
      ["GET", `/api/connections/${DEMO.connection.id}`],
      ["PATCH", `/api/connections/${DEMO.connection.id}`, { partnerId: "other" }],
      ["PUT", `/api/connections/${DEMO.connection.id}/disable`],
      ["DELETE", `/api/connections/${DEMO.connection.id}`],
      ["GET", "/api/partners"],
      ["POST", "/api/partners", { id: "demo2", name: "x", admin: { email: "x@demo2.test", password: "0".repeat(32) } }],
    ] as const;

  describe("tenant isolation matrix: partner other against partner demo", () => {
    it("refuses every credential of other on every resource of demo, without data", async () => {
      const outcomes: string[] = [];
      for (const credential of credentials) {
        for (const [method, path, body] of demoResources()) {
          const res = await call(method, path, body, { apiKey: null, headers: credential.headers() });
          outcomes.push(`${credential.name} ${method} ${path} -> ${res.status}`);
          expect([401, 403, 404], `${credential.name} ${method} ${path}`).toContain(res.status);
          expect(res.json).not.toHaveProperty("data");
          expect(res.text).not.toContain("admin@demo.test");
          expect(textWithoutRequestId(res)).not.toContain("1001");
        }
      }
      expect(outcomes).toHaveLength(credentials.length * demoResources().length);
    });

    it("bearer tokens of other get 403 or 404 (authenticated, but not demo's) on partner resources", async () => {
      for (const credential of credentials.slice(0, 2)) {
        for (const [method, path, body] of demoResources().slice(0, 11)) {
          const res = await call(method, path, body, { apiKey: null, headers: credential.headers() });
          expect([403, 404], `${credential.name} ${method} ${path}`).toContain(res.status);
        }
      }
    });

    it("lists of other's users, keys and connections hold nothing of demo", async () => {
      const token = await otherAdminToken();
      for (const path of ["/api/users", "/api/partner/api-keys", "/api/partners/other/connections", "/api/users/me"]) {
        const res = await asBearer(token).get(path);
        expect(res.status).toBe(200);
        expect(res.text).not.toMatch(/@demo\.test|key_demo|con_demo|usr_demo|"partnerId":"demo"|demo-par/);
      }
    });

    it("left demo untouched", async () => {
      const users = await env.DB.prepare("select id, is_active from users where partner_id = 'demo' order by id").all<{
        id: string;
        is_active: number;
      }>();
      expect(users.results.map((u) => u.is_active)).toEqual(users.results.map(() => 1));
      expect(users.results.map((u) => u.id)).toEqual(expect.arrayContaining([DEMO.admin.id, demoUser.id]));
      const keys = await env.DB.prepare(
        "select count(*) n from api_keys where partner_id = 'demo' and revoked_at is null",
      ).first<{ n: number }>();
      expect(keys!.n).toBe(2);
      const connection = await env.DB.prepare(
        "select partner_id, current_in_use, notification_email from connections where id = ?",
      )
        .bind(DEMO.connection.id)
        .first();
      expect(connection).toEqual({ partner_id: "demo", current_in_use: 1, notification_email: null });
      expect(await env.DB.prepare("select id from partners where id = 'demo2'").first()).toBeNull();
      expect((await post("/api/v1/content/accommodations", { size: 1 })).status).toBe(200);
      expect(await loginAs(DEMO.admin.email, DEMO.admin.passwordMd5)).toBeTruthy();
    });
  });
});

const LOGIN = "/api/auth/login";
const attempt = (body: unknown) => post(LOGIN, body, { apiKey: null });

describe("demo accounts", () => {
  it("document the MD5 strings clients send, and keep only PBKDF2 hashes of them", async () => {
    for (const account of DEMO_ACCOUNTS) {
      expect(await md5(account.admin.password)).toBe(account.admin.passwordMd5);
      const row = await env.DB.prepare("select password_hash from users where email = ?")
        .bind(account.admin.email)
        .first<{ password_hash: string }>();
      expect(row!.password_hash).toMatch(/^pbkdf2-sha256\$100000\$/);
      expect(row!.password_hash).not.toContain(account.admin.passwordMd5);
      expect(await verifyPassword(account.admin.passwordMd5, row!.password_hash)).toBe(true);
      expect(await verifyPassword(await md5("wrong"), row!.password_hash)).toBe(false);
    }
  });

  it("give each partner one in-use b2b direct connection with the documented limits, and demo the sandbox upstream's 1002", async () => {
    const { results } = await env.DB.prepare(
      "select partner_id, code, api_type, connection_type, current_in_use, rate_limit, rate_limit_window_ms from connections order by code",
    ).all();
    expect(results).toEqual([
      {
        partner_id: "demo",
        code: 1001,
        api_type: "b2b",
        connection_type: "direct",
        current_in_use: 1,
        rate_limit: 600,
        rate_limit_window_ms: 60000,
      },
      {
        partner_id: "demo",
        code: 1002,
        api_type: "b2b",
        connection_type: "tgx",
        current_in_use: 1,
        rate_limit: 600,
        rate_limit_window_ms: 60000,
      },
      {
        partner_id: "other",
        code: 2001,
        api_type: "b2b",
        connection_type: "direct",
        current_in_use: 1,
        rate_limit: 600,
        rate_limit_window_ms: 60000,
      },
    ]);
  });
});

describe("POST /api/auth/login", () => {
  it("returns a signed HS256 JWT at data.token.accessToken with its lifetime", async () => {
    const res = await attempt(loginBody(DEMO.admin.email, DEMO.admin.passwordMd5));
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("success");
    expect(res.json.data.token).toMatchObject({ tokenType: "Bearer", expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS });
    const { header, payload } = decode(res.json.data.token.accessToken);
    expect(header).toMatchObject({ alg: "HS256", typ: "JWT" });
    expect(payload).toMatchObject({ sub: DEMO.admin.id, pid: DEMO.partner.id, iss: "edgestay" });
    expect(payload.exp! - payload.iat!).toBe(3600);
    const me = await asBearer(res.json.data.token.accessToken).get("/api/users/me");
    expect(me.status).toBe(200);
    expect(me.json.data.email).toBe(DEMO.admin.email);
  });

  it("accepts the e-mail in any case and the MD5 in upper case", async () => {
    const res = await attempt(loginBody("ADMIN@Demo.Test", DEMO.admin.passwordMd5.toUpperCase()));
    expect(res.status).toBe(200);
  });

  it("refuses accountType phone with 400", async () => {
    const res = await attempt({ accountType: "phone", accountValue: "+15551234567", password: DEMO.admin.passwordMd5 });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(PHONE_UNSUPPORTED);
  });

  it("gives one generic 401 for an unknown e-mail and for a wrong password, identical bodies", async () => {
    const unknown = await attempt(loginBody("nobody-here@demo.test", await md5("x")));
    const wrong = await attempt(loginBody(DEMO.admin.email, await md5("not-the-password")));
    for (const res of [unknown, wrong]) {
      expect(res.status).toBe(401);
      expect(res.json.message).toBe(INVALID_CREDENTIALS);
    }
    const { requestId: _a, ...unknownBody } = unknown.json;
    const { requestId: _b, ...wrongBody } = wrong.json;
    expect(unknownBody).toEqual(wrongBody);
    await env.DB.prepare("delete from login_failure_counters").run();
  });

  it.each([
    ["missing password", { accountType: "email", accountValue: "a@b.test" }, "password is required"],
    ["missing accountValue", { accountType: "email", password: "0".repeat(32) }, "accountValue is required"],
    ["unknown accountType", { accountType: "sms", accountValue: "a@b.test", password: "0".repeat(32) }, "accountType"],
    ["number password", { accountType: "email", accountValue: "a@b.test", password: 123 }, "password"],
    [
      "a password that is not MD5",
      { accountType: "email", accountValue: DEMO.admin.email, password: "demo-password" },
      "MD5",
    ],
  ])("rejects %s with 400", async (_name, body, text) => {
    const res = await attempt(body);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain(text);
  });

  it("rejects malformed JSON and an empty body with 400", async () => {
    const malformed = await call("POST", LOGIN, undefined, {
      apiKey: null,
      raw: '{"accountType":',
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toBe("Malformed JSON in request body");
    const empty = await call("POST", LOGIN, undefined, {
      apiKey: null,
      headers: { "content-type": "application/json" },
    });
    expect(empty.status).toBe(400);
  });

  it("stores a salted PBKDF2 hash, never the MD5 string itself", async () => {
    const row = await env.DB.prepare("select password_hash from users where id = ?")
      .bind(DEMO.admin.id)
      .first<{ password_hash: string }>();
    expect(row!.password_hash).toMatch(/^pbkdf2-sha256\$100000\$[\w-]{22}\$[\w-]{43}$/);
    expect(row!.password_hash).not.toContain(DEMO.admin.passwordMd5);
  });
});

describe("inactive users", () => {
  it("cannot log in (403 only with the right password; 401 otherwise)", async () => {
    const admin = await demoAdminToken();
    const { profile, password } = await createUser(admin, "sleepy@demo.test");
    expect((await asBearer(admin).post(`/api/users/${profile.id}/active-status`, { isActive: false })).status).toBe(
      200,
    );
    const right = await attempt(loginBody("sleepy@demo.test", password));
    expect(right.status).toBe(403);
    expect(right.json.message).toBe("User is inactive");
    expect(right.json).not.toHaveProperty("data");
    const wrong = await attempt(loginBody("sleepy@demo.test", await md5("nope")));
    expect(wrong.status).toBe(401);
    await env.DB.prepare("delete from login_failure_counters").run();
  });
});

describe("login lockout", () => {
  it(`locks an account after ${LOGIN_LOCKOUT.maxFailures} failures: 429 with Retry-After, even with the right password`, async () => {
    const admin = await demoAdminToken();
    const { password } = await createUser(admin, "target@demo.test");
    for (let i = 0; i < LOGIN_LOCKOUT.maxFailures; i++) {
      expect((await attempt(loginBody("target@demo.test", await md5(`guess-${i}`)))).status).toBe(401);
    }
    const locked = await attempt(loginBody("target@demo.test", password));
    expect(locked.status).toBe(429);
    expect(locked.json.code).toBe("login_locked");
    const retryAfter = Number(locked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(LOGIN_LOCKOUT.lockMs / 1000 - 30);
    expect(retryAfter).toBeLessThanOrEqual(LOGIN_LOCKOUT.lockMs / 1000);
    // Other accounts are unaffected.
    expect((await attempt(loginBody(DEMO.admin.email, DEMO.admin.passwordMd5))).status).toBe(200);

    // Once the lock has run out, the right password works and clears the counter.
    await env.DB.prepare("update login_failure_counters set locked_until = ?, window_started_at = ? where email = ?")
      .bind(Date.now() - 1, Date.now() - LOGIN_LOCKOUT.windowMs - 1, "target@demo.test")
      .run();
    expect((await attempt(loginBody("target@demo.test", password))).status).toBe(200);
    expect(
      await env.DB.prepare("select * from login_failure_counters where email = ? and scope = 'ip:unknown'")
        .bind("target@demo.test")
        .first(),
    ).toBeNull();
  });

  it("counts concurrent failures (one atomic statement each) and locks unknown e-mails alike", async () => {
    const wrong = await md5("wrong");
    const results = await Promise.all(
      Array.from({ length: LOGIN_LOCKOUT.maxFailures }, () => attempt(loginBody("ghost@nowhere.test", wrong))),
    );
    expect(results.map((r) => r.status)).toEqual(Array(LOGIN_LOCKOUT.maxFailures).fill(401));
    const row = await env.DB.prepare(
      "select failures from login_failure_counters where email = 'ghost@nowhere.test' and scope = '*'",
    ).first<{ failures: number }>();
    expect(row!.failures).toBe(LOGIN_LOCKOUT.maxFailures);
    expect((await attempt(loginBody("ghost@nowhere.test", wrong))).status).toBe(429);
  });

  it("starts a fresh window once the old one has passed", async () => {
    const wrong = await md5("wrong");
    for (let i = 0; i < LOGIN_LOCKOUT.maxFailures - 1; i++) await attempt(loginBody("slow@nowhere.test", wrong));
    await env.DB.prepare("update login_failure_counters set window_started_at = ? where email = 'slow@nowhere.test'")
      .bind(Date.now() - LOGIN_LOCKOUT.windowMs - 1)
      .run();
    expect((await attempt(loginBody("slow@nowhere.test", wrong))).status).toBe(401);
    const row = await env.DB.prepare(
      "select failures, locked_until from login_failure_counters where email = 'slow@nowhere.test' and scope = 'ip:unknown'",
    ).first<{ failures: number; locked_until: number | null }>();
    expect(row).toEqual({ failures: 1, locked_until: null });
  });
});

describe("login abuse: failures reserved before the check, locks per (e-mail, client IP)", () => {
  const from = (ip: string) => (body: unknown) =>
    post(LOGIN, body, { apiKey: null, headers: { "cf-connecting-ip": ip } });

  it("lets at most 5 of a parallel burst of 50 wrong guesses reach the password check", async () => {
    const admin = await demoAdminToken();
    await createUser(admin, "burst@demo.test");
    const guesses = await Promise.all(
      Array.from({ length: 50 }, async (_, i) =>
        from("203.0.113.7")(loginBody("burst@demo.test", await md5(`guess-${i}`))),
      ),
    );
    const verified = guesses.filter((r) => r.status === 401);
    const refused = guesses.filter((r) => r.status === 429);
    expect(verified.length).toBe(LOGIN_LOCKOUT.maxFailures);
    expect(refused.length).toBe(50 - LOGIN_LOCKOUT.maxFailures);
    for (const r of verified) expect(r.json.message).toBe(INVALID_CREDENTIALS);
    for (const r of refused) {
      expect(r.json).toMatchObject({
        message: "Too many failed login attempts; try again later",
        code: "login_locked",
      });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  it("locks the stranger's IP for that e-mail, even with the right password, and not the owner's", async () => {
    const admin = await demoAdminToken();
    const { password } = await createUser(admin, "owner@demo.test");
    for (let i = 0; i < LOGIN_LOCKOUT.maxFailures; i++) {
      expect((await from("198.51.100.66")(loginBody("owner@demo.test", await md5(`guess-${i}`)))).status).toBe(401);
    }
    const stranger = await from("198.51.100.66")(loginBody("owner@demo.test", password));
    expect(stranger.status).toBe(429);
    expect(stranger.json.code).toBe("login_locked");
    expect(Number(stranger.headers.get("retry-after"))).toBeGreaterThan(LOGIN_LOCKOUT.lockMs / 1000 - 30);

    const owner = await from("192.0.2.10")(loginBody("owner@demo.test", password));
    expect(owner.status).toBe(200);
    // The stranger's IP stays locked after the owner's success.
    expect((await from("198.51.100.66")(loginBody("owner@demo.test", password))).status).toBe(429);
  });

  it("slows an e-mail with more than 50 failures from all IPs, with a growing Retry-After, never for good", async () => {
    const admin = await demoAdminToken();
    const { password } = await createUser(admin, "popular@demo.test");
    const db = database(env.DB);
    const t0 = Date.UTC(2026, 10, 24, 12, 0, 0);
    const attempt = (ip: string, pw: string, now: number) =>
      login(db, keyring(env.JWT_SECRET), loginBody("popular@demo.test", pw) as never, ip, now).then(
        () => 200,
        (err) => err,
      );
    const wrong = await md5("wrong");
    // 51 failures from 51 addresses: no single IP is locked.
    const first = await Promise.all(Array.from({ length: 51 }, (_, i) => attempt(`10.0.0.${i}`, wrong, t0)));
    expect(first.every((err) => err.status === 401)).toBe(true);

    const slowed = await attempt("192.0.2.50", password, t0);
    expect(slowed).toBeInstanceOf(LoginLocked);
    expect(slowed).toMatchObject({ status: 429, code: "login_slowed", retryAfterSeconds: 1 });
    // Once the wait is over one more failure is checked, and the next wait is longer.
    expect((await attempt("10.0.1.1", wrong, t0 + 1_000)).status).toBe(401);
    expect(await attempt("192.0.2.50", password, t0 + 1_000)).toMatchObject({
      code: "login_slowed",
      retryAfterSeconds: 2,
    });
    expect((await attempt("10.0.1.2", wrong, t0 + 3_000)).status).toBe(401);
    expect(await attempt("192.0.2.50", password, t0 + 3_000)).toMatchObject({
      code: "login_slowed",
      retryAfterSeconds: 3,
    });
    // After the wait the owner gets in; the slowed refusals did not count against the owner's IP.
    expect(await attempt("192.0.2.50", password, t0 + 6_000)).toBe(200);
  });

  it("upkeep task stale_login_failures deletes counters older than the window", async () => {
    const t0 = Date.UTC(2026, 10, 24, 9, 0, 0);
    const db = database(env.DB);
    const wrong = await md5("wrong");
    await login(db, keyring(env.JWT_SECRET), loginBody("aged@nowhere.test", wrong) as never, "192.0.2.1", t0).catch(
      () => undefined,
    );
    await login(
      db,
      keyring(env.JWT_SECRET),
      loginBody("recent@nowhere.test", wrong) as never,
      "192.0.2.1",
      t0 + LOGIN_LOCKOUT.windowMs,
    ).catch(() => undefined);
    expect(staleLoginFailures.name).toBe("stale_login_failures");
    expect(await staleLoginFailures.run(env, new Date(t0 + LOGIN_LOCKOUT.windowMs + 1))).toBe(2);
    const left = await env.DB.prepare(
      "select email from login_failure_counters where email in ('aged@nowhere.test', 'recent@nowhere.test')",
    ).all<{ email: string }>();
    expect(left.results.map((r) => r.email)).toEqual(["recent@nowhere.test", "recent@nowhere.test"]);
  });
});

describe("bearer tokens", () => {
  const me = (authorization?: string) =>
    call("GET", "/api/users/me", undefined, { apiKey: null, headers: authorization ? { authorization } : {} });
  const now = () => Math.floor(Date.now() / 1000);

  it("requires the header: 401 Bearer token is required", async () => {
    for (const res of [await me(), await me("Basic abc"), await call("GET", "/api/users/me")]) {
      expect(res.status).toBe(401);
      expect(res.json.message).toBe("Bearer token is required");
    }
  });

  it.each([
    ["garbage", async () => "not.a.jwt"],
    ["an API key", async () => DEMO_KEY],
    ["the operator token", async () => "demo-operator-token"],
    [
      "an expired token",
      async () =>
        sign(
          { sub: DEMO.admin.id, pid: "demo", iss: "edgestay", iat: now() - 7200, exp: now() - 3600 },
          env.JWT_SECRET,
          "HS256",
        ),
    ],
    [
      "a token without exp (it would never expire)",
      async () => sign({ sub: DEMO.admin.id, pid: "demo", iss: "edgestay", iat: now() }, env.JWT_SECRET, "HS256"),
    ],
    [
      "a token whose exp is not a number",
      async () =>
        sign(
          { sub: DEMO.admin.id, pid: "demo", iss: "edgestay", exp: `${now() + 600}` } as Record<
            string,
            unknown
          > as JWTPayload,
          env.JWT_SECRET,
          "HS256",
        ),
    ],
    [
      "a token claiming to live longer than the one-hour lifetime",
      async () =>
        sign(
          { sub: DEMO.admin.id, pid: "demo", iss: "edgestay", iat: now(), exp: now() + 365 * 86_400 },
          env.JWT_SECRET,
          "HS256",
        ),
    ],
    [
      "a token signed with another secret",
      async () =>
        sign({ sub: DEMO.admin.id, pid: "demo", iss: "edgestay", exp: now() + 600 }, "guessed-secret", "HS256"),
    ],
    [
      "a token of another issuer",
      async () => sign({ sub: DEMO.admin.id, pid: "demo", iss: "someone", exp: now() + 600 }, env.JWT_SECRET, "HS256"),
    ],
    [
      "a token with a mismatched partner",
      async () =>
        sign({ sub: DEMO.admin.id, pid: "other", iss: "edgestay", exp: now() + 600 }, env.JWT_SECRET, "HS256"),
    ],
    [
      "an unsigned alg=none token",
      async () => {
        const part = (o: object) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
        return `${part({ alg: "none", typ: "JWT" })}.${part({ sub: DEMO.admin.id, pid: "demo", iss: "edgestay", exp: now() + 600 })}.`;
      },
    ],
  ])("refuses %s with 401", async (_name, token) => {
    const res = await me(`Bearer ${await token()}`);
    expect(res.status).toBe(401);
    expect(res.json.message).toBe("Invalid or expired token");
  });

  it("stops a token at once when its user is deactivated, deleted, or its partner switched off", async () => {
    const admin = await demoAdminToken();
    const a = await createUser(admin, "short-lived-a@demo.test");
    const b = await createUser(admin, "short-lived-b@demo.test");
    const tokenA = await loginAs("short-lived-a@demo.test", a.password);
    const tokenB = await loginAs("short-lived-b@demo.test", b.password);
    expect((await asBearer(tokenA).get("/api/users/me")).status).toBe(200);

    await asBearer(admin).post(`/api/users/${a.profile.id}/active-status`, { isActive: false });
    expect((await asBearer(tokenA).get("/api/users/me")).status).toBe(401);
    await asBearer(admin).del(`/api/users/${b.profile.id}`);
    expect((await asBearer(tokenB).get("/api/users/me")).status).toBe(401);

    await env.DB.prepare("update partners set is_active = 0 where id = 'demo'").run();
    expect((await asBearer(admin).get("/api/users/me")).status).toBe(401);
    await env.DB.prepare("update partners set is_active = 1 where id = 'demo'").run();
    expect((await asBearer(admin).get("/api/users/me")).status).toBe(200);
  });
});

describe("openapi", () => {
  describe("OpenAPI document for partner and operator routes", () => {
    it("describes every route with its security scheme, generated from the validating schemas", async () => {
      const doc = (await call("GET", "/openapi.json")).json;
      expect(doc.components.securitySchemes.Bearer).toEqual({
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description: "accessToken of POST /api/auth/login",
      });
      const bearerRoutes = [
        ["get", "/api/users/me"],
        ["get", "/api/users"],
        ["post", "/api/users"],
        ["delete", "/api/users/{id}"],
        ["post", "/api/users/{id}/active-status"],
        ["get", "/api/partner/api-keys"],
        ["post", "/api/partner/api-keys"],
        ["delete", "/api/partner/api-keys/{id}"],
        ["get", "/api/partners/{partnerId}/connections"],
        ["get", "/api/partners/{partnerId}/connections/{id}"],
        ["put", "/api/partners/{partnerId}/connections/{id}/notification-email"],
      ];
      const operatorRoutes = [
        ["post", "/api/connections"],
        ["get", "/api/connections"],
        ["get", "/api/connections/{id}"],
        ["patch", "/api/connections/{id}"],
        ["delete", "/api/connections/{id}"],
        ["put", "/api/connections/{id}/enable"],
        ["put", "/api/connections/{id}/disable"],
        ["post", "/api/partners"],
        ["get", "/api/partners"],
        ["post", "/api/operator/login-failures/purge"],
      ];
      for (const [method, path] of bearerRoutes)
        expect(doc.paths[path!]?.[method!]?.security, `${method} ${path}`).toEqual([{ Bearer: [] }]);
      for (const [method, path] of operatorRoutes)
        expect(doc.paths[path!]?.[method!]?.security, `${method} ${path}`).toEqual([{ OperatorToken: [] }]);
      const login = doc.paths["/api/auth/login"].post;
      // Public: an explicit empty security statement, not an omission.
      expect(login.security).toEqual([]);
      expect(login.requestBody.required).toBe(true);
      const createUser = doc.components.schemas.CreateUserRequest;
      expect(createUser.required).toEqual(expect.arrayContaining(["email", "password", "role"]));
      expect(createUser.properties.role.enum).toEqual(["admin", "user"]);
      expect(doc.components.schemas.CreateConnectionRequest.properties.rateLimit.minimum).toBe(0);
    });
  });
});
