import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { build } from "esbuild";
import { unstable_readConfig } from "wrangler";
import { defineConfig } from "vitest/config";
import { sandboxUrl } from "./test/support/accounts";
import { SpreadProjects } from "./test/support/file-order";
import { buildAll } from "./scripts/build-worker";

// Tests use the documented local demo values, whatever a developer's own .dev.vars says.
const demoVars = Object.fromEntries(
  readFileSync(new URL(".dev.vars.example", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
);

// The served /openapi.json (which every workerd test checks its answers against) and the Worker
// wrangler dev serves to the e2e and browser tests, built as `npm test` builds them: a run of one
// file after a change to a route needs no separate `npm run build`. Skipped while up to date.
await buildAll();

// The sandbox Hotel-X supplier (sandbox/hotelx) runs beside the API as an auxiliary worker, reached
// through the HOTELX_SANDBOX service binding: a real Worker-to-Worker HTTP hop, not a stub.
// Auxiliary workers take JavaScript, so its TypeScript is bundled here first.
const sandboxToml = readFileSync(new URL("sandbox/hotelx/wrangler.toml", import.meta.url), "utf8");
const sandboxBundle = await build({
  entryPoints: [new URL("sandbox/hotelx/src/index.ts", import.meta.url).pathname],
  bundle: true,
  format: "esm",
  platform: "neutral",
  // graphql-js (the sandbox is a GraphQL server) is found by its package.json's "module"/"main".
  mainFields: ["module", "main"],
  target: "es2022",
  write: false,
  external: ["cloudflare:*"],
});
const hotelxSandbox = {
  name: /^name = "(.+)"$/m.exec(sandboxToml)![1]!,
  modules: [{ type: "ESModule" as const, path: "index.mjs", contents: sandboxBundle.outputFiles[0]!.text }],
  compatibilityDate: /^compatibility_date = "(.+)"$/m.exec(sandboxToml)![1]!,
  bindings: { HOTELX_API_KEY: /^HOTELX_API_KEY = "(.+)"$/m.exec(sandboxToml)![1]! },
  durableObjects: { LEDGER: { className: "SandboxLedger", useSQLite: true } },
};

/**
 * The dependencies the workerd tests load pre-bundled: every specifier of these packages that our
 * sources or the zod-openapi packages (not pre-bundled: they import "zod", which is ours) import.
 * A subpath left out would load a second copy of the package beside the bundle, so they are read
 * from the imports themselves. Bare "zod" is the alias below, never a package.
 */
function prebundled(): string[] {
  const packages =
    /^(zod\/[\w/]+|(hono|drizzle-orm|chrono-node|ajv|ajv-formats|ipaddr\.js|isbot|fast-check|graphql)(\/[\w./-]+)?)$/;
  const root = new URL(".", import.meta.url);
  const files = ["src", "test", "sandbox"].flatMap((dir) =>
    readdirSync(new URL(dir, root), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => new URL(`${dir}/${file}`, root)),
  );
  for (const library of ["@hono/zod-openapi", "@hono/zod-validator", "@asteasolutions/zod-to-openapi"])
    files.push(new URL(`node_modules/${library}/dist/index.mjs`, root));
  const specifiers = new Set(["zod/v4"]);
  for (const file of files)
    for (const [, specifier] of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*["']([^"'.][^"']*)["']/g))
      if (packages.test(specifier!)) specifiers.add(specifier!);
  return [...specifiers].sort();
}

/**
 * The pre-bundled dependencies (above) without source maps. Each workerd test file loads them over
 * the pool's socket, each with an inline map of twice its size (zod's, graphql's, fast-check's,
 * chrono's: about 4.7 MB of maps for 2.7 MB of code), every file anew. `{ mappings: "" }` is
 * Vite's "no map", kept through its SSR transform; a stack inside a dependency then names the
 * bundle's line, ours keep their maps.
 */
const prebundledWithoutSourceMaps = {
  name: "edgestay:prebundled-without-source-maps",
  transform(code: string, id: string) {
    return id.includes("/deps_ssr/") ? { code, map: { mappings: "" } } : null;
  },
};

/** wrangler.toml's queue consumers as miniflare takes them, with no batch timeout. */
function webhookConsumerAtOnce() {
  type Consumer = { queue: string; max_batch_size?: number; max_retries?: number; dead_letter_queue?: string };
  const wrangler = unstable_readConfig({ config: fileURLToPath(new URL("wrangler.toml", import.meta.url)) });
  const consumers: Consumer[] = wrangler.queues.consumers ?? [];
  return Object.fromEntries(
    consumers.map((c) => [
      c.queue,
      {
        maxBatchSize: c.max_batch_size,
        maxBatchTimeout: 0,
        maxRetries: c.max_retries,
        deadLetterQueue: c.dead_letter_queue,
      },
    ]),
  );
}

// Read once per run: the pool calls its options function again for every test file it starts.
const testMigrations = await readD1Migrations("./migrations");
const webhookConsumers = webhookConsumerAtOnce();

// vitest-pool-workers closes its WebSocket to each test runner and disposes workerd at once, so
// workerd reports the peer as gone after every file. The pool filters the older wording of this
// line ("WebSocket was aborted") but not this one, and prints workerd's lines itself, so it is
// dropped here, and nothing else.
const poolDisconnect = "disconnected: WebSocket peer disconnected";
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) =>
    String(chunk).includes(poolDisconnect) ? true : write(chunk, ...rest)) as typeof stream.write;
}
// Wrangler's info lines ("Using secrets defined in .dev.vars") are not test results: the tests
// use .dev.vars.example's values whatever a developer's .dev.vars says. Warnings still show.
process.env.WRANGLER_LOG ??= "warn";

