import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/app-env";
import { apiRoute } from "../../platform/http/api-route";
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { apiKeyAuth, apiKeySecurity } from "../../platform/auth/api-key";
import { ApiError } from "../../platform/http/api-error";
import { success } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import { recordUsage } from "../../platform/observability/usage";
import { rateHeaders, rateLimitExceeded } from "../../platform/ratelimit/rate-headers";
import {
  IDEMPOTENCY_KEY_PATTERN,
  idempotencyErrors,
  replayHeaders,
  withIdempotency,
} from "../../platform/idempotency/idempotency";
import { specMessage } from "../../platform/http/validation";
import { cardDataGuardErrors, noRawCardData } from "../../platform/card-data/card-data";
import { collectorKeyAuth, type CollectorEnv } from "./collector-key";
import {
  checkRequestSchema,
  checkResponseSchema,
  SESSION_ID_MESSAGE,
  SESSION_ID_PATTERN,
  signalsAcceptedSchema,
  signalsRequestSchema,
} from "./schemas";
import { allowedOriginsOf, runCheck, storeSignals } from "./service";

// Under /api/v1/radar, where the app mounts radarRoutes.
const SIGNALS_PATH = "/sessions/signals";
const CHECKS_PATH = "/checks";
/** Signals are a few hundred bytes; anything near this is not a browser snippet. */
export const MAX_SIGNALS_BYTES = 16 * 1024;

const sessionIdHeader = z
  .string({ error: specMessage(SESSION_ID_MESSAGE) })
  .regex(SESSION_ID_PATTERN, specMessage(SESSION_ID_MESSAGE))
  .openapi({
    description: "The session id the page snippet was given (data-session-id)",
    example: "sess_8f1c2a9d04e7b316",
  });

const signalsBodyLimit = (): MiddlewareHandler<AppEnv> =>
  async function signalsBodyLimit(c, next) {
    // The app's jsonBody has read (and cached) the text under its 1 MiB limit already.
    const bytes = new TextEncoder().encode(await c.req.text()).byteLength;
    if (bytes > MAX_SIGNALS_BYTES) {
      throw new ApiError("body_too_large", `Request body too large: the limit is ${MAX_SIGNALS_BYTES} bytes`);
    }
    await next();
  };

/**
 * A partner may limit its collector key to its own pages' origins. Browsers always send Origin on
 * a cross-site POST; a post without one (not a browser) is refused too once a list is set.
 */
const signalsOriginAllowlist = (): MiddlewareHandler<CollectorEnv> =>
  async function signalsOriginAllowlist(c, next) {
    const allowed = await allowedOriginsOf(c.get("db"), c.get("collectorPartnerId"));
    if (allowed.length > 0 && !allowed.includes(c.req.header("origin") ?? "")) {
      throw new ApiError("origin_not_allowed", "This origin may not post signals with this collector key");
    }
    await next();
  };

/** Per browser IP and partner: a page posts once per load, so this only stops floods of the public key. */
export const SIGNALS_RATE = { limit: 60, windowMs: 60_000 };

const signalsRateLimit = (): MiddlewareHandler<CollectorEnv> =>
  async function signalsRateLimit(c, next) {
    // The edge always sets cf-connecting-ip; calls that reach the Worker without it are not browsers.
    const ip = c.req.header("cf-connecting-ip");
    if (!ip) return next();
    const limiter = c.env.RATE_LIMITER.getByName(`radar-signals:${c.get("collectorPartnerId")}:${ip}`);
    const decision = await limiter.consume(SIGNALS_RATE.limit, SIGNALS_RATE.windowMs);
    const headers = rateHeaders(decision);
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    if (!decision.allowed) throw rateLimitExceeded(headers);
    await next();
  };

