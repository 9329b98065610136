import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page, Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../support/accounts";
import { CHROMIUM, hasChromium, launchChromium } from "../../support/chromium";
import { npmStart } from "./server";

if (!hasChromium)
  console.warn(
    `The demo admin's console walk is skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`,
  );

/** README's demo admin (test/support/accounts.ts). */
const ADMIN = DEMO.admin;
/** Far from UTC: the overview's days are UTC days whatever the user's zone, so a UTC slip would show. */
const TIME_ZONE = "Pacific/Kiritimati";
const utcDay = (days = 0) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
/** What the console shows an amount as (Chromium's locale here is en-US). */
const shown = (amount: number, currency: string) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency }).format(amount);
const oneDecimal = (value: number) => value.toLocaleString("en-US", { maximumFractionDigits: 1 });

type Option = {
  id: string;
  isRefundable: boolean;
  cancelPolicy: { refundable: boolean; cancelPenalties: { deadline: string; value: number }[] };
};

/**
 * Issue 41's "done when", against the server `npm start` serves (seeded demo, README's demo
 * admin): the walk makes its own bookings through the API with the demo key, one of them inside its
 * penalty period, and a webhook endpoint at a receiver of its own; then, in Chromium and by what the
 * screen says alone (roles, labels, texts), the demo admin finds those bookings, cancels the one
 * with a penalty after seeing it, creates and revokes an API key, redelivers a webhook and reads the
 * last 7 days' look-to-book ratio on the chart the usage route's answer drew.
 *
 * It runs after README's blocks (or alone) and reads only what it made: its bookings by their own
 * references, its deliveries on its own endpoint, the usage as the difference its calls made.
 * Dates are relative to today and the overview's period is read from the console's own request,
 * so neither the day nor what ran before changes what it checks.
 */
