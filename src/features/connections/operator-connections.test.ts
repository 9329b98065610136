import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, DEMO_KEY } from "../../../test/support/api";
import { OPERATOR } from "../../../test/support/sessions";

const op = (method: string, path: string, body?: unknown) => call(method, path, body, OPERATOR);
const valid = {
  partnerId: "demo",
  apiType: "cug",
  connectionType: "tgx",
  rateLimit: 100,
  rateLimitWindowMs: 1000,
  netMarkups: 1.5,
};
const create = async (overrides: Record<string, unknown> = {}) => {
  const res = await op("POST", "/api/connections", { ...valid, ...overrides });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data;
};
const CONFLICT = "Another connection is already currentInUse for this partner/apiType/connectionType";

describe("operator authentication on /api/connections", () => {
  it.each([
    ["no token", {}, 401],
    ["a partner API key", { "api-key": DEMO_KEY }, 401],
    ["a wrong bearer token", { authorization: `Bearer ${DEMO_KEY}` }, 403],
  ])("refuses %s", async (_name, headers, status) => {
    for (const [method, path] of [
      ["GET", "/api/connections"],
      ["POST", "/api/connections"],
      ["PUT", "/api/connections/con_demo_b2b/enable"],
      ["DELETE", "/api/connections/con_demo_b2b"],
    ] as const) {
      const res = await call(method, path, method === "POST" ? valid : undefined, { apiKey: null, headers });
      expect(res.status).toBe(status);
      expect(res.json).not.toHaveProperty("data");
    }
  });
});

