import { applyD1Migrations, env } from "cloudflare:test";
import { sandboxUrl } from "../scripts/demo/accounts";
import { seedDemoAccounts, seedDemoUpstream } from "../scripts/demo/seed";

// Storage is isolated per test file; every file starts from migrations and the demo accounts.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedDemoAccounts(env.DB);
// Connection 1002 points at the sandbox's local URL; in tests that URL reaches the auxiliary worker
// through the HOTELX_SANDBOX binding (src/features/supply/hotelx/upstream-fetch.ts).
await seedDemoUpstream(env.DB, { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, url: sandboxUrl() });
