import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { post } from "../../../test/support/api";
import { haversineKm, near, nameSearchSql } from "../supply/accommodations";
import { searchBody } from "../../../test/support/booking";
import { queryPlan } from "../../../test/support/query-plan";

const COUNT = 400;
type Row = { code: string; name: string; latitude: number; longitude: number };
let all: Row[];

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: COUNT });
  all = (await env.DB.prepare("select code, name, latitude, longitude from accommodations order by code").all<Row>())
    .results;
});

const search = async (criteria: Record<string, unknown>, settings: Record<string, unknown> = {}, filters?: unknown) => {
  const res = await post(
    "/api/search",
    searchBody(criteria, { settings: { access: { code: 1001 }, ...settings }, ...(filters ? { filters } : {}) }),
  );
  expect(res.status).toBe(200);
  return res.json.data.accommodations as any[];
};

const plan = (sql: string, ...params: unknown[]) => queryPlan({ sql, params });

describe("search by accommodation codes", () => {
  it("answers 1,000 codes (some unknown) in the order asked, skipping unknown ones", async () => {
    const codes = Array.from({ length: 1000 }, (_, i) => `US${String(1000 - i).padStart(6, "0")}`); // US001000..US000001
    const hotels = await search({ destinations: { accommodations: codes.map((code) => ({ code })) } });
    expect(hotels.length).toBeGreaterThan(COUNT * 0.9);
    const served = hotels.map((h) => h.accommodationCode);
    expect(served.every((c) => Number(c.slice(2)) <= COUNT)).toBe(true);
    expect(served).toEqual([...served].sort().reverse());
  });
});

describe("business rules (4.2 table)", () => {
  const pick = async (settings: Record<string, unknown>) => {
    const hotels = await search(
      {
        destinations: {
          accommodations: [{ code: "US000001" }, { code: "US000002" }, { code: "US000003" }, { code: "US000004" }],
        },
      },
      settings,
    );
    return Object.fromEntries(
      hotels.map((h) => [h.accommodationCode as string, h.options.map((o: any) => o.rate.chargeTotal) as number[]]),
    );
  };

  it("neither, DEFAULT without quota: all options; CHEAPEST (with or without quota): the cheapest one", async () => {
    const allOptions = await pick({});
    expect(await pick({ businessRules: { businessRuleType: "DEFAULT" } })).toEqual(allOptions);
    expect(Object.values(allOptions).some((o) => o.length > 1)).toBe(true);
    const cheapest = Object.fromEntries(Object.entries(allOptions).map(([k, v]) => [k, [Math.min(...v)]]));
    expect(await pick({ businessRules: { businessRuleType: "CHEAPEST" } })).toEqual(cheapest);
    expect(await pick({ businessRules: { businessRuleType: "CHEAPEST", optionsQuota: 3 } })).toEqual(cheapest);
  });

  it("DEFAULT with quota N, and quota only: up to N cheapest", async () => {
    const allOptions = await pick({});
    const two = Object.fromEntries(
      Object.entries(allOptions).map(([k, v]) => [k, [...v].sort((a, b) => a - b).slice(0, 2)]),
    );
    expect(await pick({ businessRules: { businessRuleType: "DEFAULT", optionsQuota: 2 } })).toEqual(two);
    expect(await pick({ businessRules: { optionsQuota: 2 } })).toEqual(two);
  });
});

describe("filters", () => {
  const hotels = () =>
    search({
      destinations: {
        accommodations: Array.from({ length: 40 }, (_, i) => ({ code: `US${String(i + 1).padStart(6, "0")}` })),
      },
    });
  const withFilters = (filters: unknown) =>
    search(
      {
        destinations: {
          accommodations: Array.from({ length: 40 }, (_, i) => ({ code: `US${String(i + 1).padStart(6, "0")}` })),
        },
      },
      {},
      filters,
    );
  const options = (hs: any[]) => hs.flatMap((h) => h.options);

  it("rateRuleFilter: exclude NON_REFUNDABLE, include only NON_REFUNDABLE, and the empty-rules switch", async () => {
    const base = options(await hotels());
    expect(base.some((o) => !o.isRefundable)).toBe(true);
    const excluded = options(await withFilters({ rateRuleFilter: { excludes: ["NON_REFUNDABLE"] } }));
    expect(excluded.length).toBe(base.filter((o) => o.isRefundable).length);
    const onlyNrf = options(
      await withFilters({ rateRuleFilter: { includes: ["NON_REFUNDABLE"], includeEmptyRateRulesOptions: false } }),
    );
    expect(onlyNrf.length).toBe(base.filter((o) => !o.isRefundable).length);
    expect(onlyNrf.every((o) => !o.isRefundable)).toBe(true);
    const includeWithEmpty = options(await withFilters({ rateRuleFilter: { includes: ["NON_REFUNDABLE"] } }));
    expect(includeWithEmpty.length).toBe(base.length);
  });

  it("status: every embedded option is OK; including only RQ leaves none, excluding OK leaves none", async () => {
    expect(options(await withFilters({ status: { includes: ["OK"] } })).length).toBe(options(await hotels()).length);
    expect(await withFilters({ status: { includes: ["RQ"] } })).toEqual([]);
    expect(await withFilters({ status: { excludes: ["OK"] } })).toEqual([]);
  });
});

