import { applyD1Migrations, env } from "cloudflare:test";
import { sandboxUrl } from "./accounts";
import { seedDemoAccounts, seedDemoUpstream } from "./seed";

// Storage is isolated per test file; every file starts from migrations and the demo accounts,
// connection 1002 (the sandbox Hotel-X upstream) included. The sandbox's hotels are not content
// here (tests that count accommodations stay as they are): a test of 1002 seeds them (seedSandboxHotels).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedDemoAccounts(env.DB);
await seedDemoUpstream(env.DB, { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, url: sandboxUrl(), hotels: false });
