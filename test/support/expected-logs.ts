import { onTestFinished, vi } from "vitest";

const capturing = new Map<"error" | "warn", string[]>();

/**
 * For a test that provokes an error or warning log on purpose: from now until the test ends, the
 * lines of that level are kept here (for assertions) instead of printed, so the report shows only
 * logs nobody expected. The Worker runs in the test's isolate, so its console is this one.
 */
export const expectLogs = (level: "error" | "warn"): string[] => {
  const existing = capturing.get(level);
  if (existing) return existing;
  const lines: string[] = [];
  const spy = vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(" "));
  });
  capturing.set(level, lines);
  onTestFinished(() => {
    spy.mockRestore();
    capturing.delete(level);
  });
  return lines;
};
