import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { readResponse, DEMO_KEY } from "../../../test/support/api";
import { createApp } from "../../app";
import { bookBody, cancelBody, quoteBody, searchBody } from "../../../test/support/booking";
import { CHECKS_PATH } from "../../../test/support/radar";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 10 });
});

/**
 * The local runtime binds USAGE to miniflare's Analytics Engine simulator, which keeps nothing to
 * read back. These tests give the Worker an env whose USAGE records the points it is handed,
 * with the binding's own `writeDataPoint` signature.
 */
const recordingEnv = () => {
  const points: AnalyticsEngineDataPoint[] = [];
  const USAGE = { writeDataPoint: (point?: AnalyticsEngineDataPoint) => void points.push(point!) };
  return { vars: { ...env, USAGE } as Env, points };
};

const app = createApp();
const send = async (vars: Env, path: string, body: unknown, headers: Record<string, string> = {}) =>
  readResponse(
    await app.request(
      path,
      {
        method: "POST",
        headers: { "content-type": "application/json", "api-key": DEMO_KEY, ...headers },
        body: JSON.stringify(body),
      },
      vars,
    ),
    { method: "POST", url: path },
  );

const stay = searchBody(
  { destinations: { accommodations: [{ code: "US000004" }] } },
  { filters: { rateRuleFilter: { excludes: ["NON_REFUNDABLE"] } } },
);
const searched = (res: Awaited<ReturnType<typeof send>>) => ({
  accommodationCode: "US000004",
  option: res.json.data.accommodations[0].options[0],
  checkIn: stay.searchCriteria.checkIn,
  checkOut: stay.searchCriteria.checkOut,
  occupancies: stay.searchCriteria.occupancies,
});

describe("USAGE: one data point per billable call", () => {
  it("records search, quote, book and cancel, indexed by partner, and not a replay or a refusal", async () => {
    const { vars, points } = recordingEnv();
    const search = await send(vars, "/api/search", stay, { "x-request-id": "req-usage-search" });
    expect(search.status).toBe(200);
    const quote = await send(vars, "/api/quote", quoteBody(searched(search)));
    expect(quote.status).toBe(200);
    const reference = `usage-${Date.now()}`;
    const book = await send(vars, "/api/book", bookBody(quote.json.data, reference), { "idempotency-key": reference });
    expect(book.status).toBe(200);
    const replay = await send(vars, "/api/book", bookBody(quote.json.data, reference), {
      "idempotency-key": reference,
    });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const cancel = await send(vars, "/api/cancel", cancelBody(book.json.data.bookingReference));
    expect(cancel.status, cancel.text).toBe(200);
    // Refused calls are not billed.
    expect((await send(vars, "/api/quote", quoteBody(searched(search), { optionId: "forged" }))).status).toBe(400);
    expect((await send(vars, "/api/search", stay, { "api-key": "wrong-key" })).status).toBe(401);

    expect(points.map((p) => p.blobs![0])).toEqual(["search", "quote", "book", "cancel"]);
    for (const point of points) {
      expect(point.indexes).toEqual(["demo"]);
      expect(point.blobs![1]).toBe("1001");
      expect(point.doubles).toEqual([1]);
    }
    expect(points[0]!.blobs![2]).toBe("req-usage-search");
  });

  it("records a billable radar check once, and not its replay", async () => {
    const { vars, points } = recordingEnv();
    const check = () =>
      send(
        vars,
        CHECKS_PATH,
        { booker: { email: "jane@example.com" }, payment: { billing_address: { country: "US" } } },
        {
          "session-id": "sess_usage_000001",
          "idempotency-key": "usage-check-1",
        },
      );
    const first = await check();
    expect(first.status).toBe(200);
    expect(first.json.data.billable).toBe(true);
    expect((await check()).headers.get("idempotent-replayed")).toBe("true");
    expect(points).toEqual([{ indexes: ["demo"], blobs: ["radar_check", "", expect.any(String)], doubles: [1] }]);
  });

  it("records a Hotel-X search as a search", async () => {
    const { vars, points } = recordingEnv();
    const { checkIn, checkOut, occupancies } = stay.searchCriteria;
    const criteria = {
      checkIn,
      checkOut,
      hotels: ["US000004"],
      occupancies,
      currency: "USD",
      language: "en",
      nationality: "US",
      market: "US",
    };
    const res = await send(vars, "/api/search/tgx", { criteria, settings: { access: { code: 1001 } } });
    expect(res.status).toBe(200);
    expect(points.map((p) => [p.indexes, p.blobs![0], p.blobs![1]])).toEqual([[["demo"], "search", "1001"]]);
  });

  it("indexes another partner's calls under its own id", async () => {
    const { vars, points } = recordingEnv();
    const res = await send(
      vars,
      "/api/search",
      { ...stay, settings: { access: { code: 2001 } } },
      { "api-key": "other-partner-key" },
    );
    expect(res.status).toBe(200);
    expect(points.map((p) => [p.indexes, p.blobs![1]])).toEqual([[["other"], "2001"]]);
  });

  it("still serves where the runtime has no USAGE binding, and with the local simulator", async () => {
    const { USAGE: _bound, ...unbound } = env;
    expect((await send(unbound as Env, "/api/search", stay)).status).toBe(200);
    expect(typeof env.USAGE.writeDataPoint).toBe("function");
    expect((await send(env, "/api/search", stay)).status).toBe(200);
  });
});
