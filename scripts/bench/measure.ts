import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bootstrap } from "../../local/bootstrap";
import { root } from "../../local/platform";
import { seedSandboxHotelContent } from "../../test/support/sandbox-hotels";
import { sandboxHotels, seedSlowQuoteHotel } from "./upstream";
import type { Scenario } from "./scenarios";
import { bytesBefore38, optionTotals, totalsDiffer, withPriceBreakdown } from "./search-answers";

// What the bench (run.ts) and the profile (profile.ts) measure of one scenario, and on what.

/**
 * The bench's state folder for a dataset (apart from the one `npm start` uses), made once: the demo
 * data, the rate-limit path measured too with a limit high enough never to refuse (1002: the demo
 * connection served by the sandbox Hotel-X supplier; 1003: embedded and the sandbox's three
 * suppliers), and the upstream rows' hotels. Answers the folder and the page-token secret.
 */
export const benchState = async (accommodations: number) => {
  const stateDir = join(root, ".wrangler", `bench-${accommodations}`);
  await bootstrap(accommodations, stateDir, async (db) => {
    await db
      .prepare(
        "update connections set rate_limit = 100000000, rate_limit_window_ms = 60000 where code in (1001, 1002, 1003)",
      )
      .run();
    await seedSandboxHotelContent(db, sandboxHotels);
    await seedSlowQuoteHotel(db);
  });
  const pageTokenSecret = /^PAGE_TOKEN_SECRET=(.*)$/m.exec(readFileSync(join(root, ".dev.vars"), "utf8"))![1]!;
  return { stateDir, pageTokenSecret };
};

/**
 * One scenario unloaded: sequential calls, each timed (the p50 is the unloaded latency), and the CPU
 * the workerd process spends per call, from /proc (utime + stime). The CPU is read twice: with
 * `Accept-Encoding: identity` (the Worker's own work, D1 included) and with gzip, which local workerd
 * then spends compressing the answer itself.
 */
export type Unloaded = { scenario: string; p50: number; cpuMs: number; cpuGzipMs: number };
/** `gzip: false`: the identity run only (cpuGzipMs is then NaN). */
export const unloaded = async (pid: number, base: string, s: Scenario, calls = 100, gzip = true): Promise<Unloaded> => {
  const ticks = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return Number(fields[11]) + Number(fields[12]);
  };
  const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  const run = async (encoding: string) => {
    const init = {
      method: s.method,
      headers: { ...s.headers, "accept-encoding": encoding },
      body: s.body === undefined ? undefined : JSON.stringify(s.body),
    };
    let sent = 0;
    // wrangler dev's proxy now and then closes a kept-alive socket under a multi-megabyte answer;
    // such a call is sent once more on a new socket, counted in the CPU division and reported.
    const call = async () => {
      for (let attempt = 1; ; attempt++) {
        sent++;
        try {
          const res = await fetch(`${base}${s.path}`, init);
          await res.arrayBuffer();
          if (!res.ok) throw new Error(`${s.name}: ${res.status}`);
          return;
        } catch (error) {
          if (attempt === 2 || !(error instanceof TypeError)) throw error;
          process.stdout.write(
            ` (${s.name}: ${(error.cause as Error | undefined)?.message ?? error.message}; sent again)`,
          );
        }
      }
    };
    for (let i = 0; i < 10; i++) await call();
    const latencies: number[] = [];
    sent = 0;
    const before = ticks();
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await call();
      latencies.push(performance.now() - started);
    }
    const cpuMs = ((ticks() - before) * 1000) / clockTicks / sent;
    return { cpuMs, p50: latencies.sort((a, b) => a - b)[Math.floor(calls / 2)]! };
  };
  const plain = await run("identity");
  const zipped = gzip ? await run("gzip, deflate") : null;
  return { scenario: s.name, p50: plain.p50, cpuMs: plain.cpuMs, cpuGzipMs: zipped?.cpuMs ?? Number.NaN };
};

/**
 * Issue 38's targets on the 1,000-code search: its default answer against the same search with the
 * whole breakdown (`settings.includePriceBreakdown: true`): sizes, and every total of every option
 * and room to the cent; and V8's own encoding of the default answer (`JSON.stringify` of it in this
 * Node process, the median of 30 calls after 5 unmeasured), which the Worker's CPU is set against.
 */
export type Lighter = {
  defaultBytes: number;
  fullBytes: number;
  /** The same answer before issue 38: the whole breakdown with the ids of then (`bytesBefore38`). */
  beforeBytes: number;
  options: number;
  totalsDiffer: number;
  encodeMs: number;
};
export const lighterAnswer = async (base: string, s: Scenario): Promise<Lighter> => {
  const ask = async (body: unknown) => {
    const res = await fetch(`${base}${s.path}`, {
      method: s.method,
      headers: { ...s.headers, "accept-encoding": "identity" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${s.name}: ${res.status}`);
    return text;
  };
  const light = await ask(s.body);
  const full = await ask(withPriceBreakdown(s.body));
  const answer = JSON.parse(light);
  const times: number[] = [];
  for (let i = 0; i < 35; i++) {
    const started = performance.now();
    JSON.stringify(answer);
    if (i >= 5) times.push(performance.now() - started);
  }
  return {
    defaultBytes: Buffer.byteLength(light),
    fullBytes: Buffer.byteLength(full),
    beforeBytes: bytesBefore38(Buffer.byteLength(full), JSON.parse(full)),
    options: optionTotals(answer).length,
    totalsDiffer: totalsDiffer(answer, JSON.parse(full)),
    encodeMs: times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!,
  };
};

/**
 * The workerd process that runs the Worker itself. wrangler dev starts two: one serves the public
 * port and proxies to the other, which runs the Worker and its D1, KV and Durable Objects.
 */
export const workerdPid = (rootPid: number, publicPort: string): number | null => {
  const table = execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)!)
    .map(([, pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args: args! }));
  const descendants: typeof table = [];
  const queue = [rootPid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const p of table.filter((row) => row.ppid === parent)) {
      descendants.push(p);
      queue.push(p.pid);
    }
  }
  const runtime = descendants.find(
    (p) => /\/workerd serve/.test(p.args) && !p.args.includes(`entry=127.0.0.1:${publicPort}`),
  );
  return runtime?.pid ?? null;
};
