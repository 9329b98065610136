import { DurableObject } from "cloudflare:workers";

/** Failures in a row that open the circuit, and how long it then stays open. */
export const FAILURES_TO_OPEN = 5;
export const OPEN_FOR_MS = 30_000;

export type CircuitVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };
export type CircuitState = { failures: number; openUntil: number | null };

/**
 * One upstream's circuit breaker, shared by every isolate (one instance per upstream key).
 * Closed: every call goes. Five failures in a row open it for 30 s: calls are refused at once.
 * When the 30 s are over one trial call goes (the others wait another 30 s); its success closes
 * the circuit, its failure opens it again. `now` is passed in so tests control the clock.
 * A failure is a timeout or a `supplier_error`; a refusal (sold out, price changed) is an answer.
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
    return { allowed: true };
  }

  record(ok: boolean, now: number): CircuitState {
    if (ok) {
      // Closed with no failures is no state at all.
      this.ctx.storage.kv.delete("failures");
      this.ctx.storage.kv.delete("openUntil");
      return { failures: 0, openUntil: null };
    }
    const failures = this.state().failures + 1;
    this.ctx.storage.kv.put("failures", failures);
    if (failures >= FAILURES_TO_OPEN) this.ctx.storage.kv.put("openUntil", now + OPEN_FOR_MS);
    return this.state();
  }
}

/** The circuit of one upstream (key: its URL or connection id). */
export const circuitFor = (env: Pick<Env, "UPSTREAM_CIRCUIT">, key: string) => {
  const circuit = env.UPSTREAM_CIRCUIT.getByName(key);
  return {
    allow: (now: number | Date): Promise<CircuitVerdict> => circuit.allow(+now),
    record: (ok: boolean, now: number | Date): Promise<CircuitState> => circuit.record(ok, +now),
  };
};