describe("geo search", () => {
  it("returns exactly the accommodations within the radius, nearest first, honouring limit", async () => {
    const centre = all[0]!;
    const radiusKm = 25;
    const expected = all
      .map((r) => ({ code: r.code, d: haversineKm(centre.latitude, centre.longitude, r.latitude, r.longitude) }))
      .filter((r) => r.d <= radiusKm)
      .sort((a, b) => a.d - b.d || a.code.localeCompare(b.code));
    const hotels = await search({ geo: { lat: centre.latitude, lng: centre.longitude, radiusKm } });
    expect(hotels.map((h) => h.accommodationCode)).toEqual(expected.map((e) => e.code));
    expect(hotels[0].accommodationCode).toBe(centre.code);
    const limited = await search({ geo: { lat: centre.latitude, lng: centre.longitude, radiusKm, limit: 1 } });
    expect(limited.map((h) => h.accommodationCode)).toEqual([centre.code]);
  });

  it("uses the default radius of 20 km and finds nothing in the middle of the ocean", async () => {
    const centre = all[5]!;
    const expected = all.filter(
      (r) => haversineKm(centre.latitude, centre.longitude, r.latitude, r.longitude) <= 20,
    ).length;
    expect((await search({ geo: { lat: centre.latitude, lng: centre.longitude } })).length).toBe(expected);
    expect(await search({ geo: { lat: 0, lng: -140 } })).toEqual([]);
  });

  it("is index-assisted: the grid cells near the centre are seeks of the cell index (geo-grid.test.ts has the rest)", async () => {
    const selection = near(40.5, -74, 20, 1000);
    expect(await plan(selection.sql, ...selection.params)).toMatch(
      /SEARCH a USING COVERING INDEX accommodations_geo_cell \(geo_cell=\?\)/,
    );
  });
});

describe("name search", () => {
  it("matches a partial word anywhere in the name, case-insensitively", async () => {
    const target = all.find((r) => r.name.includes("Harborview")) ?? all[0]!;
    const fragment = target.name.split(" ")[0]!.slice(1, 6).toUpperCase(); // e.g. "ARBOR" from "Harborview"
    const expected = all.filter((r) => r.name.toLowerCase().includes(fragment.toLowerCase())).map((r) => r.code);
    const hotels = await search({ accommodationName: fragment });
    expect(hotels.map((h) => h.accommodationCode).sort()).toEqual(expected.sort());
    expect(expected.length).toBeGreaterThan(0);
  });

  it("matches a multi-word fragment and a two-letter word start", async () => {
    const target = all[1]!;
    const words = target.name.split(" ");
    const phrase = `${words[0]!.slice(-3)} ${words[1]!.slice(0, 3)}`.toLowerCase();
    const phraseHits = await search({ accommodationName: phrase });
    expect(phraseHits.map((h) => h.accommodationCode)).toContain(target.code);
    expect(phraseHits.every((h) => h.accommodationName.toLowerCase().includes(phrase))).toBe(true);
    const two = words[1]!.slice(0, 2);
    const twoHits = await search({ accommodationName: two });
    expect(twoHits.map((h) => h.accommodationCode)).toContain(target.code);
    expect(
      twoHits.every((h) =>
        h.accommodationName
          .toLowerCase()
          .split(/\s+/)
          .some((w: string) => w.startsWith(two.toLowerCase())),
      ),
    ).toBe(true);
  });

  it("keeps the name index in step with renamed accommodations", async () => {
    await env.DB.prepare("update accommodations set name = 'Quixotic Zephyr Lodge' where code = 'US000009'").run();
    expect((await search({ accommodationName: "xotic zeph" })).map((h) => h.accommodationCode)).toEqual(["US000009"]);
    await env.DB.prepare("update accommodations set name = ? where code = 'US000009'").bind(all[8]!.name).run();
    expect(await search({ accommodationName: "xotic zeph" })).toEqual([]);
  });

  it("finds nothing for a name that does not exist, and treats FTS syntax as text", async () => {
    expect(await search({ accommodationName: "Zzyzx Qqq" })).toEqual([]);
    expect(await search({ accommodationName: 'Grand" OR "x' })).toEqual([]);
    expect(await search({ accommodationName: "NEAR(a b)" })).toEqual([]);
  });

  it("is index-assisted: the FTS5 indexes answer, not a scan of accommodations", async () => {
    const trigram = await plan(nameSearchSql(5), '"arbor"');
    expect(trigram).toMatch(/VIRTUAL TABLE INDEX/);
    expect(trigram).not.toMatch(/SCAN a\b|SCAN accommodations/);
    const prefix = await plan(nameSearchSql(2), '"ha"*');
    expect(prefix).toMatch(/VIRTUAL TABLE INDEX/);
  });
});

