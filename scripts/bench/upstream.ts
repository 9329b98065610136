import { generatedHotelCode, GENERATED_HOTELS, hotelFor, SANDBOX_CITIES } from "../../sandbox/hotelx/src/inventory";
import * as hotelx from "../../src/features/supply/hotelx/client";
import { DEMO_UPSTREAM_CONNECTION } from "../../test/support/accounts";
import { insertContentRows, sandboxHotelContentRow } from "../../test/support/seed";
import { API_KEY_HEADERS, searchBody, type Scenario } from "./scenarios";

const { connection, upstream } = DEMO_UPSTREAM_CONNECTION;
const HOTELS = 100;

/** 100 of the sandbox's generated hotels (their numbers), spread over its range as the embedded row spreads its codes. */
export const sandboxHotels = Array.from({ length: HOTELS }, (_, i) =>
  Math.floor((i * GENERATED_HOTELS.count) / HOTELS),
);
const sandboxHotelCodes = sandboxHotels.map(generatedHotelCode);

/** The embedded row "search: 100 codes", asked of connection 1002, which the sandbox Hotel-X supplier serves. */
export const upstreamScenarios = (): Scenario[] => [
  {
    name: "search: 100 codes through the sandbox upstream",
    upstream: true,
    meaning: "Pricing a list of 100 hotels held by a Hotel-X supplier: our search plus one GraphQL call over loopback.",
    method: "POST",
    path: "/api/search",
    body: searchBody(
      { destinations: { accommodations: sandboxHotelCodes.map((code) => ({ code })) } },
      { access: { code: connection.code } },
    ),
    headers: API_KEY_HEADERS,
  },
];

/** Points connection 1002 at the sandbox the bench started, through the operator API (as an operator would). */
export const pointAtSandbox = async (base: string, sandboxBase: string, operatorToken: string) => {
  const res = await fetch(`${base}/api/connections/${connection.id}/upstream`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${operatorToken}` },
    body: JSON.stringify({
      kind: upstream.kind,
      url: `${sandboxBase}/`,
      client: upstream.client,
      context: upstream.context,
      credentials: { apiKey: upstream.apiKey },
    }),
  });
  if (res.status !== 200) throw new Error(`PUT upstream of ${connection.id}: ${res.status} ${await res.text()}`);
};

type Json = Record<string, any>;

/**
 * One search before measuring, with provider transactions: null when the sandbox priced every hotel
 * (each option id names its supplier, and a search exchange with it was recorded), else why not.
 */
export const whyNotUpstream = async (base: string, s: Scenario): Promise<string | null> => {
  const body = s.body as { searchCriteria: Json; settings: Json };
  const res = await fetch(`${base}${s.path}`, {
    method: s.method,
    headers: s.headers,
    body: JSON.stringify({ ...body, settings: { ...body.settings, includeProviderTransactions: true } }),
  });
  const json = (await res.json().catch(() => ({}))) as Json;
  if (res.status !== 200) return `the check search answered ${res.status}: ${json.message ?? "no message"}`;
  const data = json.data as Json;
  if (data.warnings?.length)
    return `the upstream did not answer: ${data.warnings.map((w: Json) => `${w.code} (${w.message})`).join("; ")}`;
  const hotels: Json[] = data.accommodations ?? [];
  // `<signed stay>~<accommodation>~<room>~<rate plan>~<total>[~<supplier>]`: the embedded inventory's ids have no supplier.
  const suppliers = new Set(hotels.flatMap((h) => h.options.map((o: Json) => String(o.id).split("~")[5] ?? "")));
  const exchanges: Json[] = (data.providerTransactions ?? []).filter(
    (t: Json) => t.operation === "search" && suppliers.has(t.supplier),
  );
  const priced = hotels.filter(
    (h) => h.options.length > 0 && h.options.every((o: Json) => String(o.id).split("~")[5]),
  ).length;
  if (priced === 0 || exchanges.length === 0) {
    return `connection ${connection.code} is not served by the sandbox upstream yet (${hotels.length} hotels priced, ${priced} by an upstream; ${(data.providerTransactions ?? []).length} provider transactions)`;
  }
  if (priced < HOTELS) return `the upstream priced ${priced} of the ${HOTELS} hotels asked`;
  return null;
};

/** The quote row's hotel: a sandbox scenario hotel that answers every operation after 1 s. */
export const SLOW_QUOTE_HOTEL = "HXSLOW1000";
export const UPSTREAM_QUOTE = "quote through the sandbox upstream";

/** Our content row for the quote row's hotel (connection 1002 sells only hotels our index knows). */
export const seedSlowQuoteHotel = (d1: D1Database) =>
  insertContentRows(d1, [
    sandboxHotelContentRow({
      code: SLOW_QUOTE_HOTEL,
      name: hotelFor(SLOW_QUOTE_HOTEL)!.name,
      city: SANDBOX_CITIES[0]!,
      starRating: 4,
    }),
  ]);

/**
 * One refundable option of the slow hotel, searched on connection 1002 once, then quoted over and
 * over: each quote is one upstream call (issue 29), so its p50 should stay near the supplier's own 1 s.
 */
export const upstreamQuoteScenario = async (base: string): Promise<Scenario> => {
  const request = searchBody(
    { destinations: { accommodations: [{ code: SLOW_QUOTE_HOTEL }] } },
    { access: { code: connection.code } },
  );
  const res = await fetch(`${base}/api/search`, {
    method: "POST",
    headers: API_KEY_HEADERS,
    body: JSON.stringify(request),
  });
  const data = ((await res.json()) as Json).data as Json | undefined;
  const option = data?.accommodations?.[0]?.options.find((o: Json) => o.isRefundable);
  if (!option) throw new Error(`no refundable option of ${SLOW_QUOTE_HOTEL} on connection ${connection.code}`);
  return {
    name: UPSTREAM_QUOTE,
    meaning: `Re-checking one option of a Hotel-X supplier that answers in 1 s (${SLOW_QUOTE_HOTEL}): one upstream call.`,
    method: "POST",
    path: "/api/quote",
    body: {
      quoteCriteria: {
        optionId: option.id,
        accommodation: { code: SLOW_QUOTE_HOTEL },
        occupancies: request.searchCriteria.occupancies,
        checkIn: request.searchCriteria.checkIn,
        checkOut: request.searchCriteria.checkOut,
      },
      settings: { access: { code: connection.code } },
    },
    headers: API_KEY_HEADERS,
  };
};

/** The supplier's own answer time for that quote: the p50 of `times` quotes sent straight to the sandbox, one at a time. */
export const supplierQuoteP50 = async (sandboxBase: string, times = 5): Promise<number> => {
  const access: hotelx.HotelxAccess = {
    url: `${sandboxBase}/`,
    client: "bench",
    context: upstream.context,
    apiKey: upstream.apiKey,
  };
  const request = searchBody({ destinations: { accommodations: [{ code: SLOW_QUOTE_HOTEL }] } });
  const criteria = request.searchCriteria;
  const found = await hotelx.search(
    access,
    {
      checkIn: criteria.checkIn,
      checkOut: criteria.checkOut,
      hotels: [SLOW_QUOTE_HOTEL],
      occupancies: criteria.occupancies.map((o: Json) => ({ paxes: o.paxes.map((p: Json) => ({ age: p.age })) })),
    },
    { deadlineMs: 10_000 },
  );
  const optionRefId = found.options[0]!.id;
  const answers: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await hotelx.quote(access, optionRefId, { deadlineMs: 10_000 });
    answers.push(performance.now() - started);
  }
  return answers.sort((a, b) => a - b)[Math.floor(times / 2)]!;
};
