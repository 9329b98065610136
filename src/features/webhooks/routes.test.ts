import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, DEMO_KEY } from "../../../test/support/api";
import { asBearer, createUser, demoAdminToken, loginAs, otherAdminToken } from "../../../test/support/sessions";
import { MAX_ENDPOINTS_PER_PARTNER } from "./endpoints";
import { logEvent, RECEIVER } from "../../../test/support/webhooks";

const BOTH = ["booking.confirmed", "booking.cancelled"];
let demo: ReturnType<typeof asBearer>;
let other: ReturnType<typeof asBearer>;
let demoUser: ReturnType<typeof asBearer>;

beforeAll(async () => {
  const adminToken = await demoAdminToken();
  demo = asBearer(adminToken);
  other = asBearer(await otherAdminToken());
  const { profile, password } = await createUser(adminToken, "agent@webhooks.test", "user");
  demoUser = asBearer(await loginAs(profile.email, password));
});

const demoAuthHeader = async () => `Bearer ${await demoAdminToken()}`;

const create = (
  as: ReturnType<typeof asBearer>,
  url = "https://partner.example/hooks/edgestay",
  events: unknown = BOTH,
) => as.post("/api/partner/webhooks", { url, events });

describe("POST /api/partner/webhooks", () => {
  it("creates an endpoint and shows its whsec_ secret in this answer only, sealed at rest", async () => {
    const res = await create(demo);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      data: {
        id: expect.stringMatching(/^wh_[0-9a-f]{32}$/),
        url: "https://partner.example/hooks/edgestay",
        events: BOTH,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
        createdAt: expect.any(String),
      },
      message: "success",
    });
    const { id, secret } = res.json.data;

    const list = await demo.get("/api/partner/webhooks");
    expect(list.status).toBe(200);
    expect(list.json.data).toContainEqual({
      id,
      url: "https://partner.example/hooks/edgestay",
      events: BOTH,
      createdAt: res.json.data.createdAt,
    });
    expect(list.text).not.toContain("whsec_");

    const row = await env.DB.prepare("SELECT * FROM webhook_endpoints WHERE id = ?")
      .bind(id)
      .first<Record<string, string>>();
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(row!.sealed_secret).toMatch(/^v1\./);
  });

  it("refuses a user who is not a partner admin with 403, on every webhook route", async () => {
    const own = (await create(demo)).json.data.id;
    for (const res of [
      await create(demoUser),
      await demoUser.get("/api/partner/webhooks"),
      await demoUser.del(`/api/partner/webhooks/${own}`),
      await demoUser.get(`/api/partner/webhooks/${own}/deliveries`),
      await demoUser.post(`/api/partner/webhooks/${own}/deliveries/evt_x/redeliver`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.json.message).toBe("Require partner admin role");
    }
    expect((await call("GET", "/api/partner/webhooks", undefined, { apiKey: null })).status).toBe(401);
    expect((await call("GET", "/api/partner/webhooks", undefined, { apiKey: DEMO_KEY })).status).toBe(401);
  });

  it.each([
    ["http://partner.example/hooks", "url must use https"],
    ["ftp://partner.example/hooks", "url must use https"],
    ["not a url", "url must be an absolute URL"],
    ["https://user:pass@partner.example/hooks", "url must not contain credentials"],
    ["https://localhost/hooks", "url must not point to a local host name"],
    ["https://api.localhost/hooks", "url must not point to a local host name"],
    ["https://intranet/hooks", "url must not point to a local host name"],
    ["https://10.1.2.3/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://172.20.0.1/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://192.168.1.10/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://127.0.0.1/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://2130706433/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://169.254.169.254/latest/meta-data", "url must not point to a private, loopback or link-local address"],
    ["https://[::1]/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://[::ffff:10.0.0.1]/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://[fd00::1]/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://[fe80::1]/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://[64:ff9b::a9fe:a9fe]/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://[2002:a9fe:a9fe::]/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://[fec0::1]/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://192.0.2.1/hooks", "url must not point to a private, loopback or link-local address"],
    ["https://partner.example:0/hooks", "url must not use port 0"],
    ["http://127.0.0.1/hooks", "url must use https"],
    ["http://localhost:8080/hooks", "url must use https"],
  ])("refuses %s with 400", async (url, message) => {
    const res = await create(demo, url);
    expect(res.status, res.text).toBe(400);
    expect(res.json).toMatchObject({ message, code: "invalid_webhook_url" });
  });

  it("accepts http://127.0.0.1:<port> in local development only", async () => {
    const res = await create(demo, `${RECEIVER}/hooks/local-only`);
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.url).toBe(`${RECEIVER}/hooks/local-only`);
  });

  it.each([
    [{ url: "https://partner.example/h" }, "events is required"],
    [{ url: "https://partner.example/h", events: [] }, "events: Too small: expected array to have >=1 items"],
    [
      { url: "https://partner.example/h", events: ["booking.created"] },
      'events[0]: Invalid option: expected one of "booking.confirmed"|"booking.pending"|"booking.failed"|"booking.held"|"booking.hold_expired"|"booking.committed"|"booking.modified"|"booking.room_cancelled"|"booking.cancelled"',
    ],
    [
      { url: "https://partner.example/h", events: "booking.confirmed" },
      "events: Invalid input: expected array, received string",
    ],
    [
      { url: "https://partner.example/h", events: ["booking.confirmed", "booking.confirmed"] },
      "events: must not repeat an event type",
    ],
    [{ events: BOTH }, "url is required"],
    [{ url: 42, events: BOTH }, "url: Invalid input: expected string, received number"],
  ])("refuses body %j with 400", async (body, message) => {
    const res = await demo.post("/api/partner/webhooks", body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.message).toBe(message);
  });

  it("refuses malformed JSON with 400", async () => {
    const res = await call("POST", "/api/partner/webhooks", undefined, {
      apiKey: null,
      raw: '{"url": "https://x.example",',
      headers: { authorization: await demoAuthHeader(), "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("Malformed JSON in request body");
  });

  it(`caps a partner at ${MAX_ENDPOINTS_PER_PARTNER} endpoints, even under parallel requests`, async () => {
    const before = (await other.get("/api/partner/webhooks")).json.data.length;
    const results = await Promise.all(
      Array.from({ length: MAX_ENDPOINTS_PER_PARTNER + 4 }, (_, i) =>
        create(other, `https://other.example/hooks/${i}`),
      ),
    );
    const created = results.filter((r) => r.status === 201).length;
    expect(created).toBe(MAX_ENDPOINTS_PER_PARTNER - before);
    for (const refused of results.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.json.message).toBe(`A partner can have at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints`);
    }
    expect((await other.get("/api/partner/webhooks")).json.data).toHaveLength(MAX_ENDPOINTS_PER_PARTNER);
    await env.DB.prepare("DELETE FROM webhook_endpoints WHERE partner_id = 'other'").run();
  });
});

