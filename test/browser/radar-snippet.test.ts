import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../../local/platform";
import { browserWorker } from "../support/browser-worker";
import { CHROMIUM, hasChromium, launchChromium } from "../support/chromium";
import { DEMO } from "../support/accounts";

// The callbacks given to tab.evaluate run in the page; the project compiles without the DOM lib.
declare const window: any;
declare const document: any;

if (!hasChromium)
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);

const SIGNALS = "/api/v1/radar/sessions/signals";

/** A partner's site on its own origin, serving the HTML put in `pages` under its path. */
const startPartnerSite = async (pages: Map<string, string>) => {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/radar.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(readFileSync(join(root, "snippet/radar.js")));
      return;
    }
    if (url.pathname === SIGNALS) {
      // An endpoint that is down: the connection drops without an answer.
      req.socket.destroy();
      return;
    }
    const html = pages.get(url.pathname);
    if (html === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://127.0.0.1:${port}` };
};

const page = (body: string, scripts: string) =>
  `<!doctype html><html><head><title>Partner hotel page</title></head><body><h1 id="host">Book your stay</h1>${body}${scripts}</body></html>`;
const snippetTag = (src: string, sessionId: string) =>
  `<script async src="${src}" data-session-id="${sessionId}" data-collector-key="demo-collector-key"></script>`;

const runCheck = async (base: string, sessionId: string) => {
  const res = await fetch(`${base}/api/v1/radar/checks`, {
    method: "POST",
    headers: { "content-type": "application/json", "api-key": DEMO.apiKey.key, "session-id": sessionId },
    body: JSON.stringify({
      trigger_event: "booking_attempt",
      booker: { first_name: "Jane", last_name: "Doe", email: "jane.browser@example.com" },
      payment: { billing_address: { country: "US" } },
    }),
  });
  return { status: res.status, json: (await res.json()) as any };
};

describe.skipIf(!hasChromium)(
  "radar snippet in Chromium (skipped without /usr/bin/chromium: apt-get install -y chromium)",
  () => {
    const worker = { url: "" };
    let site: { server: Server; origin: string };
    let browser: BrowserContext;
    let closeBrowser: (() => Promise<void>) | undefined;
    const pages = new Map<string, string>();

    beforeAll(async () => {
      worker.url = await browserWorker();
      site = await startPartnerSite(pages);
      ({ browser, close: closeBrowser } = await launchChromium());
    });

    afterAll(async () => {
      await closeBrowser?.();
      if (site) await new Promise((ok) => site.server.close(ok));
    });

    /** Puts `html` on the partner site and opens a tab on it, recording page errors and signal posts. */
    const openPartnerPage = async (
      path: string,
      html: string,
      beforeNavigation?: (tab: Awaited<ReturnType<BrowserContext["newPage"]>>) => unknown,
    ) => {
      pages.set(path, html);
      const tab = await browser.newPage();
      const errors: string[] = [];
      const posts: string[] = [];
      tab.on("pageerror", (e) => errors.push(e.message));
      tab.on("request", (r) => {
        if (r.method() === "POST" && r.url().endsWith(SIGNALS)) posts.push(r.url());
      });
      const waited = beforeNavigation?.(tab);
      await tab.goto(`${site.origin}${path}`);
      await waited;
      return { tab, errors, posts, close: () => tab.close() };
    };

    it("a page on another origin embeds the snippet; the server's check merges its signals and catches the headless browser", async () => {
      const sessionId = `sess_${Date.now().toString(36)}_browser_test`;
      let posted: Promise<import("playwright-core").Response> | undefined;
      const { tab, errors, posts, close } = await openPartnerPage(
        `/book/${sessionId}`,
        page("<p>Rooms from $120</p>", snippetTag(`${worker.url}/radar.js`, sessionId)),
        (t) =>
          (posted = t.waitForResponse((r) => r.url() === `${worker.url}${SIGNALS}` && r.request().method() === "POST")),
      );
      expect((await posted!).status()).toBe(202);
      expect(new URL(tab.url()).origin).not.toBe(worker.url);

      const browserFacts = await tab.evaluate(() => ({
        userAgent: navigator.userAgent,
        timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        status: (window as any).EdgestayRadar?.sent,
        heading: document.getElementById("host")?.textContent,
      }));
      expect(browserFacts.heading).toBe("Book your stay");
      expect(Object.values(browserFacts.status)).toEqual(["sent"]);

      const check = await runCheck(worker.url, sessionId);
      expect(check.status).toBe(200);
      const data = check.json.data;
      expect(data.session_id).toBe(sessionId);
      expect(data.merged_signals).toMatchObject({
        user_agent: browserFacts.userAgent,
        timezone: browserFacts.timezone,
        webdriver: true,
      });
      // 127.0.0.1 is a secure context, so the visitor id is SHA-256 from crypto.subtle.
      expect(data.merged_signals.visitor_id).toMatch(/^s[0-9a-f]{32}$/);
      const codes = data.reasons.map((r: { code: string }) => r.code);
      expect(codes).not.toContain("no_browser_signals");
      expect(codes).toEqual(expect.arrayContaining(["headless_browser", "webdriver"]));
      expect(data).toMatchObject({ decision: "deny", radar_result: "high_risk", should_hide_rate: true });
      expect(posts).toHaveLength(1);
      expect(errors).toEqual([]);
      await close();
    });

    it("posts once even when included twice, and leaks only window.EdgestayRadar", async () => {
      const sessionId = `twice_${Date.now().toString(36)}_browser_test`;
      const tag = snippetTag(`${worker.url}/radar.js`, sessionId);
      const { tab, errors, posts, close } = await openPartnerPage(
        `/twice/${sessionId}`,
        page("", `<script>window.__before = Object.keys(window);</script>${tag}${tag}`),
      );
      await tab.waitForFunction((id) => (window as any).EdgestayRadar?.sent?.[id] === "sent", sessionId);
      await tab.waitForTimeout(300);
      expect(posts).toHaveLength(1);
      const added = await tab.evaluate(() =>
        Object.keys(window).filter((k) => !(window as any).__before.includes(k) && k !== "__before"),
      );
      expect(added).toEqual(["EdgestayRadar"]);
      expect(errors).toEqual([]);
      await close();
    });

    it("never throws into or alters the host page when the signals endpoint is down", async () => {
      const sessionId = `down_${Date.now().toString(36)}_browser_test`;
      // The snippet comes from the partner site itself here, whose signals endpoint drops connections.
      const { tab, errors, close } = await openPartnerPage(
        `/down/${sessionId}`,
        page("<p id='price'>$120</p>", snippetTag(`${site.origin}/radar.js`, sessionId)),
      );
      await tab.waitForFunction((id) => (window as any).EdgestayRadar?.sent?.[id] === "failed", sessionId, {
        timeout: 15_000,
      });
      // Nothing added to or changed in the page: the heading, the price and the one script element.
      expect(
        await tab.evaluate(() => [...document.body.children].map((e: any) => `${e.tagName}:${e.textContent}`)),
      ).toEqual(["H1:Book your stay", "P:$120", "SCRIPT:"]);
      expect(errors).toEqual([]);
      const noSignals = await runCheck(worker.url, sessionId);
      expect(noSignals.json.data.reasons.map((r: { code: string }) => r.code)).toContain("no_browser_signals");
      await close();
    });
  },
);
