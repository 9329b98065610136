import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { bootstrap } from "../../local/bootstrap";
import { type LocalServer, startLocalServer } from "../../local/server";
import { hasChromium } from "./chromium";

declare module "vitest" {
  interface ProvidedContext {
    /**
     * The file that will hold the shared Worker's start-up outcome (browser-worker.ts reads it);
     * "" without Chromium.
     */
    browserWorkerFile: string;
  }
}

/**
 * vitest globalSetup of the browser project: one `wrangler dev` of the API over its own state
 * (migrations, demo accounts, 50 accommodations) for every browser file, instead of one per file.
 * Each file opens its own Chromium and works as its own partner session, so they do not share state.
 *
 * The Worker starts in the background, so the other projects' files run while it seeds and
 * starts; the outcome (its origin, or why it did not start) is written to a file the browser
 * files wait for (browserWorker()).
 */
export default async function setup(project: TestProject) {
  if (!hasChromium) {
    project.provide("browserWorkerFile", "");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "edgestay-browser-"));
  const stateDir = join(dir, "state");
  const outcome = join(dir, "worker.json");
  const starting: Promise<LocalServer | undefined> = bootstrap(50, stateDir)
    .then(() => startLocalServer(stateDir))
    .then(
      (server) => {
        writeFileSync(outcome, JSON.stringify({ origin: server.base }));
        return server;
      },
      (error: unknown) => {
        // With its causes: drizzle's "Failed query" alone does not say what D1 answered.
        const chain: string[] = [];
        for (let e: unknown = error; e !== undefined && chain.length < 5; e = (e as { cause?: unknown }).cause)
          chain.push(e instanceof Error ? e.message : String(e));
        writeFileSync(outcome, JSON.stringify({ error: chain.join(" <- ") }));
        return undefined;
      },
    );
  project.provide("browserWorkerFile", outcome);
  return async () => {
    await (await starting)?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
