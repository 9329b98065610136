import { onTestFinished, vi } from "vitest";

type Level = "log" | "error" | "warn";
const capturing = new Map<Level, string[]>();

/**
 * For a test that logs on purpose (a request line, an upkeep line, a provoked error or warning): from now until the test ends, the
 * lines of that level are kept here (for assertions) instead of printed, so the report shows only
 * logs nobody expected. The Worker runs in the test's isolate, so its console is this one.
 */
export const expectLogs = (level: Level): string[] => {
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
