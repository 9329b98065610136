import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

/**
 * Debian's Chromium, headless, on a fresh profile (Playwright takes it as the persistent context's user-data-dir).
 * `timezoneId` sets the pages' time zone (the console shows times in the user's).
 */
export const launchChromium = async ({
  timezoneId,
}: {
  timezoneId?: string;
} = {}): Promise<{
  browser: BrowserContext;
  close: () => Promise<void>;
}> => {
  const profile = mkdtempSync(join(tmpdir(), "edgestay-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    timezoneId,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};
