import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "../../local/platform";
import { DEMO_OPERATOR_TOKEN } from "../support/accounts";
import { browserWorker } from "../support/browser-worker";
import { CHROMIUM, hasChromium, launchChromium } from "../support/chromium";

// The callbacks given to evaluate/addInitScript run in the page; the project compiles without the DOM lib.
declare const window: any;
declare const document: any;
declare const sessionStorage: any;
declare const localStorage: any;

if (!hasChromium)
  console.warn(`Browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);

const OUTPUT = join(root, "test/browser/output");
const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost"]);
/** The users' time zone: far from UTC, so a time shown in UTC by mistake is seen. */
const TIME_ZONE = "Asia/Tokyo";
/** A partner of its own on the shared Worker: the other browser files use the demo partners. */
const PARTNER = {
  id: "console-test",
  name: "Console Test Travel",
  email: "admin@console.test",
  password: "console-password",
};
/** A hotel name a supplier could send: it must show as these characters, never as an element. */
const PLANTED_NAME = `<img src=x onerror="window.__planted=true">Harbour & "Sons" Inn`;
/** A user of role user, created by the admin in the console. */
const AGENT = { email: "agent@console.test", password: "agent-password" };
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const md5 = (text: string) => createHash("md5").update(text).digest("hex");
const PAGES = ["Overview", "Bookings", "Event log", "Webhooks", "API keys", "Users", "Connections"] as const;

const utcDay = (days = 0) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe.skipIf(!hasChromium)("The partner console in Chromium, offline, by the labels on screen", () => {
  const worker = { url: "" };
  let browser: BrowserContext;
  let closeBrowser: () => Promise<void>;
  let tab: Page;
  /** Every request the console tried to send anywhere but the local Worker (all aborted). */
  const blocked: string[] = [];
  const pageErrors: string[] = [];
  const partner = { apiKey: "", connectionCode: 0 };
  const bookings: { plain: string; planted: string } = { plain: "", planted: "" };
  /** The partner's calls this file makes, as the usage route must count them. */
  const calls = { searches: 0, books: 0 };

  /** The Worker's API, called as the partner's own server would (API key) or as the operator. */
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${worker.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const operator = { authorization: `Bearer ${DEMO_OPERATOR_TOKEN}` };
  const partnerKey = () => ({ "api-key": partner.apiKey });

  const stay = { checkIn: utcDay(30), checkOut: utcDay(32) };
  const occupancies = [{ paxes: [{ age: 30 }, { age: 30 }] }];
  const search = async (code: string) => {
    calls.searches += 1;
    return call(
      "POST",
      "/api/search",
      {
        searchCriteria: { destinations: { accommodations: [{ code }] }, occupancies, ...stay },
        settings: { access: { code: partner.connectionCode } },
        filters: { rateRuleFilter: { excludes: ["NON_REFUNDABLE"] } },
      },
      partnerKey(),
    );
  };
  /** Search, quote and book one refundable stay at `code`; answers the booking reference. */
  const book = async (code: string, partnerReference: string) => {
    const found = await search(code);
    const option = found.accommodations[0].options[0];
    const settings = { access: { code: partner.connectionCode } };
    const quote = await call(
      "POST",
      "/api/quote",
      { quoteCriteria: { optionId: option.id, accommodation: { code }, occupancies, ...stay }, settings },
      partnerKey(),
    );
    calls.books += 1;
    const booked = await call(
      "POST",
      "/api/book",
      {
        bookCriteria: {
          quoteId: quote.id,
          accommodation: { code },
          partnerReference,
          holder: { name: "Ada", surName: "Lovelace" },
          ...stay,
        },
        settings,
      },
      { ...partnerKey(), "idempotency-key": partnerReference },
    );
    return booked.bookingReference as string;
  };

  /** Waits until the page shows no loading message (every request of the page answered). */
  const settled = async () => {
    await tab.locator(".loading").first().waitFor({ state: "detached", timeout: 15_000 });
  };
  const go = async (name: (typeof PAGES)[number]) => {
    await tab.getByRole("navigation", { name: "Console pages" }).getByRole("link", { name, exact: true }).click();
    await tab.getByRole("heading", { level: 1, name, exact: true }).waitFor();
    await settled();
  };
  /** Screenshots at desktop and phone width, for a reviewer (test/browser/output, not committed). */
  const screenshots = async (name: string) => {
    await tab.screenshot({ path: join(OUTPUT, `console-${name}-desktop.png`), fullPage: true });
    await tab.setViewportSize({ width: 390, height: 844 });
    await tab.screenshot({ path: join(OUTPUT, `console-${name}-phone.png`), fullPage: true });
    // Nothing is wider than a phone's screen but the tables, which scroll inside their own box.
    const overflow = await tab.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow, `${name} scrolls sideways on a phone`).toBeLessThanOrEqual(0);
    await tab.setViewportSize({ width: 1280, height: 900 });
  };
  /**
   * axe-core's WCAG 2.1 A and AA rules: no serious or critical violation. axe is put in the page
   * once per document (through the DevTools protocol, which the page's CSP does not govern) and
   * run on each page the console shows: injecting its 550 KB for every check took seconds each.
   */
  const accessible = async (name: string) => {
    if (await tab.evaluate(() => typeof window.axe === "undefined")) await tab.evaluate(AXE_SOURCE);
    const violations: { id: string; impact: string; nodes: { target: string[] }[] }[] = await tab.evaluate(
      async (tags) =>
        (await window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }))
          .violations,
      ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"],
    );
    const grave = violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    expect(grave).toEqual([]);
  };

  beforeAll(async () => {
    worker.url = await browserWorker();
    mkdirSync(OUTPUT, { recursive: true });

    // The partner, its admin and first API key, as the operator onboards one; one connection.
    const onboarded = await call(
      "POST",
      "/api/partners",
      { id: PARTNER.id, name: PARTNER.name, admin: { email: PARTNER.email, password: md5(PARTNER.password) } },
      operator,
    );
    partner.apiKey = onboarded.apiKey.apiKey;
    const connection = await call(
      "POST",
      "/api/connections",
      {
        partnerId: PARTNER.id,
        apiType: "b2b",
        connectionType: "direct",
        rateLimit: 600,
        rateLimitWindowMs: 60_000,
        netMarkups: 0,
        currentInUse: true,
      },
      operator,
    );
    partner.connectionCode = connection.code;

    // A supplier's hotel name with markup: the operator's content edit, as a feed would bring it.
    const content = await call("POST", "/api/v1/content/accommodations", { size: 100 }, partnerKey());
    const hotel = content.accommodations.at(-1);
    await call(
      "PUT",
      `/api/operator/accommodations/${hotel.code}`,
      {
        ...hotel,
        localizedName: hotel.localizedName.map((name: { content: string }) => ({ ...name, content: PLANTED_NAME })),
      },
      operator,
    );

    ({ browser, close: closeBrowser } = await launchChromium({ timezoneId: TIME_ZONE }));
    // Offline: anything not on localhost is aborted, as with no internet.
    await browser.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (LOCAL_HOSTS.has(url.hostname)) return route.continue();
      blocked.push(url.href);
      return route.abort("internetdisconnected");
    });
    await browser.addInitScript(() => {
      window.__cspViolations = [];
      document.addEventListener("securitypolicyviolation", (e: any) =>
        window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
      );
    });
    tab = await browser.newPage();
    tab.on("pageerror", (e) => pageErrors.push(e.message));
    // The booking on the planted hotel, and one elsewhere: made before the webhook exists.
    bookings.planted = await book(hotel.code, "console-planted");
  });

  afterAll(async () => {
    await closeBrowser?.();
  });

  it("is served under a strict CSP, and a stale session sends the user to the login with a message", async () => {
    const res = await tab.goto(`${worker.url}/console`);
    expect(res!.status()).toBe(200);
    expect(res!.url()).toBe(`${worker.url}/console/`);
    const csp = res!.headers()["content-security-policy"];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    await tab.getByRole("heading", { name: "Sign in to the Edgestay console" }).waitFor();

    // A token the API no longer takes (expired or revoked): back to the login, saying why.
    await tab.evaluate(() => sessionStorage.setItem("edgestay.console.token", "expired.token.value"));
    await tab.reload();
    await tab.getByText("Your session has expired. Sign in again.").waitFor();
    expect(await tab.evaluate(() => sessionStorage.getItem("edgestay.console.token"))).toBeNull();
  });

  it("logs in with the e-mail and password, keeping the token in this tab's session storage only", async () => {
    await tab.getByLabel("E-mail").fill(PARTNER.email);
    await tab.getByLabel("Password").fill("wrong-password");
    await tab.getByRole("button", { name: "Sign in" }).click();
    const refused = tab.getByRole("alert").filter({ hasText: "Invalid email or password" });
    await expect(refused.innerText()).resolves.toMatch(/Request id: \S+/);

    await tab.getByLabel("Password").fill(PARTNER.password);
    await tab.getByRole("button", { name: "Sign in" }).click();
    await tab.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    expect(tab.url()).toBe(`${worker.url}/console/#/overview`);
    const stored = await tab.evaluate(() => ({
      session: sessionStorage.getItem("edgestay.console.token"),
      local: localStorage.length,
      cookie: document.cookie,
    }));
    expect(stored.session).toMatch(/^ey/);
    expect(stored).toMatchObject({ local: 0, cookie: "" });
    await expect(tab.getByText(PARTNER.email).first().isVisible()).resolves.toBe(true);
  });

  it("adds a webhook endpoint and shows its secret once, and again once rotated", async () => {
    await go("Webhooks");
    await tab.getByLabel("URL").fill("https://hooks.console-test.example/edgestay");
    await tab.getByRole("button", { name: "Add endpoint" }).click();
    const secret = tab.locator("#webhook-secret");
    await expect(secret.innerText()).resolves.toMatch(/^whsec_/);
    await tab.getByRole("cell", { name: "https://hooks.console-test.example/edgestay" }).waitFor();
    const first = await secret.innerText();
    // Shown once: the list never carries it.
    await go("Overview");
    await go("Webhooks");
    expect(await tab.locator("#webhook-secret").count()).toBe(0);
    // Rotated (after a confirmation): a new secret, shown once.
    tab.once("dialog", (dialog) => dialog.accept());
    await tab.getByRole("button", { name: "Rotate secret" }).click();
    await tab.getByText("New signing secret").waitFor();
    const rotated = await tab.locator("#webhook-secret").innerText();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(first);
  });

  it("draws the usage route's days: this week's look-to-book on a chart, the totals beside it", async () => {
    // The partner's traffic of today: 2 bookings (each after its search) and 4 more searches.
    bookings.plain = await book("US000001", "console-plain");
    for (const code of ["US000002", "US000003"]) await search(code);
    // And one refused: its error code is an outcome of its own.
    calls.searches += 1;
    const refused = await fetch(`${worker.url}/api/search`, {
      method: "POST",
      headers: { "content-type": "application/json", ...partnerKey() },
      body: JSON.stringify({
        searchCriteria: {
          destinations: { accommodations: [{ code: "US000004" }] },
          occupancies,
          checkIn: stay.checkOut,
          checkOut: stay.checkIn,
        },
        settings: { access: { code: partner.connectionCode } },
      }),
    });
    expect(refused.status).toBe(400);
    const refusal = ((await refused.json()) as { code: string }).code;
    const lookToBook = calls.searches / calls.books;

    await go("Overview");
    await tab.getByLabel("Period", { exact: true }).selectOption({ label: "Last 7 days" });
    await settled();
    const totals = tab.getByRole("list", { name: "Totals for the period" });
    await expect(totals.getByRole("listitem").filter({ hasText: "Searches" }).innerText()).resolves.toContain(
      String(calls.searches),
    );
    await expect(totals.getByRole("listitem").filter({ hasText: "Look-to-book" }).innerText()).resolves.toContain(
      String(lookToBook),
    );
    // Today's bar of the look-to-book chart, by its title (what a hover shows).
    const chart = tab.getByRole("figure").filter({ hasText: "Look-to-book ratio per day" });
    const today = chart.locator(`g[data-date="${utcDay()}"]`);
    await expect(today.locator("title").textContent()).resolves.toMatch(new RegExp(`: ${lookToBook}$`));
    expect(await today.locator("rect[data-value]").count()).toBe(1);
    // Seven days, one bar group each; the bookings chart has today's two.
    expect(await chart.locator("g[data-date]").count()).toBe(7);
    const booked = tab.getByRole("figure").filter({ hasText: "Bookings per day" });
    await expect(booked.locator(`g[data-date="${utcDay()}"] title`).textContent()).resolves.toMatch(/: 2$/);
    const outcomes = tab.getByRole("figure").filter({ hasText: "Answers by outcome" });
    const named = await outcomes.getByRole("listitem").allInnerTexts();
    expect(named.map((text) => text.trim())).toEqual(["success", refusal]);
    await expect(outcomes.locator(`g[data-date="${utcDay()}"] title`).textContent()).resolves.toContain(`${refusal} 1`);
  });

  it("finds a booking by the list's filters, shows what a supplier wrote as text, and cancels it after the preview", async () => {
    await go("Bookings");
    // By keyboard: the filter, then Enter.
    await tab.getByLabel("Your reference").fill("console-planted");
    await tab.getByLabel("Your reference").press("Enter");
    await settled();
    const row = tab.getByRole("row").filter({ hasText: "console-planted" });
    // The planted name is its characters, in the list and in the detail; no element came of it.
    await expect(row.getByRole("cell", { name: PLANTED_NAME }).innerText()).resolves.toBe(PLANTED_NAME);
    await row.getByRole("link", { name: bookings.planted }).click();
    await tab.getByRole("heading", { level: 1, name: `Booking ${bookings.planted}` }).waitFor();
    await settled();
    await tab.getByText(PLANTED_NAME).waitFor();
    expect(await tab.locator("main img").count()).toBe(0);
    expect(await tab.evaluate(() => window.__planted)).toBeUndefined();

    // The detail: price breakdown, what is due at the property, policy, events, supplier.
    await tab.getByRole("heading", { name: "Price breakdown" }).waitFor();
    await tab.getByText("Due at the property", { exact: true }).waitFor();
    await tab.getByRole("heading", { name: "Cancellation policy" }).waitFor();
    await tab.getByRole("cell", { name: "booking.confirmed" }).waitFor();
    await tab.getByText("Supplier", { exact: true }).waitFor();
    // Times in the user's zone (Tokyo), UTC on hover.
    const created = tab.locator("dt:text-is('Created') + dd time");
    const at = new Date((await created.getAttribute("datetime"))!);
    expect(await created.getAttribute("title")).toBe(`${at.toISOString().slice(0, 19).replace("T", " ")} UTC`);
    const inTokyo = at.toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: TIME_ZONE });
    const spaces = (text: string) => text.replace(/\s/g, " ");
    expect(spaces(await created.innerText())).toBe(spaces(inTokyo));

    // The change preview prices new dates without changing anything.
    await tab.getByLabel("New check-out").fill(utcDay(33));
    await tab.getByRole("button", { name: "Preview change" }).click();
    await tab.getByText("A preview only: the booking is unchanged.").waitFor();

    // Cancel: the preview first, saying what it costs, then the confirmation.
    await tab.getByRole("button", { name: "Preview cancellation" }).click();
    const penalty = tab.locator(".penalty");
    await expect(penalty.innerText()).resolves.toMatch(/\$0\.00/);
    await tab.getByRole("button", { name: "Confirm cancellation" }).click();
    await tab.getByText("This booking is cancelled.").waitFor();
    await expect(tab.locator("dl.facts").first().innerText()).resolves.toContain("cancelled");

    // The list, filtered by status, now has it among the cancelled and the other among the confirmed.
    await go("Bookings");
    await tab.getByLabel("Status").selectOption({ label: "Cancelled" });
    await tab.getByRole("button", { name: "Find bookings" }).click();
    await settled();
    await tab.getByRole("link", { name: bookings.planted }).waitFor();
    expect(await tab.getByRole("link", { name: bookings.plain }).count()).toBe(0);
  });

  it("lists the event log by type and follows new events", async () => {
    await go("Event log");
    await tab.getByRole("cell", { name: "booking.cancelled" }).first().waitFor();
    await tab.getByLabel("booking.cancelled").check();
    await tab.getByRole("button", { name: "Show events" }).click();
    await settled();
    await tab.getByRole("cell", { name: "booking.cancelled" }).first().waitFor();
    expect(await tab.getByRole("cell", { name: "booking.confirmed" }).count()).toBe(0);
    await tab.getByLabel("booking.cancelled").uncheck();
    await tab.getByRole("button", { name: "Show events" }).click();
    await settled();
    // A booking made now appears without reloading (the page polls the log).
    const later = await book("US000005", "console-later");
    await tab.getByRole("link", { name: later }).waitFor({ timeout: 15_000 });
  });

  it("lists a webhook's deliveries and sends one again", async () => {
    await go("Webhooks");
    await tab.getByRole("button", { name: "Deliveries" }).click();
    await settled();
    const row = tab.getByRole("row").filter({ hasText: bookings.plain });
    await row.waitFor();
    const answered = tab.waitForResponse((r) => r.url().includes("/redeliver") && r.request().method() === "POST");
    await row.getByRole("button", { name: "Redeliver" }).click();
    expect((await answered).status()).toBe(202);
    await tab.getByText(/is queued for redelivery/).waitFor();
  });

  it("creates an API key, shows it once with a copy button, and revokes it", async () => {
    await go("API keys");
    await tab.getByLabel("Name").fill("console key");
    await tab.getByRole("button", { name: "Create API key" }).click();
    const shown = await tab.locator("#new-api-key").innerText();
    expect(shown).toMatch(/^esk_/);
    await tab.getByRole("button", { name: "Copy" }).waitFor();
    // The key works until revoked.
    const res = () =>
      fetch(`${worker.url}/api/bookings?limit=1`, { headers: { "api-key": shown } }).then((r) => r.status);
    expect(await res()).toBe(200);
    tab.once("dialog", (dialog) => dialog.accept());
    await tab.getByRole("button", { name: "Revoke console key" }).click();
    await tab.getByText("API key console key revoked.").waitFor();
    expect(await res()).toBe(401);
  });

  it("an admin sets a connection's notification e-mail", async () => {
    await go("Connections");
    const card = tab.getByRole("region", { name: `Connection ${partner.connectionCode}` });
    await card.getByLabel("Notification e-mail").fill("ops@console.test");
    await card.getByRole("button", { name: "Save" }).click();
    await tab.getByText(`Notification e-mail of connection ${partner.connectionCode} saved.`).waitFor();
    const {
      items: [stored],
    } = await call("GET", `/api/connections?partnerId=${PARTNER.id}`, undefined, operator);
    expect(stored.notificationEmail).toBe("ops@console.test");
  });

  it("an admin creates a user of role user", async () => {
    await go("Users");
    await tab.getByLabel("E-mail").fill(AGENT.email);
    await tab.getByLabel("Password").fill(AGENT.password);
    await tab.getByLabel("First name").fill("Agnes");
    await tab.getByLabel("Role").selectOption("user");
    await tab.getByRole("button", { name: "Create user" }).click();
    const row = tab.getByRole("row").filter({ hasText: AGENT.email });
    await row.getByRole("button", { name: "Deactivate" }).waitFor();
    await expect(row.innerText()).resolves.toContain("Agnes");
  });

  it("every page passes axe-core's WCAG A and AA rules, under the CSP, with nothing fetched from outside", async () => {
    for (const name of PAGES) {
      await go(name);
      await accessible(name);
      await screenshots(name.toLowerCase().replace(/ /g, "-"));
    }
    await tab.goto(`${worker.url}/console/#/bookings/${bookings.plain}`);
    await tab.getByRole("heading", { level: 1, name: `Booking ${bookings.plain}` }).waitFor();
    await settled();
    await accessible("booking");
    await screenshots("booking");
    await tab.getByRole("button", { name: "Sign out" }).click();
    await tab.getByRole("heading", { name: "Sign in to the Edgestay console" }).waitFor();
    await accessible("login");
    await screenshots("login");

    expect(await tab.evaluate(() => window.__cspViolations)).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  });

  it("shows a user of role user every page read-only: nothing that writes", async () => {
    await tab.getByLabel("E-mail").fill(AGENT.email);
    await tab.getByLabel("Password").fill(AGENT.password);
    await tab.getByRole("button", { name: "Sign in" }).click();
    // Signed in again, the console shows the page the fragment names (the last one seen).
    await tab.getByRole("heading", { level: 1, name: `Booking ${bookings.plain}` }).waitFor();
    await go("Overview");
    await tab.getByRole("figure").filter({ hasText: "Searches per day" }).waitFor();

    await tab.goto(`${worker.url}/console/#/bookings/${bookings.plain}`);
    await tab.getByRole("heading", { level: 1, name: `Booking ${bookings.plain}` }).waitFor();
    await settled();
    await tab.getByRole("button", { name: "Preview cancellation" }).click();
    await tab.getByText("Only your partner's admins can cancel.").waitFor();
    expect(await tab.getByRole("button", { name: "Confirm cancellation" }).count()).toBe(0);

    await go("API keys");
    expect(await tab.getByRole("button", { name: /Create|Revoke/ }).count()).toBe(0);
    await go("Users");
    expect(await tab.getByRole("button", { name: /Create|Delete|Deactivate/ }).count()).toBe(0);
    await go("Webhooks");
    await tab.getByText("Webhook endpoints are managed by your partner's admins.").waitFor();
    await go("Connections");
    expect(await tab.getByLabel("Notification e-mail").count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
