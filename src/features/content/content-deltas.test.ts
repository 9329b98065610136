import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { database } from "../../platform/db/client";
import { call, post } from "../../../test/support/api";
import { contentPageQuery } from "./service";
import { queryPlan } from "../../../test/support/query-plan";

const PATH = "/api/v1/content/accommodations";
const OPERATOR = { authorization: "Bearer demo-operator-token" };
const OLD = "2026-01-01T00:00:00.000Z";
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const code = (n: number) => `US${String(n).padStart(6, "0")}`;
const at = (second: number) => new Date(Date.UTC(2026, 2, 1, 0, 0, second)).toISOString(); // 2026-03-01T00:00:SSZ

let seededAt: string;
/** The documents changed after 2026-02-01, in change order: (updatedAt, code). */
let changed: { code: string; updatedAt: string }[];

const setUpdatedAt = (codes: string[], updatedAt: string) =>
  env.DB.prepare("UPDATE accommodations SET updated_at = ? WHERE code IN (SELECT value FROM json_each(?))")
    .bind(updatedAt, JSON.stringify(codes))
    .run();

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 60 });
  seededAt = (await env.DB.prepare("SELECT updated_at FROM accommodations WHERE code = 'US000001'").first<string>(
    "updated_at",
  ))!;
  // Controlled history: everything old, then 10 single changes a second apart and a tie of three.
  await setUpdatedAt(
    Array.from({ length: 60 }, (_, i) => code(i + 1)),
    OLD,
  );
  changed = [];
  for (let i = 0; i < 10; i++) {
    // Change order differs from code order: the highest code changed first.
    const c = code(19 - i);
    await setUpdatedAt([c], at(i));
    changed.push({ code: c, updatedAt: at(i) });
  }
  await setUpdatedAt([code(40), code(22), code(31)], at(30));
  changed.push(...[code(22), code(31), code(40)].map((c) => ({ code: c, updatedAt: at(30) })));
});

const docs = (res: { json: any }) =>
  res.json.data.accommodations as { code: string; updatedAt: string; [k: string]: unknown }[];
const pairs = (res: { json: any }) => docs(res).map((d) => ({ code: d.code, updatedAt: d.updatedAt }));

/** Follows nextPageToken to the end; `between` runs after the first page. */
const walk = async (body: Record<string, unknown>, between?: () => Promise<void>) => {
  const served: { code: string; updatedAt: string }[] = [];
  let res = await post(PATH, body);
  for (let page = 0; ; page++) {
    expect(res.status).toBe(200);
    served.push(...pairs(res));
    if (!res.json.data.hasMore) return served;
    if (page === 0 && between) await between();
    res = await post(PATH, { pageToken: res.json.data.nextPageToken });
  }
};

const edit = async (n: number, change: (doc: any) => void) => {
  const current = docs(await post(PATH, { size: 100 })).find((d) => d.code === code(n))!;
  const doc = structuredClone(current);
  change(doc);
  return call("PUT", `/api/operator/accommodations/${code(n)}`, doc, { apiKey: null, headers: OPERATOR });
};

