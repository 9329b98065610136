import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
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
export const startWrangler = (args: string[], stdio: "inherit" | "pipe" = "inherit", cwd = root): ChildProcess =>
  spawn(process.execPath, [wranglerBin, ...args], {
    cwd,
    env: quietWranglerEnv(),
    stdio: ["ignore", stdio, stdio],
  });

/** The sandbox Hotel-X supplier's Worker (sandbox/hotelx), served beside the API. */
export const SANDBOX_DIR = join(root, "sandbox", "hotelx");
export const SANDBOX_CONFIG = join(SANDBOX_DIR, "wrangler.toml");

/** The upkeep's cron (wrangler.toml [triggers]), which GET /__scheduled?cron= names under --test-scheduled. */
export const upkeepCron = (): string => {
  const cron = /^crons = \["([^"]+)"\]/m.exec(readFileSync(join(root, "wrangler.toml"), "utf8"))?.[1];
  if (!cron) throw new Error("wrangler.toml has no [triggers] crons");
  return cron;
};

/**
 * `wrangler dev` arguments: the API, or the Worker of `config`, on a loopback port over a state
 * folder. Without `inspectorPort` wrangler takes its default DevTools port, which only one of two
 * servers started together can have; 0 lets it pick a free one.
 */
export const devArgs = (options: {
  port: number | string;
  stateDir?: string;
  inspectorPort?: number;
  config?: string;
}) => [
  "dev",
  ...(options.config ? ["-c", options.config] : []),
  "--ip",
  "127.0.0.1",
  "--port",
  String(options.port),
  ...(options.inspectorPort === undefined ? [] : ["--inspector-port", String(options.inspectorPort)]),
  "--persist-to",
  options.stateDir ?? defaultStateDir,
  "--show-interactive-dev-session=false",
];

/**
 * Writes `path` whole or not at all (a temporary file renamed over it): set-ups running side by
 * side (the e2e and browser tests' servers) read these files while another one writes them.
 */
export const replaceFile = (path: string, content: string) => {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
};

/** Creates .dev.vars from the documented demo values when it is missing, or completes an older one. */
export const ensureDevVars = () => {
  const target = join(root, ".dev.vars");
  if (!existsSync(target)) {
    replaceFile(target, readFileSync(join(root, ".dev.vars.example"), "utf8"));
    console.log("Created .dev.vars from .dev.vars.example (local demo values).");
    return;
  }
  // An older .dev.vars lacks what was added since (ENVIRONMENT=local, new secrets), and the Worker
  // would answer 503 misconfigured: each missing variable gets its demo value; the rest is kept.
  const current = readFileSync(target, "utf8");
  const present = new Set([...current.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]));
  const missing = readFileSync(join(root, ".dev.vars.example"), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line) && !present.has(line.slice(0, line.indexOf("="))));
  if (missing.length > 0) {
    replaceFile(target, `${current}${current === "" || current.endsWith("\n") ? "" : "\n"}${missing.join("\n")}\n`);
    console.log(
      `Added to .dev.vars from .dev.vars.example: ${missing.map((line) => line.slice(0, line.indexOf("="))).join(", ")}.`,
    );
  }
};

/** One variable of .dev.vars (after ensureDevVars), e.g. a key the seed needs. */
export const devVar = (name: string): string => {
  const line = readFileSync(join(root, ".dev.vars"), "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${name}=`));
  if (!line) throw new Error(`${name} is missing from .dev.vars`);
  return line.slice(name.length + 1).trim();
};
