import { issuePageToken } from "../../src/features/content/page-token";
import { keyring } from "../../src/platform/crypto/keyring";
import { accommodationCode } from "../../test/support/accommodations";

export type Scenario = {
  name: string;
  /** Served by the sandbox Hotel-X supplier: the bench starts it, and checks the answer before measuring. */
  upstream?: boolean;
  /** What the figure means to a partner. */
  meaning: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
};

export type BenchContext = { accommodations: number; pageTokenSecret: string };

const API_KEY = { "api-key": "demo-partner-key", "content-type": "application/json" };
const PAGE_SIZE = 100;
const DEEP_PAGE = 1_000;

/** Scenarios that need nothing but the content feature and the platform. */
export const contentScenarios = async (ctx: BenchContext): Promise<Scenario[]> => {
  // The cursor a partner holds after walking DEEP_PAGE pages (or the last page of a smaller set).
  const deepPage = Math.min(DEEP_PAGE, Math.floor(ctx.accommodations / PAGE_SIZE) - 1);
  const deepToken = await issuePageToken(keyring(ctx.pageTokenSecret), {
    partnerId: "demo",
    type: null,
    countries: ["US"],
    size: PAGE_SIZE,
    after: accommodationCode(deepPage * PAGE_SIZE),
    expiresAt: Date.now() + 24 * 3600_000,
  });
  return [
    {
      name: "baseline: GET /health (one trivial D1 query)",
      meaning: "The floor of this runtime on this machine: every other figure is compared with it.",
      method: "GET",
      path: "/health",
    },
    {
      name: "content: first page (100)",
      meaning: "Starting a content pull.",
      method: "POST",
      path: "/api/v1/content/accommodations",
      body: { size: PAGE_SIZE },
      headers: API_KEY,
    },
    {
      name: `content: page ${deepPage + 1} (100)`,
      meaning: "A page deep into a content pull; keyset pagination should make it cost what the first costs.",
      method: "POST",
      path: "/api/v1/content/accommodations",
      body: { pageToken: deepToken },
      headers: API_KEY,
    },
  ];
};

const stayDates = () => {
  const checkIn = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
  const checkOut = new Date(Date.now() + 32 * 86_400_000).toISOString().slice(0, 10);
  return { checkIn, checkOut };
};
const TWO_ADULTS = [{ occupancyId: 1, paxes: [{ age: 30 }, { age: 30 }] }];
const SETTINGS = { access: { code: 1001 } };
// The densest city of the demo data (the generator weights cities by population).
export const NEW_YORK = { lat: 40.74997906, lng: -73.98001693 };

export const searchBody = (criteria: Record<string, unknown>, settings: Record<string, unknown> = SETTINGS) => ({
  searchCriteria: { ...criteria, occupancies: TWO_ADULTS, ...stayDates() },
  settings,
});

const codes = (n: number, total: number) =>
  Array.from({ length: n }, (_, i) => ({ code: accommodationCode(1 + Math.floor((i * total) / n)) }));

/** Search scenarios (the booking engine); names are shared by the 2,000 and 100,000 runs. */
export const searchScenarios = (ctx: BenchContext): Scenario[] => [
  ...[1, 100, 1000].map((n) => ({
    name: `search: ${n} code${n > 1 ? "s" : ""}`,
    meaning: n === 1 ? "Re-pricing one hotel." : `Pricing a list of ${n} hotels in one call.`,
    method: "POST" as const,
    path: "/api/search",
    body: searchBody({ destinations: { accommodations: codes(n, ctx.accommodations) } }),
    headers: API_KEY,
  })),
  {
    name: "search: geo, New York, default radius",
    meaning: "Everything within 20 km of a dense city centre, nearest first.",
    method: "POST",
    path: "/api/search",
    body: searchBody({ geo: { lat: NEW_YORK.lat, lng: NEW_YORK.lng } }),
    headers: API_KEY,
  },
  {
    name: "search: geo, New York, limit 100",
    meaning: "The 100 nearest hotels of the same centre: whether geo cost follows the answer or the area.",
    method: "POST",
    path: "/api/search",
    body: searchBody({ geo: { lat: NEW_YORK.lat, lng: NEW_YORK.lng, limit: 100 } }),
    headers: API_KEY,
  },
  {
    name: 'search: name "harbor"',
    meaning: "A partial, case-insensitive name match.",
    method: "POST",
    path: "/api/search",
    body: searchBody({ accommodationName: "harbor" }),
    headers: API_KEY,
  },
];

export const API_KEY_HEADERS = API_KEY;
