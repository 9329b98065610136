import { spawn } from "node:child_process";
import { defaultStateDir, root, startWrangler } from "./local-platform";

// npm start: migrate and seed, then serve. Ctrl-C (or SIGTERM) stops wrangler and its workerd.
// The bootstrap runs in its own process: wrangler's in-process API installs exit handlers that
// would otherwise end this process on Ctrl-C before it could stop wrangler.
const port = process.env.PORT ?? "8787";

const bootstrapped = await new Promise<number | null>((done) => {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/bootstrap.ts", ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
  child.on("exit", (code) => done(code));
});
if (bootstrapped !== 0) process.exit(bootstrapped ?? 1);

const dev = startWrangler(["dev", "--ip", "127.0.0.1", "--port", port, "--persist-to", defaultStateDir, "--show-interactive-dev-session=false"]);
console.log(`Edgestay API starting on http://127.0.0.1:${port} (docs at /docs). Ctrl-C stops it.`);

// Always SIGTERM to wrangler: a job started in the background of a script ignores SIGINT,
// so forwarding Ctrl-C as SIGINT would leave wrangler and workerd running there.
const stop = () => {
  if (dev.exitCode === null) dev.kill("SIGTERM");
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
dev.on("exit", (code, signal) => process.exit(signal ? 0 : (code ?? 0)));
