import { ApiError } from "../http/api-error";
import type { RateDecision } from "./rate-limiter";

export type RateHeaders = Record<string, string>;

export const retryAfterHeader = (seconds: number): RateHeaders => ({ "Retry-After": String(seconds) });

/** Whole seconds until `resetAt`, at least 1: what a refused caller is told to wait. */
export const secondsUntil = (resetAt: number, now: number) => Math.max(1, Math.ceil((resetAt - now) / 1000));

/**
 * The rate headers of one decision (spec section 8), on success and on 429 alike: limit, remaining,
 * the reset time in Unix seconds (rounded up; the chat API sends no reset), and Retry-After when
 * refused. The one place these headers are spelled.
 */
export const rateHeaders = (decision: RateDecision, { reset = true } = {}): RateHeaders => ({
  "X-RateLimit-Limit": String(decision.limit),
  "X-RateLimit-Remaining": String(decision.remaining),
  ...(reset ? { "X-RateLimit-Reset": String(Math.ceil(decision.resetAt / 1000)) } : {}),
  // Reckoned by the limiter, by its window: the caller's clock may read before the window's start.
  ...(decision.allowed ? {} : retryAfterHeader(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)))),
});

/** The 429 of a refused request; the app's error handler writes its headers. */
export const rateLimitExceeded = (headers: RateHeaders) =>
  new ApiError("rate_limit_exceeded", "Rate limit exceeded", undefined, headers);