describe("search options", () => {
  it("option ids are compact signed tokens, and search writes nothing", async () => {
    const before = await env.DB.prepare(
      "select (select count(*) from room_nights) + (select count(*) from rate_plan_nights) n",
    ).first("n");
    const kvBefore = (await env.CACHE.list()).keys.length;
    const hotels = await search({ destinations: { accommodations: all.slice(0, 100).map((r) => ({ code: r.code })) } });
    const ids = hotels.flatMap((h) => h.options.map((o: any) => o.id as string));
    expect(ids.length).toBeGreaterThan(100);
    expect(Math.max(...ids.map((id) => id.length))).toBeLessThan(260);
    expect(
      await env.DB.prepare(
        "select (select count(*) from room_nights) + (select count(*) from rate_plan_nights) n",
      ).first("n"),
    ).toBe(before);
    expect((await env.CACHE.list()).keys.length).toBe(kvBefore);
  });
});

describe("search reads batched with the API key", () => {
  // A key this isolate has never seen: its first search reads D1 twice, later ones once (the
  // search's reads ride with the key lookup). Both must answer the same, from live rows.
  const key = `esk_batch_${crypto.randomUUID()}`;
  // Ids and a non-refundable penalty's deadline carry the time of the search; the rest must match.
  const timeless = ({ id: _id, ...option }: any) => ({
    ...option,
    cancelPolicy: {
      ...option.cancelPolicy,
      cancelPenalties: option.cancelPolicy.cancelPenalties.map((p: any) =>
        p.penaltyType === "NON_REFUNDABLE" ? { ...p, deadline: "at booking" } : p,
      ),
    },
  });
  const withoutIds = (hotels: any[]) => hotels.map((h) => ({ ...h, options: h.options.map(timeless) }));
  const searchAs = (apiKey: string, code = 1001) =>
    post(
      "/api/search",
      searchBody(
        { destinations: { accommodations: all.slice(0, 5).map((r) => ({ code: r.code })) } },
        { settings: { access: { code } } },
      ),
      { apiKey },
    );

  beforeAll(async () => {
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    await env.DB.prepare(
      "insert into api_keys (id, partner_id, key_hash, key_prefix, name) values ('key_batch', 'demo', ?, 'esk_batch_', 'batch')",
    )
      .bind(hash)
      .run();
  });

  it("answers the first and the later searches of a key alike, and sees a stop-sell at once", async () => {
    const first = await searchAs(key);
    const second = await searchAs(key);
    expect(first.status).toBe(200);
    expect(withoutIds(second.json.data.accommodations)).toEqual(withoutIds(first.json.data.accommodations));

    const hotel = first.json.data.accommodations[0];
    const room = hotel.options[0].rooms[0].code;
    const { checkIn } = searchBody({}).searchCriteria;
    await env.DB.prepare(
      "insert into room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell) values (?, ?, ?, 5, 0, 1)",
    )
      .bind(hotel.accommodationCode, room, checkIn)
      .run();
    const after = await searchAs(key);
    const options =
      after.json.data.accommodations.find((h: any) => h.accommodationCode === hotel.accommodationCode)?.options ?? [];
    expect(options.length).toBeGreaterThan(0);
    expect(options.some((o: any) => o.rooms[0].code === room)).toBe(false);
    await env.DB.prepare("delete from room_nights where accommodation_code = ? and room_code = ?")
      .bind(hotel.accommodationCode, room)
      .run();
  });

  it("still judges the connection and the key on every batched call", async () => {
    await searchAs(key);
    const denied = await searchAs(key, 2001);
    expect(denied.status).toBe(401);
    expect(denied.json.message).toBe("Connection access denied");
    await env.DB.prepare("update api_keys set revoked_at = '2026-01-01T00:00:00Z' where id = 'key_batch'").run();
    const revoked = await searchAs(key);
    expect(revoked.status).toBe(401);
    expect(revoked.json.message).toBe("Invalid API key");
  });
});
