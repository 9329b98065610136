import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, post, textWithoutRequestId } from "../../../test/support/api";
import { asBearer, createUser, demoAdminToken, loginAs, otherAdminToken } from "../../../test/support/sessions";
import { DEMO, OTHER } from "../../../test/support/accounts";

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
