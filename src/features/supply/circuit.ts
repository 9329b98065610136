import type { CircuitState, CircuitVerdict } from "./upstream-circuit";

/** The circuit of one connection's upstream (key: the connection id). */
export const circuitFor = (env: Pick<Env, "UPSTREAM_CIRCUIT">, key: string) => {
  const circuit = env.UPSTREAM_CIRCUIT.getByName(key);
  return {
    allow: (now: number | Date): Promise<CircuitVerdict> => circuit.allow(+now),
    record: (ok: boolean, now: number | Date): Promise<CircuitState> => circuit.record(ok, +now),
    release: (now: number | Date): Promise<CircuitState> => circuit.release(+now),
  };
};
