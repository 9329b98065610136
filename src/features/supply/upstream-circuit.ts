// The circuit itself, the Durable Object UpstreamCircuit, is in durable-objects.ts: this file loads
// in Node too (npm start's seed builds the supplier kinds, whose Hotel-X supplier uses circuitFor).

/** Failures in a row that open the circuit, and how long it then stays open. */
export const FAILURES_TO_OPEN = 5;
export const OPEN_FOR_MS = 30_000;

export type CircuitVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };
export type CircuitState = { failures: number; openUntil: number | null };

/** The circuit of one remote supplier (key: its code), shared by every connection selling it. */
export const circuitFor = (env: Pick<Env, "UPSTREAM_CIRCUIT">, key: string) => {
  const circuit = env.UPSTREAM_CIRCUIT.getByName(key);
  return {
    allow: (now: number | Date): Promise<CircuitVerdict> => circuit.allow(+now),
    record: (ok: boolean, now: number | Date): Promise<CircuitState> => circuit.record(ok, +now),
    release: (now: number | Date): Promise<CircuitState> => circuit.release(+now),
  };
};
