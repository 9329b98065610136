import { applyD1Migrations, env } from "cloudflare:test";
import { seedDemoAccounts } from "../scripts/demo/seed";

// Storage is isolated per test file; every file starts from migrations and the demo accounts.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedDemoAccounts(env.DB);
