import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, DEMO_KEY, post, readResponse } from "../../../test/support/api";
import {
  act,
  attachBody,
  attachCard,
  CHAT,
  chat,
  NEW_YORK,
  say,
  startSession,
  tokenOf,
} from "../../../test/support/chat";
import { exports } from "cloudflare:workers";
import { keyring } from "../../platform/crypto/keyring";
import { signToken } from "../../platform/crypto/signed-token";
import { publicBaseUrl } from "../../platform/http/public-url";
import { SETUP_LINK_MESSAGES } from "../payments/pages";
import { bookingPageToken } from "./booking-page-token";
import { toMinor } from "../../platform/money";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
});

const bookingsOf = (sessionId: string) =>
  env.DB.prepare(
    "SELECT reference, status, partner_reference, holder, charge_total FROM bookings WHERE partner_reference LIKE ?",
  )
    .bind(`chat-${sessionId}-%`)
    .all<{ reference: string; status: string; partner_reference: string; holder: string; charge_total: number }>()
    .then((r) => r.results);

describe("the conversation of spec 3.5 over HTTP", () => {
  it("no card: shortlist -> guest name -> setup URL -> Done (still none, new URL) -> attach -> Done -> confirmation -> yes -> booked -> cancel", async () => {
    const created = await chat("POST", "/sessions", {
      actor: { actorId: "traveller-no-card", timezoneOffsetMinutes: -300 },
      channel: { workspaceId: "ws-1" },
      conversation: { id: "c-1", channelId: "ch-1", threadTs: "1700000000.1" },
    });
    expect(created.status).toBe(201);
    const session = created.json.data;
    expect(session).toMatchObject({
      sessionId: expect.stringMatching(/^cs_[A-Za-z0-9_-]{32}$/),
      tenantId: "demo",
      channel: { type: "partner_api", workspaceId: "ws-1" },
      conversation: { id: "c-1", channelId: "ch-1", threadTs: "1700000000.1" },
      actor: { actorId: "traveller-no-card", timezoneOffsetMinutes: -300 },
      events: [],
    });
    expect(created.json.message).toBeUndefined();
    const id = session.sessionId;

    const shortlist = await say(id, NEW_YORK);
    expect(shortlist.event).toMatchObject({ id: expect.any(String), kind: "search_query" });
    expect(shortlist.result.status).toBe("shortlist");
    const entries = shortlist.result.artifacts.shortlist;
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(entries.length).toBeLessThanOrEqual(5);
    for (const e of entries) {
      expect(e).toMatchObject({
        optionId: expect.any(String),
        name: expect.any(String),
        currency: "USD",
        refundable: expect.any(Boolean),
        rating: expect.any(Number),
        distanceTo: expect.stringContaining("New York"),
      });
      expect(e.pricePerNight).toBeCloseTo(e.totalPrice / 2, 1);
    }
    expect(entries.map((e: any) => e.totalPrice)).toEqual(
      [...entries.map((e: any) => e.totalPrice)].sort((a, b) => a - b),
    );
    // Real prices: the same option id is accepted by POST /api/quote at the shown price.
    const details = await call("GET", new URL(entries[1].detailsUrl).pathname);
    expect(details.status).toBe(200);
    expect(details.text).toContain(entries[1].name.replace(/&/g, "&amp;"));

    const intent = await say(id, "Book the second one");
    expect(intent.result.status).toBe("guest_name_required");
    expect(intent.result.message.text).toContain(entries[1].name);

    const named = await say(id, "The guest is Ada Lovelace");
    expect(named.result.status).toBe("payment_setup_required");
    const firstUrl = named.result.artifacts.payment.setupUrl as string;
    expect(firstUrl).toMatch(/^https:\/\/edgestay\.test\/card-setup\?token=pst_/);

    const notYet = await say(id, "Done");
    expect(notYet.result.status).toBe("payment_setup_required");
    const secondUrl = notYet.result.artifacts.payment.setupUrl as string;
    expect(secondUrl).not.toBe(firstUrl);

    const page = await call("GET", new URL(secondUrl).pathname + new URL(secondUrl).search);
    expect(page.status).toBe(200);
    expect(page.text).toContain("card-setup.js");

    const attach = attachBody(tokenOf(secondUrl));
    const attached = await post("/v1/hotel-ea/payment-methods/attach", attach, { apiKey: null });
    expect(attached.status, JSON.stringify(attached.json)).toBe(200);
    expect(attached.json).toEqual({
      data: {
        status: "ATTACHED",
        paymentMethod: {
          paymentMethodId: attach.paymentMethodId,
          brand: "visa",
          last4: "4242",
          expMonth: 12,
          expYear: attach.expYear,
        },
      },
    });
    // One-time: the same token cannot attach again.
    const again = await attachCard(secondUrl);
    expect(again.status).toBe(401);

    const confirm = await say(id, "Done, card added");
    expect(confirm.result.status).toBe("payment_confirmation_required");
    expect(confirm.result.artifacts.payment).toEqual({
      paymentMethodId: attach.paymentMethodId,
      cardBrand: "visa",
      cardLast4: "4242",
      expMonth: 12,
      expYear: attach.expYear,
    });
    expect(await bookingsOf(id)).toEqual([]);

    const booked = await say(id, "Yes");
    expect(booked.result.status).toBe("booked");
    const booking = booked.result.artifacts.booking;
    expect(booking).toMatchObject({
      bookingId: expect.stringMatching(/^BK/),
      confirmationBookingId: expect.any(String),
      hotelName: entries[1].name,
      totalPrice: entries[1].totalPrice,
      currency: "USD",
      cancelPolicy: expect.any(String),
    });
    const rows = await bookingsOf(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      reference: booking.bookingId,
      status: "success",
      partner_reference: `chat-${id}-1`,
      charge_total: toMinor(entries[1].totalPrice, "USD"),
    });
    expect(JSON.parse(rows[0]!.holder)).toEqual({ name: "Ada", surName: "Lovelace" });
    // The booking is a real one: POST-side reads see it.
    expect((await call("GET", `/api/bookings/${booking.bookingId}`)).json.data.status).toBe("success");
    const confirmation = await call(
      "GET",
      new URL(booking.confirmationUrl).pathname + new URL(booking.confirmationUrl).search,
    );
    expect(confirmation.status).toBe(200);
    expect(confirmation.text).toContain("Booking confirmed");
    // Initial and surname only.
    expect(confirmation.text).toContain("A. Lovelace");
    expect(confirmation.text).not.toContain("Ada");
    // The bare reference opens nothing.
    expect((await call("GET", new URL(booking.confirmationUrl).pathname)).status).toBe(404);

    // "Yes" again books nothing more.
    expect((await say(id, "yes")).result.status).toBe("booked");
    expect(await bookingsOf(id)).toHaveLength(1);

    const history = await chat("GET", `/sessions/${id}`);
    expect(history.status).toBe(200);
    expect(history.json.data).toMatchObject({
      sessionId: id,
      tenantId: "demo",
      actor: { actorId: "traveller-no-card" },
    });
    expect(history.json.data.events.map((e: any) => e.resultStatus)).toEqual([
      "shortlist",
      "guest_name_required",
      "payment_setup_required",
      "payment_setup_required",
      "payment_confirmation_required",
      "booked",
      "booked",
    ]);
    expect(history.json.data.events[0]).toEqual({
      eventId: shortlist.event.id,
      kind: "search_query",
      resultStatus: "shortlist",
      recordedAt: expect.stringMatching(/Z$/),
    });

    if (entries[1].refundable) {
      const cancelled = await act(id, "action_cancel_booking", { bookingId: booking.bookingId }, "cancel-1");
      expect(cancelled.status).toBe(200);
      expect(cancelled.json.data.result).toMatchObject({
        status: "cancelled",
        artifacts: { cancellation: { bookingId: booking.bookingId, status: "cancelled" } },
      });
      expect((await bookingsOf(id))[0]!.status).toBe("cancelled");
      const replay = await act(id, "action_cancel_booking", { bookingId: booking.bookingId }, "cancel-1");
      expect(replay.json).toEqual(cancelled.json);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
    }
  });

  it("card already saved: the guest name leads straight to confirmation; a saved card books on yes", async () => {
    const id = await startSession("traveller-no-card"); // has the card attached above
    const cheapest = (await say(id, NEW_YORK)).result.artifacts.shortlist[0];
    expect((await say(id, "I'll take the cheapest")).result.status).toBe("guest_name_required");
    const confirm = await say(id, "John Smith");
    expect(confirm.result.status).toBe("payment_confirmation_required");
    expect(confirm.result.artifacts.payment).toMatchObject({ cardBrand: "visa", cardLast4: "4242" });
    const quotesBefore = await env.DB.prepare("SELECT count(*) n FROM quotes WHERE partner_id = 'demo'").first<number>(
      "n",
    );
    expect((await say(id, "yes please")).result.status).toBe("booked");
    const booked = await bookingsOf(id);
    expect(booked).toHaveLength(1);
    const booking = booked[0]!;
    // Chat prices the quote and books it at once (issue 18): it keeps no quote to read back.
    expect(await env.DB.prepare("SELECT count(*) n FROM quotes WHERE partner_id = 'demo'").first<number>("n")).toBe(
      quotesBefore!,
    );
    expect(booking.charge_total).toBe(toMinor(cheapest.totalPrice, "USD"));
  });

  it("decline: no ends in error with nothing booked", async () => {
    const id = await startSession("traveller-no-card");
    const list = await say(id, NEW_YORK);
    await say(id, `book the ${list.result.artifacts.shortlist[0].name}`);
    expect((await say(id, "Grace Hopper")).result.status).toBe("payment_confirmation_required");
    const declined = await say(id, "No");
    expect(declined.result.status).toBe("error");
    expect(declined.result.message.text).toMatch(/nothing was charged/i);
    expect(await bookingsOf(id)).toEqual([]);
  });

  it("at the card step a short answer re-checks (never a new search) and no declines", async () => {
    const id = await startSession("traveller-short-answers");
    await say(id, NEW_YORK);
    await say(id, "book the first one");
    expect((await say(id, "Hedy Lamarr")).result.status).toBe("payment_setup_required");
    const yes = await say(id, "Yes");
    expect(yes.result.status).toBe("payment_setup_required");
    expect(yes.result.artifacts.payment.setupUrl).toContain("token=pst_");
    const no = await say(id, "No");
    expect(no.result.status).toBe("error");
    expect(await bookingsOf(id)).toEqual([]);
  });

  it("asks in plain words for what a search lacks, then merges the answers", async () => {
    const id = await startSession("traveller-asks");
    const where = await say(id, "I need a hotel");
    expect(where.result).toMatchObject({ status: "needs_input", artifacts: {} });
    expect(where.result.message.text).toMatch(/where/i);
    const when = await say(id, "In New York please");
    expect(when.result.status).toBe("needs_input");
    expect(when.result.message.text).toMatch(/check in/i);
    const list = await say(id, `from ${NEW_YORK.split(" from ")[1]}`);
    expect(list.result.status).toBe("shortlist");
    const nowhere = await say(id, `Hotel in Atlantis from ${NEW_YORK.split(" from ")[1]}`);
    expect(nowhere.result.status).toBe("needs_input");
    expect(nowhere.result.message.text).toContain("Atlantis");
  });

  it("prices children and rooms, and asks again for dates the engine refuses", async () => {
    const id = await startSession("traveller-family");
    const dates = NEW_YORK.split(" from ")[1]!;
    const family = await say(id, `Hotel in New York for 2 adults and 2 kids aged 5 and 8 from ${dates}`);
    expect(family.result.status).toBe("shortlist");
    expect(family.result.message.text).toContain("2 adults, 2 children");
    const kidsWithoutAges = await say(id, `family trip to New York with 2 kids from ${dates}`);
    expect(kidsWithoutAges.result.status).toBe("needs_input");
    expect(kidsWithoutAges.result.message.text).toMatch(/how old/i);
    const past = await say(id, "Hotel in New York from 2020-01-10 to 2020-01-12");
    expect(past.result.status).toBe("needs_input");
    expect(past.result.message.text).toContain("checkIn must not be in the past");
    const tooLong = await say(id, `Hotel in New York from ${dates.split(" to ")[0]} for 40 nights`);
    expect(tooLong.result.status).toBe("needs_input");
    expect(tooLong.result.message.text).toContain("at most 30 nights");
  });

  it("applies budget, refundable-only and star filters to real prices", async () => {
    const id = await startSession("traveller-filters");
    const all = (await say(id, NEW_YORK)).result.artifacts.shortlist;
    const cheapestNight = Math.min(...all.map((e: any) => e.pricePerNight));
    const budget = await say(id, `${NEW_YORK} under $${Math.floor(cheapestNight) + 1} a night`);
    expect(budget.result.status).toBe("shortlist");
    for (const e of budget.result.artifacts.shortlist)
      expect(e.pricePerNight).toBeLessThanOrEqual(Math.floor(cheapestNight) + 1);
    const refundable = await say(id, `refundable rooms, ${NEW_YORK}`);
    for (const e of refundable.result.artifacts.shortlist) expect(e.refundable).toBe(true);
    const stars = await say(id, `4-star ${NEW_YORK}`);
    for (const e of stars.result.artifacts.shortlist) expect(e.rating).toBeGreaterThanOrEqual(4);
    const tooCheap = await say(id, `${NEW_YORK} under $5 a night`);
    expect(tooCheap.result.status).toBe("needs_input");
    // Issue 37: "$1e308" was read as a $1 budget. A budget beyond any price is asked again, nothing searched.
    for (const [text, written] of [
      [`${NEW_YORK} under $1e308`, "1e308"],
      [`${NEW_YORK} under $5,000,000 total`, "5,000,000"],
    ]) {
      const absurd = await say(id, text!);
      expect(absurd.result).toEqual({
        traceId: expect.any(String),
        status: "needs_input",
        message: {
          text: `I can't use ${written} as a budget: please write it in plain digits, at most 1,000,000 (for example "under $300 a night"). I have not searched yet.`,
        },
        artifacts: {},
      });
    }
  });

  it("finds an accommodation by name when the destination is not a city", async () => {
    const id = await startSession("traveller-by-name");
    const list = await say(id, `Stay at the Liberty New York Resort from ${NEW_YORK.split(" from ")[1]}`);
    expect(list.result.status).toBe("shortlist");
    expect(list.result.artifacts.shortlist.map((e: any) => e.name)).toEqual(["Liberty New York Resort & Spa"]);
    expect(list.result.artifacts.shortlist[0].distanceTo).toBeUndefined();
  });
});

/** The pages chat hands out (booking page, card set-up) and the links to them (pages.ts). */
describe("chat pages", () => {
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
});
