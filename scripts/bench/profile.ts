/**
 * A CPU profile of one bench scenario in the Worker (`npm run bench:profile -- --only "<name>"`):
 * the bench's dataset and sandbox, `calls` sequential calls after 5 unmeasured, sampled by V8's
 * Profiler through wrangler dev's inspector, then each sample's function mapped through the
 * dry-run bundle's source map to its source file and summed: self time per function and per file,
 * as shares of the sampled time. Writes the raw profile to .tmp/worker.cpuprofile (DevTools opens it).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { SourceMapConsumer } from "source-map-js";
import WebSocket from "ws";
import { DEFAULT_ACCOMMODATIONS } from "../../local/bootstrap";
import { devVar, quietWranglerEnv, root, wranglerBin } from "../../local/platform";
import { type LocalServer, startLocalSandbox, startLocalServer } from "../../local/server";
import { stopNetworkInspection } from "./inspector";
import { benchState, lighterAnswer, unloaded, workerdPid } from "./measure";
import { contentScenarios, searchScenarios, type Scenario } from "./scenarios";
import { oneSandbox, pointSuppliersAtSandbox, suppliersSearchScenario } from "./suppliers";
import { pointAtSandbox } from "./upstream";

const { values } = parseArgs({
  options: {
    only: { type: "string", default: "search: 1000 codes" },
    calls: { type: "string", default: "20" },
    top: { type: "string", default: "40" },
    // No profiler: the bench's unloaded CPU and p50 (and for the 1,000-code search issue 38's figures), for A/B runs.
    cpu: { type: "boolean", default: false },
    // Another body for the scenario's route (a JSON file): to profile one part of its work alone.
    body: { type: "string" },
  },
});

const { stateDir, pageTokenSecret } = await benchState(DEFAULT_ACCOMMODATIONS);
const ctx = { accommodations: DEFAULT_ACCOMMODATIONS, pageTokenSecret };
const all: Scenario[] = [...(await contentScenarios(ctx)), ...searchScenarios(ctx), suppliersSearchScenario()];
const named = all.find((s) => s.name.includes(values.only!));
if (!named) throw new Error(`no scenario named like ${values.only}`);
const scenario: Scenario = values.body
  ? { ...named, name: `${named.name} (${values.body})`, body: JSON.parse(readFileSync(values.body, "utf8")) }
  : named;

const outdir = join(root, ".tmp", "profile-bundle");
execFileSync(process.execPath, [wranglerBin, "deploy", "--dry-run", "--outdir", outdir], {
  cwd: root,
  env: quietWranglerEnv(),
});
const server = await startLocalServer(stateDir);
let sandbox: LocalServer | null = null;
try {
  await stopNetworkInspection(server.inspectorPort);
  if (scenario.upstream) {
    sandbox = await startLocalSandbox(stateDir);
    await pointAtSandbox(server.base, sandbox.base, devVar("OPERATOR_TOKEN"));
    await pointSuppliersAtSandbox(server.base, oneSandbox(sandbox.base), devVar("OPERATOR_TOKEN"));
  }
  const call = async () => {
    const res = await fetch(`${server.base}${scenario.path}`, {
      method: scenario.method,
      headers: { ...scenario.headers, "accept-encoding": "identity" },
      body: scenario.body === undefined ? undefined : JSON.stringify(scenario.body),
    });
    if (res.status !== 200) throw new Error(`${scenario.name}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  for (let i = 0; i < 5; i++) await call();
  if (values.cpu) {
    const pid = workerdPid(server.process.pid!, new URL(server.base).port)!;
    for (let round = 0; round < 2; round++) {
      const q = await unloaded(pid, server.base, scenario, Number(values.calls), false);
      console.log(`${scenario.name}: CPU ${q.cpuMs.toFixed(1)} ms, p50 ${q.p50.toFixed(1)} ms`);
    }
    if (scenario.name === "search: 1000 codes") {
      const l = await lighterAnswer(server.base, scenario);
      console.log(
        `default ${l.defaultBytes} bytes (${(100 * (1 - l.defaultBytes / l.beforeBytes)).toFixed(2)} % smaller than ${l.beforeBytes}), full ${l.fullBytes}, totals differ ${l.totalsDiffer}, V8 encode ${l.encodeMs.toFixed(2)} ms`,
      );
    }
  } else {
    const [target] = (await (await fetch(`http://127.0.0.1:${server.inspectorPort}/json`)).json()) as Array<{
      webSocketDebuggerUrl: string;
    }>;
    const socket = new WebSocket(target!.webSocketDebuggerUrl);
    await new Promise((ok, fail) => socket.once("open", ok).once("error", fail));
    let nextId = 1;
    const send = (method: string, params: object = {}) =>
      new Promise<any>((ok) => {
        const id = nextId++;
        const onMessage = (data: WebSocket.RawData) => {
          const reply = JSON.parse(String(data));
          if (reply.id === id) {
            socket.off("message", onMessage);
            ok(reply.result);
          }
        };
        socket.on("message", onMessage);
        socket.send(JSON.stringify({ id, method, params }));
      });
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: 100 });
    await send("Profiler.start");
    const started = performance.now();
    const calls = Number(values.calls);
    for (let i = 0; i < calls; i++) await call();
    const wall = (performance.now() - started) / calls;
    const { profile } = await send("Profiler.stop");
    socket.close();
    mkdirSync(join(root, ".tmp"), { recursive: true });
    writeFileSync(join(root, ".tmp", "worker.cpuprofile"), JSON.stringify(profile));

    // Self time per node, mapped to source function and file.
    type Node = {
      id: number;
      callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    };
    const byId = new Map<number, Node>(profile.nodes.map((n: Node) => [n.id, n]));
    const selfUs = new Map<number, number>();
    for (const [i, id] of (profile.samples as number[]).entries())
      selfUs.set(id, (selfUs.get(id) ?? 0) + profile.timeDeltas[i]);
    const map = new SourceMapConsumer(JSON.parse(readFileSync(join(outdir, "worker.js.map"), "utf8")));
    const byFunction = new Map<string, number>();
    const byFile = new Map<string, number>();
    let total = 0;
    let idle = 0;
    for (const [id, us] of selfUs) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === "(idle)" || frame.functionName === "(program)") {
        idle += us;
        continue;
      }
      total += us;
      let file = frame.url || frame.functionName;
      let name = frame.functionName || "(anonymous)";
      if (frame.url && frame.lineNumber >= 0) {
        const pos = map.originalPositionFor({ line: frame.lineNumber + 1, column: frame.columnNumber });
        if (pos.source) {
          file = pos.source.replace(/^.*node_modules\//, "node_modules/").replace(/^(\.\.\/)+/, "");
          name = `${pos.name ?? name} (${relative(".", file)}:${pos.line})`;
        }
      }
      byFunction.set(name, (byFunction.get(name) ?? 0) + us);
      byFile.set(file, (byFile.get(file) ?? 0) + us);
    }
    const top = Number(values.top);
    const print = (title: string, m: Map<string, number>) => {
      console.log(`\n${title}`);
      for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
        console.log(
          `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000 / calls).toFixed(2).padStart(7)} ms  ${k}`,
        );
    };
    console.log(
      `${scenario.name}: ${calls} calls, ${wall.toFixed(1)} ms wall each, ${(total / 1000 / calls).toFixed(1)} ms sampled busy each (idle/program ${(idle / 1000 / calls).toFixed(1)} ms)`,
    );
    print("by file", byFile);
    print("by function", byFunction);
  }
} finally {
  await sandbox?.stop();
  await server.stop();
}
