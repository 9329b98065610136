import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { freePort } from "../../local/server";

const root = resolve(import.meta.dirname, "../..");

/**
 * `npm start` as README runs it, in its own process group like a terminal job, on `port`, with its
 * own sandbox port, state folder and any free DevTools port, so it never meets (or re-seeds
 * connection 1002 of) an npm start running beside it (the e2e files run side by side). Everything
 * it prints goes to `onOutput`.
 */
export const spawnNpmStart = (options: {
  port: number;
  sandboxPort: number;
  stateDir: string;
  onOutput: (chunk: string) => void;
  env?: Record<string, string>;
}): ChildProcess => {
  const child = spawn("npm", ["start", "--silent"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(options.port),
      HOTELX_SANDBOX_PORT: String(options.sandboxPort),
      EDGESTAY_STATE_DIR: options.stateDir,
      INSPECTOR_PORT: "0",
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout!.on("data", (d) => options.onOutput(String(d)));
  child.stderr!.on("data", (d) => options.onOutput(String(d)));
  return child;
};

/** One `npm start` several walks share (test/e2e/npm-start.test.ts): where it serves, and all it printed so far. */
export type NpmStart = {
  child: ChildProcess;
  base: string;
  port: number;
  sandboxPort: number;
  stateDir: string;
  output: string;
  /** From the spawn to /health answering and the demo's usage sent. */
  readyMs: number;
};

/**
 * `npm start` on a port other than 8787 (README's blocks must not assume the default), ready once
 * /health answers and the demo's own traffic (local/demo-traffic.ts) has been sent, so whatever
 * runs against it first sees the same usage and never races those calls.
 */
export const startNpmStart = async (options: {
  stateDir: string;
  env?: Record<string, string>;
  readyWithinMs: number;
}): Promise<NpmStart> => {
  let port: number;
  do port = await freePort();
  while (port === 8787);
  const sandboxPort = await freePort();
  const started = Date.now();
  const server: NpmStart = {
    base: `http://127.0.0.1:${port}`,
    port,
    sandboxPort,
    stateDir: options.stateDir,
    output: "",
    readyMs: 0,
    child: undefined as unknown as ChildProcess,
  };
  server.child = spawnNpmStart({
    port,
    sandboxPort,
    stateDir: options.stateDir,
    onOutput: (d) => (server.output += d),
    env: options.env,
  });
  const deadline = started + options.readyWithinMs;
  const healthy = () =>
    fetch(`${server.base}/health`, { headers: { connection: "close" } }).then(
      (r) => r.ok,
      () => false,
    );
  for (;;) {
    if (server.child.exitCode !== null)
      throw new Error(`npm start exited with ${server.child.exitCode}\n${server.output}`);
    if (Date.now() > deadline)
      throw new Error(`npm start not ready in ${options.readyWithinMs / 1000} s\n${server.output}`);
    if (/^Demo usage: /m.test(server.output) && (await healthy())) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  server.readyMs = Date.now() - started;
  return server;
};
