import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { circuitFor, FAILURES_TO_OPEN, OPEN_FOR_MS } from "./upstream-circuit";

const T0 = Date.parse("2027-01-01T10:00:00Z");
const fresh = () => circuitFor(env, `https://hotelx-${crypto.randomUUID()}.example/`);
const fail = async (circuit: ReturnType<typeof fresh>, times: number, now = T0) => {
  for (let i = 0; i < times; i++) await circuit.record(false, now);
};

describe("upstream circuit breaker", () => {
  it("opens after five failures in a row, refuses at once for 30 s, then lets one trial through", async () => {
    const circuit = fresh();
    await fail(circuit, FAILURES_TO_OPEN - 1);
    expect(await circuit.allow(T0)).toEqual({ allowed: true });
    expect(await circuit.record(false, T0)).toEqual({ failures: 5, openUntil: T0 + OPEN_FOR_MS });
    expect(await circuit.allow(T0 + 1_000)).toEqual({ allowed: false, retryAfterMs: OPEN_FOR_MS - 1_000 });
    expect(await circuit.allow(T0 + OPEN_FOR_MS - 1)).toEqual({ allowed: false, retryAfterMs: 1 });
    // Half-open: one trial, the rest held off.
    expect(await circuit.allow(T0 + OPEN_FOR_MS)).toEqual({ allowed: true });
    expect(await circuit.allow(T0 + OPEN_FOR_MS + 10)).toMatchObject({ allowed: false });
  });

  it("a failed trial opens it for another 30 s; a successful one closes it", async () => {
    const circuit = fresh();
    await fail(circuit, FAILURES_TO_OPEN);
    const trialAt = T0 + OPEN_FOR_MS;
    expect(await circuit.allow(trialAt)).toEqual({ allowed: true });
    await circuit.record(false, trialAt);
    expect(await circuit.allow(trialAt + OPEN_FOR_MS - 1)).toMatchObject({ allowed: false });
    expect(await circuit.allow(trialAt + OPEN_FOR_MS)).toEqual({ allowed: true });
    expect(await circuit.record(true, trialAt + OPEN_FOR_MS)).toEqual({ failures: 0, openUntil: null });
    expect(await circuit.allow(trialAt + OPEN_FOR_MS)).toEqual({ allowed: true });
    // Closed again: it takes five new failures in a row to open.
    await fail(circuit, FAILURES_TO_OPEN - 1, trialAt + OPEN_FOR_MS);
    expect(await circuit.allow(trialAt + OPEN_FOR_MS)).toEqual({ allowed: true });
  });

  it("counts failures in a row only: a success in between starts again", async () => {
    const circuit = fresh();
    await fail(circuit, FAILURES_TO_OPEN - 1);
    await circuit.record(true, T0);
    await fail(circuit, FAILURES_TO_OPEN - 1);
    expect(await circuit.allow(T0)).toEqual({ allowed: true });
  });

  it("is one circuit per key, shared by every caller, and counts parallel failures exactly", async () => {
    const key = `https://shared-${crypto.randomUUID()}.example/`;
    await Promise.all(Array.from({ length: FAILURES_TO_OPEN }, () => circuitFor(env, key).record(false, T0)));
    expect(await circuitFor(env, key).allow(T0 + 1)).toMatchObject({ allowed: false });
    expect(await fresh().allow(T0 + 1)).toEqual({ allowed: true });
    // Many callers at the end of the open period: exactly one trial goes.
    const verdicts = await Promise.all(Array.from({ length: 6 }, () => circuitFor(env, key).allow(T0 + OPEN_FOR_MS)));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(1);
  });
});
