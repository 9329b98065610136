import { spawn } from "node:child_process";
import { SANDBOX_DEFAULT_PORT } from "../test/support/accounts";
import { devArgs, root, SANDBOX_CONFIG, startWrangler } from "../local/platform";

// npm start: migrate and seed, then serve. Ctrl-C (or SIGTERM) stops wrangler and its workerd.
// The bootstrap runs in its own process: wrangler's in-process API installs exit handlers that
// would otherwise end this process on Ctrl-C before it could stop wrangler.
const port = process.env.PORT ?? "8787";
// The sandbox Hotel-X supplier (sandbox/hotelx) that connection 1002 points at.
const sandboxPort = process.env.HOTELX_SANDBOX_PORT ?? String(SANDBOX_DEFAULT_PORT);

const bootstrapped = await new Promise<number | null>((done) => {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/bootstrap.ts", ...process.argv.slice(2)], {
    cwd: root,
    stdio: "inherit",
  });
  child.on("exit", (code) => done(code));
});
if (bootstrapped !== 0) process.exit(bootstrapped ?? 1);

const dev = startWrangler(devArgs({ port }));
const sandbox = startWrangler(devArgs({ port: sandboxPort, inspectorPort: 0, config: SANDBOX_CONFIG }));
console.log(`Edgestay API starting on http://127.0.0.1:${port} (docs at /docs). Ctrl-C stops it.`);
console.log(`Sandbox Hotel-X supplier (connection 1002) starting on http://127.0.0.1:${sandboxPort}.`);

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
