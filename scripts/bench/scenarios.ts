import { issuePageToken } from "../../src/features/content/page-token";
import { accommodationCode } from "../demo/accommodations";

export type Scenario = {
  name: string;
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
  const deepToken = await issuePageToken(ctx.pageTokenSecret, {
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
