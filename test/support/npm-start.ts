import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";

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
