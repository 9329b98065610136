import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { call, textWithoutRequestId, DEMO_KEY } from "../../../test/support/api";
import { database } from "../../platform/db/client";
import { demoAdminToken, bearer, OPERATOR } from "../../../test/support/sessions";
import { openSecret } from "../../platform/crypto/secret-box";
import type { Db } from "../../platform/db/client";
import { setUpstream } from "./upstreams";

const op = (method: string, path: string, body?: unknown) => call(method, path, body, OPERATOR);
const SECRET = "hx-live-3f9a1c7e5b2d4f60";
const valid = {
  kind: "hotelx",
  url: "https://api.hotelx.example/graphql",
  client: "edgestay",
  context: "HOTELX",
  credentials: { apiKey: SECRET },
};
const newConnection = async () => {
  const res = await op("POST", "/api/connections", {
    partnerId: "demo",
    apiType: "cug",
    connectionType: "tgx",
    rateLimit: 100,
    rateLimitWindowMs: 1000,
    netMarkups: 0,
  });
  expect(res.status).toBe(201);
  return res.json.data.id as string;
};
// The alias keeps a connection's upstream as the supplier `hotelx-<connection code>`, sold by it.
const rowOf = (id: string) =>
  env.DB.prepare(
    `select s.* from suppliers s join connections c on s.code = 'hotelx-' || c.code
     join connection_suppliers cs on cs.connection_id = c.id and cs.supplier_code = s.code where c.id = ?`,
  )
    .bind(id)
    .first<Record<string, unknown>>();
/** The upstream's settings and opened credentials, or null when the connection sells none. */
const upstreamFor = async (_db: Db, credentialsKey: string, id: string) => {
  const row = await rowOf(id);
  if (!row) return null;
  const secret = await openSecret(
    credentialsKey,
    "upstream-credentials",
    String(row.seal_binding),
    String(row.sealed_credentials),
  );
  const codes = await env.DB.prepare("select supplier_code from connection_suppliers where connection_id = ?")
    .bind(id)
    .all<{ supplier_code: string }>();
  return {
    kind: row.kind,
    ...(JSON.parse(String(row.settings)) as { url: string; client: string; context: string; twoStepBooking: boolean }),
    ...(JSON.parse(secret) as { apiKey: string }),
    withEmbedded: codes.results.some((r) => r.supplier_code === "embedded"),
  };
};

let logs: MockInstance[] = [];
beforeEach(() => {
  logs = [vi.spyOn(console, "log"), vi.spyOn(console, "error"), vi.spyOn(console, "warn"), vi.spyOn(console, "info")];
});
afterEach(() => {
  for (const spy of logs) spy.mockRestore();
});
const logged = () => JSON.stringify(logs.flatMap((spy) => spy.mock.calls));

describe("operator authentication on /api/connections/:id/upstream", () => {
  it("refuses no token (401), a partner API key (401), a wrong bearer (403) and a partner admin's token (403)", async () => {
    const partnerAdmin = bearer(await demoAdminToken());
    for (const method of ["PUT", "GET", "DELETE"]) {
      const body = method === "PUT" ? valid : undefined;
      const cases = [
        [{ apiKey: null }, 401],
        [{ apiKey: DEMO_KEY }, 401],
        [{ apiKey: null, headers: { authorization: `Bearer ${DEMO_KEY}` } }, 403],
        [partnerAdmin, 403],
      ] as const;
      for (const [options, status] of cases) {
        const res = await call(method, "/api/connections/con_demo_b2b/upstream", body, options);
        expect(res.status, `${method} ${JSON.stringify(options)}`).toBe(status);
        expect(res.json).not.toHaveProperty("data");
      }
    }
    expect(await rowOf("con_demo_b2b")).toBeNull();
  });
});

