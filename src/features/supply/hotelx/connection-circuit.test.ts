import { env } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, OTHER_KEY, post } from "../../../../test/support/api";
import { quoteBody, searchOne } from "../../../../test/support/booking";
import { inDays } from "../../../../test/support/clock";
import { demoUpstreamUrl } from "../../../../test/support/hotelx";
import { seedSandboxHotels } from "../../../../test/support/seed";
import { OPERATOR } from "../../../../test/support/sessions";
import { defaultSupplierTimeoutMs } from "../supplier-deadline";
import { circuitFor } from "../upstream-circuit";
import { hotelxSupplierName } from "./hotelx-supplier";

// Two partners on one upstream: the demo partner's connection 1002 and a connection of the other
// partner, both pointed at the sandbox Hotel-X supplier's one URL (the HOTELX_SANDBOX binding).
const DEMO_UPSTREAM = 1002;
const DEMO_CONNECTION = "con_demo_hotelx";
let otherCode: number;
let otherConnection: string;
let sharedUrl: string;

const op = (method: string, path: string, body?: unknown) => call(method, path, body, OPERATOR);
const pointOther = async (change: Record<string, unknown> = {}) => {
  const res = await op("PUT", `/api/connections/${otherConnection}/upstream`, {
    kind: "hotelx",
    url: sharedUrl,
    client: "other-trips",
    context: "SANDBOX",
    credentials: { apiKey: env.HOTELX_SANDBOX_API_KEY },
    ...change,
  });
  expect(res.status, res.text).toBe(200);
};

beforeAll(async () => {
  await seedSandboxHotels(env.DB);
  sharedUrl = await demoUpstreamUrl();
  const made = await op("POST", "/api/connections", {
    partnerId: "other",
    apiType: "b2b",
    connectionType: "tgx",
    rateLimit: 600,
    rateLimitWindowMs: 60_000,
    netMarkups: 0,
    currentInUse: true,
  });
  expect(made.status, made.text).toBe(201);
  otherConnection = made.json.data.id;
  otherCode = made.json.data.code;
});
beforeEach(async () => {
  await pointOther();
  await circuitFor(env, DEMO_CONNECTION).record(true, Date.now());
  await circuitFor(env, otherConnection).record(true, Date.now());
});

/** A search of the other partner (the attacker) on its own connection. */
const otherSearch = (codes: string[], settings: Record<string, unknown> = {}) =>
  post(
    "/api/search",
    {
      searchCriteria: {
        destinations: { accommodations: codes.map((code) => ({ code })) },
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
        checkIn: inDays(30),
        checkOut: inDays(32),
      },
      settings: { access: { code: otherCode }, ...settings },
    },
    { apiKey: OTHER_KEY },
  );
const warningOf = (res: { status: number; json: any }) => {
  expect(res.status).toBe(200);
  return res.json.data.warnings?.[0]?.code ?? null;
};
/** The demo partner's search, quote on 1002: both answered by the upstream. */
const demoStillServed = async () => {
  const option = await searchOne("HX001", { connection: DEMO_UPSTREAM });
  expect(option.option.id).toContain(hotelxSupplierName(DEMO_CONNECTION));
  const quote = await post("/api/quote", quoteBody(option, {}, DEMO_UPSTREAM));
  expect(quote.status, quote.text).toBe(200);
};

describe("the circuit is the connection's own, never the shared upstream's", () => {
  it("the other partner's short settings.timeout opens no circuit: the demo partner's search and quote on the same upstream go on, and so do its own", async () => {
    for (let i = 0; i < 6; i++)
      expect(warningOf(await otherSearch(["HX001"], { timeout: "1" }))).toBe("supplier_timeout");
    // And all at once; and a slow hotel under a 300 ms deadline (the client gives up 30 ms before the caller).
    const parallel = await Promise.all(Array.from({ length: 6 }, () => otherSearch(["HX001"], { timeout: "1" })));
    expect(parallel.map(warningOf)).toEqual(Array(6).fill("supplier_timeout"));
    for (let i = 0; i < 6; i++)
      expect(warningOf(await otherSearch(["HXSLOW2000"], { timeout: "300" }))).toBe("supplier_timeout");
    await demoStillServed();
    expect(warningOf(await otherSearch(["HX001"]))).toBeNull();
    expect(await circuitFor(env, otherConnection).allow(Date.now())).toEqual({ allowed: true });
  });

  it("a 5xx five times in a row opens the other partner's circuit only", async () => {
    for (let i = 0; i < 5; i++) expect(warningOf(await otherSearch(["HX500"]))).toBe("supplier_error");
    expect(warningOf(await otherSearch(["HX001"]))).toBe("supplier_unavailable");
    await demoStillServed();
  });

  it("an upstream that cannot be reached opens that connection's circuit", async () => {
    // Nothing listens on port 9 here: the request fails before any HTTP answer.
    await pointOther({ url: "http://127.0.0.1:9/" });
    for (let i = 0; i < 5; i++) {
      const res = await otherSearch(["HX001"]);
      expect(warningOf(res)).toBe("supplier_error");
      expect(res.json.data.warnings[0].message).toContain("could not be reached");
    }
    expect(warningOf(await otherSearch(["HX001"]))).toBe("supplier_unavailable");
    await demoStillServed();
  });

  it("no answer within the default deadline (8 s in a deploy) counts: five at once open the circuit", async () => {
    // The tests' default deadline is shorter (SUPPLIER_TIMEOUT_MS), so this waits 3 s, not 8.
    expect(defaultSupplierTimeoutMs({ ...env, ENVIRONMENT: "production" })).toBe(8_000);
    expect(defaultSupplierTimeoutMs(env)).toBe(3_000);
    const slow = await Promise.all(Array.from({ length: 5 }, () => otherSearch(["HXSLOW10000"])));
    expect(slow.map(warningOf)).toEqual(Array(5).fill("supplier_timeout"));
    expect(warningOf(await otherSearch(["HX001"]))).toBe("supplier_unavailable");
    await demoStillServed();
  });

  it.each([
    ["a 4xx (a wrong API key)", ["HX001"], { credentials: { apiKey: "wrong-key" } }, 401],
    ["a redirect (3xx)", ["HX302"], {}, 302],
    ["GraphQL errors", ["HXGQLERR"], {}, 200],
    ["an answer that cannot be read", ["HXBADJSON"], {}, 200],
  ])("%s counts for nothing: the sixth call still reaches the upstream", async (_name, codes, change, status) => {
    await pointOther(change);
    for (let i = 0; i < 6; i++) {
      const res = await otherSearch(codes, { includeProviderTransactions: true });
      expect(warningOf(res)).toBe("supplier_error");
      expect(res.json.data.providerTransactions.map((t: any) => t.status)).toEqual([status]);
    }
    expect(await circuitFor(env, otherConnection).allow(Date.now())).toEqual({ allowed: true });
  });

  it("a half-open trial with a short caller deadline hands the trial on: the next call with the default deadline closes the circuit", async () => {
    const now = Date.now();
    for (let i = 0; i < 5; i++) await circuitFor(env, otherConnection).record(false, now - 30_000);
    // The client gives up 100 ms before the caller does, time for the circuit to hear of it first.
    expect(warningOf(await otherSearch(["HXSLOW2000"], { timeout: "1000" }))).toBe("supplier_timeout");
    expect(warningOf(await otherSearch(["HX001"]))).toBeNull();
    expect(await circuitFor(env, otherConnection).allow(Date.now())).toEqual({ allowed: true });
  });
});
