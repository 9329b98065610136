import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import type { Scenario } from "./scenarios";

export type SoakWindow = {
  from: number;
  to: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  rssMiB: number | null;
  /** The Worker isolate's own JavaScript heap in use at the window's end (from the inspector). */
  heapMiB?: number | null;
};

const WINDOW_S = 10;
/** Growth of workerd's resident memory from the end of the first (warm-up) window to the end of the last. */
export const FLAT_MEMORY_GROWTH = 0.1;
export const P99_LIMIT_MS = 1000;

/** Resident memory of a process in MiB, from /proc/<pid>/status (VmRSS). */
const residentMiB = (pid: number | null): number | null => {
  if (pid === null) return null;
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : null;
};

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;

/**
 * One uninterrupted autocannon run of `seconds`, cut into 10 s windows from its own response
 * events: latency percentiles and errors per window, and workerd's resident memory at each window's end.
 */
export const runSoak = async (
  base: string,
  s: Scenario,
  workerdPid: number | null,
  seconds: number,
  connections: number,
  heapMiB: () => Promise<number | null> = async () => null,
): Promise<SoakWindow[]> => {
  const options = {
    url: `${base}${s.path}`,
    method: s.method,
    headers: s.headers,
    body: s.body === undefined ? undefined : JSON.stringify(s.body),
    connections,
  };
  // Unmeasured, as every other scenario: JIT and caches, not the soak's subject.
  await autocannon({ ...options, duration: 2 });

  const windows: SoakWindow[] = [];
  let latencies: number[] = [];
  let errors = 0;
  let from = 0;
  const instance = autocannon({ ...options, duration: seconds }, () => {});
  const finished = new Promise<void>((ok) => instance.on("done", () => ok()));
  instance.on("response", (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    else errors++;
  });
  instance.on("reqError", () => errors++);
  const started = Date.now();
  const close = () => {
    const to = Math.round((Date.now() - started) / 1000);
    const sorted = latencies.sort((a, b) => a - b);
    const window: SoakWindow = {
      from,
      to,
      requests: sorted.length + errors,
      errors,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      rssMiB: residentMiB(workerdPid),
    };
    windows.push(window);
    heaps.push(
      heapMiB().then(
        (mib) => (window.heapMiB = mib),
        () => (window.heapMiB = null),
      ),
    );
    latencies = [];
    errors = 0;
    from = to;
  };
  const heaps: Promise<unknown>[] = [];
  const timer = setInterval(close, WINDOW_S * 1000);
  await finished;
  clearInterval(timer);
  if (latencies.length || errors) close();
  await Promise.all(heaps);
  return windows;
};

export type SoakVerdict = {
  noErrors: boolean;
  p99Met: boolean;
  memoryGrowth: number | null;
  memoryFlat: boolean | null;
  /** The same growth of the Worker isolate's own heap (shown beside the target, which is workerd's RSS). */
  heapGrowth: number | null;
};

export const judgeSoak = (windows: SoakWindow[]): SoakVerdict => {
  const warm = windows[0]?.rssMiB ?? null;
  const last = windows.at(-1)?.rssMiB ?? null;
  const memoryGrowth = windows.length >= 2 && warm !== null && last !== null ? (last - warm) / warm : null;
  const heapWarm = windows[0]?.heapMiB ?? null;
  const heapLast = windows.at(-1)?.heapMiB ?? null;
  return {
    heapGrowth: windows.length >= 2 && heapWarm && heapLast !== null ? (heapLast - heapWarm) / heapWarm : null,
    noErrors: windows.every((w) => w.errors === 0),
    p99Met: windows.every((w) => w.p99 < P99_LIMIT_MS),
    memoryGrowth,
    memoryFlat: memoryGrowth === null ? null : memoryGrowth <= FLAT_MEMORY_GROWTH,
  };
};
