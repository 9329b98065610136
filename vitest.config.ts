import { readFileSync } from "node:fs";
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
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
