import { exports } from "cloudflare:workers";
import { DEMO, OTHER } from "./accounts";
import { post, readResponse } from "./api";
import { unique } from "./radar-fixtures";

export * from "./radar-fixtures";

/** Test fixtures for radar: a real browser's signals and a check request, through the Worker's fetch. */
export const SIGNALS_PATH = "/api/v1/radar/sessions/signals";
export const CHECKS_PATH = "/api/v1/radar/checks";
export const DEMO_COLLECTOR_KEY: string = DEMO.collectorKey;
export const OTHER_COLLECTOR_KEY: string = OTHER.collectorKey;

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
