import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserWorker } from "../support/browser-worker";
import { CHROMIUM, hasChromium, launchChromium } from "../support/chromium";
import { DEMO } from "../support/accounts";

if (!hasChromium)
  console.warn(`Skipping the chat card-setup browser test: ${CHROMIUM} is missing (apt-get install -y chromium).`);

const addDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe.skipIf(!hasChromium)("chat card setup in Chromium", () => {
  const server = { base: "" };
  let browser: BrowserContext;
  let closeBrowser: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    server.base = await browserWorker();
    ({ browser, close: closeBrowser } = await launchChromium());
  });

  afterAll(async () => {
    await closeBrowser?.();
  });

  const chat = async (path: string, body: unknown) => {
    const res = await fetch(`${server.base}/api/partner/v1/core-chat${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-partner-api-key": DEMO.apiKey.key },
      body: JSON.stringify(body),
    });
    expect(res.status).toBeLessThan(300);
    return ((await res.json()) as any).data;
  };

  it("opens the setupUrl, saves a card in the page, and the conversation continues to booked", async () => {
    const { sessionId } = await chat("/sessions", {
      actor: { actorId: "browser-traveller", timezoneOffsetMinutes: -300 },
    });
    const say = (text: string) => chat("/events", { sessionId, text });
    expect((await say(`Hotel in New York for 2 adults from ${addDays(30)} to ${addDays(32)}`)).result.status).toBe(
      "shortlist",
    );
    expect((await say("Book the first one")).result.status).toBe("guest_name_required");
    const setup = await say("Ada Lovelace");
    expect(setup.result.status).toBe("payment_setup_required");
    const setupUrl: string = setup.result.artifacts.payment.setupUrl;
    expect(setupUrl.startsWith(server.base)).toBe(true);

    const page = await browser.newPage();
    const sent: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/v1/hotel-ea/payment-methods/attach")) sent.push(request.postData() ?? "");
    });
    await page.goto(setupUrl);
    await page.fill("#card-number", "4242 4242 4242 4242");
    await page.fill("#exp-month", "12");
    await page.fill("#exp-year", String(new Date().getUTCFullYear() + 3));
    await page.fill("#cvc", "123");
    await page.click("#submit");
    await page.waitForSelector("#status.ok", { timeout: 15_000 });
    expect(await page.textContent("#status")).toContain("visa ending 4242");
    // Only the token, brand, last 4 and expiry left the page.
    expect(sent).toHaveLength(1);
    const body = JSON.parse(sent[0]!);
    expect(Object.keys(body).sort()).toEqual([
      "cardBrand",
      "cardLast4",
      "expMonth",
      "expYear",
      "paymentMethodId",
      "portalToken",
      "setAsDefault",
    ]);
    expect(sent[0]).not.toContain("4242424242424242");
    expect(sent[0]).not.toContain('123"');
    // The token left the address bar.
    expect(page.url()).not.toContain("token=");
    await page.close();

    const confirm = await say("Done");
    expect(confirm.result.status).toBe("payment_confirmation_required");
    expect(confirm.result.artifacts.payment).toMatchObject({
      paymentMethodId: body.paymentMethodId,
      cardBrand: "visa",
      cardLast4: "4242",
    });
    const booked = await say("Yes");
    expect(booked.result.status).toBe("booked");
    const confirmation = await fetch(booked.result.artifacts.booking.confirmationUrl);
    expect(confirmation.status).toBe(200);
    expect(await confirmation.text()).toContain("A. Lovelace");
  });
});
