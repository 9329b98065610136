import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { getPlatformProxy, unstable_readConfig } from "wrangler";
import { SANDBOX_DEFAULT_PORT, sandboxUrl } from "../test/support/accounts";
import { generateAccommodations } from "../test/support/accommodations";
import {
  countAccommodations,
  insertDemoAccommodations,
  seedDemoAccounts,
  seedDemoUpstream,
} from "../test/support/seed";
import { defaultStateDir, devVar, ensureDevVars, migrateLocal, quietWranglerEnv, replaceFile, root } from "./platform";
import { progressBar } from "./progress";

export const DEFAULT_ACCOMMODATIONS = 2_000;
export const LARGE_ACCOMMODATIONS = 100_000;

/**
 * The seed needs only D1: a config with just that binding (same database id, so the same local
 * file) keeps the proxy from warning about the Worker's Durable Objects it cannot host.
 */
const seedConfig = () => {
  const config = unstable_readConfig({ config: join(root, "wrangler.toml") });
  const path = join(root, ".wrangler", "seed.wrangler.json");
  mkdirSync(dirname(path), { recursive: true });
  replaceFile(
    path,
    JSON.stringify({
      name: "edgestay-seed",
      compatibility_date: config.compatibility_date,
      d1_databases: config.d1_databases,
    }),
  );
  return path;
};

/** Local set-up: .dev.vars, D1 migrations, demo accounts and accommodations. Idempotent. */
export const bootstrap = async (
  accommodationCount: number,
  stateDir = defaultStateDir,
  afterSeed?: (db: D1Database) => Promise<void>,
) => {
  ensureDevVars();
  await migrateLocal(stateDir);
  Object.assign(process.env, quietWranglerEnv());
  const { env, dispose } = await getPlatformProxy<Env>({
    configPath: seedConfig(),
    persist: { path: `${stateDir}/v3` },
    remoteBindings: false,
  });
  try {
    await seedDemoAccounts(env.DB);
    const present = await countAccommodations(env.DB);
    if (present < accommodationCount) {
      const started = Date.now();
      console.log(`Seeding ${accommodationCount} demo accommodations (${present} present)...`);
      const progress = progressBar("accommodations", accommodationCount);
      try {
        await insertDemoAccommodations(env.DB, generateAccommodations(accommodationCount), progress.update);
      } finally {
        progress.stop();
      }
      console.log(`Seeded in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
    } else {
      console.log(`Demo data present (${present} accommodations).`);
    }
    // Connection 1002: the sandbox Hotel-X supplier that `npm start` runs beside the API. Its hotels'
    // content rows come after the demo accommodations, so an interrupted seed is still counted short.
    await seedDemoUpstream(env.DB, {
      credentialsKey: devVar("UPSTREAM_CREDENTIALS_KEY"),
      url: sandboxUrl(process.env.HOTELX_SANDBOX_PORT ?? SANDBOX_DEFAULT_PORT),
    });
    await afterSeed?.(env.DB);
  } finally {
    await dispose();
  }
};
