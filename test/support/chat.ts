import { call, DEMO_KEY, post } from "./api";
import { inDays } from "./clock";

/** Shared helpers for the chat tests (not a test file itself). */
export const CHAT = "/api/partner/v1/core-chat";

type ChatCallOptions = { key?: string | null; headers?: Record<string, string>; raw?: string };

/** A chat call with the recommended x-partner-api-key header (the demo key unless told otherwise). */
export const chat = (method: string, path: string, body?: unknown, options: ChatCallOptions = {}) => {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null) headers["x-partner-api-key"] = options.key ?? DEMO_KEY;
  return call(method, `${CHAT}${path}`, body, {
    apiKey: null,
    headers,
    ...(options.raw !== undefined ? { raw: options.raw } : {}),
  });
};

export const startSession = async (actorId: string, key?: string) => {
  const res = await chat("POST", "/sessions", { actor: { actorId, timezoneOffsetMinutes: -300 } }, { key });
  if (res.status !== 201) throw new Error(`session ${res.status} ${res.text}`);
  return res.json.data.sessionId as string;
};

export const say = async (sessionId: string, text: string, extra: Record<string, unknown> = {}) => {
  const res = await chat("POST", "/events", { sessionId, text, ...extra });
  if (res.status !== 200) throw new Error(`event ${res.status} ${res.text}`);
  return res.json.data;
};

export const act = (sessionId: string, kind: string, payload: unknown, idempotencyKey?: string, key?: string) =>
  chat("POST", "/events", { sessionId, kind, payload, ...(idempotencyKey ? { idempotencyKey } : {}) }, { key });

/** The one-time token inside a setupUrl. */
export const tokenOf = (setupUrl: string) => new URL(setupUrl).searchParams.get("token")!;

export const attachBody = (portalToken: string, overrides: Record<string, unknown> = {}) => ({
  portalToken,
  paymentMethodId: `pm_test${crypto.randomUUID().replace(/-/g, "")}`,
  cardBrand: "visa",
  cardLast4: "4242",
  expMonth: 12,
  expYear: new Date().getUTCFullYear() + 2,
  setAsDefault: true,
  ...overrides,
});

/** The card step as the setup page's script takes it: attaches a card with the link's one-time token. */
export const attachCard = (setupUrl: string, overrides: Record<string, unknown> = {}) =>
  post("/v1/hotel-ea/payment-methods/attach", attachBody(tokenOf(setupUrl), overrides), { apiKey: null });

/** A search message for New York, 30 days ahead, two nights (the demo's biggest city in 50 hotels). */
export const NEW_YORK = `Hotel in New York for 2 adults from ${inDays(30)} to ${inDays(32)}`;
