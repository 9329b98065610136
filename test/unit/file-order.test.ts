import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { SpreadProjects } from "../support/file-order";

/** The committed timings, as `npm run test:durations` last wrote them. */
const committed: Record<string, number> = JSON.parse(
  readFileSync(new URL("../support/file-durations.json", import.meta.url), "utf8"),
);

// What BaseSequencer reads: no cached results and no file stats, so each project keeps the order given
// (files the committed timings do not know).
const context = {
  config: { root: "/repo" },
  cache: { getFileTestResults: () => undefined, getFileStats: () => undefined },
} as unknown as Vitest;

const specs = (project: string, names: string[]) => {
  const config = { sequence: { groupOrder: 0 }, isolate: true };
  return names.map((name) => ({ project: { name: project, config }, moduleId: `/repo/${name}` }));
};

describe("the test files' order (vitest.config.ts sequencer)", () => {
  it("spreads each project's files over the order, a project's file i of n at i / n, in the project's own order", async () => {
    const files = [
      ...specs("workerd", ["w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"]),
      ...specs("e2e", ["e0", "e1", "e2", "e3"]),
      ...specs("browser", ["b0", "b1"]),
    ] as unknown as TestSpecification[];
    const order = (await new SpreadProjects(context).sort(files)).map((spec) => spec.moduleId.slice("/repo/".length));
    expect(order).toEqual(["b0", "e0", "w0", "w1", "e1", "w2", "w3", "b1", "e2", "w4", "w5", "e3", "w6", "w7"]);
  });

  it("runs a project's longest files first: vitest's timing of the last run, else the committed one, a failed file before all", async () => {
    const files = specs("workerd", [
      "src/features/partners/users.test.ts",
      "src/features/webhooks/event-log.test.ts",
      "test/workers/d1-session.test.ts",
    ]) as unknown as TestSpecification[];
    const names = (order: TestSpecification[]) => order.map((spec) => spec.moduleId.slice("/repo/".length));
    // A fresh clone: the committed timings, longest first (whatever the last refresh measured).
    const byCommitted = names(files).sort((a, b) => committed[`workerd:${b}`]! - committed[`workerd:${a}`]!);
    expect(new Set(byCommitted.map((name) => committed[`workerd:${name}`]!)).size).toBe(3);
    expect(names(await new SpreadProjects(context).sort(files))).toEqual(byCommitted);
    // vitest's own timings win; a file that failed last goes first.
    const timings: Record<string, { duration: number; failed: boolean }> = {
      "workerd:src/features/partners/users.test.ts": { duration: 90_000, failed: false },
      "workerd:src/features/webhooks/event-log.test.ts": { duration: 1_000, failed: false },
      "workerd:test/workers/d1-session.test.ts": { duration: 10, failed: true },
    };
    const cached = {
      ...context,
      cache: { getFileTestResults: (key: string) => timings[key], getFileStats: () => undefined },
    } as unknown as Vitest;
    expect(names(await new SpreadProjects(cached).sort(files))).toEqual([
      "test/workers/d1-session.test.ts",
      "src/features/partners/users.test.ts",
      "src/features/webhooks/event-log.test.ts",
    ]);
  });

  it("keeps every file once", async () => {
    const files = [...specs("unit", ["u0"]), ...specs("workerd", ["w0", "w1", "w2"])] as unknown as TestSpecification[];
    const order = await new SpreadProjects(context).sort(files);
    expect(new Set(order).size).toBe(files.length);
    expect(order).toHaveLength(files.length);
  });
});
