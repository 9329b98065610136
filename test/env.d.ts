import type { D1Migration } from "cloudflare:test";

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      /** Fuzz test seed ("" = random) and runs per route ("" = default). */
      FUZZ_SEED: string;
      FUZZ_RUNS: string;
    }
  }
}