describe("another partner's endpoint", () => {
  it("is 404 on delete, deliveries and redeliver, and absent from the list", async () => {
    const mine = (await create(demo, "https://partner.example/hooks/isolated")).json.data.id;
    for (const res of [
      await other.del(`/api/partner/webhooks/${mine}`),
      await other.get(`/api/partner/webhooks/${mine}/deliveries`),
      await other.post(`/api/partner/webhooks/${mine}/deliveries/evt_x/redeliver`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.json.message).toBe("Webhook endpoint not found");
    }
    expect((await other.get("/api/partner/webhooks")).json.data.map((w: any) => w.id)).not.toContain(mine);
    expect((await demo.get("/api/partner/webhooks")).json.data.map((w: any) => w.id)).toContain(mine);
  });
});

describe("DELETE /api/partner/webhooks/:id", () => {
  it("deletes the endpoint and its delivery records; a second delete is 404", async () => {
    const id = (await create(demo, "https://partner.example/hooks/deleted")).json.data.id;
    await logEvent("BK-DEL-1");
    expect((await demo.get(`/api/partner/webhooks/${id}/deliveries`)).json.data.deliveries.length).toBeGreaterThan(0);
    const res = await demo.del(`/api/partner/webhooks/${id}`);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      id,
      url: "https://partner.example/hooks/deleted",
      events: BOTH,
      createdAt: expect.any(String),
    });
    expect((await demo.get("/api/partner/webhooks")).json.data.map((w: any) => w.id)).not.toContain(id);
    expect(
      (await env.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?")
        .bind(id)
        .first<{ n: number }>())!.n,
    ).toBe(0);
    const again = await demo.del(`/api/partner/webhooks/${id}`);
    expect(again.status).toBe(404);
  });
});