describe("content deltas: changedSince", () => {
  it("stamps every inserted document with the time of the write (database trigger)", () => {
    expect(seededAt).toMatch(ISO_MS);
    expect(Math.abs(Date.parse(seededAt) - Date.now())).toBeLessThan(10 * 60_000);
  });

  it("every document carries updatedAt, in the full list too", async () => {
    const res = await post(PATH, { size: 100 });
    expect(res.json.data.changedSince).toBeNull();
    expect(docs(res)).toHaveLength(60);
    expect(docs(res).every((d) => ISO_MS.test(d.updatedAt))).toBe(true);
    expect(docs(res).find((d) => d.code === code(19))!.updatedAt).toBe(at(0));
  });

  it("returns only documents updated after changedSince, in change order", async () => {
    const res = await post(PATH, { changedSince: "2026-02-01T00:00:00Z" });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      changedSince: "2026-02-01T00:00:00.000Z",
      hasMore: false,
      nextPageToken: null,
    });
    expect(pairs(res)).toEqual(changed);
  });

  it("is strictly after: a document updated exactly at changedSince is not sent again", async () => {
    const res = await post(PATH, { changedSince: at(4) });
    expect(pairs(res)).toEqual(changed.filter((c) => c.updatedAt > at(4)));
    expect(pairs(res)[0]!.updatedAt).toBe(at(5));
  });

  it("reads an offset as the same instant, and combines with the type filter", async () => {
    const res = await post(PATH, { changedSince: "2026-03-01T01:00:05+01:00" });
    expect(pairs(res)).toEqual(changed.filter((c) => c.updatedAt > at(5)));
    const { results } = await env.DB.prepare("SELECT code, type FROM accommodations").all<{
      code: string;
      type: string;
    }>();
    const typeOf = new Map(results.map((r) => [r.code, r.type]));
    const type = typeOf.get(changed[0]!.code)!;
    const typed = await post(PATH, { changedSince: "2026-02-01T00:00:00Z", type });
    expect(pairs(typed)).toEqual(changed.filter((c) => typeOf.get(c.code) === type));
    expect(pairs(typed).length).toBeLessThan(changed.length);
  });

  it("returns nothing when nothing changed since", async () => {
    const res = await post(PATH, { changedSince: "2026-06-01T00:00:00Z" });
    expect(res.json.data).toMatchObject({ accommodations: [], hasMore: false, nextPageToken: null });
  });

  it.each([3, 4, 13])(
    "pages a delta with size %i without duplicates or gaps (the tie split across pages)",
    async (size) => {
      expect(await walk({ changedSince: "2026-02-01T00:00:00Z", size })).toEqual(changed);
    },
  );

  it("binds changedSince in the page token", async () => {
    const first = await post(PATH, { changedSince: "2026-02-01T00:00:00Z", size: 4 });
    const token = first.json.data.nextPageToken as string;
    const same = await post(PATH, { changedSince: "2026-02-01T00:00:00.000Z", size: 4, pageToken: token });
    expect(same.status).toBe(200);
    expect(pairs(same)).toEqual(changed.slice(4, 8));
    const other = await post(PATH, { changedSince: "2026-02-02T00:00:00Z", pageToken: token });
    expect(other.status).toBe(400);
    expect(other.json).toMatchObject({
      message: "changedSince in query must match changedSince in pageToken",
      code: "page_token_mismatch",
    });
    const fullListToken = (await post(PATH, { size: 4 })).json.data.nextPageToken;
    const mixed = await post(PATH, { changedSince: "2026-02-01T00:00:00Z", pageToken: fullListToken });
    expect(mixed.status).toBe(400);
    expect(mixed.json.message).toBe("changedSince in query must match changedSince in pageToken");
  });

  it("reads a delta page from the accommodations_updated index, without sorting", async () => {
    const query = contentPageQuery(
      database(env.DB),
      { type: null, countries: ["US"], changedSince: OLD },
      { code: code(15), updatedAt: at(4) },
      100,
    ).toSQL();
    const details = await queryPlan(query);
    expect(details).toMatch(/USING INDEX accommodations_updated/);
    expect(details).not.toMatch(/TEMP B-TREE/);
  });

  it.each([
    [{ changedSince: "yesterday" }, "changedSince: expected an ISO 8601 datetime with a zone"],
    [{ changedSince: "2026-02-01" }, "changedSince: expected an ISO 8601 datetime with a zone"],
    [{ changedSince: "2026-02-01T00:00:00" }, "changedSince: expected an ISO 8601 datetime with a zone"],
    [{ changedSince: "2026-02-30T00:00:00Z" }, "changedSince: expected an ISO 8601 datetime with a zone"],
    [{ changedSince: 1767225600000 }, "changedSince: Invalid input: expected string, received number"],
  ])("%j gives 400 naming the field", async (body, message) => {
    const res = await post(PATH, body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ message, code: "invalid_request" });
  });
});

