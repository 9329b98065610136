import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { SANDBOX_DEFAULT_PORT } from "../test/support/accounts";
import { devArgs, root, SANDBOX_CONFIG, SANDBOX_DIR, startWrangler, upkeepCron } from "../local/platform";
import { sendDemoTraffic } from "../local/demo-traffic";
import { portFor } from "../local/server";

// npm start: migrate and seed, then serve. Ctrl-C (or SIGTERM) stops wrangler and its workerd.
// The bootstrap runs in its own process: wrangler's in-process API installs exit handlers that
// would otherwise end this process on Ctrl-C before it could stop wrangler.
const port = await portFor(process.env.PORT, 8787);
// The sandbox Hotel-X supplier (sandbox/hotelx) that connection 1002 points at: chosen before the
// seed, which writes its URL into connection 1002's upstream.
const sandboxPort = await portFor(process.env.HOTELX_SANDBOX_PORT, SANDBOX_DEFAULT_PORT);

const bootstrapped = await new Promise<number | null>((done) => {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/bootstrap.ts", ...process.argv.slice(2)], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, HOTELX_SANDBOX_PORT: String(sandboxPort) },
  });
  child.on("exit", (code) => done(code));
});
if (bootstrapped !== 0) process.exit(bootstrapped ?? 1);

// --test-scheduled: GET /__scheduled runs the upkeep. The URL wrangler prints without it
// (/cdn-cgi/handler/scheduled) answers 500 and runs nothing when the Worker has static assets.
// wrangler's DevTools port: 9229, or another when taken; INSPECTOR_PORT names one (0 for any free
// one, which is what two npm starts begun at the same moment need: each could see 9229 free).
const inspectorPort = process.env.INSPECTOR_PORT ? Number(process.env.INSPECTOR_PORT) : undefined;
const dev = startWrangler([...devArgs({ port, inspectorPort }), "--test-scheduled"], "pipe");
// The sandbox from its own folder: wrangler compares ./worker-configuration.d.ts with the config it
// serves, and the API's file beside the sandbox's config gave a false "types might be out of date".
const sandbox = startWrangler(
  devArgs({ port: sandboxPort, inspectorPort: 0, config: SANDBOX_CONFIG }),
  "inherit",
  SANDBOX_DIR,
);

/** wrangler's own line per request; the Worker logs each one already (request-log.ts), with its request id. */
const WRANGLER_REQUEST_LINE = /^\[wrangler:info\] [A-Z]+ \S+ \d{3} /;
const forward = (child: ChildProcess) => {
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    if (!from) continue;
    createInterface({ input: from }).on("line", (line) => {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: strips colour codes before matching
      if (!WRANGLER_REQUEST_LINE.test(line.replace(/\u001b\[[0-9;]*m/g, ""))) to.write(`${line}\n`);
    });
  }
};
forward(dev);

const base = `http://127.0.0.1:${port}`;
console.log(`Edgestay API starting on ${base} (docs at /docs). Ctrl-C stops it.`);
console.log(`Sandbox Hotel-X supplier (connection 1002) starting on http://127.0.0.1:${sandboxPort}.`);
console.log(`Run the hourly upkeep now: curl "${base}/__scheduled?cron=${upkeepCron().replaceAll(" ", "+")}"`);
// Real calls once the API answers: the demo partner's usage is what it did, not rows put in D1.
sendDemoTraffic(base).then(
  (line) => console.log(line),
  (error) => console.log(`Demo usage: not sent (${error})`),
);

// Always SIGTERM to wrangler: a job started in the background of a script ignores SIGINT,
// so forwarding Ctrl-C as SIGINT would leave wrangler and workerd running there.
const stop = () => {
  for (const child of [dev, sandbox]) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
// Either one ending ends both: the API without its sandbox (or the reverse) is not what npm start serves.
let exited = 0;
for (const child of [dev, sandbox]) {
  child.on("exit", (code, signal) => {
    stop();
    if (++exited === 2) process.exit(signal ? 0 : (code ?? 0));
  });
}
