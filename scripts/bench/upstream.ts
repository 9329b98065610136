import { generatedHotelCode, GENERATED_HOTELS } from "../../sandbox/hotelx/src/inventory";
import { DEMO_UPSTREAM_CONNECTION } from "../../test/support/accounts";
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
