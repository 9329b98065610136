import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { type NpmStart, startNpmStart } from "../support/npm-start";
import { useNpmStart } from "./npm-start/server";
// One `npm start` (migrate, seed 2,000 accommodations, serve, send the demo's traffic: 8+ CPU s)
// for three walks, each a describe of its own, in this order:
// 1. README's blocks, in one bash, on the fresh demo (they print what the state is);
import "./npm-start/readme";
// 2. the demo admin's console walk (issue 41's "done when"): it reads only what it made itself;
import "./npm-start/demo-admin-console";
// 3. npm start's own checks, whose last two stop it with Ctrl-C and start it again on its state.
import "./npm-start/start";

let server: NpmStart | undefined;
let stateDir: string;

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), "edgestay-e2e-"));
  // As a developer's shell has it: vitest.config.ts lowers wrangler's log level for the suite
  // (start.ts reads wrangler's own lines).
  // A fresh clone seeds 2,000 accommodations first; beside the other files on 2 cores it can take a while.
  server = await startNpmStart({ stateDir, env: { WRANGLER_LOG: "log" }, readyWithinMs: 170_000 });
  useNpmStart(server);
  console.log(`npm start ready in ${(server.readyMs / 1000).toFixed(1)} s`);
}, 180_000);

afterAll(() => {
  // Still running unless start.ts stopped it (a child ended by a signal has signalCode, no exitCode).
  const child = server?.child;
  if (child && child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});
