import { DurableObject } from "cloudflare:workers";

/** `retryAfterMs`: how long a refused caller waits, never longer than the window (0 when allowed). */
export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAt: number;
  retryAfterMs: number;
};
type Window = { start: number; count: number };

/**
 * One instance per connection. A fixed window that opens at the first request; the
 * object is single-threaded, so admissions are exact under any concurrency. An alarm
 * deletes the state once a window has passed idle.
 */
export class RateLimiter extends DurableObject<Env> {
  // The synchronous storage API of a SQLite-backed object: no await per request on the hot path.
  async consume(limit: number, windowMs: number, now = Date.now()): Promise<RateDecision> {
    const kv = this.ctx.storage.kv;
    let window = kv.get<Window>("window");
    if (!window || now >= window.start + windowMs) {
      window = { start: now, count: 0 };
      await this.ctx.storage.setAlarm(now + windowMs * 2);
    }
    const resetAt = window.start + windowMs;
    // From the window's start at the earliest: a caller whose clock read earlier (it asked first and
    // reached the object later, or its clock lags) is not told to wait longer than the window.
    if (window.count >= limit)
      return { allowed: false, limit, remaining: 0, resetAt, retryAfterMs: resetAt - Math.max(now, window.start) };
    window.count += 1;
    kv.put("window", window);
    return { allowed: true, limit, remaining: limit - window.count, resetAt, retryAfterMs: 0 };
  }

  async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }
}
