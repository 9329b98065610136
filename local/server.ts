import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { devArgs, root, SANDBOX_CONFIG, SANDBOX_DIR, startWrangler } from "./platform";

/**
 * A free loopback port for a server that binds it seconds later (wrangler dev after a seed). Picked
 * below Linux's ephemeral range (32768-60999): a port the OS chose (listen(0)) could be handed to
 * any socket opened meanwhile, a client's or another server's, and then another process answered
 * this server's readiness probe while its own start failed to bind (seen beside the other e2e files).
 */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    if (await isFree(port)) return port;
  }
};

/** `inspectorPort`: wrangler's DevTools endpoint for the Worker (`/json` lists its targets). */
export type LocalServer = { base: string; inspectorPort: number; process: ChildProcess; stop: () => Promise<void> };

/**
 * `wrangler dev` with `args(port)` on a free loopback port, ready when a GET of `probe` answers
 * with a status `isReady` accepts.
 */
const startDev = async (
  args: (port: number, inspectorPort: number) => string[],
  probe: string,
  isReady: (status: number) => boolean,
  cwd = root,
): Promise<LocalServer> => {
  const port = await freePort();
  const inspectorPort = await freePort();
  const child = startWrangler(args(port, inspectorPort), "pipe", cwd);
  let output = "";
  child.stdout?.on("data", (d) => (output += d));
  child.stderr?.on("data", (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGINT");
      throw new Error(`wrangler dev not ready in 60 s\n${output}`);
    }
    try {
      if (isReady((await fetch(`${base}${probe}`)).status)) break;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const stop = () =>
    new Promise<void>((ok) => {
      if (child.exitCode !== null) return ok();
      child.on("exit", () => ok());
      child.kill("SIGINT");
    });
  return { base, inspectorPort, process: child, stop };
};

/**
 * `wrangler dev` of the API on a free loopback port over the given state folder, ready when /health
 * answers; `cwd` is the checkout it serves (another one to compare versions).
 */
export const startLocalServer = (stateDir: string, cwd = root): Promise<LocalServer> =>
  startDev(
    (port, inspectorPort) => devArgs({ port, stateDir, inspectorPort }),
    "/health",
    (status) => status >= 200 && status < 300,
    cwd,
  );

/** The sandbox Hotel-X supplier on a free loopback port, ready when it answers at all (a GET is its 405). */
export const startLocalSandbox = (stateDir: string): Promise<LocalServer> =>
  startDev(
    (port, inspectorPort) => devArgs({ port, stateDir, inspectorPort, config: SANDBOX_CONFIG }),
    "/",
    () => true,
    SANDBOX_DIR,
  );

const isFree = (port: number) =>
  new Promise<boolean>((ok) => {
    const server = createServer()
      .once("error", () => ok(false))
      .listen(port, "127.0.0.1", () => server.close(() => ok(true)));
  });

/**
 * The port to serve on: the one named by the environment as it is (wrangler says so if it is
 * taken), else `preferred` when free, else any free one, so a second npm start (or an e2e run
 * beside one) never shares a port with the first.
 */
export const portFor = async (named: string | undefined, preferred: number): Promise<number> => {
  if (named !== undefined && named !== "") return Number(named);
  return (await isFree(preferred)) ? preferred : freePort();
};