describe("GET /api/partner/webhooks/:id/deliveries", () => {
  it("pages newest first with a cursor, showing attempts, last status code and next try", async () => {
    await env.DB.prepare("DELETE FROM webhook_endpoints WHERE partner_id = 'demo'").run();
    const id = (await create(demo, "https://partner.example/hooks/paged")).json.data.id;
    const start = Date.parse("2030-01-01T00:00:00.000Z");
    for (let i = 0; i < 5; i++) await logEvent(`BK-PAGE-${i}`, start + i * 1000);

    const first = await demo.get(`/api/partner/webhooks/${id}/deliveries?limit=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.json.data.deliveries.map((d: any) => d.bookingReference)).toEqual(["BK-PAGE-4", "BK-PAGE-3"]);
    expect(first.json.data.deliveries[0]).toEqual({
      eventId: expect.stringMatching(/^evt_/),
      type: "booking.confirmed",
      bookingReference: "BK-PAGE-4",
      status: "pending",
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      lastAttemptAt: null,
      nextAttemptAt: "2030-01-01T00:00:04.000Z",
      deliveredAt: null,
      createdAt: "2030-01-01T00:00:04.000Z",
    });
    const second = await demo.get(
      `/api/partner/webhooks/${id}/deliveries?limit=2&cursor=${first.json.data.nextCursor}`,
    );
    expect(second.json.data.deliveries.map((d: any) => d.bookingReference)).toEqual(["BK-PAGE-2", "BK-PAGE-1"]);
    const third = await demo.get(
      `/api/partner/webhooks/${id}/deliveries?limit=2&cursor=${second.json.data.nextCursor}`,
    );
    expect(third.json.data).toEqual({
      deliveries: [expect.objectContaining({ bookingReference: "BK-PAGE-0" })],
      nextCursor: null,
    });
  });

  it("refuses a bad cursor or limit with 400, and an unknown event on redeliver with 404", async () => {
    const id = (await create(demo, "https://partner.example/hooks/bad-page")).json.data.id;
    for (const query of ["cursor=%21%21", "cursor=bm9wZQ", "limit=0", "limit=101", "limit=ten"]) {
      const res = await demo.get(`/api/partner/webhooks/${id}/deliveries?${query}`);
      expect(res.status, query).toBe(400);
    }
    const unknown = await demo.post(`/api/partner/webhooks/${id}/deliveries/evt_nope/redeliver`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe("Webhook event not found");
  });
});

describe("OpenAPI", () => {
  it("describes every webhook route", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    expect(Object.keys(doc.paths["/api/partner/webhooks"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/api/partner/webhooks/{id}"])).toEqual(["delete"]);
    expect(Object.keys(doc.paths["/api/partner/webhooks/{id}/deliveries"])).toEqual(["get"]);
    expect(Object.keys(doc.paths["/api/partner/webhooks/{id}/deliveries/{eventId}/redeliver"])).toEqual(["post"]);
    expect(doc.paths["/api/partner/webhooks"].post.security).toEqual([{ Bearer: [] }]);
    expect(
      doc.paths["/api/partner/webhooks"].post.responses["201"].content["application/json"].schema.properties.data,
    ).toEqual({ $ref: "#/components/schemas/CreatedWebhook" });
    expect(JSON.stringify(doc.components.schemas.CreatedWebhook)).toContain('"secret"');
    expect(JSON.stringify(doc.components.schemas.Webhook)).not.toContain("secret");
  });
});