describe("POST /api/connections", () => {
  it("creates with a server-assigned numeric code, defaults and every field of 2.4", async () => {
    const a = await create({ rateName: "Net CUG", notificationEmail: "alerts@demo.test" });
    expect(a).toMatchObject({
      ...valid,
      rateName: "Net CUG",
      notificationEmail: "alerts@demo.test",
      currentInUse: false,
    });
    expect(a.id).toMatch(/^con_[0-9a-f]{32}$/);
    expect(Number.isInteger(a.code)).toBe(true);
    expect(a.code).toBeGreaterThan(2001);
    // The server assigns the code: one in the body is refused by name (issue 37), not silently replaced.
    const withCode = await op("POST", "/api/connections", { ...valid, code: 5 });
    expect([withCode.status, withCode.json.message]).toEqual([400, "Unknown field: code"]);
    const b = await create({});
    expect(b.code).toBe(a.code + 1);
  });

  it("gives concurrent creations distinct codes", async () => {
    const made = await Promise.all(Array.from({ length: 6 }, () => op("POST", "/api/connections", valid)));
    expect(made.map((r) => r.status)).toEqual(Array(6).fill(201));
    const codes = made.map((r) => r.json.data.code);
    expect(new Set(codes).size).toBe(6);
  });

  it("404 Partner not found", async () => {
    const res = await op("POST", "/api/connections", { ...valid, partnerId: "ghost" });
    expect(res.status).toBe(404);
    expect(res.json.message).toBe("Partner not found");
  });

  it("409 when created in use beside one already in use", async () => {
    const res = await op("POST", "/api/connections", {
      ...valid,
      apiType: "b2b",
      connectionType: "direct",
      currentInUse: true,
    });
    expect(res.status).toBe(409);
    expect(res.json.message).toBe(CONFLICT);
  });

  it.each([
    ["apiType", { apiType: "private" }],
    ["connectionType", { connectionType: "ftp" }],
    ["rateLimit", { rateLimit: -1 }],
    ["rateLimit", { rateLimit: 1.5 }],
    ["rateLimit", { rateLimit: "10" }],
    ["rateLimitWindowMs", { rateLimitWindowMs: -5 }],
    ["netMarkups", { netMarkups: -0.1 }],
    ["notificationEmail", { notificationEmail: "nope" }],
    ["currentInUse", { currentInUse: "yes" }],
    ["partnerId", { partnerId: "" }],
    ["rateName", { rateName: 7 }],
  ])("rejects a bad %s with 400", async (field, overrides) => {
    const res = await op("POST", "/api/connections", { ...valid, ...overrides });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain(field);
  });

  it.each(["apiType", "connectionType", "rateLimit", "rateLimitWindowMs", "netMarkups", "partnerId"])(
    "requires %s",
    async (field) => {
      const body: Record<string, unknown> = { ...valid };
      delete body[field];
      const res = await op("POST", "/api/connections", body);
      expect(res.status).toBe(400);
      expect(res.json.message).toContain(field);
    },
  );

  it("rejects malformed JSON with 400", async () => {
    const res = await call("POST", "/api/connections", undefined, {
      ...OPERATOR,
      raw: "{",
      headers: { ...OPERATOR.headers, "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Malformed JSON in request body");
  });
});

describe("GET /api/connections", () => {
  it("pages with items + pagination, filters by partner, and validates the query", async () => {
    const all = await op("GET", "/api/connections?size=2");
    expect(all.status).toBe(200);
    const total = (await env.DB.prepare("select count(*) n from connections").first<{ n: number }>())!.n;
    expect(all.json.data.pagination).toEqual({ page: 1, size: 2, total, totalPages: Math.ceil(total / 2) });
    expect(all.json.data.items).toHaveLength(2);
    expect(all.json.data.items[0].code).toBe(1001);

    const seen: number[] = [];
    for (let page = 1; page <= all.json.data.pagination.totalPages; page++) {
      seen.push(
        ...(await op("GET", `/api/connections?size=2&page=${page}`)).json.data.items.map(
          (c: { code: number }) => c.code,
        ),
      );
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);

    const other = await op("GET", "/api/connections?partnerId=other");
    expect(other.json.data.items.map((c: { id: string }) => c.id)).toEqual(["con_other_b2b"]);
    expect(other.json.data.pagination).toMatchObject({ page: 1, size: 20, total: 1, totalPages: 1 });

    const empty = await op("GET", "/api/connections?partnerId=ghost");
    expect(empty.json.data).toEqual({ items: [], pagination: { page: 1, size: 20, total: 0, totalPages: 0 } });

    for (const query of ["page=0", "size=0", "size=101", "page=abc", "size=1.5"]) {
      const res = await op("GET", `/api/connections?${query}`);
      expect(res.status, query).toBe(400);
    }
  });
});

describe("GET, PATCH, DELETE /api/connections/:id", () => {
  it("reads one, 404 Connection not found otherwise", async () => {
    expect((await op("GET", "/api/connections/con_demo_b2b")).json.data).toMatchObject({
      code: 1001,
      partnerId: "demo",
    });
    const res = await op("GET", "/api/connections/con_nope");
    expect(res.status).toBe(404);
    expect(res.json.message).toBe("Connection not found");
  });

  it("updates given fields only, clears with null, validates, keeps the code", async () => {
    const made = await create({ rateName: "before", notificationEmail: "x@demo.test" });
    const res = await op("PATCH", `/api/connections/${made.id}`, {
      rateLimit: 0,
      rateName: null,
      notificationEmail: null,
      netMarkups: 2,
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      id: made.id,
      code: made.code,
      rateLimit: 0,
      rateName: null,
      notificationEmail: null,
      netMarkups: 2,
      apiType: "cug",
    });
    expect(res.json.data.updatedAt >= made.updatedAt).toBe(true);
    expect((await op("PATCH", `/api/connections/${made.id}`, { rateLimit: -1 })).status).toBe(400);
    expect((await op("PATCH", `/api/connections/${made.id}`, { apiType: "nope" })).status).toBe(400);
    const noPartner = await op("PATCH", `/api/connections/${made.id}`, { partnerId: "ghost" });
    expect(noPartner.status).toBe(404);
    expect(noPartner.json.message).toBe("Partner not found");
    const missing = await op("PATCH", "/api/connections/con_nope", { rateLimit: 1 });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe("Connection not found");
  });

  it("409 when a PATCH would put a second connection in use", async () => {
    const made = await create({ apiType: "b2b", connectionType: "direct" });
    const res = await op("PATCH", `/api/connections/${made.id}`, { currentInUse: true });
    expect(res.status).toBe(409);
    expect(res.json.message).toBe(CONFLICT);
  });

  it("deletes, returning what was deleted; then 404", async () => {
    const made = await create();
    const res = await op("DELETE", `/api/connections/${made.id}`);
    expect(res.status).toBe(200);
    expect(res.json.data.id).toBe(made.id);
    expect((await op("GET", `/api/connections/${made.id}`)).status).toBe(404);
    expect((await op("DELETE", `/api/connections/${made.id}`)).status).toBe(404);
  });
});

describe("PUT /api/connections/:id/enable and /disable (spec 3.3)", () => {
  it("enables when none other is in use, 409 when one is, and disable frees the slot", async () => {
    const first = await create({ apiType: "mobile", connectionType: "metasearch" });
    const second = await create({ apiType: "mobile", connectionType: "metasearch" });
    const on = await op("PUT", `/api/connections/${first.id}/enable`);
    expect(on.status).toBe(200);
    expect(on.json.data.currentInUse).toBe(true);
    expect((await op("PUT", `/api/connections/${first.id}/enable`)).status).toBe(200);

    const clash = await op("PUT", `/api/connections/${second.id}/enable`);
    expect(clash.status).toBe(409);
    expect(clash.json.message).toBe(CONFLICT);
    expect((await op("GET", `/api/connections/${second.id}`)).json.data.currentInUse).toBe(false);

    // Another partner, or another apiType, is a different slot.
    const otherPartner = await create({ partnerId: "other", apiType: "mobile", connectionType: "metasearch" });
    expect((await op("PUT", `/api/connections/${otherPartner.id}/enable`)).status).toBe(200);

    const off = await op("PUT", `/api/connections/${first.id}/disable`);
    expect(off.json.data.currentInUse).toBe(false);
    expect((await op("PUT", `/api/connections/${second.id}/enable`)).status).toBe(200);
  });

  it("lets exactly one of two concurrent enables win; the database decides", async () => {
    for (let round = 0; round < 3; round++) {
      const a = await create({ apiType: "public", connectionType: "direct" });
      const b = await create({ apiType: "public", connectionType: "direct" });
      const results = await Promise.all([
        op("PUT", `/api/connections/${a.id}/enable`),
        op("PUT", `/api/connections/${b.id}/enable`),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(results.find((r) => r.status === 409)!.json.message).toBe(CONFLICT);
      const inUse = await env.DB.prepare(
        "select count(*) n from connections where partner_id = 'demo' and api_type = 'public' and connection_type = 'direct' and current_in_use = 1",
      ).first<{ n: number }>();
      expect(inUse!.n).toBe(1);
      // Free the slot for the next round.
      const winner = results[0]!.status === 200 ? a : b;
      await op("PUT", `/api/connections/${winner.id}/disable`);
    }
  });

  it("404 Connection not found for enable and disable of an unknown id", async () => {
    for (const action of ["enable", "disable"]) {
      const res = await op("PUT", `/api/connections/con_nope/${action}`);
      expect(res.status).toBe(404);
      expect(res.json.message).toBe("Connection not found");
    }
  });
});

describe("DELETE /api/connections/:id of a connection with bookings", () => {
  it("answers 409 and keeps the connection and its booking", async () => {
    const { seedDemoAccommodations } = await import("../../../test/support/demo-content");
    const { searchOne, quoteOf, bookBody } = await import("../../../test/support/booking");
    await seedDemoAccommodations(env.DB, { accommodations: 3 });
    const quote = await quoteOf(await searchOne("US000001"));
    const booked = await call("POST", "/api/book", bookBody(quote, "ops-delete-guard"));
    expect(booked.status).toBe(200);
    const res = await op("DELETE", "/api/connections/con_demo_b2b");
    expect(res.status).toBe(409);
    expect(res.json.message).toBe("Connection has bookings and cannot be deleted; disable it instead");
    expect((await op("GET", "/api/connections/con_demo_b2b")).status).toBe(200);
  });
});
