import { DurableObject } from "cloudflare:workers";
import { type CircuitState, type CircuitVerdict, FAILURES_TO_OPEN, OPEN_FOR_MS } from "./upstream-circuit";

/**
 * The room's Durable Object classes, for the Worker's entry (src/index.ts) alone: they load
 * `cloudflare:workers`, which the Node tools loading supply's supplier kinds cannot (npm start's
 * seed of connection 1003). Callers reach a circuit through `circuitFor` (upstream-circuit.ts).
 */

/**
 * One remote supplier's circuit breaker, shared by every isolate and every connection selling it
 * (one instance per key: the supplier's code; an upstream migrated from a connection is that
 * connection's own supplier, so no partner's calls open another's circuit on a shared URL). Closed: every call goes. Five failures in a row open it for 30 s: calls are
 * refused at once. When the 30 s are over one trial call goes (the others wait another 30 s); its
 * success closes the circuit, its failure opens it again, and an outcome that says nothing of the
 * upstream's health (`release`) hands the trial to the next call. `now` is passed in so tests
 * control the clock. What counts as a failure is the caller's decision (hotelx-supplier.ts).
 */
export class UpstreamCircuit extends DurableObject<Env> {
  private state(): CircuitState {
    return {
      failures: this.ctx.storage.kv.get<number>("failures") ?? 0,
      openUntil: this.ctx.storage.kv.get<number>("openUntil") ?? null,
    };
  }

  allow(now: number): CircuitVerdict {
    const { failures, openUntil } = this.state();
    if (failures < FAILURES_TO_OPEN) return { allowed: true };
    if (openUntil !== null && now < openUntil) return { allowed: false, retryAfterMs: openUntil - now };
    // Half-open: this call is the trial; the others are held off until it reports or 30 s pass.
    this.ctx.storage.kv.put("openUntil", now + OPEN_FOR_MS);
    this.ctx.storage.kv.put("trial", true);
    return { allowed: true };
  }

  record(ok: boolean, now: number): CircuitState {
    if (ok) {
      // Closed with no failures is no state at all; a success of a closed circuit (every search
      // of every supplier) writes nothing.
      const kv = this.ctx.storage.kv;
      if (kv.get("failures") !== undefined || kv.get("openUntil") !== undefined || kv.get("trial") !== undefined) {
        kv.delete("failures");
        kv.delete("openUntil");
        kv.delete("trial");
      }
      return { failures: 0, openUntil: null };
    }
    const failures = this.state().failures + 1;
    this.ctx.storage.kv.put("failures", failures);
    if (failures >= FAILURES_TO_OPEN) {
      this.ctx.storage.kv.put("openUntil", now + OPEN_FOR_MS);
      this.ctx.storage.kv.delete("trial");
    }
    return this.state();
  }

  /**
   * A call ended in a way that tells nothing of the upstream's health (a deadline the caller
   * shortened, a request the upstream refused): nothing is counted. If that call was the half-open
   * trial, the next call may try at once instead of 30 s later.
   */
  release(now: number): CircuitState {
    if (this.ctx.storage.kv.get<boolean>("trial")) {
      this.ctx.storage.kv.delete("trial");
      this.ctx.storage.kv.put("openUntil", now);
    }
    return this.state();
  }
}
