import {
  abortAllDurableObjects,
  createExecutionContext,
  env,
  runDurableObjectAlarm,
  waitOnExecutionContext,
} from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { asBearer, createUser, demoAdminToken, loginAs, otherAdminToken } from "../../../test/support/sessions";
import { DEMO, DEMO_UPSTREAM_CONNECTION, OTHER } from "../../../test/support/accounts";
import { DEMO_KEY, textWithoutRequestId } from "../../../test/support/api";
import { bookBody, cancelBody, quoteBody, searchBody } from "../../../test/support/booking";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { inDays } from "../../../test/support/clock";
import { seedSandboxHotels } from "../../../test/support/seed";
import worker from "../../index";
import { NEW_YORK, say, startSession } from "../../../test/support/chat";

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

describe("GET /api/partner/usage", () => {
  /**
   * A search through the Worker's own fetch with an execution context the test waits on: the count
   * is kept after the answer (waitUntil), and the test reads usage only once it is kept.
   */
  const search = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`https://edgestay.test${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "api-key": DEMO_KEY, ...headers },
        body: JSON.stringify(body),
      }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return { status: res.status, json: (await res.json()) as any };
  };
  const usage = (token: string, from = inDays(-1), to = inDays(1)) =>
    asBearer(token).get(`/api/partner/usage?from=${from}&to=${to}`);
  const codes = (...list: string[]) => ({ destinations: { accommodations: list.map((code) => ({ code })) } });
  const N = 8;
  const stayOf = (body: { searchCriteria: { occupancies: unknown; checkIn: string; checkOut: string } }) => ({
    occupancies: body.searchCriteria.occupancies,
    checkIn: body.searchCriteria.checkIn,
    checkOut: body.searchCriteria.checkOut,
  });

  it("counts every search under its outcome (success, invalid_dates, 429, a supplier timeout), parallel ones exactly, and quote, book (not its replay) and cancel; exact again after the roll-up and a restart; another partner sees none of it", async () => {
    await seedSandboxHotels(env.DB, ["HXSLOW2000"]);
    await seedDemoAccommodations(env.DB, { accommodations: 3 });
    const first = await search("/api/search", searchBody(codes("US000001")));
    expect(first.status).toBe(200);
    // Quote, book and cancel count under their own operations (a replayed book is not a new call).
    const option = first.json.data.accommodations[0].options.find((o: { isRefundable: boolean }) => o.isRefundable);
    const searched = { accommodationCode: "US000001", option, ...first.json.data, ...stayOf(searchBody({})) };
    const quoted = await search("/api/quote", quoteBody(searched));
    expect(quoted.status, JSON.stringify(quoted.json)).toBe(200);
    const book = () =>
      search("/api/book", bookBody(quoted.json.data, "usage-1"), { "idempotency-key": "usage-book-1" });
    const booked = await book();
    expect(booked.status, JSON.stringify(booked.json)).toBe(200);
    expect((await book()).status).toBe(200);
    const cancelled = await search("/api/cancel", cancelBody(booked.json.data.bookingReference));
    expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
    const wrongDates = await search(
      "/api/search",
      searchBody({ ...codes("US000001"), checkIn: inDays(32), checkOut: inDays(30) }),
    );
    expect([wrongDates.status, wrongDates.json.code]).toEqual([400, "invalid_dates"]);
    const parallel = await Promise.all(
      Array.from({ length: N }, (_, i) => search("/api/search", searchBody(codes(`US00000${i + 1}`)))),
    );
    expect(parallel.map((r) => r.status)).toEqual(Array(N).fill(200));
    // The Hotel-X face counts as a search too.
    const tgx = await search("/api/search/tgx", {
      criteria: {
        checkIn: inDays(30),
        checkOut: inDays(32),
        hotels: ["US000001"],
        occupancies: [{ paxes: [{ age: 30 }] }],
      },
      settings: { access: { code: DEMO.connection.code } },
    });
    expect(tgx.status).toBe(200);
    // So does each search field of a GraphQL document, and a search in chat (counted in its session object).
    const graphql = await search(
      "/api/graphql",
      {
        query:
          "query S($criteria: HotelCriteriaSearchInput!) { hotelX { search(criteria: $criteria) { options { id } } } }",
        variables: {
          criteria: {
            checkIn: inDays(30),
            checkOut: inDays(32),
            hotels: ["US000001"],
            occupancies: [{ paxes: [{ age: 30 }] }],
          },
        },
      },
      { "access-code": String(DEMO.connection.code) },
    );
    expect([graphql.status, graphql.json.errors]).toEqual([200, undefined]);
    await say(await startSession("usage-actor"), NEW_YORK);
    // The sandbox answers HXSLOW2000 after 2 s; the search waits 300 ms: answered, with the supplier's timeout.
    const late = await search(
      "/api/search",
      searchBody(codes("HXSLOW2000"), {
        settings: { access: { code: DEMO_UPSTREAM_CONNECTION.connection.code }, timeout: "300" },
      }),
    );
    expect(late.json.data.warnings.map((w: { code: string }) => w.code)).toEqual(["supplier_timeout"]);
    await env.DB.prepare("UPDATE connections SET rate_limit = 1, rate_limit_window_ms = 3600000 WHERE code = ?")
      .bind(DEMO.connection.code)
      .run();
    const limited = await search("/api/search", searchBody(codes("US000001")));
    expect([limited.status, limited.json.code]).toEqual([429, "rate_limit_exceeded"]);

    const expected = {
      searches: N + 7,
      quotes: 1,
      books: 1,
      cancels: 1,
      outcomes: { success: N + 8, invalid_dates: 1, rate_limit_exceeded: 1 },
      supplierTimeouts: 1,
    };
    const read = async (token: string) => {
      const res = await usage(token);
      expect(res.status, res.text).toBe(200);
      return res.json.data;
    };
    const before = await read(admin);
    expect(before.totals).toEqual(expected);
    expect(before.lookToBook).toBe(N + 7);
    expect(before.days.map((d: { date: string }) => d.date)).toEqual([inDays(-1), inDays(0), inDays(1)]);
    expect(before.days.find((d: { searches: number }) => d.searches > 0)).toEqual({ date: inDays(0), ...expected });
    expect(before.days[2]).toEqual({
      date: inDays(1),
      searches: 0,
      quotes: 0,
      books: 0,
      cancels: 0,
      outcomes: {},
      supplierTimeouts: 0,
    });

    // Nothing in D1 yet: the counts are the connections' objects'. Their alarms roll them up, once.
    const rows = () =>
      env.DB.prepare("SELECT SUM(count) AS n FROM connection_usage WHERE partner_id = 'demo'").first("n");
    expect(await rows()).toBeNull();
    for (const id of [DEMO.connection.id, DEMO_UPSTREAM_CONNECTION.connection.id])
      expect(await runDurableObjectAlarm(env.CONNECTION_USAGE.getByName(id))).toBe(true);
    expect(await rows()).toBe(expected.searches + 3);
    expect((await read(userToken)).totals).toEqual(expected);
    // A roll-up applied again (its batch committed, the object failed before forgetting it) adds nothing.
    await env.CONNECTION_USAGE.getByName(DEMO.connection.id).rollUp();
    expect(await rows()).toBe(expected.searches + 3);

    // Counted after the roll-up, and the objects restarted before their next alarm: nothing is lost.
    const more = await search("/api/search", searchBody(codes("US000001")));
    expect(more.status).toBe(429);
    await abortAllDurableObjects();
    const after = await read(admin);
    expect(after.totals).toEqual({
      ...expected,
      searches: expected.searches + 1,
      outcomes: { ...expected.outcomes, rate_limit_exceeded: 2 },
    });

    const other = await read(await otherAdminToken());
    expect(other.totals).toEqual({ searches: 0, quotes: 0, books: 0, cancels: 0, outcomes: {}, supplierTimeouts: 0 });
  });

  it("a clear 400 for a reversed range, more than 92 days, or a date that is not one; 401 without a token", async () => {
    const reversed = await usage(admin, inDays(1), inDays(0));
    expect([reversed.status, reversed.json.code, reversed.json.message]).toEqual([
      400,
      "invalid_dates",
      "to must not be before from",
    ]);
    const long = await usage(admin, inDays(0), inDays(92));
    expect([long.status, long.json.message]).toEqual([400, "A usage range is at most 92 days (from and to included)"]);
    expect((await usage(admin, inDays(0), inDays(91))).json.data.days).toHaveLength(92);
    const notADate = await usage(admin, "2027-02-30", "2027-03-01");
    expect([notADate.status, notADate.json.code]).toEqual([400, "invalid_request"]);
    const missing = await asBearer(admin).get("/api/partner/usage?from=2027-03-01");
    expect(missing.status).toBe(400);
    const anonymous = await asBearer("nope").get(`/api/partner/usage?from=${inDays(0)}&to=${inDays(0)}`);
    expect(anonymous.status).toBe(401);
  });
});