const postSignals = apiRoute({
  operationId: "collectRadarSignals",
  method: "post",
  path: SIGNALS_PATH,
  tags: ["Radar"],
  summary: "Browser signals from the page snippet (collector key, CORS)",
  description: "Sent by /radar.js; its session-id then goes on POST /api/v1/radar/checks.",
  security: [{ CollectorKey: [] }],
  // Signals and checks are stored as sent: a card number in any field is refused, never kept.
  middleware: [
    signalsBodyLimit(),
    collectorKeyAuth(),
    signalsOriginAllowlist(),
    signalsRateLimit(),
    noRawCardData(),
  ] as const,
  request: {
    headers: z.object({ "session-id": sessionIdHeader }),
    body: { required: true, content: { "application/json": { schema: signalsRequestSchema } } },
  },
  errors: [
    ...cardDataGuardErrors,
    "collector_key_required",
    "invalid_collector_key",
    "origin_not_allowed",
    "rate_limit_exceeded",
  ],
  responses: {
    202: {
      description: "Signals kept for the session",
      content: { "application/json": { schema: signalsAcceptedSchema } },
    },
  },
});

const signalsRoutes = featureRouter<CollectorEnv>();

// Partner pages on any origin post here; no cookies are involved, so `*` without credentials.
signalsRoutes.use(
  SIGNALS_PATH,
  cors({
    origin: "*",
    allowMethods: ["POST", "OPTIONS"],
    allowHeaders: ["content-type", "session-id", "x-radar-collector-key"],
    // Browsers hide every response header not listed here: the page may read its rate state.
    exposeHeaders: ["x-request-id", "retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"],
    maxAge: 86_400,
  }),
);

signalsRoutes.openapi(postSignals, async (c) => {
  const cf = c.req.raw.cf as { country?: unknown } | undefined;
  const stored = await storeSignals(c.get("db"), {
    partnerId: c.get("collectorPartnerId"),
    sessionId: c.req.valid("header")["session-id"],
    signals: c.req.valid("json"),
    ipCountry: typeof cf?.country === "string" ? cf.country.toUpperCase() : null,
    ip: c.req.header("cf-connecting-ip") ?? null,
    piiKey: c.env.PII_HASH_SECRET,
  });
  return c.json(success({ accepted: true as const, expires_at: stored.expiresAt }), 202);
});

const postCheck = apiRoute({
  operationId: "createRadarCheck",
  method: "post",
  path: CHECKS_PATH,
  tags: ["Radar"],
  summary: "Pre-booking risk check (server to server)",
  description: "session-id: as the page snippet sent it.",
  security: apiKeySecurity,
  middleware: [apiKeyAuth(), noRawCardData()] as const,
  request: {
    headers: z.object({
      "session-id": sessionIdHeader,
      "idempotency-key": z
        .string()
        .regex(IDEMPOTENCY_KEY_PATTERN, "must be 1 to 255 printable ASCII characters")
        .optional()
        .openapi({
          description: "Retries with the same key replay the first result and are not billed again",
          example: "check-PARTNER-REF-1001",
        }),
    }),
    body: { required: true, content: { "application/json": { schema: checkRequestSchema } } },
  },
  errors: [...cardDataGuardErrors, ...idempotencyErrors, "partner_not_found"],
  responses: {
    200: {
      description: "The decision, with a reason per fired rule",
      content: { "application/json": { schema: checkResponseSchema } },
    },
  },
});

const checkRoutes = featureRouter().openapi(postCheck, async (c) => {
  const headers = c.req.valid("header");
  const partnerId = c.get("caller").partnerId;
  const sessionId = headers["session-id"];
  const idempotencyKey = headers["idempotency-key"] ?? null;
  const request = c.req.valid("json");
  const answer = await withIdempotency(
    c.get("db"),
    {
      scope: "radar_check",
      partnerId,
      key: idempotencyKey,
      keyName: "idempotency-key",
      request: { sessionId, request },
    },
    async () => ({
      status: 200,
      body: success(
        (
          await runCheck(c.get("db"), {
            assets: c.env.ASSETS,
            partnerId,
            sessionId,
            idempotencyKey,
            request,
            piiKey: c.env.PII_HASH_SECRET,
          })
        ).check,
      ),
    }),
  );
  const body = answer.body as z.infer<typeof checkResponseSchema>;
  // A replay was billed the first time; a bypass is never billable.
  if (!answer.replayed && body.data.billable)
    recordUsage(c.env, { partnerId, operation: "radar_check", requestId: c.get("requestId") });
  return c.json(body, 200, replayHeaders(answer));
});

/** Mounted at /api/v1/radar. */
export const radarRoutes = featureRouter().route("/", signalsRoutes).route("/", checkRoutes);