// The same zod the bundle carries (wrangler.toml [alias]), in workerd and in Node.
const zodAsBundled = [
  // zod-without-locales re-exports zod's classic API by path; here that path is "zod/v4", the
  // module @hono/zod-openapi loads too (in workerd, pre-bundled), so every importer shares one zod.
  { find: /^(\.\.\/)+node_modules\/zod\/v4\/classic\/external\.js$/, replacement: "zod/v4" },
  {
    find: /^zod$/,
    replacement: fileURLToPath(new URL("./src/platform/zod-without-locales/index.ts", import.meta.url)),
  },
];

/**
 * One run, one summary: `vitest run` runs five projects side by side (maxWorkers below).
 * - workerd: the Worker inside workerd with real local D1, KV, Durable Objects and queues;
 * - unit and scripts: pure logic and the project's own lint rules, under Node;
 * - e2e: `npm start` and the operator CLI out of process, over real HTTP;
 * - browser: the Worker out of process driven by Debian's Chromium.
 * `--project <name>` runs one of them; a file path runs that file in the project that owns it.
 */
export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias: zodAsBundled },
        plugins: [
          prebundledWithoutSourceMaps,
          cloudflareTest(async () => ({
            main: "./src/index.ts",
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                ...demoVars,
                TEST_MIGRATIONS: testMigrations,
                // A supplier's deadline when the caller gives none: 3 s, not 8, so a late-supplier test
                // waits less (honoured only when ENVIRONMENT=local, supplier-deadline.ts).
                SUPPLIER_TIMEOUT_MS: "3000",
                // Webhook retries at once instead of 30 s..30 min apart, so the real queue's retries arrive in a test.
                WEBHOOK_RETRY_DELAYS_SECONDS: "0,0,0,0,0,0",
                // Links are built from PUBLIC_BASE_URL, as on a deploy, so a forged Host can be tested.
                PUBLIC_BASE_URL: "https://edgestay.test",
                // The fuzz test's seed and random runs per route are fixed (test/workers/d1-session.test.ts);
                // FUZZ_SEED=<n> and FUZZ_RUNS=<n> ask for others, to replay a failure or to explore further.
                FUZZ_SEED: process.env.FUZZ_SEED ?? "",
                FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
                HOTELX_SANDBOX_API_KEY: hotelxSandbox.bindings.HOTELX_API_KEY,
                // The URL connection 1002 is seeded with; requests to it take the binding (upstream-fetch.ts).
                HOTELX_SANDBOX_URL: sandboxUrl(),
              },
              // wrangler.toml's webhook consumer, delivering each batch at once rather than after 1 s.
              queueConsumers: webhookConsumers,
              // Booking timers go to a queue nothing consumes: a test drives the timers' consumer itself
              // (runBookingTimers, with the message it recorded), so no timer of one test settles a
              // booking in the background of another.
              queueProducers: { BOOKING_TIMERS: { queueName: "edgestay-booking-timers-unconsumed" } },
              serviceBindings: { HOTELX_SANDBOX: hotelxSandbox.name },
              workers: [hotelxSandbox],
            },
          })),
        ],
        test: {
          name: "workerd",
          // Each test file starts its own workerd and imports the app into it module by module over
          // the pool's socket; these packages come pre-bundled instead, a few modules for hundreds.
          deps: { optimizer: { ssr: { enabled: true, include: prebundled() } } },
          include: ["src/**/*.test.ts", "test/workers/**/*.test.ts"],
          exclude: ["**/node_modules/**", "**/*.unit.test.ts"],
          setupFiles: ["./test/support/setup.ts"],
          // Node servers on 127.0.0.1 the tests reach with fetch(): a webhook receiver for the queue
          // delivery tests, and the demo accommodations, generated once per run (faker stays in Node).
          globalSetup: ["./test/support/webhook-receiver.ts", "./test/support/demo-content-server.ts"],
          // The vendored Swagger UI stylesheet is compared with the package's (?raw), not stubbed out.
          css: { include: [/swagger-ui\.css/] },
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Pure logic (parsers, rules, tokens, the card-data guard, the demo data generator): no
        // binding, no Worker, so plain Node; `*.unit.test.ts` beside its code, or test/unit/.
        resolve: { alias: zodAsBundled },
        test: {
          name: "unit",
          include: ["src/**/*.unit.test.ts", "test/unit/**/*.test.ts"],
          environment: "node",
          // Generating the demo data or 200 property runs takes 1-2 CPU s: 5 s (the default) is
          // too close once three files share the two cores; a hang still fails.
          testTimeout: 30_000,
          // workerd's clock is UTC; so is this one, whatever the machine's zone (dates in chat parsing).
          env: { TZ: "UTC" },
        },
      },
      {
        // The project's own lint rules (scripts/lint-rules), plain functions under Node.
        test: {
          name: "scripts",
          include: ["scripts/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // Files run side by side: each server has its own ports (DevTools' too) and state folder.
        },
      },
      {
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // One Worker for every browser file (browser-server.ts, started in the background);
          // each file opens its own Chromium.
          globalSetup: ["./test/support/browser-server.ts"],
        },
      },
    ],
    // One group, one more file at a time than the cores: a workerd file waits on its runtime and
    // local storage much of the time, an e2e or browser file on its server, so on the 2-core machine
    // three at once keep both cores busy (vitest's default, cores - 1, ran one file at a time there).
    // Files are spread project by project over the run (file-order.ts), so the out-of-process files
    // run beside workerd's rather than all together first.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: SpreadProjects },
    // The Worker logs one JSON line per request; keep them out of the test report.
    onConsoleLog: (log) => !log.includes('"event":"request"'),
  },
});
