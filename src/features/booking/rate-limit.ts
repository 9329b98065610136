import { rateHeaders, rateLimitExceeded, type RateHeaders } from "../../platform/ratelimit/rate-headers";
import type { CoreConnection } from "../connections";

/**
 * Counts one request against the connection's own window in its RateLimiter Durable Object.
 * A rateLimit or rateLimitWindowMs of 0 means the connection is not rate limited (no headers).
 * Returns the headers to send; throws 429 `Rate limit exceeded` (carrying the headers) when refused.
 */
export const consumeRateLimit = async (
  limiter: Env["RATE_LIMITER"],
  connection: CoreConnection,
  now = Date.now(),
): Promise<RateHeaders> => {
  if (connection.rateLimit <= 0 || connection.rateLimitWindowMs <= 0) return {};
  const decision = await limiter
    .getByName(connection.id)
    .consume(connection.rateLimit, connection.rateLimitWindowMs, now);
  const headers = rateHeaders(decision);
  if (!decision.allowed) throw rateLimitExceeded(headers);
  return headers;
};
