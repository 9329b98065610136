import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RateLimiter } from "./rate-limiter";

describe("RateLimiter Durable Object", () => {
  it("admits exactly the limit under parallel calls, then refuses until the window resets", async () => {
    const stub = env.RATE_LIMITER.getByName("connection-parallel");
    const now = Date.now();
    const decisions = await Promise.all(Array.from({ length: 25 }, () => stub.consume(10, 60_000, now)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetAt === now + 60_000)).toBe(
      true,
    );
    expect((await stub.consume(10, 60_000, now + 59_999)).allowed).toBe(false);
    const fresh = await stub.consume(10, 60_000, now + 60_000);
    expect(fresh).toEqual({ allowed: true, limit: 10, remaining: 9, resetAt: now + 120_000 });
  });

  it("removes idle state when its alarm fires", async () => {
    const stub = env.RATE_LIMITER.getByName("connection-idle");
    await stub.consume(5, 1_000);
    expect(await runInDurableObject(stub, (_: RateLimiter, state) => state.storage.get("window"))).toBeDefined();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_: RateLimiter, state) => state.storage.get("window"))).toBeUndefined();
  });
});
