import { applyD1Migrations, env } from "cloudflare:test";
import { sandboxUrl } from "./accounts";
import { seedDemoAccounts, seedDemoUpstream } from "./seed";

// Storage is isolated per test file; every file starts from migrations and the demo accounts,
// connection 1002 (the sandbox Hotel-X upstream) included. Nothing here loads demo content: a file
// that needs accommodations seeds them (demo-content.ts). The sandbox's hotels are not content
// here (tests that count accommodations stay as they are): a test of 1002 seeds them (seedSandboxHotels).
// Nor are the demo accommodations: a file that needs them seeds them (demo-content.ts), and faker
// and the city data that make them stay in Node.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedDemoAccounts(env.DB);
await seedDemoUpstream(env.DB, { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, url: sandboxUrl(), hotels: false });