describe("PUT, GET, DELETE /api/connections/:id/upstream", () => {
  it("stores the upstream with sealed credentials, shows it masked, replaces it, and returns the connection to the embedded inventory", async () => {
    const id = await newConnection();
    const put = await op("PUT", `/api/connections/${id}/upstream`, valid);
    expect(put.status, put.text).toBe(200);
    const view = {
      connectionId: id,
      kind: "hotelx",
      url: valid.url,
      client: "edgestay",
      context: "HOTELX",
      credentials: { apiKey: "********" },
      withEmbedded: false,
      twoStepBooking: false,
    };
    expect(put.json.data).toMatchObject(view);

    const got = await op("GET", `/api/connections/${id}/upstream`);
    expect(got.status).toBe(200);
    expect(got.json.data).toMatchObject(view);

    // At rest: sealed, never the key in clear; the supply layer opens it.
    const row = await rowOf(id);
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(String(row!.sealed_credentials)).toMatch(/^v1\./);
    const db = database(env.DB);
    expect(await upstreamFor(db, env.UPSTREAM_CREDENTIALS_KEY, id)).toMatchObject({
      kind: "hotelx",
      url: valid.url,
      client: "edgestay",
      context: "HOTELX",
      apiKey: SECRET,
      withEmbedded: false,
      twoStepBooking: false,
    });
    await expect(upstreamFor(db, "another-key-entirely-another-key", id)).rejects.toThrow();

    // Same credentials again: a fresh IV, so a different sealed value.
    const again = await op("PUT", `/api/connections/${id}/upstream`, {
      ...valid,
      url: "https://other.hotelx.example/",
      withEmbedded: true,
      twoStepBooking: true,
    });
    expect(again.json.data).toMatchObject({
      url: "https://other.hotelx.example/",
      withEmbedded: true,
      twoStepBooking: true,
    });
    expect((await rowOf(id))!.sealed_credentials).not.toBe(row!.sealed_credentials);
    expect(await upstreamFor(db, env.UPSTREAM_CREDENTIALS_KEY, id)).toMatchObject({
      apiKey: SECRET,
      withEmbedded: true,
      twoStepBooking: true,
    });

    const removed = await op("DELETE", `/api/connections/${id}/upstream`);
    expect(removed.status).toBe(200);
    expect(removed.json.data).toMatchObject({ connectionId: id, credentials: { apiKey: "********" } });
    expect(await upstreamFor(db, env.UPSTREAM_CREDENTIALS_KEY, id)).toBeNull();
    for (const method of ["GET", "DELETE"]) {
      const gone = await op(method, `/api/connections/${id}/upstream`);
      expect(gone.status).toBe(404);
      expect(gone.json.message).toBe("Connection has no upstream");
    }

    for (const res of [put, got, again, removed]) expect(res.text).not.toContain(SECRET);
    expect(logged()).not.toContain(SECRET);
  });

  it("404 Connection not found for an unknown connection, on every verb", async () => {
    for (const method of ["PUT", "GET", "DELETE"]) {
      const res = await op(method, "/api/connections/con_nope/upstream", method === "PUT" ? valid : undefined);
      expect(res.status, method).toBe(404);
      expect(res.json.message).toBe("Connection not found");
    }
  });

  it("deleting the connection deletes its upstream", async () => {
    const id = await newConnection();
    expect((await op("PUT", `/api/connections/${id}/upstream`, valid)).status).toBe(200);
    expect((await op("DELETE", `/api/connections/${id}`)).status).toBe(200);
    expect(await rowOf(id)).toBeNull();
  });

  it.each([
    ["kind", { kind: "expedia" }],
    ["kind", { kind: undefined }],
    ["url", { url: undefined }],
    ["url", { url: 42 }],
    ["client", { client: "" }],
    ["client", { client: undefined }],
    ["context", { context: ["x"] }],
    ["credentials", { credentials: undefined }],
    ["apiKey", { credentials: {} }],
    ["apiKey", { credentials: { apiKey: "" } }],
    ["withEmbedded", { withEmbedded: "yes" }],
    ["twoStepBooking", { twoStepBooking: 1 }],
  ])("rejects a bad %s with 400, never echoing the key", async (field, change) => {
    const res = await op("PUT", "/api/connections/con_demo_b2b/upstream", { ...valid, ...change });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain(field);
    expect(textWithoutRequestId(res)).not.toContain(SECRET);
  });

  it("rejects malformed JSON with 400", async () => {
    const res = await call("PUT", "/api/connections/con_demo_b2b/upstream", undefined, {
      ...OPERATOR,
      raw: "{",
      headers: { ...OPERATOR.headers, "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Malformed JSON in request body");
  });
});

describe("upstream URLs (no SSRF)", () => {
  it.each([
    ["http://api.hotelx.example/", "url must use https"],
    ["ftp://api.hotelx.example/", "url must use https"],
    ["not a url", "url must be an absolute URL"],
    ["https://user:pw@api.hotelx.example/", "url must not contain credentials"],
    ["https://localhost/", "url must not point to a local host name"],
    ["https://localhost./", "url must not point to a local host name"],
    ["https://sandbox.internal/", "url must not point to a local host name"],
    ["https://127.0.0.1/", "url must not point to a private, loopback or link-local address"],
    ["https://127.1/", "url must not point to a private, loopback or link-local address"],
    ["https://2130706433/", "url must not point to a private, loopback or link-local address"],
    ["https://0177.0.0.1/", "url must not point to a private, loopback or link-local address"],
    ["https://0x7f.0.0.1/", "url must not point to a private, loopback or link-local address"],
    ["https://10.1.2.3/", "url must not point to a private, loopback or link-local address"],
    ["https://172.16.0.1/", "url must not point to a private, loopback or link-local address"],
    ["https://192.168.0.10/", "url must not point to a private, loopback or link-local address"],
    ["https://169.254.169.254/latest/meta-data", "url must not point to a private, loopback or link-local address"],
    ["https://0.0.0.0/", "url must not point to a private, loopback or link-local address"],
    ["https://[::1]/", "url must not point to a private, loopback or link-local address"],
    ["https://[::ffff:127.0.0.1]/", "url must not point to a private, loopback or link-local address"],
    ["https://[::ffff:a9fe:a9fe]/", "url must not point to a private, loopback or link-local address"],
    ["https://[fe80::1]/", "url must not point to a private, loopback or link-local address"],
    ["https://[fd00::1]/", "url must not point to a private, loopback or link-local address"],
    ["https://[64:ff9b::7f00:1]/", "url must not point to a private, loopback or link-local address"],
    ["https://[::ffff:0:a9fe:a9fe]/", "url must not point to a private, loopback or link-local address"],
    ["https://api.hotelx.example:0/", "url must not use port 0"],
    ["http://127.0.0.1/", "url must use https"],
    ["http://localhost:8791/", "url must use https"],
  ])("refuses %s: %s", async (url, message) => {
    const res = await op("PUT", "/api/connections/con_demo_b2b/upstream", { ...valid, url });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(message);
    expect(await rowOf("con_demo_b2b")).toBeNull();
  });

  it("allows http://127.0.0.1:<port> only in local development", async () => {
    const id = await newConnection();
    const local = await op("PUT", `/api/connections/${id}/upstream`, { ...valid, url: "http://127.0.0.1:8791/" });
    expect(local.status).toBe(200);
    expect(local.json.data.url).toBe("http://127.0.0.1:8791/");
    const db = database(env.DB);
    const deployed = { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, local: false };
    await expect(
      setUpstream(db, deployed, id, { ...valid, kind: "hotelx", url: "http://127.0.0.1:8791/" }),
    ).rejects.toMatchObject({ status: 400, message: "url must use https" });
    expect(
      await setUpstream(db, deployed, id, { ...valid, kind: "hotelx", url: "https://8.8.8.8/graphql" }),
    ).toMatchObject({ url: "https://8.8.8.8/graphql" });
  });
});

describe("/api/operator/suppliers and /api/connections/:id/suppliers (issue 39)", () => {
  const supplier = {
    code: "hotelx-acme",
    kind: "hotelx",
    name: "Acme",
    settings: { ...valid, kind: undefined, credentials: { apiKey: SECRET }, currency: "gbp" },
  };
  const sealedOf = (code: string) =>
    env.DB.prepare("select sealed_credentials from suppliers where code = ?")
      .bind(code)
      .first<string>("sealed_credentials");

  it("creates, reads masked, replaces settings (credentials kept, replaced or cleared) and refuses what is not a supplier", async () => {
    const created = await op("POST", "/api/operator/suppliers", supplier);
    expect(created.status, created.text).toBe(201);
    expect(created.json.data).toMatchObject({
      code: "hotelx-acme",
      kind: "hotelx",
      name: "Acme",
      settings: { url: valid.url, client: "edgestay", context: "HOTELX", currency: "GBP", hotelCodes: "mapped" },
      credentials: { apiKey: "********" },
      active: true,
    });
    expect(created.json.data.settings).not.toHaveProperty("credentials");
    expect((await op("POST", "/api/operator/suppliers", supplier)).status).toBe(409);
    for (const bad of [
      { ...supplier, code: "Has_Caps" },
      { ...supplier, code: "x" },
      { ...supplier, kind: "embedded", code: "embedded-2" },
      { ...supplier, kind: "nope" },
      { ...supplier, code: "hotelx-nokey", settings: { ...supplier.settings, credentials: undefined } },
      { ...supplier, code: "hotelx-http", settings: { ...supplier.settings, url: "http://api.example/" } },
    ]) {
      const res = await op("POST", "/api/operator/suppliers", bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    const list = await op("GET", "/api/operator/suppliers");
    expect(list.json.data.items.map((s: any) => s.code)).toEqual(expect.arrayContaining(["embedded", "hotelx-acme"]));
    expect((await op("GET", "/api/operator/suppliers/hotelx-acme")).json.data.credentials).toEqual({
      apiKey: "********",
    });
    expect((await op("GET", "/api/operator/suppliers/nope")).status).toBe(404);

    const sealed = await sealedOf("hotelx-acme");
    const { credentials: _, ...withoutCredentials } = supplier.settings;
    const kept = await op("PUT", "/api/operator/suppliers/hotelx-acme", {
      name: "Acme 2",
      settings: { ...withoutCredentials, timeout: 3000 },
    });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json.data).toMatchObject({
      name: "Acme 2",
      settings: { timeout: 3000 },
      credentials: { apiKey: "********" },
    });
    expect(await sealedOf("hotelx-acme")).toBe(sealed);
    // The whole settings are replaced: what is not sent takes its default.
    const replaced = await op("PUT", "/api/operator/suppliers/hotelx-acme", {
      name: "Acme 2",
      settings: { ...withoutCredentials, currency: undefined, credentials: { apiKey: "another-key" } },
    });
    expect(replaced.json.data.settings).toMatchObject({ currency: "EUR" });
    expect(replaced.json.data.settings).not.toHaveProperty("timeout");
    expect(await sealedOf("hotelx-acme")).not.toBe(sealed);
    const cleared = await op("PUT", "/api/operator/suppliers/hotelx-acme", {
      name: "Acme 2",
      settings: { ...withoutCredentials, credentials: null },
    });
    expect(cleared.json.data.credentials).toBeNull();
    expect(await sealedOf("hotelx-acme")).toBeNull();
    for (const res of [created, list, kept, replaced, cleared]) expect(res.text).not.toContain(SECRET);
    expect(logged()).not.toContain(SECRET);
  });

  it("a connection sells [embedded] until told otherwise; unknown codes are 400 naming them; a sold supplier is not deleted", async () => {
    const id = await newConnection();
    expect((await op("GET", `/api/connections/${id}/suppliers`)).json.data).toEqual({
      suppliers: [{ code: "embedded" }],
    });
    await op("POST", "/api/operator/suppliers", { ...supplier, code: "hotelx-sold" });
    const unknown = await op("PUT", `/api/connections/${id}/suppliers`, {
      suppliers: [{ code: "embedded" }, { code: "nowhere" }],
    });
    expect([unknown.status, unknown.json.code, unknown.json.message]).toEqual([
      400,
      "unknown_supplier",
      "Unknown supplier: nowhere",
    ]);
    const twice = await op("PUT", `/api/connections/${id}/suppliers`, {
      suppliers: [{ code: "embedded" }, { code: "embedded" }],
    });
    expect(twice.status).toBe(400);
    expect((await op("PUT", `/api/connections/${id}/suppliers`, { suppliers: [] })).status).toBe(400);
    expect(
      (await op("PUT", "/api/connections/con_nowhere/suppliers", { suppliers: [{ code: "embedded" }] })).status,
    ).toBe(404);
    const order = { suppliers: [{ code: "hotelx-sold" }, { code: "embedded" }] };
    expect((await op("PUT", `/api/connections/${id}/suppliers`, order)).json.data).toEqual(order);
    expect((await op("GET", `/api/connections/${id}/suppliers`)).json.data).toEqual(order);

    const refused = await op("DELETE", "/api/operator/suppliers/hotelx-sold");
    expect([refused.status, refused.json.code]).toEqual([409, "supplier_in_use"]);
    expect((await op("DELETE", "/api/operator/suppliers/embedded")).status).toBe(409);
    await op("PUT", `/api/connections/${id}/suppliers`, { suppliers: [{ code: "embedded" }] });
    const deleted = await op("DELETE", "/api/operator/suppliers/hotelx-sold");
    expect(deleted.status).toBe(200);
    expect((await op("GET", "/api/operator/suppliers/hotelx-sold")).status).toBe(404);
  });
});
