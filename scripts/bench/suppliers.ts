import * as hotelx from "../../src/features/supply/hotelx/client";
import { accommodationCode } from "../../test/support/accommodations";
import { DEMO_SUPPLIERS_CONNECTION } from "../../test/support/accounts";
import { SANDBOX_SUPPLIER_MAPS } from "../../test/support/seed-suppliers";
import { API_KEY_HEADERS, searchBody, type Scenario } from "./scenarios";

/**
 * Connection 1003's rows (issue 39 item 8): the embedded inventory and the sandbox's three
 * suppliers behind one search. What a row means is read against each supplier's own answer time,
 * and every search must cost each supplier one request, whatever the number of hotels.
 */

type Json = Record<string, any>;
/** Where each supplier of 1003 is served: its own sandbox process (by code), as real suppliers answer side by side. */
export type SupplierSandboxes = Record<string, string>;
/** Every supplier of 1003 served by one sandbox process (its answers then come one after the other). */
export const oneSandbox = (base: string): SupplierSandboxes =>
  Object.fromEntries(DEMO_SUPPLIERS_CONNECTION.suppliers.map((code) => [code, base]));
const { connection, suppliers, hotelx: account } = DEMO_SUPPLIERS_CONNECTION;
const SETTINGS = { access: { code: connection.code } };
const HOTELS = 100;
/** US000001..US000100: each sold by the embedded inventory and by one to three of the suppliers. */
const hotelCodes = Array.from({ length: HOTELS }, (_, i) => accommodationCode(i + 1));

export const SUPPLIERS_SEARCH = "search: 100 codes on 1003 (embedded and three suppliers)";
export const SUPPLIERS_FLOW = "quote/book on 1003: a supplier's option (search, quote, book, cancel per flow)";

const call = async (base: string, path: string, body: unknown): Promise<Json> => {
  const res = await fetch(`${base}${path}`, { method: "POST", headers: API_KEY_HEADERS, body: JSON.stringify(body) });
  const json = (await res.json().catch(() => ({}))) as Json;
  if (res.status !== 200) throw new Error(`${path} ${res.status}: ${json.message ?? "no message"}`);
  return json.data;
};

/** Connection 1003's suppliers pointed at the sandboxes the bench started, through the operator API. */
export const pointSuppliersAtSandbox = async (base: string, sandboxes: SupplierSandboxes, operatorToken: string) => {
  const headers = { "content-type": "application/json", authorization: `Bearer ${operatorToken}` };
  for (const code of suppliers) {
    const read = (await (await fetch(`${base}/api/operator/suppliers/${code}`, { headers })).json()) as Json;
    const res = await fetch(`${base}/api/operator/suppliers/${code}`, {
      method: "PUT",
      headers,
      body: JSON.stringify({
        name: read.data.name,
        settings: { ...read.data.settings, url: `${sandboxes[code]}/suppliers/${code}/graphql` },
      }),
    });
    if (res.status !== 200) throw new Error(`PUT supplier ${code}: ${res.status} ${await res.text()}`);
  }
};

/** How many searches each supplier has answered for 1003's client. */
const supplierSearches = async (sandboxes: SupplierSandboxes): Promise<Record<string, number>> =>
  Object.fromEntries(
    await Promise.all(
      suppliers.map(async (code) => {
        const res = await fetch(`${sandboxes[code]}/suppliers/${code}/requests?client=${account.client}`, {
          headers: { authorization: `Apikey ${account.apiKey}` },
        });
        return [code, (((await res.json()) as Json).search as number | undefined) ?? 0] as const;
      }),
    ),
  );

/** Requests each supplier received per search, over `searches` sequential searches (1 expected: one per supplier, not per hotel). */
export type RequestsPerSearch = Record<string, number>;

/** The first `hotels` of the 100 (all by default). */
const searchRequest = (hotels = HOTELS) =>
  searchBody({ destinations: { accommodations: hotelCodes.slice(0, hotels).map((code) => ({ code })) } }, SETTINGS);

export const suppliersSearchScenario = (): Scenario => ({
  name: SUPPLIERS_SEARCH,
  upstream: true,
  meaning:
    "Pricing 100 hotels on a connection of four suppliers: one parallel request to each, merged into one answer.",
  method: "POST",
  path: "/api/search",
  body: searchRequest(),
  headers: API_KEY_HEADERS,
});

/**
 * How the Worker's CPU for the merged search grows with the options answered (issue 39 item 8:
 * linearly): the same search for the first 25 and 50 of the 100 hotels, beside the 100 of the row.
 * Each is measured unloaded (CPU from /proc, identity) and divided by the options it answers.
 */
export const GROWTH_HOTELS = [25, 50, 100] as const;
export const suppliersGrowthScenario = (hotels: number): Scenario =>
  hotels === HOTELS
    ? suppliersSearchScenario()
    : {
        ...suppliersSearchScenario(),
        name: `search: ${hotels} codes on 1003 (CPU per option)`,
        meaning: `The 1003 search for the first ${hotels} of its 100 hotels.`,
        body: searchRequest(hotels),
      };

/** How many options a search answers, every hotel counted. */
export const optionsAnswered = async (base: string, s: Scenario): Promise<number> => {
  const data = await call(base, s.path, s.body);
  return (data.accommodations ?? []).reduce((n: number, h: Json) => n + h.options.length, 0);
};

/**
 * Before measuring: `searches` searches one at a time, answered 200 with options naming every
 * supplier and no warning, counting the sandbox's requests per supplier; null and the counts when
 * so, else why not (the row is then not measured).
 */