describe("operator content edits feed the next delta", () => {
  it("an edit bumps updatedAt and the document appears in the next delta, as edited", async () => {
    const watermark = changed.at(-1)!.updatedAt;
    expect(docs(await post(PATH, { changedSince: watermark }))).toEqual([]);
    const res = await edit(5, (doc) => {
      doc.amenities = [...doc.amenities, "Rooftop pool"];
    });
    expect(res.status).toBe(200);
    const updatedAt = res.json.data.updatedAt as string;
    expect(updatedAt > watermark).toBe(true);
    expect(Math.abs(Date.parse(updatedAt) - Date.now())).toBeLessThan(10 * 60_000);
    const delta = await post(PATH, { changedSince: watermark });
    expect(docs(delta).map((d) => d.code)).toEqual([code(5)]);
    expect(docs(delta)[0]).toEqual(res.json.data);
    expect(docs(delta)[0]!.amenities).toContain("Rooftop pool");
  });

  it("sending the same document again changes nothing, so it is not a delta", async () => {
    const before = docs(await post(PATH, { size: 100 })).find((d) => d.code === code(5))!;
    const res = await edit(5, () => {});
    expect(res.status).toBe(200);
    expect(res.json.data.updatedAt).toBe(before.updatedAt);
  });

  it("a document edited during a delta walk comes again later in the same walk, not missed", async () => {
    await setUpdatedAt([code(5)], OLD); // back out of the delta set for this test
    const served = await walk({ changedSince: "2026-02-01T00:00:00Z", size: 4 }, async () => {
      expect((await edit(19, (doc) => (doc.starRating = doc.starRating === 5 ? 4 : 5))).status).toBe(200);
    });
    expect(served.slice(0, changed.length).map((s) => s.code)).toEqual(changed.map((c) => c.code));
    expect(served.at(-1)!.code).toBe(code(19));
    expect(served).toHaveLength(changed.length + 1);
  });

  it("keeps the indexed columns in step with the document (name, type, stars)", async () => {
    const res = await edit(7, (doc) => {
      doc.localizedName = [{ language: "en", region: "US", locale: "en-US", content: "Quayside Lantern Inn" }];
      doc.type = "guesthouse";
      doc.starRating = 2;
    });
    expect(res.status).toBe(200);
    const row = await env.DB.prepare("SELECT name, type, star_rating FROM accommodations WHERE code = ?")
      .bind(code(7))
      .first();
    expect(row).toEqual({ name: "Quayside Lantern Inn", type: "guesthouse", star_rating: 2 });
    const found = await env.DB.prepare(
      "SELECT count(*) AS n FROM accommodation_name_words WHERE accommodation_name_words MATCH 'lantern'",
    ).first<number>("n");
    expect(found).toBe(1);
  });

  it("refuses bad edits with a clear 4xx", async () => {
    const doc = docs(await post(PATH, { size: 1 }))[0]!;
    const put = (path: string, body: unknown, headers: Record<string, string> = OPERATOR) =>
      call("PUT", path, body, { apiKey: null, headers });
    expect((await put(`/api/operator/accommodations/${doc.code}`, doc, {})).status).toBe(401);
    expect((await put(`/api/operator/accommodations/${doc.code}`, doc, { authorization: "Bearer nope" })).status).toBe(
      403,
    );
    const unknown = await put("/api/operator/accommodations/US999999", { ...doc, code: "US999999" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe("Accommodation not found");
    const cases: [unknown, string][] = [
      [{ ...doc, code: "US000002" }, "code: must equal the accommodation code in the path"],
      [
        { ...doc, address: { ...(doc.address as object), country: "FR" } },
        "Unsupported country: FR. Currently only US is supported",
      ],
      [{ ...doc, timezone: "Mars/Olympus" }, "timezone: unknown IANA zone Mars/Olympus"],
      [{ ...doc, location: [200, 10] }, "location: expected [longitude, latitude] within range"],
      [{ ...doc, localizedName: [] }, "localizedName: at least one name is required"],
      [
        { ...doc, type: "castle" },
        'type: Invalid option: expected one of "hotel"|"resort"|"motel"|"apartment"|"hostel"|"guesthouse"',
      ],
      [{ ...doc, starRating: undefined }, "starRating is required"],
      [{ ...doc, extra: 1 }, "Unknown field: extra"],
    ];
    for (const [body, message] of cases) {
      const res = await put(`/api/operator/accommodations/${doc.code}`, body);
      expect([res.status, res.json.message]).toEqual([400, message]);
    }
    const malformed = await call("PUT", `/api/operator/accommodations/${doc.code}`, undefined, {
      apiKey: null,
      raw: "{",
      headers: { ...OPERATOR, "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    // None of these changed the document.
    expect(docs(await post(PATH, { size: 1 }))[0]).toEqual(doc);
  });

  it("is described in /openapi.json, and changedSince in the content request", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    expect(doc.paths["/api/operator/accommodations/{accommodationCode}"].put).toBeDefined();
    expect(doc.components.schemas.ContentRequest.properties.changedSince).toBeDefined();
    expect(JSON.stringify(doc.components.schemas.ServedAccommodationContent)).toContain('"updatedAt"');
  });
});
