import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../platform/app-env";
import { findCallerByApiKey } from "../../platform/auth/api-key";
import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { rateHeaders, rateLimitExceeded } from "../../platform/ratelimit/rate-headers";
import { chatConnection } from "../connections";

/** Chat calls per window when the partner has no rate-limited connection in use. */
export const DEFAULT_CHAT_RATE = { limit: 600, windowMs: 60_000 };

/**
 * The key from `x-partner-api-key` (recommended), `Authorization: Bearer`, or `api-key`, in that order.
 * Not hono/bearer-auth: here a bearer header is one of three optional places for the key, read before
 * the call is counted, while bearer-auth answers a request without one itself.
 */
export const presentedChatKey = (header: (name: string) => string | undefined): string | undefined => {
  const direct = header("x-partner-api-key")?.trim();
  if (direct) return direct;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header("authorization") ?? "");
  if (bearer) return bearer[1];
  return header("api-key")?.trim() || undefined;
};

/**
 * The partner's chat budget: the rate of its in-use connection (b2b and direct preferred, the
 * same connection chat books through), else DEFAULT_CHAT_RATE.
 */
const chatRateOf = async (db: Db, partnerId: string) => {
  const connection = await chatConnection(db, partnerId);
  if (!connection || connection.rateLimit <= 0 || connection.rateLimitWindowMs <= 0) return DEFAULT_CHAT_RATE;
  return { limit: connection.rateLimit, windowMs: connection.rateLimitWindowMs };
};

/**
 * Every chat call: counts it in a RateLimiter Durable Object and sets x-ratelimit-* (errors
 * included), then authenticates. Calls without a valid key are counted per client address,
 * which also slows key guessing.
 */
export const chatAuth = (): MiddlewareHandler<AppEnv> =>
  async function chatAuth(c, next) {
    const key = presentedChatKey((name) => c.req.header(name));
    const caller = key ? await findCallerByApiKey(c.get("db"), key) : null;
    const rate = caller ? await chatRateOf(c.get("db"), caller.partnerId) : DEFAULT_CHAT_RATE;
    const bucket = caller
      ? `chat:${caller.partnerId}`
      : `chat-anonymous:${c.req.header("cf-connecting-ip") ?? "unknown"}`;
    const decision = await c.env.RATE_LIMITER.getByName(bucket).consume(rate.limit, rate.windowMs);
    // Spec section 8: chat sends limit and remaining only (no reset).
    const headers = rateHeaders(decision, { reset: false });
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    if (caller) c.header("x-partner-id", caller.partnerId);
    if (!decision.allowed) throw rateLimitExceeded(headers);
    if (!key) throw new ApiError("missing_partner_api_key", "Missing partner API key.");
    if (!caller) throw new ApiError("invalid_partner_api_key", "Invalid partner API key.");
    c.set("caller", caller);
    await next();
  };