export const checkSuppliersSearch = async (
  base: string,
  sandboxes: SupplierSandboxes,
  searches = 5,
): Promise<{ notMeasured: string | null; perSearch: RequestsPerSearch | null }> => {
  const before = await supplierSearches(sandboxes);
  for (let i = 0; i < searches; i++) {
    const data = await call(base, "/api/search", searchRequest()).catch((e: Error) => ({ failed: e.message }));
    if ("failed" in data) return { notMeasured: `the check search failed: ${data.failed}`, perSearch: null };
    if (data.warnings?.length)
      return {
        notMeasured: `a supplier did not answer: ${data.warnings.map((w: Json) => `${w.code} (${w.message})`).join("; ")}`,
        perSearch: null,
      };
    const named = new Set(
      (data.accommodations ?? []).flatMap((h: Json) => h.options.map((o: Json) => o.supplierCode as string)),
    );
    const missing = suppliers.filter((code) => !named.has(code));
    if (missing.length)
      return {
        notMeasured: `connection ${connection.code}'s options name no ${missing.join(", ")} (the merged search of issue 39 item 4 is needed)`,
        perSearch: null,
      };
  }
  const after = await supplierSearches(sandboxes);
  const perSearch = Object.fromEntries(suppliers.map((code) => [code, (after[code]! - before[code]!) / searches]));
  return { notMeasured: null, perSearch };
};

/**
 * Each supplier's own answer time for the same search, in its own codes (its part of the 100
 * hotels, through the truth map): the p50 of `times` searches sent straight to it, one at a time.
 * The slowest of them is what the merged search waits for at best. `together`: the p50 of the three
 * asked at once, as the merged search asks them (each supplier is its own process, but they share
 * this machine's two cores with each other and with the Worker).
 */
export const supplierSearchP50s = async (
  sandboxes: SupplierSandboxes,
  times = 5,
): Promise<{ each: Record<string, number>; together: number }> => {
  const criteria = searchRequest().searchCriteria as Json;
  const searchOf = (code: string) => {
    const wanted = new Set(hotelCodes);
    const own = (SANDBOX_SUPPLIER_MAPS[code]!.hotels as Array<{ supplierHotelCode: string; accommodationCode: string }>)
      .filter((row) => wanted.has(row.accommodationCode))
      .map((row) => row.supplierHotelCode);
    const access: hotelx.HotelxAccess = {
      url: `${sandboxes[code]}/suppliers/${code}/graphql`,
      client: "bench-direct",
      context: account.context,
      apiKey: account.apiKey,
    };
    return () =>
      hotelx.search(
        access,
        {
          checkIn: criteria.checkIn,
          checkOut: criteria.checkOut,
          hotels: own,
          occupancies: criteria.occupancies.map((o: Json) => ({ paxes: o.paxes.map((p: Json) => ({ age: p.age })) })),
        },
        { deadlineMs: 10_000 },
      );
  };
  const p50 = async (work: () => Promise<unknown>) => {
    const answers: number[] = [];
    for (let i = 0; i < times + 1; i++) {
      const started = performance.now();
      await work();
      // The first is a warm-up.
      if (i > 0) answers.push(performance.now() - started);
    }
    return answers.sort((a, b) => a - b)[Math.floor(times / 2)]!;
  };
  const each: Record<string, number> = {};
  for (const code of suppliers) each[code] = await p50(searchOf(code));
  const all = suppliers.map(searchOf);
  return { each, together: await p50(() => Promise.all(all.map((search) => search()))) };
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/**
 * search -> quote -> book -> cancel on 1003 by `concurrency` partners for `seconds`, each flow
 * booking a refundable option of a supplier (never the embedded one), the suppliers in turn:
 * quote, book and cancel go to the supplier that made the option. Every booking is cancelled.
 */
export const runSuppliersFlow = async (base: string, seconds: number, concurrency: number) => {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const deadline = Date.now() + seconds * 1000;
  const worker = async (id: number) => {
    while (Date.now() < deadline) {
      const turn = n++;
      const supplier = suppliers[turn % suppliers.length]!;
      // The five hotels every supplier maps, from this turn's on: not every supplier sells a
      // refundable rate at every one of them (albion has none at US000005 on some stays).
      const codes = Array.from({ length: 5 }, (_, i) => accommodationCode(1 + ((turn + i) % 5)));
      const started = performance.now();
      try {
        const request = searchBody({ destinations: { accommodations: codes.map((code) => ({ code })) } }, SETTINGS);
        const found = await call(base, "/api/search", request);
        const picked = codes
          .map((code) => ({
            code,
            option: found.accommodations
              .find((a: Json) => a.accommodationCode === code)
              ?.options.find((o: Json) => o.supplierCode === supplier && o.isRefundable),
          }))
          .find((p) => p.option);
        if (!picked) throw new Error(`no refundable option of ${supplier} at ${codes.join(", ")}`);
        const { code, option } = picked;
        const { occupancies, checkIn, checkOut } = request.searchCriteria as Json;
        const quote = await call(base, "/api/quote", {
          quoteCriteria: { optionId: option.id, accommodation: { code }, occupancies, checkIn, checkOut },
          settings: SETTINGS,
        });
        const booking = await call(base, "/api/book", {
          bookCriteria: {
            quoteId: quote.id,
            accommodation: { code },
            partnerReference: `bench-1003-${Date.now()}-${id}-${turn}`,
            holder: { name: "Bench", surName: "Runner" },
            checkIn,
            checkOut,
          },
          settings: SETTINGS,
        });
        await call(base, "/api/cancel", {
          input: { reference: { bookingReference: booking.bookingReference } },
          settings: SETTINGS,
        });
        latencies.push(performance.now() - started);
      } catch (error) {
        errors++;
        if (errors <= 3) console.error(`  1003 flow error: ${(error as Error).message}`);
        // A flow that cannot run (no supplier option yet) is not retried in a tight loop.
        if (errors >= 3 && latencies.length === 0) return;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors };
};
