import { keyring } from "../../platform/crypto/keyring";
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, DEMO_KEY, readResponse } from "../../../test/support/api";
import { signToken } from "../../platform/crypto/signed-token";
import { publicBaseUrl } from "../../platform/http/public-url";
import { SETUP_LINK_MESSAGES } from "../payments/pages";
import { bookingPageToken } from "./booking-page-token";
import { CHAT, NEW_YORK, attachCard } from "../../../test/support/chat";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
});

/** A chat call that arrives under a forged Host (and URL): links must not follow it. */
const forged = async (method: string, path: string, body?: unknown) =>
  readResponse(
    await exports.default.fetch(
      new Request(`https://evil.example${CHAT}${path}`, {
        method,
        headers: {
          host: "evil.example",
          "x-forwarded-host": "evil.example",
          "x-partner-api-key": DEMO_KEY,
          "content-type": "application/json",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    ),
    { method, url: `${CHAT}${path}` },
  );
const sayForged = async (sessionId: string, text: string) =>
  (await forged("POST", "/events", { sessionId, text })).json.data;

/** Runs a chat to a booking under a forged Host; returns every link handed out. */
const bookUnderForgedHost = async (actorId: string) => {
  const sessionId = (await forged("POST", "/sessions", { actor: { actorId } })).json.data.sessionId as string;
  const shortlist = await sayForged(sessionId, NEW_YORK);
  await sayForged(sessionId, "book the first one");
  const setup = await sayForged(sessionId, "Grace Hopper");
  const setupUrl = setup.result.artifacts.payment.setupUrl as string;
  expect((await attachCard(setupUrl)).status).toBe(200);
  await sayForged(sessionId, "Done");
  const booked = await sayForged(sessionId, "Yes");
  expect(booked.result.status).toBe("booked");
  return {
    detailsUrls: shortlist.result.artifacts.shortlist.map((e: { detailsUrl: string }) => e.detailsUrl) as string[],
    setupUrl,
    confirmationUrl: booked.result.artifacts.booking.confirmationUrl as string,
    bookingId: booked.result.artifacts.booking.bookingId as string,
  };
};

const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;
const get = (path: string) => call("GET", path, undefined, { apiKey: null });

const expectPageHeaders = (res: { headers: Headers }) => {
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  const scriptSrc =
    csp
      .split(";")
      .map((d) => d.trim())
      .find((d) => d.startsWith("script-src")) ?? "";
  expect(scriptSrc).not.toBe("");
  expect(scriptSrc).not.toContain("'unsafe-inline'");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
};
const inlineScripts = (html: string) => [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/gi)];

describe("links use PUBLIC_BASE_URL, never the request's Host", () => {
  it("a chat under a forged Host hands out setupUrl, detailsUrl and confirmationUrl on the configured origin", async () => {
    const links = await bookUnderForgedHost("forged-host-traveller");
    for (const url of [...links.detailsUrls, links.setupUrl, links.confirmationUrl]) {
      expect(url.startsWith(`${env.PUBLIC_BASE_URL}/`), url).toBe(true);
      expect(url).not.toContain("evil.example");
    }
  });

  it("falls back to the request origin only locally; elsewhere a missing PUBLIC_BASE_URL is an error", () => {
    expect(
      publicBaseUrl(
        { PUBLIC_BASE_URL: "https://api.edgestay.example/", ENVIRONMENT: "production" },
        "https://evil.example/x",
      ),
    ).toBe("https://api.edgestay.example");
    expect(publicBaseUrl({ PUBLIC_BASE_URL: "", ENVIRONMENT: "local" }, "http://localhost:8787/x")).toBe(
      "http://localhost:8787",
    );
    expect(() => publicBaseUrl({ PUBLIC_BASE_URL: "" }, "https://evil.example/x")).toThrow(
      /PUBLIC_BASE_URL is not set/,
    );
  });
});

describe("the booking page", () => {
  it("opens only with the token of its confirmationUrl and shows the guest's initial and surname", async () => {
    const { confirmationUrl, bookingId } = await bookUnderForgedHost("booking-page-traveller");
    const page = await get(pathOf(confirmationUrl));
    expect(page.status).toBe(200);
    expect(page.text).toContain("G. Hopper");
    expect(page.text).not.toContain("Grace");
    expectPageHeaders(page);

    const bare = await get(`/chat/bookings/${bookingId}`);
    expect(bare.status).toBe(404);
    expect(bare.text).not.toContain("Hopper");
    const otherReference = await bookingPageToken(keyring(env.PAGE_TOKEN_SECRET), "BKAAAAAAAAAAAA");
    const wrongSecret = await signToken(keyring("guessed-secret"), "chat-booking-page", { r: bookingId }, null);
    const otherPurpose = await signToken(keyring(env.PAGE_TOKEN_SECRET), "content-page", { r: bookingId }, null);
    for (const token of [otherReference, wrongSecret, otherPurpose, "garbage", ""]) {
      const res = await get(`/chat/bookings/${bookingId}?token=${encodeURIComponent(token)}`);
      expect(res.status, token).toBe(404);
      expect(res.text).not.toContain("Hopper");
    }
  });
});

describe("the card-setup page says when a link cannot be used, before any card form", () => {
  const startToSetup = async (actorId: string) => {
    const sessionId = (await forged("POST", "/sessions", { actor: { actorId } })).json.data.sessionId as string;
    await sayForged(sessionId, NEW_YORK);
    await sayForged(sessionId, "book the first one");
    const setup = await sayForged(sessionId, "Ada Lovelace");
    return { sessionId, setupUrl: setup.result.artifacts.payment.setupUrl as string };
  };

  it("a live link shows the form; once used, the same link says so in a traveller's words", async () => {
    const { setupUrl } = await startToSetup("setup-used");
    const live = await get(pathOf(setupUrl));
    expect(live.status).toBe(200);
    expect(live.text).toContain('id="card-number"');
    expectPageHeaders(live);
    expect(inlineScripts(live.text)).toEqual([]);

    expect((await attachCard(setupUrl)).status).toBe(200);
    const used = await get(pathOf(setupUrl));
    expect(used.status).toBe(410);
    expect(used.text).toContain(SETUP_LINK_MESSAGES.used.text);
    expect(used.text).not.toContain("card-number");
    expectPageHeaders(used);
  });

  it("a link replaced by a newer one says so, and no longer attaches; the newest works", async () => {
    const { sessionId, setupUrl: first } = await startToSetup("setup-replaced");
    const again = await sayForged(sessionId, "Done");
    const second = again.result.artifacts.payment.setupUrl as string;
    expect(second).not.toBe(first);
    const old = await get(pathOf(first));
    expect(old.status).toBe(410);
    expect(old.text).toContain(SETUP_LINK_MESSAGES.replaced.text);
    expect(old.text).not.toContain("card-number");
    expect((await attachCard(first)).status).toBe(401);
    expect((await get(pathOf(second))).status).toBe(200);
    expect((await attachCard(second)).status).toBe(200);
  });

  it("an expired, unknown or missing token says so too", async () => {
    const { setupUrl } = await startToSetup("setup-expired");
    await env.DB.prepare("UPDATE payment_setup_tokens SET expires_at = 0 WHERE actor_id = 'setup-expired'").run();
    const expired = await get(pathOf(setupUrl));
    expect(expired.status).toBe(410);
    expect(expired.text).toContain(SETUP_LINK_MESSAGES.expired.text);
    for (const path of ["/card-setup?token=pst_nothing", "/card-setup", "/card-setup.html?token=pst_nothing"]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.text).toContain(SETUP_LINK_MESSAGES.unknown.text);
      expect(res.text).not.toContain("card-number");
    }
  });
});

describe("every HTML page sends the security headers and no inline script", () => {
  it("/, the hotel page and the not-found booking page", async () => {
    const code = (await env.DB.prepare("SELECT code FROM accommodations LIMIT 1").first<{ code: string }>())!.code;
    for (const path of [
      "/",
      `/chat/accommodations/${code}`,
      "/chat/accommodations/NOPE",
      "/chat/bookings/BKAAAAAAAAAAAA",
    ]) {
      const res = await get(path);
      expect(res.headers.get("content-type"), path).toContain("text/html");
      expectPageHeaders(res);
      expect(inlineScripts(res.text), path).toEqual([]);
    }
  });

  it("the asset router's own _headers file is configuration, not a page", async () => {
    const res = await env.ASSETS.fetch("https://edgestay.test/_headers");
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });

  it("the radar snippet stays loadable from partner pages (no same-origin resource policy)", async () => {
    const res = await get("/radar.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("cross-origin-resource-policy")).toBeNull();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
