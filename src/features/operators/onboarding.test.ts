import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, post } from "../../../test/support/api";
import { asBearer, loginAs, md5, OPERATOR } from "../../../test/support/sessions";
import { OTHER } from "../../../test/support/accounts";

const op = (method: string, path: string, body?: unknown) => call(method, path, body, OPERATOR);
const sha256 = async (text: string) =>
  [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("");

describe("POST /api/partners", () => {
  it("onboards a partner with its admin, first API key and collector key, shown once, stored hashed", async () => {
    const password = await md5("acme-password");
    const res = await op("POST", "/api/partners", {
      id: "acme",
      name: "Acme Travel",
      admin: { email: "Boss@Acme.test", password, firstName: "Ada" },
      apiKeyName: "server",
    });
    expect(res.status).toBe(201);
    const { partner, admin, apiKey, collectorKey } = res.json.data;
    expect(partner).toMatchObject({ id: "acme", name: "Acme Travel", isActive: true });
    expect(admin).toMatchObject({
      partnerId: "acme",
      email: "boss@acme.test",
      role: "admin",
      isActive: true,
      firstName: "Ada",
    });
    expect(apiKey).toMatchObject({ name: "server", revokedAt: null });
    expect(apiKey.apiKey).toMatch(/^esk_[\w-]{32}$/);
    expect(collectorKey).toMatch(/^esc_[\w-]{32}$/);
    expect(res.text).not.toMatch(/pbkdf2|passwordHash/);

    const stored = await env.DB.prepare("select collector_key_hash from partners where id = 'acme'").first<{
      collector_key_hash: string;
    }>();
    expect(stored!.collector_key_hash).toBe(await sha256(collectorKey));
    const key = await env.DB.prepare("select key_hash from api_keys where id = ?")
      .bind(apiKey.id)
      .first<{ key_hash: string }>();
    expect(key!.key_hash).toBe(await sha256(apiKey.apiKey));

    // The new admin logs in and sees its own partner; the key calls content.
    const token = await loginAs("boss@acme.test", password);
    expect((await asBearer(token).get("/api/users")).json.data.map((u: { email: string }) => u.email)).toEqual([
      "boss@acme.test",
    ]);
    expect((await post("/api/v1/content/accommodations", { size: 1 }, { apiKey: apiKey.apiKey })).status).toBe(200);
    // The list of keys shows it masked only.
    const keys = await asBearer(token).get("/api/partner/api-keys");
    expect(keys.text).not.toContain(apiKey.apiKey);
  });

  it("generates an id when none is given", async () => {
    const res = await op("POST", "/api/partners", {
      name: "No Id Ltd",
      admin: { email: "a@noid.test", password: await md5("x") },
    });
    expect(res.status).toBe(201);
    expect(res.json.data.partner.id).toMatch(/^ptn_[0-9a-f]{16}$/);
  });

  it("409 for an existing partner id or admin e-mail, writing nothing (one batch)", async () => {
    const password = await md5("x");
    const dupId = await op("POST", "/api/partners", {
      id: "demo",
      name: "Again",
      admin: { email: "fresh@x.test", password },
    });
    expect(dupId.status).toBe(409);
    expect(dupId.json.message).toBe("Partner already exists");
    expect(await env.DB.prepare("select id from users where email = 'fresh@x.test'").first()).toBeNull();

    const dupEmail = await op("POST", "/api/partners", {
      id: "newco",
      name: "New Co",
      admin: { email: OTHER.admin.email, password },
    });
    expect(dupEmail.status).toBe(409);
    expect(dupEmail.json.message).toBe("Conflict");
    expect(await env.DB.prepare("select id from partners where id = 'newco'").first()).toBeNull();
    expect(await env.DB.prepare("select id from api_keys where partner_id = 'newco'").first()).toBeNull();
  });

  it.each([
    ["name", { id: "x1", admin: { email: "a@x1.test", password: "0".repeat(32) } }],
    ["admin", { id: "x2", name: "X" }],
    ["admin.email", { id: "x3", name: "X", admin: { email: "nope", password: "0".repeat(32) } }],
    ["admin.password", { id: "x4", name: "X", admin: { email: "a@x4.test", password: "plain" } }],
    ["id", { id: "Bad Id!", name: "X", admin: { email: "a@x5.test", password: "0".repeat(32) } }],
  ])("rejects a bad or missing %s with 400", async (field, body) => {
    const res = await op("POST", "/api/partners", body);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain(field);
  });

  it("needs the operator token; a partner admin's bearer token is refused", async () => {
    const body = { name: "Sneaky", admin: { email: "s@sneaky.test", password: await md5("x") } };
    const partnerToken = await loginAs(OTHER.admin.email, OTHER.admin.passwordMd5);
    for (const headers of [{}, { authorization: `Bearer ${partnerToken}` }] as Record<string, string>[]) {
      const res = await call("POST", "/api/partners", body, { apiKey: null, headers });
      expect([401, 403]).toContain(res.status);
    }
    expect(await env.DB.prepare("select id from partners where name = 'Sneaky'").first()).toBeNull();
  });
});

describe("GET /api/partners", () => {
  it("pages the partners with items + pagination, never secrets", async () => {
    const res = await op("GET", "/api/partners?size=1");
    expect(res.status).toBe(200);
    expect(res.json.data.items).toHaveLength(1);
    expect(Object.keys(res.json.data.items[0]).sort()).toEqual(["createdAt", "id", "isActive", "name", "updatedAt"]);
    const total = (await env.DB.prepare("select count(*) n from partners").first<{ n: number }>())!.n;
    expect(res.json.data.pagination).toEqual({ page: 1, size: 1, total, totalPages: total });
    expect((await call("GET", "/api/partners", undefined, { apiKey: null })).status).toBe(401);
    expect((await op("GET", "/api/partners?size=500")).status).toBe(400);
  });
});
