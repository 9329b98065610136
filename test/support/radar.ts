import { exports } from "cloudflare:workers";
import { DEMO, OTHER } from "./accounts";
import { post, readResponse } from "./api";

/** Test fixtures for radar: a real browser's signals and a check request, through the Worker's fetch. */
export const SIGNALS_PATH = "/api/v1/radar/sessions/signals";
export const CHECKS_PATH = "/api/v1/radar/checks";
export const DEMO_COLLECTOR_KEY: string = DEMO.collectorKey;
export const OTHER_COLLECTOR_KEY: string = OTHER.collectorKey;

export const CHROME_UA =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

let counter = 0;
/** Unique suffix so tests in one file never share sessions, visitors, e-mails or IPs by accident. */
export const unique = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${(++counter).toString(36).padStart(8, "0")}`;

export const uniqueIp = () => `10.${(counter >> 8) & 255}.${++counter & 255}.${Math.floor(Math.random() * 250) + 1}`;

export const humanSignals = (overrides: Record<string, unknown> = {}) => ({
  page_url: "https://partner.example/book/123",
  referrer: "https://partner.example/",
  user_agent: CHROME_UA,
  language: "en-US",
  timezone: "America/New_York",
  screen: { width: 1920, height: 1080, pixel_ratio: 1 },
  device: { platform: "Win32", hardware_concurrency: 8, touch_points: 0, webdriver: false },
  fingerprint: { visitor_id: unique("v") },
  ...overrides,
});

type SignalOptions = {
  collectorKey?: string | null;
  sessionId?: string | null;
  country?: string;
  ip?: string;
  headers?: Record<string, string>;
  raw?: string;
  method?: string;
};

/** A browser's post of signals: collector key, session id and, optionally, the edge's cf.country. */
export const sendSignals = async (body: unknown, options: SignalOptions = {}) => {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    origin: "https://partner.example",
    ...options.headers,
  };
  if (options.collectorKey !== null) headers["x-radar-collector-key"] = options.collectorKey ?? DEMO_COLLECTOR_KEY;
  if (options.sessionId !== null && options.sessionId !== undefined) headers["session-id"] = options.sessionId;
  if (options.ip) headers["cf-connecting-ip"] = options.ip;
  const init: RequestInit<IncomingRequestCfProperties> = {
    method: options.method ?? "POST",
    headers,
    body: options.method === "OPTIONS" ? undefined : (options.raw ?? JSON.stringify(body)),
  };
  if (options.country) init.cf = { country: options.country } as IncomingRequestCfProperties;
  const request = new Request(`https://edgestay.test${SIGNALS_PATH}`, init);
  return readResponse(await exports.default.fetch(request), request);
};

export const checkBody = (overrides: Record<string, unknown> = {}) => ({
  trigger_event: "booking_attempt",
  booker: { first_name: "Jane", last_name: "Doe", email: `${unique("jane")}@example.com`, phone: "+12025550123" },
  guest: { first_name: "John", last_name: "Doe" },
  context: { partner_request_id: unique("req"), booker_uuid: unique("b"), user_id: "u-1", ip: uniqueIp() },
  payment: {
    billing_address: { line1: "1 Main St", city: "Boston", state: "MA", postal_code: "02110", country: "US" },
  },
  extras: { channel: "web" },
  ...overrides,
});

type CheckOptions = {
  sessionId?: string | null;
  apiKey?: string | null;
  idempotencyKey?: string;
  raw?: string;
  headers?: Record<string, string>;
};

export const runCheckCall = (body: unknown, options: CheckOptions = {}) => {
  const headers: Record<string, string> = { ...options.headers };
  if (options.sessionId !== null) headers["session-id"] = options.sessionId ?? unique("s");
  if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
  return post(CHECKS_PATH, options.raw === undefined ? body : undefined, {
    apiKey: options.apiKey,
    headers: options.raw === undefined ? headers : { ...headers, "content-type": "application/json" },
    raw: options.raw,
  });
};

export const reasonCodes = (json: any): string[] => json.data.reasons.map((r: { code: string }) => r.code);