describe.skipIf(!hasChromium)("The demo admin's console walk, after npm start, by the labels on screen", () => {
  const run = Date.now().toString(36);
  const refs = { free: `walk-${run}-free`, penalty: `walk-${run}-penalty` };
  const booked = { free: "", penalty: "" };
  /** The partner's calls this walk made, as the usage must count them. */
  const made = { searches: 0, books: 0 };
  let usageBefore: { searches: number; books: number };
  let token = "";
  let hookId = "";
  let receiver: Server;
  let hookUrl = "";
  /** What the walk's endpoint received: each delivery's event id and type. */
  const received: { eventId: string; type: string; bookingReference: string }[] = [];
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;
  let tab: Page;
  const pageErrors: string[] = [];

  const base = () => npmStart().base;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { "content-type": "application/json", connection: "close", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const withKey = { "api-key": DEMO.apiKey.key };
  const asAdmin = () => ({ authorization: `Bearer ${token}` });
  const settings = { access: { code: DEMO.connection.code } };
  const occupancies = [{ paxes: [{ age: 30 }, { age: 30 }] }];
  const usageTotals = async () => {
    const usage = await call("GET", `/api/partner/usage?from=${utcDay(-6)}&to=${utcDay()}`, undefined, asAdmin());
    return { searches: usage.totals.searches as number, books: usage.totals.books as number };
  };
  const search = async (codes: string[], checkIn: string, checkOut: string) => {
    made.searches += 1;
    const found = await call(
      "POST",
      "/api/search",
      {
        searchCriteria: {
          destinations: { accommodations: codes.map((code) => ({ code })) },
          occupancies,
          checkIn,
          checkOut,
        },
        settings,
      },
      withKey,
    );
    return found.accommodations as { accommodationCode: string; options: Option[] }[];
  };
  /** Quotes and books `option` at `code`; answers the booking reference. */
  const book = async (code: string, option: Option, checkIn: string, checkOut: string, partnerReference: string) => {
    const stay = { accommodation: { code }, checkIn, checkOut };
    const quote = await call(
      "POST",
      "/api/quote",
      { quoteCriteria: { optionId: option.id, occupancies, ...stay }, settings },
      withKey,
    );
    made.books += 1;
    const done = await call(
      "POST",
      "/api/book",
      {
        bookCriteria: { quoteId: quote.id, partnerReference, holder: { name: "Ada", surName: "Lovelace" }, ...stay },
        settings,
      },
      { ...withKey, "idempotency-key": partnerReference },
    );
    return done.bookingReference as string;
  };
  /** Waits until the endpoint has received what `wanted` accepts (the queue delivers within seconds). */
  const receivedWhere = async (wanted: (list: typeof received) => boolean, what: string) => {
    const deadline = Date.now() + 60_000;
    while (!wanted(received)) {
      if (Date.now() > deadline)
        throw new Error(`the webhook endpoint never received ${what}: ${JSON.stringify(received)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  /** Waits until the page shows no loading message (every request of the page answered). */
  const settled = async () => {
    await tab
      .getByText(/^Loading /)
      .first()
      .waitFor({ state: "detached", timeout: 15_000 });
  };
  const go = async (name: string) => {
    await tab.getByRole("navigation", { name: "Console pages" }).getByRole("link", { name, exact: true }).click();
    await tab.getByRole("heading", { level: 1, name, exact: true }).waitFor();
    await settled();
  };
  /** The value beside a label of a fact list (a <dt> and its <dd>), as the screen pairs them. */
  const fact = (label: string) =>
    tab
      .getByRole("term")
      .filter({ hasText: new RegExp(`^${label}$`) })
      .locator("xpath=following-sibling::dd[1]");

  beforeAll(async () => {
    // The walk's webhook receiver, on this machine (a local npm start may deliver to http://127.0.0.1:<port>).
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const event = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        received.push({
          eventId: String(req.headers["edgestay-event-id"]),
          type: event.type,
          bookingReference: event.bookingReference,
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, "127.0.0.1", () => ok()));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/walk-${run}`;

    // README's login for the demo admin; the token reads the usage and registers the endpoint.
    const login = await call("POST", "/api/auth/login", {
      accountType: "email",
      accountValue: ADMIN.email,
      password: ADMIN.passwordMd5,
    });
    token = login.token.accessToken;
    usageBefore = await usageTotals();
    hookId = (
      await call(
        "POST",
        "/api/partner/webhooks",
        { url: hookUrl, events: ["booking.confirmed", "booking.cancelled"] },
        asAdmin(),
      )
    ).id;

    // A refundable stay a month out: free to cancel today.
    const later = { checkIn: utcDay(30), checkOut: utcDay(32) };
    const [free] = await search(["US000011"], later.checkIn, later.checkOut);
    const refundable = free!.options.find((o) => o.isRefundable);
    expect(refundable, "a refundable option of US000011").toBeDefined();
    booked.free = await book("US000011", refundable!, later.checkIn, later.checkOut, refs.free);

    // A refundable stay in two days whose free cancellation has already ended (free until 1 to 14
    // days before): cancelling costs its penalty. Two days, not one: a walk that runs past midnight
    // UTC still cancels before the check-in day, where a booking is no longer cancellable.
    const soon = { checkIn: utcDay(2), checkOut: utcDay(3) };
    const codes = Array.from({ length: 20 }, (_, i) => `US0000${String(21 + i).padStart(2, "0")}`);
    const inPenalty = (await search(codes, soon.checkIn, soon.checkOut))
      .flatMap((a) => a.options.map((option) => ({ code: a.accommodationCode, option })))
      .find(
        ({ option }) =>
          option.isRefundable &&
          option.cancelPolicy.cancelPenalties.some((p) => p.value > 0 && Date.parse(p.deadline) < Date.now()),
      );
    expect(inPenalty, "a refundable option in two days already inside its penalty period").toBeDefined();
    booked.penalty = await book(inPenalty!.code, inPenalty!.option, soon.checkIn, soon.checkOut, refs.penalty);

    // Both confirmations reached the endpoint: its deliveries are there to send again.
    await receivedWhere(
      (list) => [booked.free, booked.penalty].every((ref) => list.some((e) => e.bookingReference === ref)),
      "both bookings' booking.confirmed",
    );

    ({ browser, close: closeBrowser } = await launchChromium({ timezoneId: TIME_ZONE }));
    tab = await browser.newPage();
    tab.on("pageerror", (e) => pageErrors.push(e.message));
  }, 120_000);

  afterAll(async () => {
    await closeBrowser?.();
    // The walk's endpoint goes with it: what runs next books without delivering here.
    if (hookId) await call("DELETE", `/api/partner/webhooks/${hookId}`, undefined, asAdmin()).catch(() => {});
    await new Promise((ok) => receiver?.close(ok));
  });

  it("logs in as the demo admin with README's e-mail and password", async () => {
    await tab.goto(`${base()}/console`);
    await tab.getByRole("heading", { name: "Sign in to the Edgestay console" }).waitFor();
    await tab.getByLabel("E-mail").fill(ADMIN.email);
    await tab.getByLabel("Password").fill(ADMIN.password);
    await tab.getByRole("button", { name: "Sign in" }).click();
    await tab.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await tab.getByText(ADMIN.email).first().waitFor();
  });

  it("finds each booking the walk made by its reference", async () => {
    await go("Bookings");
    for (const [kind, reference] of Object.entries(refs)) {
      await tab.getByLabel("Your reference").fill(reference);
      await tab.getByLabel("Your reference").press("Enter");
      await settled();
      const rows = tab.getByRole("region", { name: "Bookings" }).getByRole("row").filter({ hasText: reference });
      expect(await rows.count(), reference).toBe(1);
      await rows.getByRole("link", { name: booked[kind as keyof typeof booked], exact: true }).waitFor();
      await rows.getByRole("cell", { name: "success", exact: true }).waitFor();
    }
  });

  it("cancels the booking inside its penalty period after its preview shows what it costs", async () => {
    // What the API says cancelling now costs, read as the partner's server would.
    const preview = await call("GET", `/api/bookings/${booked.penalty}/cancellation`, undefined, withKey);
    expect(preview).toMatchObject({ refundable: true, cancellable: true });
    expect(preview.cancelPrice).toBeGreaterThan(0);
    const penalty = shown(preview.cancelPrice, preview.currency);

    await tab.getByLabel("Your reference").fill(refs.penalty);
    await tab.getByLabel("Your reference").press("Enter");
    await settled();
    await tab.getByRole("link", { name: booked.penalty, exact: true }).click();
    await tab.getByRole("heading", { level: 1, name: `Booking ${booked.penalty}` }).waitFor();
    await settled();
    await tab.getByRole("button", { name: "Preview cancellation" }).click();
    await tab.getByRole("heading", { name: "Cancellation preview" }).waitFor();
    await expect(fact("Cancelling now costs").innerText()).resolves.toBe(penalty);
    await expect(fact("Refundable").last().innerText()).resolves.toBe("Yes");
    await tab.getByRole("button", { name: "Confirm cancellation" }).click();
    await tab.getByText("This booking is cancelled.").waitFor();
    await expect(fact("Status").innerText()).resolves.toBe("cancelled");
    await expect(fact("Cancellation cost").innerText()).resolves.toBe(penalty);

    // The API agrees, and the endpoint hears of it.
    const read = await call("GET", `/api/bookings/${booked.penalty}`, undefined, withKey);
    expect(read).toMatchObject({ status: "cancelled", cancelPrice: { amount: preview.cancelPrice } });
    await receivedWhere(
      (list) => list.some((e) => e.bookingReference === booked.penalty && e.type === "booking.cancelled"),
      "booking.cancelled",
    );
  });

  it("creates an API key that works, and revokes it", async () => {
    await go("API keys");
    const name = `walk key ${run}`;
    await tab.getByLabel("Name").fill(name);
    await tab.getByRole("button", { name: "Create API key" }).click();
    const once = tab.getByRole("status").filter({ hasText: "shown only this once" });
    const key = await once.getByRole("code").innerText();
    expect(key).toMatch(/^esk_/);
    await once.getByRole("button", { name: "Copy" }).waitFor();
    const status = () =>
      fetch(`${base()}/api/bookings?limit=1`, { headers: { "api-key": key, connection: "close" } }).then(
        (r) => r.status,
      );
    expect(await status()).toBe(200);
    tab.once("dialog", (dialog) => dialog.accept());
    await tab.getByRole("button", { name: `Revoke ${name}` }).click();
    await tab.getByText(`API key ${name} revoked.`).waitFor();
    expect(await status()).toBe(401);
  });

  it("redelivers a webhook: the endpoint receives the same event again", async () => {
    await go("Webhooks");
    await tab
      .getByRole("region", { name: "Webhook endpoints" })
      .getByRole("row")
      .filter({ hasText: hookUrl })
      .getByRole("button", { name: "Deliveries" })
      .click();
    await tab.getByRole("heading", { name: `Recent deliveries to ${hookUrl}` }).waitFor();
    await settled();
    const first = received.find((e) => e.bookingReference === booked.free && e.type === "booking.confirmed")!;
    const row = tab
      .getByRole("region", { name: "Deliveries" })
      .getByRole("row")
      .filter({ hasText: booked.free })
      .filter({ hasText: "booking.confirmed" });
    await row.getByRole("button", { name: "Redeliver" }).click();
    await tab.getByText(`Event ${first.eventId} is queued for redelivery.`).waitFor();
    await receivedWhere(
      (list) => list.filter((e) => e.eventId === first.eventId).length === 2,
      `${first.eventId} again`,
    );
  });

  it("reads the last 7 days' look-to-book ratio on the chart the usage route drew", async () => {
    await go("Overview");
    const answered = tab.waitForResponse((r: Response) => r.url().includes("/api/partner/usage?"));
    await tab.getByLabel("Period", { exact: true }).selectOption({ label: "Last 7 days" });
    const usage = ((await (await answered).json()) as any).data;
    await settled();
    // Seven UTC days up to today, counting this walk's calls on top of whatever came before it.
    expect(usage.days).toHaveLength(7);
    expect(usage.totals).toMatchObject({
      searches: usageBefore.searches + made.searches,
      books: usageBefore.books + made.books,
    });
    // Searches per booking, to two decimals as the route answers it.
    expect(usage.lookToBook).toBe(Math.round((usage.totals.searches / usage.totals.books) * 100) / 100);
    const ratio = oneDecimal(usage.lookToBook);
    // The chart, by its accessible name (its caption and summary): the period's ratio; the totals beside it say the same.
    await tab
      .getByRole("img", {
        name: `Look-to-book ratio per day (searches per booking) Look-to-book over the period: ${ratio} searches per booking. Days without bookings have no bar.`,
      })
      .waitFor();
    const totals = tab.getByRole("list", { name: "Totals for the period" });
    await expect(totals.getByRole("listitem").filter({ hasText: "Look-to-book" }).innerText()).resolves.toMatch(
      new RegExp(`Look-to-book\\s+${ratio.replace(".", "\\.")}$`),
    );
    expect(pageErrors).toEqual([]);
  });
});
