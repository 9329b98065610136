import { readFileSync } from "node:fs";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { build } from "esbuild";
import { defineConfig } from "vitest/config";
import { sandboxUrl } from "./scripts/demo/accounts";

// Tests use the documented local demo values, whatever a developer's own .dev.vars says.
const demoVars = Object.fromEntries(
  readFileSync(new URL(".dev.vars.example", import.meta.url), "utf8")
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
);

// The sandbox Hotel-X supplier (sandbox/hotelx) runs beside the API as an auxiliary worker, reached
// through the HOTELX_SANDBOX service binding: a real Worker-to-Worker HTTP hop, not a stub.
// Auxiliary workers take JavaScript, so its TypeScript is bundled here first.
const sandboxToml = readFileSync(new URL("sandbox/hotelx/wrangler.toml", import.meta.url), "utf8");
const sandboxBundle = await build({
  entryPoints: [new URL("sandbox/hotelx/src/index.ts", import.meta.url).pathname],
  bundle: true, format: "esm", platform: "neutral", target: "es2022", write: false, external: ["cloudflare:*"],
});
const hotelxSandbox = {
  name: /^name = "(.+)"$/m.exec(sandboxToml)![1]!,
  modules: [{ type: "ESModule" as const, path: "index.mjs", contents: sandboxBundle.outputFiles[0]!.text }],
  compatibilityDate: /^compatibility_date = "(.+)"$/m.exec(sandboxToml)![1]!,
  bindings: { HOTELX_API_KEY: /^HOTELX_API_KEY = "(.+)"$/m.exec(sandboxToml)![1]! },
  durableObjects: { LEDGER: { className: "SandboxLedger", useSQLite: true } },
};

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
          // Links are built from PUBLIC_BASE_URL, as on a deploy, so a forged Host can be tested.
          PUBLIC_BASE_URL: "https://edgestay.test",
          // The fuzz test's seed: fixed in CI so a failure reproduces; FUZZ_SEED=<n> replays one locally.
          FUZZ_SEED: process.env.FUZZ_SEED ?? (process.env.CI ? "20261124" : ""),
          FUZZ_RUNS: process.env.FUZZ_RUNS ?? "",
          HOTELX_SANDBOX_API_KEY: hotelxSandbox.bindings.HOTELX_API_KEY,
          // The URL connection 1002 is seeded with; requests to it take the binding (upstream-fetch.ts).
          HOTELX_SANDBOX_URL: sandboxUrl(),
        },
        serviceBindings: { HOTELX_SANDBOX: hotelxSandbox.name },
        workers: [hotelxSandbox],
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
