import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Tests use the documented local demo values, whatever a developer's own .dev.vars says.
const demoVars = Object.fromEntries(
  readFileSync(new URL(".dev.vars.example", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
);

export default defineConfig({
  // The same zod the bundle carries (wrangler.toml [alias]).
  resolve: { alias: [{ find: /^zod$/, replacement: fileURLToPath(new URL("./src/platform/zod-without-locales/index.ts", import.meta.url)) }] },
  plugins: [
    cloudflareTest(async () => ({
      main: "./src/index.ts",
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          ...demoVars,
          TEST_MIGRATIONS: await readD1Migrations("./migrations"),
          // Webhook retries 1 s apart instead of 30 s..30 min, so the real queue's retry arrives in a test.
          WEBHOOK_RETRY_DELAYS_SECONDS: "1,1,1,1,1,1",
          // Links are built from PUBLIC_BASE_URL, as on a deploy, so a forged Host can be tested.
          PUBLIC_BASE_URL: "https://edgestay.test",
          // The fuzz test's seed: fixed in CI so a failure reproduces; FUZZ_SEED=<n> replays one locally.
          FUZZ_SEED: process.env.FUZZ_SEED ?? (process.env.CI ? "20261124" : ""),
          FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
        },
      },
    })),
  ],
  test: {
    include: ["src/**/*.test.ts", "test/workers/**/*.test.ts"],
    setupFiles: ["./test/setup.ts"],
    // A webhook receiver on 127.0.0.1 (Node), for the queue delivery tests.
    globalSetup: ["./test/webhook-receiver.ts"],

    // The Worker logs one JSON line per request; keep them out of the test report.
    onConsoleLog: (log) => !log.includes('"event":"request"'),
    // The vendored Swagger UI stylesheet is compared with the package's (?raw), not stubbed out.
    css: { include: [/swagger-ui\.css/] },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
