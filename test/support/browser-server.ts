import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { bootstrap } from "../../local/bootstrap";
import { startLocalServer } from "../../local/server";
import { hasChromium } from "./chromium";

declare module "vitest" {
  interface ProvidedContext {
    /** Origin of the one Worker the browser files share (`wrangler dev`, as npm start serves it); "" without Chromium. */
    browserWorker: string;
  }
}

/**
 * vitest globalSetup of the browser project: one `wrangler dev` of the API over its own state
 * (migrations, demo accounts, 50 accommodations) for every browser file, instead of one per file.
 * Each file opens its own Chromium and works as its own partner session, so they do not share state.
 */
export default async function setup(project: TestProject) {
  if (!hasChromium) {
    project.provide("browserWorker", "");
    return;
  }
  const stateDir = mkdtempSync(join(tmpdir(), "edgestay-browser-"));
  await bootstrap(50, stateDir);
  const server = await startLocalServer(stateDir);
  project.provide("browserWorker", server.base);
  return async () => {
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  };
}
