import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
export const wranglerBin = require.resolve("wrangler/bin/wrangler.js");

/** Local state folder shared by wrangler dev, migrations and the seed (wrangler's own default). */
export const defaultStateDir = resolve(root, process.env.EDGESTAY_STATE_DIR ?? ".wrangler/state");

/** Keeps wrangler from update checks, metrics and request.cf fetches, which stall offline. */
export const quietWranglerEnv = (): NodeJS.ProcessEnv => ({
  ...process.env,
  WRANGLER_HIDE_BANNER: "true",
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_LOG_PATH: join(root, ".wrangler", "logs"),
});

/** Starts wrangler directly under node (not through npx) so a signal reaches the process that owns workerd. */
export const startWrangler = (args: string[], stdio: "inherit" | "pipe" = "inherit"): ChildProcess =>
  spawn(process.execPath, [wranglerBin, ...args], { cwd: root, env: quietWranglerEnv(), stdio: ["ignore", stdio, stdio] });

export const runWrangler = (args: string[]): Promise<void> =>
  new Promise((ok, fail) => {
    const child = startWrangler(args);
    child.on("error", fail);
    child.on("exit", (code) => (code === 0 ? ok() : fail(new Error(`wrangler ${args.join(" ")} exited with ${code}`))));
  });

/**
 * Creates .dev.vars from the documented demo values when it is missing. An older .dev.vars without
 * an ENVIRONMENT line gets `ENVIRONMENT=local`: without it the Worker refuses the demo secrets (503).
 */
export const ensureDevVars = () => {
  const target = join(root, ".dev.vars");
  if (!existsSync(target)) {
    copyFileSync(join(root, ".dev.vars.example"), target);
    console.log("Created .dev.vars from .dev.vars.example (local demo values).");
    return;
  }
  const current = readFileSync(target, "utf8");
  if (!/^ENVIRONMENT=/m.test(current)) {
    appendFileSync(target, `${current === "" || current.endsWith("\n") ? "" : "\n"}ENVIRONMENT=local\n`);
    console.log("Added ENVIRONMENT=local to .dev.vars: the Worker accepts the demo secrets only in local development.");
  }
};

export const migrateLocal = (stateDir = defaultStateDir) => {
  mkdirSync(stateDir, { recursive: true });
  return runWrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir]);
};
