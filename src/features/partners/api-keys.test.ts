import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { post, DEMO_KEY } from "../../../test/support/api";
import { asBearer, createUser, demoAdminToken, loginAs, otherAdminToken } from "../../../test/support/sessions";

const KEYS = "/api/partner/api-keys";
const content = (apiKey: string) => post("/api/v1/content/accommodations", { size: 1 }, { apiKey });

let admin: string;
let userToken: string;

beforeAll(async () => {
  admin = await demoAdminToken();
  const { password } = await createUser(admin, "keys-user@demo.test");
  userToken = await loginAs("keys-user@demo.test", password);
});

describe("GET /api/partner/api-keys", () => {
  it("lists the partner's keys masked, for any user of the partner", async () => {
    const res = await asBearer(userToken).get(KEYS);
    expect(res.status).toBe(200);
    const demoKey = res.json.data.find((k: { id: string }) => k.id === "key_demo");
    expect(demoKey).toEqual({
      id: "key_demo",
      name: "Demo key",
      apiKey: "demo-par…",
      createdAt: expect.any(String),
      revokedAt: null,
    });
    expect(res.text).not.toContain(DEMO_KEY);
    expect(res.text).not.toMatch(/keyHash|key_hash/);
    expect(res.json.data.map((k: { id: string }) => k.id)).not.toContain("key_other");
  });
});

describe("POST /api/partner/api-keys", () => {
  it("creates a key shown once in full; only its SHA-256 is stored; it works for content at once", async () => {
    const res = await asBearer(admin).post(KEYS, { name: "booking server" });
    expect(res.status).toBe(201);
    const { id, apiKey, name } = res.json.data;
    expect(apiKey).toMatch(/^esk_[A-Za-z0-9_-]{32}$/);
    expect(name).toBe("booking server");

    const row = await env.DB.prepare("select * from api_keys where id = ?").bind(id).first<Record<string, string>>();
    expect(JSON.stringify(row)).not.toContain(apiKey);
    const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(apiKey)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    expect(row!.key_hash).toBe(digest);

    const listed = (await asBearer(admin).get(KEYS)).json.data.find((k: { id: string }) => k.id === id);
    expect(listed.apiKey).toBe(`${apiKey.slice(0, 12)}…`);

    const call = await content(apiKey);
    expect(call.status).toBe(200);
  });

  it("accepts an empty body (no name)", async () => {
    const res = await asBearer(admin).post(KEYS);
    expect(res.status).toBe(201);
    expect(res.json.data.name).toBeNull();
  });

  it("needs the admin role", async () => {
    const res = await asBearer(userToken).post(KEYS, { name: "mine" });
    expect(res.status).toBe(403);
    expect(res.json.message).toBe("Require partner admin role");
  });

  it.each([[{ name: 5 }], [{ name: "" }], [{ name: "x".repeat(101) }]])("rejects %j with 400", async (body) => {
    const res = await asBearer(admin).post(KEYS, body);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("name");
  });
});

describe("DELETE /api/partner/api-keys/:id", () => {
  it("revokes a key: its very next call gets 401 Invalid API key; revoking again keeps the first time", async () => {
    const created = (await asBearer(admin).post(KEYS, { name: "short-lived" })).json.data;
    expect((await content(created.apiKey)).status).toBe(200);
    const res = await asBearer(admin).del(`${KEYS}/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: created.id, revokedAt: expect.any(String) });
    expect(res.json.data.apiKey).not.toBe(created.apiKey);
    const next = await content(created.apiKey);
    expect(next.status).toBe(401);
    expect(next.json.message).toBe("Invalid API key");
    const again = await asBearer(admin).del(`${KEYS}/${created.id}`);
    expect(again.json.data.revokedAt).toBe(res.json.data.revokedAt);
  });

  it("needs the admin role, and leaves the key working", async () => {
    const res = await asBearer(userToken).del(`${KEYS}/key_demo`);
    expect(res.status).toBe(403);
    expect(res.json.message).toBe("Require partner admin role");
    expect((await content(DEMO_KEY)).status).toBe(200);
  });

  it("404 for an unknown key and for another partner's key (which keeps working)", async () => {
    const unknown = await asBearer(admin).del(`${KEYS}/key_nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe("API key not found");
    const foreign = await asBearer(await otherAdminToken()).del(`${KEYS}/key_demo`);
    expect(foreign.status).toBe(404);
    expect((await content(DEMO_KEY)).status).toBe(200);
  });
});
