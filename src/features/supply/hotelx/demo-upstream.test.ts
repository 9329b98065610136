import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_UPSTREAM_CONNECTION, sandboxUrl } from "../../../../test/support/accounts";
import { seedDemoUpstream } from "../../../../test/support/seed";
import { database } from "../../../platform/db/client";
import { upstreamFor } from "../../connections/upstreams";
import { search } from "./client";
import { upstreamFetch } from "./upstream-fetch";

// The bootstrap (npm start) and test/setup.ts seed connection 1002. Seeded here twice more: it is idempotent.
beforeAll(async () => {
  for (let i = 0; i < 2; i++)
    await seedDemoUpstream(env.DB, { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, url: sandboxUrl() });
});

describe("the demo partner's connection 1002", () => {
  it("is in use, points at the sandbox, and its seeded URL reaches the auxiliary worker", async () => {
    const row = await env.DB.prepare(
      "select code, partner_id, api_type, connection_type, current_in_use from connections where id = ?",
    )
      .bind(DEMO_UPSTREAM_CONNECTION.connection.id)
      .first();
    expect(row).toEqual({ code: 1002, partner_id: "demo", api_type: "b2b", connection_type: "tgx", current_in_use: 1 });
    const upstream = (await upstreamFor(
      database(env.DB),
      env.UPSTREAM_CREDENTIALS_KEY,
      DEMO_UPSTREAM_CONNECTION.connection.id,
    ))!;
    expect(upstream).toMatchObject({ kind: "hotelx", url: sandboxUrl(), withEmbedded: false });

    const access = { ...upstream, fetch: upstreamFetch(env, upstream.url) };
    expect(access.fetch).toBeTypeOf("function");
    const found = await search(
      access,
      { checkIn: "2027-05-01", checkOut: "2027-05-03", hotels: ["HX001"], occupancies: [{ paxes: [{ age: 40 }] }] },
      { deadlineMs: 5_000 },
    );
    expect(found.options.map((o) => o.hotelCode)).toContain("HX001");
  });

  it("sends any other URL, or any URL outside local development, to the network", () => {
    expect(upstreamFetch(env, "https://api.hotelx.example/")).toBeUndefined();
    expect(upstreamFetch({ ...env, ENVIRONMENT: "production" }, sandboxUrl())).toBeUndefined();
  });
});
