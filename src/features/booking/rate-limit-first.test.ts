import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { OTHER_KEY, post, readResponse, DEMO_KEY } from "../../../test/support/api";
import { createApp } from "../../app";
import { CHAT, NEW_YORK } from "../../../test/support/chat";
import { quoteBody, searchBody, searchOne } from "../../../test/support/booking";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
});

/** Notes every SQL text prepared through a D1 binding or a session opened from it, then runs it there. */
const spyOn = <T extends object>(target: T, sql: string[]): T =>
  new Proxy(target, {
    get(t, prop) {
      const real = t as unknown as D1Database;
      if (prop === "prepare")
        return (query: string) => {
          sql.push(query);
          return real.prepare(query);
        };
      // Each request runs in a D1 session (platform/db/client.ts): its statements are noted too.
      if (prop === "withSession") return (start?: string) => spyOn(real.withSession(start), sql);
      const value = Reflect.get(t, prop, t);
      return typeof value === "function" ? value.bind(t) : value;
    },
  });

/** The real D1, with every SQL text prepared through it noted (a spy on the real binding, not a stand-in). */
const spiedEnv = () => {
  const sql: string[] = [];
  return { env: { ...env, DB: spyOn(env.DB, sql) }, sql };
};

const app = createApp();
const send = async (
  target: ReturnType<typeof spiedEnv>["env"],
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) =>
  readResponse(
    await app.request(
      `https://edgestay.test${path}`,
      {
        method: "POST",
        headers: { "content-type": "application/json", "api-key": DEMO_KEY, ...headers },
        body: JSON.stringify(body),
      },
      target,
    ),
    { method: "POST", url: path },
  );
const supplierWork = (sql: string[]) =>
  sql.filter((q) => /room_nights|rate_plan_nights|accommodation_name_|FROM accommodations/i.test(q));
const limitConnection = (code: number, limit: number) =>
  env.DB.prepare("UPDATE connections SET rate_limit = ?, rate_limit_window_ms = 3600000 WHERE code = ?")
    .bind(limit, code)
    .run();

describe("rate limits before work", () => {
  it("a search or quote refused by the connection's limit does no supplier work", async () => {
    const option = await searchOne("US000001"); // before the limit is lowered
    await limitConnection(1001, 3); // searchOne used one of these already
    const allowed = spiedEnv();
    expect(
      (await send(allowed.env, "/api/search", searchBody({ destinations: { accommodations: [{ code: "US000002" }] } })))
        .status,
    ).toBe(200);
    expect(supplierWork(allowed.sql).length).toBeGreaterThan(0); // the spy sees supplier reads when they happen
    expect((await send(spiedEnv().env, "/api/quote", quoteBody(option))).status).toBe(200);

    for (const [path, body] of [
      ["/api/search", searchBody({ destinations: { accommodations: [{ code: "US000003" }] } })],
      ["/api/search", searchBody({ accommodationName: "Inn" })],
      ["/api/quote", quoteBody(option)],
    ] as const) {
      const refused = spiedEnv();
      const res = await send(refused.env, path, body);
      expect([path, res.status, res.json.message]).toEqual([path, 429, "Rate limit exceeded"]);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(supplierWork(refused.sql)).toEqual([]);
    }
  });

  it("chat searches count against the partner's in-use connection limit as well as the chat limit", async () => {
    // The other partner's connection 2001 allows 3 calls an hour; the chat budget has the same size but its own bucket.
    await limitConnection(2001, 3);
    const chat = (body: unknown) =>
      post(`${CHAT}${"/events"}`, body, { apiKey: null, headers: { "x-partner-api-key": OTHER_KEY } });
    const session = await post(
      `${CHAT}/sessions`,
      { actor: { actorId: "limited" } },
      { apiKey: null, headers: { "x-partner-api-key": OTHER_KEY } },
    );
    expect(session.status).toBe(201);
    const searched = await chat({ sessionId: session.json.data.sessionId, text: NEW_YORK });
    expect(searched.status).toBe(200);
    expect(searched.json.data.result.status).toBe("shortlist");
    // The chat search used one of the connection's 3: core search gets the other 2, then 429.
    const core = (code: string) =>
      post(
        "/api/search",
        searchBody({ destinations: { accommodations: [{ code }] } }, { settings: { access: { code: 2001 } } }),
        { apiKey: OTHER_KEY },
      );
    expect((await core("US000004")).status).toBe(200);
    expect((await core("US000005")).status).toBe(200);
    expect((await core("US000006")).status).toBe(429);
    // Chat still has budget of its own (2 of 3 used), but the connection has none: the chat search is refused too.
    const refused = await chat({ sessionId: session.json.data.sessionId, text: NEW_YORK });
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ success: false, code: "rate_limit_exceeded" });
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
