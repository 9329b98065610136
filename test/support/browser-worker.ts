import { readFileSync } from "node:fs";
import { inject } from "vitest";

/** The shared Worker's start-up (migrations, 50 accommodations, wrangler dev) takes this long at most. */
const READY_WITHIN_MS = 150_000;

/**
 * The origin of the Worker the browser files share (browser-server.ts), once it has started; ""
 * without Chromium. Call it in beforeAll: it waits for the start-up, and fails with its error.
 */
export const browserWorker = async (): Promise<string> => {
  const file = inject("browserWorkerFile");
  if (file === "") return "";
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    let outcome: { origin?: string; error?: string } | undefined;
    try {
      outcome = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      /* not started yet */
    }
    if (outcome?.origin) return outcome.origin;
    if (outcome?.error) throw new Error(`the browser tests' Worker did not start: ${outcome.error}`);
    if (Date.now() > deadline)
      throw new Error(`the browser tests' Worker did not start within ${READY_WITHIN_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
};
