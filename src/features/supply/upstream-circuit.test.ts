import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { circuitFor, FAILURES_TO_OPEN, OPEN_FOR_MS } from "./upstream-circuit";

const T0 = Date.parse("2027-01-01T10:00:00Z");
// Keyed by connection id (hotelx-supplier.ts): each test's circuit is a connection of its own.
const fresh = () => circuitFor(env, `con_${crypto.randomUUID()}`);
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
    const key = `con_shared_${crypto.randomUUID()}`;
    await Promise.all(Array.from({ length: FAILURES_TO_OPEN }, () => circuitFor(env, key).record(false, T0)));
    expect(await circuitFor(env, key).allow(T0 + 1)).toMatchObject({ allowed: false });
    expect(await fresh().allow(T0 + 1)).toEqual({ allowed: true });
    // Many callers at the end of the open period: exactly one trial goes.
    const verdicts = await Promise.all(Array.from({ length: 6 }, () => circuitFor(env, key).allow(T0 + OPEN_FOR_MS)));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(1);
  });

  it("release: a trial that told nothing hands the trial to the next call; outside a trial it changes nothing", async () => {
    const circuit = fresh();
    await fail(circuit, FAILURES_TO_OPEN);
    const opened = { failures: FAILURES_TO_OPEN, openUntil: T0 + OPEN_FOR_MS };
    // Open, no trial in flight: the 30 s stand.
    expect(await circuit.release(T0 + 1_000)).toEqual(opened);
    expect(await circuit.allow(T0 + 1_000)).toMatchObject({ allowed: false });
    const trialAt = T0 + OPEN_FOR_MS;
    expect(await circuit.allow(trialAt)).toEqual({ allowed: true });
    expect(await circuit.allow(trialAt + 10)).toMatchObject({ allowed: false });
    // The trial released: the next call is a new trial at once, and only one.
    expect(await circuit.release(trialAt + 20)).toEqual({ failures: FAILURES_TO_OPEN, openUntil: trialAt + 20 });
    const verdicts = await Promise.all(Array.from({ length: 4 }, () => circuit.allow(trialAt + 30)));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(1);
    // That trial fails: open for 30 s again; releasing then changes nothing.
    await circuit.record(false, trialAt + 40);
    expect(await circuit.release(trialAt + 50)).toMatchObject({ openUntil: trialAt + 40 + OPEN_FOR_MS });
    // Closed: nothing to release, and no failure counted.
    const closed = fresh();
    await fail(closed, FAILURES_TO_OPEN - 1);
    expect(await closed.release(T0)).toEqual({ failures: FAILURES_TO_OPEN - 1, openUntil: null });
    expect(await closed.allow(T0)).toEqual({ allowed: true });
  });
});
