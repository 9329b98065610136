import { ApiError } from "../../platform/http/api-error";
import type { CoreConnection } from "./connection-access";

export type RateLimitHeaders = Record<string, string>;

/**
 * Counts one request against the connection's own window in its RateLimiter Durable Object.
 * A rateLimit or rateLimitWindowMs of 0 means the connection is not rate limited (no headers).
 * Returns the headers to send; throws 429 `Rate limit exceeded` (with the headers) when refused.
 */
export const consumeRateLimit = async (
  limiter: Env["RATE_LIMITER"],
  connection: CoreConnection,
  now = Date.now(),
): Promise<RateLimitHeaders> => {
  if (connection.rateLimit <= 0 || connection.rateLimitWindowMs <= 0) return {};
  const decision = await limiter.getByName(connection.id).consume(connection.rateLimit, connection.rateLimitWindowMs, now);
  const headers: RateLimitHeaders = {
    "X-RateLimit-Limit": String(decision.limit),
    "X-RateLimit-Remaining": String(decision.remaining),
    // Unix seconds at which the window resets (rounded up).
    "X-RateLimit-Reset": String(Math.ceil(decision.resetAt / 1000)),
  };
  if (!decision.allowed) {
    headers["Retry-After"] = String(Math.max(1, Math.ceil((decision.resetAt - now) / 1000)));
    throw new RateLimited(headers);
  }
  return headers;
};

export class RateLimited extends ApiError {
  constructor(readonly headers: RateLimitHeaders) {
    super(429, "Rate limit exceeded", "rate_limit_exceeded");
  }
}
