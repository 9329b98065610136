import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unstable_startWorker } from "wrangler";
import { bootstrap } from "../../local/bootstrap";
import { root } from "../../local/platform";

export type LocalWorker = { url: string; stateDir: string; stop: () => Promise<void> };

/**
 * The real Worker out of process on 127.0.0.1 (a free port), with its own temporary state:
 * D1 migrations applied by wrangler, demo accounts (and `accommodations` demo accommodations,
 * none by default) seeded through getPlatformProxy, then unstable_startWorker on the same folder.
 * `stop()` disposes it and removes the folder.
 */
export const startLocalWorker = async (options: { accommodations?: number } = {}): Promise<LocalWorker> => {
  const stateDir = mkdtempSync(join(tmpdir(), "edgestay-worker-"));
  // Migrations and demo accounts: the same bootstrap as npm start.
  await bootstrap(options.accommodations ?? 0, stateDir);
  const worker = await unstable_startWorker({
    config: join(root, "wrangler.toml"),
    envFiles: [join(root, ".dev.vars.example")],
    dev: {
      server: { hostname: "127.0.0.1", port: 0 },
      inspector: false,
      persist: stateDir,
      watch: false,
      logLevel: "warn",
    },
  });
  await worker.ready;
  const url = (await worker.url).origin;
  return {
    url,
    stateDir,
    stop: async () => {
      await worker.dispose();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
};
