import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { getPlatformProxy, unstable_readConfig, unstable_splitSqlQuery } from "wrangler";
import { SANDBOX_DEFAULT_PORT, sandboxUrl } from "../test/support/accounts";
import { generateAccommodations } from "../test/support/accommodations";
import {
  countAccommodations,
  insertDemoAccommodations,
  seedDemoAccounts,
  seedDemoUpstream,
} from "../test/support/seed";
import { seedDemoSuppliers } from "../test/support/seed-suppliers";
import { defaultStateDir, devVar, ensureDevVars, quietWranglerEnv, replaceFile, root } from "./platform";
import { progressBar } from "./progress";

export const DEFAULT_ACCOMMODATIONS = 2_000;
export const LARGE_ACCOMMODATIONS = 100_000;

/**
 * The seed needs only D1: a config with just that binding (same database id, so the same local
 * file) keeps the proxy from warning about the Worker's Durable Objects it cannot host.
 */
const seedConfig = (config: ReturnType<typeof unstable_readConfig>) => {
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

/**
 * Applies the migrations in migrations/ that the local database lacks and says so in one line.
 * They are recorded as `wrangler d1 migrations apply` records them (its table and columns, each
 * file with its record in one batch), so wrangler sees them applied. Through the seed's own proxy:
 * a `wrangler d1 migrations apply --local` process took about 9 s of CPU on a fresh database.
 */
const applyMigrations = async (db: D1Database, config: ReturnType<typeof unstable_readConfig>): Promise<string> => {
  const database = config.d1_databases[0];
  const table = database?.migrations_table ?? "d1_migrations";
  const dir = join(root, database?.migrations_dir ?? "migrations");
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();
  await db
    .prepare(
      `CREATE TABLE IF NOT EXISTS ${table} (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
    )
    .run();
  const applied = new Set(
    (await db.prepare(`SELECT name FROM ${table}`).all<{ name: string }>()).results.map((r) => r.name),
  );
  const missing = files.filter((name) => !applied.has(name));
  for (const name of missing)
    await db.batch([
      ...unstable_splitSqlQuery(readFileSync(join(dir, name), "utf8")).map((query) => db.prepare(query)),
      db.prepare(`INSERT INTO ${table} (name) VALUES (?)`).bind(name),
    ]);
  return missing.length > 0
    ? `D1 migrations: applied ${missing.length} (${files.length} in migrations/).`
    : `D1 migrations: all ${files.length} already applied.`;
};

/** Local set-up: .dev.vars, D1 migrations, demo accounts and accommodations. Idempotent. */
export const bootstrap = async (
  accommodationCount: number,
  stateDir = defaultStateDir,
  afterSeed?: (db: D1Database) => Promise<void>,
) => {
  ensureDevVars();
  mkdirSync(stateDir, { recursive: true });
  Object.assign(process.env, quietWranglerEnv());
  const config = unstable_readConfig({ config: join(root, "wrangler.toml") });
  const { env, dispose } = await getPlatformProxy<Env>({
    configPath: seedConfig(config),
    persist: { path: `${stateDir}/v3` },
    remoteBindings: false,
  });
  try {
    console.log(await applyMigrations(env.DB, config));
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
    // Connection 1002: the sandbox Hotel-X supplier that `npm start` runs beside the API, on the port
    // this start serves it on (set again on every start). Its hotels' content rows come after the
    // demo accommodations, so an interrupted seed is still counted short.
    const sandboxPort = process.env.HOTELX_SANDBOX_PORT ?? SANDBOX_DEFAULT_PORT;
    await seedDemoUpstream(env.DB, {
      credentialsKey: devVar("UPSTREAM_CREDENTIALS_KEY"),
      url: sandboxUrl(sandboxPort),
    });
    // Connection 1003: the sandbox's three suppliers (same Worker, their own paths) with their maps.
    console.log(await seedDemoSuppliers(env.DB, { credentialsKey: devVar("UPSTREAM_CREDENTIALS_KEY"), sandboxPort }));
    await afterSeed?.(env.DB);
  } finally {
    await dispose();
  }
};
