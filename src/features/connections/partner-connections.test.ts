import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { asBearer, createUser, demoAdminToken, loginAs } from "../../../test/support/sessions";
import { DEMO, OTHER } from "../../../test/support/accounts";
import { textWithoutRequestId } from "../../../test/support/api";

const base = (partnerId: string) => `/api/partners/${partnerId}/connections`;
const DEMO_CONNECTION = DEMO.connection.id;
const OTHER_CONNECTION = OTHER.connection.id;

let admin: string;
let userToken: string;

beforeAll(async () => {
  admin = await demoAdminToken();
  const { password } = await createUser(admin, "conn-user@demo.test");
  userToken = await loginAs("conn-user@demo.test", password);
});

const CONNECTION_KEYS = [
  "apiType",
  "code",
  "connectionType",
  "createdAt",
  // Issue 39: the selling currency, shown on every read.
  "currency",
  "currentInUse",
  "id",
  "netMarkups",
  "notificationEmail",
  "partnerId",
  "rateLimit",
  "rateLimitWindowMs",
  "rateName",
  "updatedAt",
];

describe("GET /api/partners/:partnerId/connections", () => {
  it("lists the caller's partner's connections with the fields of 2.4", async () => {
    const res = await asBearer(userToken).get(base("demo"));
    expect(res.status).toBe(200);
    // 1001 (embedded inventory) and 1002 (the sandbox upstream), both seeded by test/support/setup.ts.
    expect(res.json.data.map((c: { code: number }) => c.code)).toEqual([1001, 1002]);
    expect(Object.keys(res.json.data[0]).sort()).toEqual(CONNECTION_KEYS);
    expect(res.json.data[0]).toMatchObject({
      id: DEMO_CONNECTION,
      code: 1001,
      apiType: "b2b",
      connectionType: "direct",
      rateLimit: 600,
      rateLimitWindowMs: 60000,
      currentInUse: true,
      partnerId: "demo",
      notificationEmail: null,
      currency: "USD",
    });
    expect(res.json.data[1]).toMatchObject({ code: 1002, currency: "EUR" });
  });

  it("403 You can only access connections for your own partner", async () => {
    for (const partnerId of ["other", "nonexistent"]) {
      const res = await asBearer(admin).get(base(partnerId));
      expect(res.status).toBe(403);
      expect(res.json.message).toBe("You can only access connections for your own partner");
      expect(res.json).not.toHaveProperty("data");
    }
  });
});

describe("GET /api/partners/:partnerId/connections/:id", () => {
  it("reads one connection", async () => {
    const res = await asBearer(userToken).get(`${base("demo")}/${DEMO_CONNECTION}`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: DEMO_CONNECTION, code: 1001 });
  });

  it("403 This connection does not belong to your partner", async () => {
    const res = await asBearer(admin).get(`${base("demo")}/${OTHER_CONNECTION}`);
    expect(res.status).toBe(403);
    expect(res.json.message).toBe("This connection does not belong to your partner");
    expect(textWithoutRequestId(res)).not.toContain("2001");
  });

  it("403 for another partner's path, 404 Connection not found for an unknown id", async () => {
    expect((await asBearer(admin).get(`${base("other")}/${OTHER_CONNECTION}`)).json.message).toBe(
      "You can only access connections for your own partner",
    );
    const res = await asBearer(admin).get(`${base("demo")}/con_nope`);
    expect(res.status).toBe(404);
    expect(res.json.message).toBe("Connection not found");
  });
});

describe("PUT /api/partners/:partnerId/connections/:id/notification-email", () => {
  const path = `${base("demo")}/${DEMO_CONNECTION}/notification-email`;

  it("is a partner admin's write: a user gets 403 Require partner admin role and changes nothing", async () => {
    await asBearer(admin).put(path, { notificationEmail: "before@demo.test" });
    for (const body of [{ notificationEmail: "attacker@evil.test" }, { notificationEmail: null }, {}]) {
      const res = await asBearer(userToken).put(path, body);
      expect(res.status).toBe(403);
      expect(res.json.message).toBe("Require partner admin role");
    }
    // Even for a connection that does not exist: the role is checked first, so nothing is revealed.
    const unknown = await asBearer(userToken).put(`${base("demo")}/con_nope/notification-email`, {
      notificationEmail: "a@demo.test",
    });
    expect(unknown.status).toBe(403);
    const row = await env.DB.prepare("select notification_email from connections where id = ?")
      .bind(DEMO_CONNECTION)
      .first();
    expect(row).toEqual({ notification_email: "before@demo.test" });
    await asBearer(admin).put(path, { notificationEmail: null });
  });

  it("sets, then clears with null and with an absent field", async () => {
    const set = await asBearer(admin).put(path, { notificationEmail: "ops@demo.test" });
    expect(set.status).toBe(200);
    expect(set.json.data).toMatchObject({ id: DEMO_CONNECTION, notificationEmail: "ops@demo.test" });
    expect(set.json.data.updatedAt >= set.json.data.createdAt).toBe(true);
    expect((await asBearer(admin).put(path, { notificationEmail: null })).json.data.notificationEmail).toBeNull();
    await asBearer(admin).put(path, { notificationEmail: "ops@demo.test" });
    expect((await asBearer(admin).put(path, {})).json.data.notificationEmail).toBeNull();
  });

  it.each([[{ notificationEmail: "not-an-email" }], [{ notificationEmail: 12 }], [{ notificationEmail: "" }]])(
    "rejects %j with 400",
    async (body) => {
      const res = await asBearer(admin).put(path, body);
      expect(res.status).toBe(400);
      expect(res.json.message).toContain("notificationEmail");
    },
  );

  it("cannot touch another partner's connection", async () => {
    const viaOwnPath = await asBearer(admin).put(`${base("demo")}/${OTHER_CONNECTION}/notification-email`, {
      notificationEmail: "evil@demo.test",
    });
    expect(viaOwnPath.status).toBe(403);
    expect(viaOwnPath.json.message).toBe("This connection does not belong to your partner");
    const viaTheirPath = await asBearer(admin).put(`${base("other")}/${OTHER_CONNECTION}/notification-email`, {
      notificationEmail: "evil@demo.test",
    });
    expect(viaTheirPath.status).toBe(403);
    const row = await env.DB.prepare("select notification_email from connections where id = ?")
      .bind(OTHER_CONNECTION)
      .first();
    expect(row).toEqual({ notification_email: null });
  });

  it("404 for an unknown connection", async () => {
    const res = await asBearer(admin).put(`${base("demo")}/con_nope/notification-email`, {
      notificationEmail: "a@demo.test",
    });
    expect(res.status).toBe(404);
    expect(res.json.message).toBe("Connection not found");
  });
});
