import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../../local/platform";
import { browserWorker } from "../support/browser-worker";
import { hasChromium, launchChromium, CHROMIUM } from "../support/chromium";

// The callbacks given to evaluate/addInitScript run in the page; the project compiles without the DOM lib.
declare const window: any;
declare const document: any;
declare const getComputedStyle: (e: unknown) => { backgroundColor: string; display: string };

if (!hasChromium)
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);

const OUTPUT = join(root, "test/browser/output");
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost"]);

describe.skipIf(!hasChromium)("API reference and landing page in Chromium, with no network beyond the Worker", () => {
  const worker = { url: "" };
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  /** Every request the pages tried to send anywhere but the local Worker (all aborted). */
  const blocked: string[] = [];

  beforeAll(async () => {
    worker.url = await browserWorker();
    mkdirSync(OUTPUT, { recursive: true });
    ({ browser, close: closeBrowser } = await launchChromium());
    // Offline: anything not on localhost is aborted, as with no internet.
    await browser.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (LOCAL_HOSTS.has(url.hostname)) return route.continue();
      blocked.push(url.href);
      return route.abort("internetdisconnected");
    });
    // CSP violations are reported in the page; collect them before any page script runs.
    await browser.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener("securitypolicyviolation", (e: any) =>
        window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
  });

  afterAll(async () => {
    await closeBrowser?.();
  });

  /** Opens `path` on the Worker, recording page errors, failed responses and every origin requested. */
  const open = async (path: string) => {
    const tab = await browser.newPage();
    const errors: string[] = [];
    const failed: string[] = [];
    const origins = new Set<string>();
    tab.on("pageerror", (e) => errors.push(e.message));
    tab.on("request", (r) => origins.add(new URL(r.url()).origin));
    tab.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    const res = await tab.goto(`${worker.url}${path}`);
    return { tab, res, errors, failed, origins };
  };
  const cspViolations = (tab: Page) => tab.evaluate(() => window.__cspViolations as string[]);

  it("/docs renders the API reference from the Worker's own assets under its strict CSP, the four-call guide above it, its steps passing the ids, and fetches nothing from another origin", async () => {
    const { tab, res, errors, failed, origins } = await open("/docs");
    expect(res!.status()).toBe(200);
    expect(res!.headers()["content-security-policy"]).toContain("script-src 'self'");

    // Operations from /openapi.json, grouped by tag: the UI loaded and read the document.
    const search = tab.locator(".opblock-summary", { hasText: "Search availability" }).first();
    await search.waitFor({ timeout: 30_000 });
    await expect(tab.locator(".info .title").innerText()).resolves.toContain("Edgestay Partner API");
    expect(await tab.locator(".opblock").count()).toBeGreaterThan(30);
    expect(await tab.locator(".opblock-tag").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining("Operations")]),
    );
    // The vendored stylesheet applies (Swagger UI's POST colour), not an unstyled list.
    const postColour = await tab
      .locator(".opblock-post .opblock-summary-method")
      .first()
      .evaluate((e: any) => getComputedStyle(e).backgroundColor);
    expect(postColour).toBe("rgb(73, 204, 144)");

    // One operation opened: its request body schema and responses render.
    await search.click();
    const opened = tab.locator(".opblock.is-open").first();
    await opened.locator(".responses-wrapper").waitFor();
    expect(await opened.innerText()).toMatch(/Request body[\s\S]*Responses[\s\S]*200/);
    await search.scrollIntoViewIfNeeded();
    await tab.screenshot({ path: join(OUTPUT, "docs-operation.png") });

    await tab.evaluate(() => window.scrollTo(0, 0));
    await tab.screenshot({ path: join(OUTPUT, "docs.png") });

    // The four-call guide, on the same render (Swagger UI renders the whole document: once is enough).
    const guide = tab.locator("#book-a-stay");
    await expect(guide.locator("h1").innerText()).resolves.toBe("Book a stay in four calls");
    const steps = await guide.locator(".steps > li").allInnerTexts();
    expect(steps).toHaveLength(4);
    expect(steps[0]).toMatch(/POST \/api\/search[\s\S]*data\.accommodations\[\]\.options\[\]\.id/);
    expect(steps[1]).toMatch(/POST \/api\/quote[\s\S]*quoteCriteria\.optionId[\s\S]*data\.id/);
    expect(steps[2]).toMatch(/POST \/api\/book[\s\S]*bookCriteria\.quoteId[\s\S]*data\.bookingReference/);
    expect(steps[3]).toMatch(
      /GET \/api\/bookings\/\{bookingReference\}[\s\S]*POST \/api\/cancel[\s\S]*input\.reference\.bookingReference/,
    );
    // At the top: above the reference, which renders below it.
    const info = tab.locator(".swagger-ui .info");
    await info.waitFor({ timeout: 30_000 });
    const [guideBox, infoBox] = [await guide.boundingBox(), await info.boundingBox()];
    expect(guideBox!.y).toBeLessThan(infoBox!.y);
    expect(await guide.isVisible()).toBe(true);
    // A step's link opens its operation in the reference (deep link).
    await guide.locator('a[href="#/Booking/createQuote"]').click();
    await tab.locator("#operations-Booking-createQuote.is-open").waitFor({ timeout: 30_000 });
    await tab.evaluate(() => window.scrollTo(0, 0));
    await tab.screenshot({ path: join(OUTPUT, "docs-guide.png") });

    // Offline, and only this origin: no request, from the first, left for another host or port.
    expect([...origins]).toEqual([new URL(worker.url).origin]);
    expect(blocked).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    expect(await cspViolations(tab)).toEqual([]);
    await tab.close();
  });

  it("/ renders the landing page, styled, with working links to the reference, the document and the snippet", async () => {
    const { tab, res, errors, failed } = await open("/");
    expect(res!.status()).toBe(200);
    expect(await tab.locator("h1").innerText()).toBe("Edgestay Partner API");
    // site.css loaded: the cards are a grid.
    expect(await tab.locator(".cards").evaluate((e: any) => getComputedStyle(e).display)).toBe("grid");
    const links = await tab.locator("main a").evaluateAll((as: any[]) => as.map((a) => a.getAttribute("href")));
    expect(links).toEqual(["/docs", "/openapi.json", "/radar.js"]);
    expect(await tab.locator(".sections li").allInnerTexts()).toContain("Search, quote, book and cancel with curl");
    await tab.screenshot({ path: join(OUTPUT, "landing.png"), fullPage: true });

    for (const href of links) {
      const linked = await tab.request.get(`${worker.url}${href}`);
      expect(linked.status(), href).toBe(200);
    }
    // The reference link navigates to /docs (which the tests above render; not rendered again here).
    await tab.click("text=API reference");
    await tab.waitForURL(`${worker.url}/docs`);

    expect(blocked).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    expect(await cspViolations(tab)).toEqual([]);
    await tab.close();
  });
});
