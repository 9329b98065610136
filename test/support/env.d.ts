import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** vitest.config.ts: short webhook retry waits (honoured only when ENVIRONMENT=local). */
      WEBHOOK_RETRY_DELAYS_SECONDS: string;
      /** vitest.config.ts: a shorter default supplier deadline (honoured only when ENVIRONMENT=local). */
      SUPPLIER_TIMEOUT_MS: string;
      /** A test's shorter webhook POST timeout (webhooks.test.ts; honoured only when ENVIRONMENT=local). */
      WEBHOOK_DELIVERY_TIMEOUT_MS?: string;
      /** Fuzz test seed ("" = random) and runs per route ("" = default). */
      FUZZ_SEED: string;
      FUZZ_RUNS: string;
      /** vitest.config.ts: the sandbox Hotel-X supplier (sandbox/hotelx), an auxiliary worker, and its API key. */
      HOTELX_SANDBOX: Fetcher;
      HOTELX_SANDBOX_API_KEY: string;
      HOTELX_SANDBOX_URL: string;
    }
  }
}
