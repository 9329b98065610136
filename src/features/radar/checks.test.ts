import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DEMO_KEY, OTHER_KEY, call } from "../../../test/support/api";
import { expectLogs } from "../../../test/support/expected-logs";
import { database } from "../../platform/db/client";
import { keyedHash, sha256Hex } from "../../platform/crypto/digest";
import {
  CHROME_UA,
  checkBody,
  DEMO_COLLECTOR_KEY,
  humanSignals,
  reasonCodes,
  runCheckCall,
  sendSignals,
  unique,
  uniqueIp,
} from "../../../test/support/radar";
import {
  countBillableChecks,
  runCheck,
  setRadarEnabled,
  type EvaluationBudget,
  type EvaluationStep,
  MAX_SIGNAL_POSTS,
  SIGNALS_RETENTION_MS,
} from "./service";
import { checkRequestSchema } from "./schemas";
import { DENY_SCORE } from "./rules";
// As text, parsed here: typing the package's 120,000-line JSON cost the type-check seconds.
import domainsJson from "disposable-email-domains/index.json?raw";
import wildcardDomainsJson from "disposable-email-domains/wildcard.json?raw";
import { DISPOSABLE_DOMAINS_ASSET, DISPOSABLE_WILDCARDS_ASSET, isDisposableEmail } from "./disposable-domains";
import { getAllTimezones, getTimezone } from "countries-and-timezones";
import { TIMEZONE_COUNTRIES_ASSET, timezoneCountries } from "./timezone-countries";
import { exports } from "cloudflare:workers";
import { hashOldRadarPii, radarPiiRetention, retentionDays } from "./personal-data";
import { SIGNALS_RATE } from "./routes";
import { OPERATOR } from "../../../test/support/sessions";

/** A browser session that posted human signals from the US, ready for a check. */
const browserSession = async (signals: Record<string, unknown> = {}, country = "US", ip?: string) => {
  const sessionId = unique("s");
  const res = await sendSignals(humanSignals(signals), { sessionId, country, ip });
  expect(res.status).toBe(202);
  return sessionId;
};

const storedCheck = (id: string) => env.DB.prepare("select * from radar_checks where id = ?").bind(id).first<any>();

describe("POST /api/v1/radar/checks: decisions", () => {
  it("allows a human browser session with every field of 2.9, the score and no reasons", async () => {
    const sessionId = await browserSession();
    const res = await runCheckCall(checkBody(), { sessionId });
    expect(res.status).toBe(200);
    expect(res.json.message).toBe("success");
    expect(res.json.data).toMatchObject({
      partner_id: "demo",
      session_id: sessionId,
      decision: "allow",
      radar_result: "low_risk",
      should_hide_rate: false,
      billable: true,
      trigger_event: "booking_attempt",
      score: 0,
      reasons: [],
      merged_signals: {
        user_agent: CHROME_UA,
        timezone: "America/New_York",
        language: "en-US",
        webdriver: false,
        ip_country: "US",
      },
    });
    expect(res.json.data.merged_signals.visitor_id).toMatch(/^v/);
    expect(res.json.data.check_id).toMatch(/^chk_[0-9a-f-]{36}$/);
    expect(Date.parse(res.json.data.checked_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("no signals at all is itself a risk signal", async () => {
    const res = await runCheckCall(checkBody(), { sessionId: unique("never-posted") });
    expect(res.json.data).toMatchObject({ decision: "allow", score: 25, radar_result: "low_risk" });
    expect(reasonCodes(res.json)).toEqual(["no_browser_signals"]);
    expect(res.json.data.merged_signals).toBeNull();
    expect(res.json.data.reasons[0].message).toBe("No browser signals were received for this session");
  });

  it("disposable e-mail alone is elevated risk but allowed; with no signals it is denied and the rate hidden", async () => {
    const email = `x${unique("")}@mailinator.com`;
    const alone = await runCheckCall(checkBody({ booker: { email } }), { sessionId: await browserSession() });
    expect(alone.json.data).toMatchObject({
      decision: "allow",
      radar_result: "elevated_risk",
      score: 40,
      should_hide_rate: false,
    });
    expect(reasonCodes(alone.json)).toEqual(["disposable_email_domain"]);
    const denied = await runCheckCall(checkBody({ booker: { email: `y${unique("")}@mailinator.com` } }), {
      sessionId: unique("none"),
    });
    expect(denied.json.data).toMatchObject({
      decision: "deny",
      radar_result: "high_risk",
      score: 65,
      should_hide_rate: true,
      billable: true,
    });
  });

  it("denies a headless browser, a bot user agent and a webdriver-driven browser, each with its reason", async () => {
    const headless = await runCheckCall(checkBody(), {
      sessionId: await browserSession({ user_agent: CHROME_UA.replace("Chrome/", "HeadlessChrome/") }),
    });
    expect(headless.json.data).toMatchObject({ decision: "deny", should_hide_rate: true });
    expect(reasonCodes(headless.json)).toEqual(["headless_browser"]);
    const bot = await runCheckCall(checkBody(), { sessionId: await browserSession({ user_agent: "curl/8.5.0" }) });
    expect(reasonCodes(bot.json)).toEqual(["bot_user_agent"]);
    expect(bot.json.data.decision).toBe("deny");
    const driven = await runCheckCall(checkBody(), {
      sessionId: await browserSession({
        device: { platform: "Win32", hardware_concurrency: 8, touch_points: 0, webdriver: true },
      }),
    });
    expect(reasonCodes(driven.json)).toEqual(["webdriver"]);
    expect(driven.json.data.decision).toBe("deny");
  });

  it("compares the browser's IP country (request.cf.country at signal time) with the billing country", async () => {
    const res = await runCheckCall(checkBody(), { sessionId: await browserSession({}, "DE") });
    expect(reasonCodes(res.json)).toEqual(["ip_country_mismatch"]);
    expect(res.json.data.score).toBe(20);
    const lower = await runCheckCall(checkBody({ payment: { billing_address: { country: "de" } } }), {
      sessionId: await browserSession({ timezone: "Europe/Berlin" }, "DE"),
    });
    expect(reasonCodes(lower.json)).toEqual([]);
  });

  it("compares the browser's timezone with the billing country", async () => {
    const res = await runCheckCall(checkBody(), { sessionId: await browserSession({ timezone: "Asia/Tokyo" }) });
    expect(reasonCodes(res.json)).toEqual(["timezone_country_mismatch"]);
    expect(res.json.data.score).toBe(15);
  });

  it("a check without a billing country skips both country rules", async () => {
    const res = await runCheckCall(checkBody({ payment: undefined }), {
      sessionId: await browserSession({ timezone: "Asia/Tokyo" }, "JP"),
    });
    expect(reasonCodes(res.json)).toEqual([]);
  });
});

describe("POST /api/v1/radar/checks: velocity over sliding windows", () => {
  it("visitor velocity: the sixth check from one device within 10 minutes", async () => {
    const visitor = unique("dev");
    const deviceIp = uniqueIp();
    const [a, b] = [`${unique("a")}@example.com`, `${unique("b")}@example.com`];
    // Prior e-mails a,a,a,b,b: 5 checks on the device, at most 3 per e-mail, one other identity.
    for (const email of [a, a, a, b, b]) {
      const res = await runCheckCall(checkBody({ booker: { email } }), {
        sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }, "US", deviceIp),
      });
      expect(reasonCodes(res.json)).not.toContain("visitor_velocity");
    }
    const sixth = await runCheckCall(checkBody({ booker: { email: a } }), {
      sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }, "US", deviceIp),
    });
    expect(reasonCodes(sixth.json)).toEqual(["visitor_velocity"]);
  });

  it("e-mail velocity: the sixth check for one e-mail within an hour, from different devices and IPs", async () => {
    const email = `${unique("v")}@example.com`;
    for (let i = 0; i < 5; i++) {
      const res = await runCheckCall(checkBody({ booker: { email } }), { sessionId: await browserSession() });
      expect(reasonCodes(res.json)).toEqual([]);
    }
    const sixth = await runCheckCall(checkBody({ booker: { email: email.toUpperCase() } }), {
      sessionId: await browserSession(),
    });
    expect(reasonCodes(sixth.json)).toEqual(["email_velocity"]);
  });

  it("IP velocity: the eleventh check from one IP within 10 minutes", async () => {
    const ip = uniqueIp();
    for (let i = 0; i < 10; i++) {
      const res = await runCheckCall(checkBody({ context: { ip } }), { sessionId: await browserSession() });
      expect(reasonCodes(res.json)).toEqual([]);
    }
    const eleventh = await runCheckCall(checkBody({ context: { ip } }), { sessionId: await browserSession() });
    expect(reasonCodes(eleventh.json)).toEqual(["ip_velocity"]);
  });

  it("one device behind many identities: a third distinct e-mail on a visitor id within 24 hours", async () => {
    const visitor = unique("dev");
    const deviceIp = uniqueIp();
    for (const name of ["first", "second"]) {
      const res = await runCheckCall(checkBody({ booker: { email: `${unique(name)}@example.com` } }), {
        sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }, "US", deviceIp),
      });
      expect(reasonCodes(res.json)).toEqual([]);
    }
    const third = await runCheckCall(checkBody(), {
      sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }, "US", deviceIp),
    });
    expect(reasonCodes(third.json)).toEqual(["device_many_identities"]);
  });

  it("windows slide: checks older than the window no longer count", async () => {
    const db = database(env.DB);
    const email = `${unique("old")}@example.com`;
    const request = checkRequestSchema.parse(checkBody({ booker: { email }, context: {} }));
    const now = Date.now();
    const checkAt = (at: number) =>
      runCheck(db, {
        assets: env.ASSETS,
        partnerId: "demo",
        sessionId: unique("s"),
        idempotencyKey: null,
        piiKey: env.PII_HASH_SECRET,
        request,
        now: at,
      });
    for (let i = 0; i < 5; i++) await checkAt(now - 61 * 60_000);
    const fresh = await checkAt(now);
    expect(fresh.check.reasons.map((r) => r.code)).toEqual(["no_browser_signals"]);
    for (let i = 0; i < 4; i++) await checkAt(now - 59 * 60_000);
    const within = await checkAt(now);
    expect(within.check.reasons.map((r) => r.code)).toEqual(["no_browser_signals", "email_velocity"]);
  });

  it("velocity is counted per partner: another partner's checks of the same e-mail do not count", async () => {
    const email = `${unique("shared")}@example.com`;
    for (let i = 0; i < 5; i++)
      await runCheckCall(checkBody({ booker: { email } }), { apiKey: OTHER_KEY, sessionId: unique("o") });
    const res = await runCheckCall(checkBody({ booker: { email } }), { sessionId: await browserSession() });
    expect(reasonCodes(res.json)).toEqual([]);
  });
});

describe("POST /api/v1/radar/checks: device rules never key on the posted visitor id alone", () => {
  it("a visitor id posted from other IPs (poisoning, or a copied id) counts as other devices", async () => {
    const visitor = unique("dev");
    const victimEmail = `${unique("victim")}@example.com`;
    // A stranger posts the victim's visitor id with six e-mails from six addresses.
    for (let i = 0; i < 6; i++) {
      await runCheckCall(checkBody({ booker: { email: `${unique("fake")}@example.com` } }), {
        sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }, "US", uniqueIp()),
      });
    }
    const victim = await runCheckCall(checkBody({ booker: { email: victimEmail } }), {
      sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }, "US", uniqueIp()),
    });
    expect(reasonCodes(victim.json)).toEqual([]);
    expect(victim.json.data.decision).toBe("allow");
  });

  it("without any browser IP, the partner's booker id anchors the device", async () => {
    const visitor = unique("dev");
    const bookerUuid = unique("booker");
    const body = () =>
      checkBody({ booker: { email: `${unique("id")}@example.com` }, context: { booker_uuid: bookerUuid } });
    for (let i = 0; i < 2; i++)
      expect(
        reasonCodes(
          (await runCheckCall(body(), { sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }) }))
            .json,
        ),
      ).toEqual([]);
    const third = await runCheckCall(body(), {
      sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }),
    });
    expect(reasonCodes(third.json)).toEqual(["device_many_identities"]);
    // The same visitor id under another booker id is another device.
    const other = await runCheckCall(checkBody({ context: { booker_uuid: unique("booker") } }), {
      sessionId: await browserSession({ fingerprint: { visitor_id: visitor } }),
    });
    expect(reasonCodes(other.json)).toEqual([]);
  });
});

describe("POST /api/v1/radar/checks: later signal posts cannot overwrite the first", () => {
  it("a later headless/webdriver post of the same session leaves an allow an allow, with conflicting_signals", async () => {
    const sessionId = await browserSession();
    const bot = humanSignals({
      user_agent: CHROME_UA.replace("Chrome/", "HeadlessChrome/"),
      timezone: "Asia/Tokyo",
      device: { platform: "Linux", hardware_concurrency: 2, touch_points: 0, webdriver: true },
    });
    expect((await sendSignals(bot, { sessionId, country: "JP" })).status).toBe(202);
    const res = await runCheckCall(checkBody(), { sessionId });
    expect(res.json.data.decision).toBe("allow");
    expect(reasonCodes(res.json)).toEqual(["conflicting_signals"]);
    const reason = res.json.data.reasons[0];
    expect(reason.weight).toBeGreaterThan(0);
    expect(reason.weight).toBeLessThanOrEqual(20);
    // The first post is what the check merged.
    expect(res.json.data.merged_signals).toMatchObject({
      user_agent: CHROME_UA,
      webdriver: false,
      timezone: "America/New_York",
      ip_country: "US",
    });
  });

  it("a later post cannot push an elevated allow over the deny line either", async () => {
    // Disposable e-mail (40) and a timezone outside the billing country (15): 55, an elevated allow.
    const sessionId = await browserSession({ timezone: "Europe/Berlin" });
    await sendSignals(humanSignals({ timezone: "Europe/Berlin", fingerprint: { visitor_id: unique("other") } }), {
      sessionId,
    });
    const res = await runCheckCall(checkBody({ booker: { email: `${unique("x")}@mailinator.com` } }), { sessionId });
    expect(reasonCodes(res.json)).toEqual([
      "disposable_email_domain",
      "timezone_country_mismatch",
      "conflicting_signals",
    ]);
    expect(res.json.data).toMatchObject({ decision: "allow", radar_result: "elevated_risk", score: DENY_SCORE - 1 });
  });

  it("a repeated identical post is no conflict", async () => {
    const signals = humanSignals();
    const sessionId = unique("s");
    await sendSignals(signals, { sessionId });
    await sendSignals({ ...signals, page_url: "https://partner.example/book/123/step-2" }, { sessionId });
    expect(reasonCodes((await runCheckCall(checkBody(), { sessionId })).json)).toEqual([]);
  });

  it("refuses session ids shorter than 16 characters (400)", async () => {
    const res = await runCheckCall(checkBody(), { sessionId: "sess_0123456789" });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("session-id header is required (16 to 128 characters of A-Z a-z 0-9 . _ : -)");
  });
});

describe("POST /api/v1/radar/checks: sessions belong to their partner", () => {
  it("a check by partner B for partner A's session id merges nothing of A's signals", async () => {
    const sessionId = await browserSession({ user_agent: CHROME_UA.replace("Chrome/", "HeadlessChrome/") });
    const byOther = await runCheckCall(checkBody(), { apiKey: OTHER_KEY, sessionId });
    expect(byOther.status).toBe(200);
    expect(byOther.json.data.partner_id).toBe("other");
    expect(reasonCodes(byOther.json)).toEqual(["no_browser_signals"]);
    expect(byOther.json.data.merged_signals).toBeNull();
    const stored = await storedCheck(byOther.json.data.check_id);
    expect(JSON.parse(stored.inputs).signals).toBeNull();
    const byOwner = await runCheckCall(checkBody(), { apiKey: DEMO_KEY, sessionId });
    expect(reasonCodes(byOwner.json)).toEqual(["headless_browser"]);
  });

  it("signals posted with partner B's collector key are not merged into partner A's check", async () => {
    const sessionId = unique("s");
    await sendSignals(humanSignals({ user_agent: "curl/8" }), { sessionId, collectorKey: "other-collector-key" });
    const res = await runCheckCall(checkBody(), { sessionId });
    expect(reasonCodes(res.json)).toEqual(["no_browser_signals"]);
  });

  it("expired signals are not merged", async () => {
    const sessionId = await browserSession();
    await env.DB.prepare("update radar_signals set expires_at_ms = ? where session_id = ?")
      .bind(Date.now() - 1, sessionId)
      .run();
    const res = await runCheckCall(checkBody(), { sessionId });
    expect(reasonCodes(res.json)).toEqual(["no_browser_signals"]);
  });
});

describe("POST /api/v1/radar/checks: idempotency, billing and storage", () => {
  it("replays the first result for the same idempotency-key, billed once", async () => {
    const sessionId = unique("s");
    const body = checkBody();
    const key = unique("idem");
    const before = await countBillableChecks(database(env.DB), "demo");
    const first = await runCheckCall(body, { sessionId, idempotencyKey: key });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    // Signals arriving between the two calls must not change a replayed answer.
    await sendSignals(humanSignals({ user_agent: "curl/8" }), { sessionId });
    const again = await runCheckCall(body, { sessionId, idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.data).toEqual(first.json.data);
    expect(await countBillableChecks(database(env.DB), "demo")).toBe(before + 1);
    const { results } = await env.DB.prepare("select id from radar_checks where idempotency_key = ?").bind(key).all();
    expect(results).toHaveLength(1);
  });

  it("concurrent calls with one idempotency-key store one check; each answers with it or 409 in use", async () => {
    const sessionId = unique("s");
    const body = checkBody();
    const key = unique("race");
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => runCheckCall(body, { sessionId, idempotencyKey: key })),
    );
    const { results } = await env.DB.prepare("select id from radar_checks where idempotency_key = ?")
      .bind(key)
      .all<{ id: string }>();
    expect(results).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 409) {
        expect(answer.json.code).toBe("idempotency_key_in_use");
        expect(answer.headers.get("retry-after")).toBe("1");
      } else {
        expect(answer.status).toBe(200);
        expect(answer.json.data.check_id).toBe(results[0]!.id);
      }
    }
    const replay = await runCheckCall(body, { sessionId, idempotencyKey: key });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json).toEqual(answers.find((a) => a.status === 200)!.json);
  });

  it("refuses the same idempotency-key with a different request (409), and keys are per partner", async () => {
    const sessionId = unique("s");
    const key = unique("idem");
    const first = await runCheckCall(checkBody(), { sessionId, idempotencyKey: key });
    const different = await runCheckCall(checkBody(), { sessionId, idempotencyKey: key });
    expect(different.status).toBe(409);
    expect(different.json).toMatchObject({
      message: "idempotency-key was already used with a different request",
      code: "idempotency_key_reused",
    });
    const otherPartner = await runCheckCall(checkBody(), { apiKey: OTHER_KEY, sessionId, idempotencyKey: key });
    expect(otherPartner.status).toBe(200);
    expect(otherPartner.json.data.check_id).not.toBe(first.json.data.check_id);
  });

  it("without an idempotency-key every call is a new, billable check", async () => {
    const sessionId = unique("s");
    const body = checkBody();
    const a = await runCheckCall(body, { sessionId });
    const b = await runCheckCall(body, { sessionId });
    expect(a.json.data.check_id).not.toBe(b.json.data.check_id);
    expect([a.json.data.billable, b.json.data.billable]).toEqual([true, true]);
  });

  it("stores every check with the SHA-256 of its canonical inputs; e-mail and IP only hashed in indexed columns; no card data", async () => {
    const sessionId = await browserSession();
    const body = checkBody({ payment: { billing_address: { country: "US" }, note: "x" } });
    // Card data in any field refuses the whole check (issue 25): nothing is stored.
    const withCard = await runCheckCall(
      { ...body, payment: { ...body.payment, card_number: "4242424242424242", cvc: "123" } },
      { sessionId },
    );
    expect([withCard.status, withCard.json.code, withCard.json.details]).toEqual([
      400,
      "raw_card_data_refused",
      { field: "payment.card_number" },
    ]);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM radar_checks WHERE session_id = ?").bind(sessionId).first("n"),
    ).toBe(0);
    // An unknown field refuses the check too (issue 37): nothing unvalidated is stored or logged.
    const unknown = await runCheckCall(body, { sessionId });
    expect([unknown.status, unknown.json.message]).toEqual([400, "Unknown field: payment.note"]);
    expect(
      await env.DB.prepare("SELECT count(*) AS n FROM radar_checks WHERE session_id = ?").bind(sessionId).first("n"),
    ).toBe(0);
    const res = await runCheckCall({ ...body, payment: { billing_address: { country: "US" } } }, { sessionId });
    expect(res.status).toBe(200);
    const row = await storedCheck(res.json.data.check_id);
    expect(row.input_digest).toBe(await sha256Hex(row.inputs));
    const inputs = JSON.parse(row.inputs);
    expect(inputs.request.booker.email).toBe(body.booker.email);
    expect(inputs.signals.fingerprint.visitor_id).toBeTruthy();
    // Keyed hashes (PII_HASH_SECRET): a plain SHA-256 of a guessed e-mail or IP does not match.
    expect(row.email_hash).toBe(await keyedHash(env.PII_HASH_SECRET, body.booker.email.toLowerCase()));
    expect(row.email_hash).not.toBe(await sha256Hex(body.booker.email.toLowerCase()));
    expect(row.ip_hash).toBe(await keyedHash(env.PII_HASH_SECRET, body.context.ip));
    expect(row.visitor_id).toBe(inputs.signals.fingerprint.visitor_id);
    expect(JSON.parse(row.reasons)).toEqual(res.json.data.reasons);
  });
});

describe("POST /api/v1/radar/checks: bypass (fail open)", () => {
  it("bypasses when radar is off for the partner: not billable, rate shown", async () => {
    const db = database(env.DB);
    await setRadarEnabled(db, "other", false);
    const res = await runCheckCall(checkBody({ booker: { email: "x@mailinator.com" } }), {
      apiKey: OTHER_KEY,
      sessionId: unique("s"),
    });
    await setRadarEnabled(db, "other", true);
    expect(res.json.data).toMatchObject({
      decision: "bypass",
      radar_result: "radar_disabled",
      should_hide_rate: false,
      billable: false,
      score: 0,
    });
    expect(reasonCodes(res.json)).toEqual(["radar_disabled"]);
    const on = await runCheckCall(checkBody({ booker: { email: "y@mailinator.com" } }), {
      apiKey: OTHER_KEY,
      sessionId: unique("s"),
    });
    expect(on.json.data.decision).toBe("deny");
  });
});

/** A budget spent once `last` has finished: a slowed evaluation without waiting (the timer is never reached). */
const spentAfter = (last: EvaluationStep): EvaluationBudget => {
  const steps: EvaluationStep[] = ["signals", "velocity"];
  return { ms: 60_000, isSpent: (step) => steps.indexOf(step) >= steps.indexOf(last) };
};

const lateCheck = async (body: Record<string, unknown>, sessionId: string, budget: EvaluationBudget) =>
  (
    await runCheck(database(env.DB), {
      assets: env.ASSETS,
      partnerId: "demo",
      sessionId,
      idempotencyKey: null,
      piiKey: env.PII_HASH_SECRET,
      request: checkRequestSchema.parse(body),
      budget,
    })
  ).check;

describe("POST /api/v1/radar/checks: out of time, a deny never becomes a pass", () => {
  it("a headless booking_attempt that runs out of time after reading its signals is still denied", async () => {
    const sessionId = await browserSession({ user_agent: CHROME_UA.replace("Chrome/", "HeadlessChrome/") });
    const check = await lateCheck(checkBody(), sessionId, spentAfter("signals"));
    expect(check).toMatchObject({
      decision: "deny",
      radar_result: "evaluation_timeout",
      should_hide_rate: true,
      billable: false,
      score: 60,
    });
    expect(check.reasons.map((r) => r.code)).toEqual(["headless_browser", "evaluation_timeout"]);
    expect(check.reasons[1]).toEqual({
      code: "evaluation_timeout",
      weight: 0,
      message: "The evaluation did not finish within 60000 ms; the rules it applied already deny",
    });
    expect(await storedCheck(check.check_id)).toMatchObject({ decision: "deny", billable: 0 });
  });

  it("undecided by what was read: booking_attempt and payment_attempt are denied, rate_view fails open", async () => {
    // No signals (25) and a disposable e-mail (40) deny when evaluated in full; here the e-mail list is never read.
    const body = (trigger_event: string) =>
      checkBody({ trigger_event, booker: { email: `${unique("late")}@mailinator.com` } });
    for (const [trigger, last] of [
      ["booking_attempt", "signals"],
      ["payment_attempt", "signals"],
      ["booking_attempt", "velocity"],
      ["payment_attempt", "velocity"],
    ] as const) {
      const check = await lateCheck(body(trigger), unique("none"), spentAfter(last));
      expect(check, `${trigger} after ${last}`).toMatchObject({
        decision: "deny",
        radar_result: "evaluation_timeout",
        should_hide_rate: true,
        billable: false,
        score: 25,
      });
      expect(check.reasons.map((r) => r.code)).toEqual(["no_browser_signals", "evaluation_timeout"]);
      expect(check.reasons[1]!.message).toContain(`a ${trigger} is denied rather than passed unchecked`);
      expect(check.reasons[1]!.message).toContain("disposable_email_domain");
    }
    const view = await lateCheck(body("rate_view"), unique("none"), spentAfter("signals"));
    expect(view).toMatchObject({
      decision: "bypass",
      radar_result: "evaluation_timeout",
      should_hide_rate: false,
      billable: false,
    });
    expect(view.reasons.at(-1)!.message).toContain("failing open for a rate_view");
  });

  it("allows when the rules it could not apply could not reach the deny score, and says so", async () => {
    // A clean human session read through velocity: only the e-mail list (40) and zone table (15) are missing.
    const check = await lateCheck(
      checkBody({ booker: { email: `${unique("late")}@mailinator.com` } }),
      await browserSession(),
      spentAfter("velocity"),
    );
    expect(check).toMatchObject({
      decision: "allow",
      radar_result: "evaluation_timeout",
      should_hide_rate: false,
      billable: false,
      score: 0,
    });
    expect(check.reasons).toEqual([
      {
        code: "evaluation_timeout",
        weight: 0,
        message:
          "The evaluation did not finish within 60000 ms; the rules it could not apply (disposable_email_domain, timezone_country_mismatch) could not reach the deny score",
      },
    ]);
  });

  it("a step that never ends in time: the timer decides, and a booking_attempt is denied", async () => {
    const check = await lateCheck(checkBody({ booker: { email: "x@mailinator.com" } }), unique("s"), {
      ms: 0,
      isSpent: () => true,
    });
    expect(check).toMatchObject({ decision: "deny", radar_result: "evaluation_timeout", billable: false });
    expect(check.reasons.at(-1)!.code).toBe("evaluation_timeout");
    expect(await storedCheck(check.check_id)).not.toBeNull();
  });

  it("100 parallel deny-worthy booking checks under load: every answer is a deny", async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        runCheckCall(checkBody({ booker: { email: `${unique("load")}@mailinator.com` } }), {
          sessionId: unique("load"),
        }),
      ),
    );
    const decisions = answers.map((a) => `${a.status} ${a.json.data?.decision}`);
    expect(decisions.filter((d) => d !== "200 deny")).toEqual([]);
    for (const a of answers) expect(a.json.data.should_hide_rate).toBe(true);
  });
});

describe("POST /api/v1/radar/checks: fail open on storage failure", () => {
  it("bypasses with evaluation_error when its reads fail, and still answers 200", async () => {
    // A real failure, no mock: the signals table is briefly missing.
    const errors = expectLogs("error");
    await env.DB.prepare("alter table radar_signals rename to radar_signals_away").run();
    try {
      const res = await runCheckCall(checkBody(), { sessionId: unique("s") });
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({
        decision: "bypass",
        radar_result: "evaluation_error",
        billable: false,
        should_hide_rate: false,
      });
      expect(JSON.stringify(res.json)).not.toContain("radar_signals");
      expect(errors.join("\n")).toContain('"event":"radar_evaluation_failed"');
    } finally {
      await env.DB.prepare("alter table radar_signals_away rename to radar_signals").run();
    }
    const after = await runCheckCall(checkBody(), { sessionId: await browserSession() });
    expect(after.json.data.decision).toBe("allow");
  });
});

describe("POST /api/v1/radar/checks: authentication and bad input", () => {
  it("needs an API key; a collector key is not an API key", async () => {
    const missing = await runCheckCall(checkBody(), { apiKey: null });
    expect(missing.status).toBe(401);
    expect(missing.json.message).toBe("API key is required");
    const collector = await runCheckCall(checkBody(), { apiKey: DEMO_COLLECTOR_KEY });
    expect(collector.status).toBe(401);
    expect(collector.json.message).toBe("Invalid API key");
  });

  it("has no CORS: browsers cannot call the check cross-origin", async () => {
    const res = await runCheckCall(checkBody(), { headers: { origin: "https://partner.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("requires the session-id header", async () => {
    const res = await runCheckCall(checkBody(), { sessionId: null });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe("session-id header is required (16 to 128 characters of A-Z a-z 0-9 . _ : -)");
  });

  it("requires booker.email, a known trigger_event and sane types", async () => {
    const sessionId = unique("s");
    const noEmail = await runCheckCall({ booker: { first_name: "A" } }, { sessionId });
    expect(noEmail.status).toBe(400);
    expect(noEmail.json.message).toBe("booker.email is required");
    const empty = await runCheckCall(undefined, { sessionId, raw: "" });
    expect(empty.status).toBe(400);
    expect(empty.json.message).toBe("booker is required");
    // Issue 37: a name of spaces only is refused, as everywhere else.
    for (const [person, field] of [
      [{ booker: { email: "a@b.co", first_name: "  " } }, "booker.first_name"],
      [{ guest: { last_name: "\t" } }, "guest.last_name"],
    ] as const) {
      const blank = await runCheckCall(checkBody(person), { sessionId });
      expect([blank.status, blank.json.message]).toEqual([400, `${field}: must not be empty or only spaces`]);
    }
    const badEmail = await runCheckCall(checkBody({ booker: { email: "not-an-email" } }), { sessionId });
    expect(badEmail.status).toBe(400);
    expect(badEmail.json.message).toMatch(/^booker\.email/);
    const badTrigger = await runCheckCall(checkBody({ trigger_event: "whenever" }), { sessionId });
    expect(badTrigger.status).toBe(400);
    expect(badTrigger.json.message).toMatch(/^trigger_event/);
    const badIp = await runCheckCall(checkBody({ context: { ip: "999.1.1.1" } }), { sessionId });
    expect(badIp.status).toBe(400);
    const badCountry = await runCheckCall(checkBody({ payment: { billing_address: { country: "USA" } } }), {
      sessionId,
    });
    expect(badCountry.status).toBe(400);
    expect(badCountry.json.message).toBe("payment.billing_address.country: must be an ISO 3166-1 alpha-2 country code");
    const badKey = await runCheckCall(checkBody(), { sessionId, idempotencyKey: "has space" });
    expect(badKey.status).toBe(400);
    expect(badKey.json.message).toMatch(/^idempotency-key/);
  });

  it("rejects malformed JSON (400) and huge bodies (413), never a 5xx", async () => {
    const malformed = await runCheckCall(undefined, { raw: "{nope" });
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toBe("Malformed JSON in request body");
    const huge = await runCheckCall(undefined, {
      raw: JSON.stringify({ booker: { email: "a@b.co", first_name: "x".repeat(1_100_000) } }),
    });
    expect(huge.status).toBe(413);
    const long = await runCheckCall(checkBody({ booker: { email: "a@b.co", first_name: "x".repeat(5000) } }));
    expect(long.status).toBe(400);
  });

  it("describes both radar routes in /openapi.json with their security schemes", async () => {
    const { exports } = await import("cloudflare:workers");
    const doc = (await (await exports.default.fetch("https://edgestay.test/openapi.json")).json()) as any;
    expect(doc.paths["/api/v1/radar/checks"].post.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths["/api/v1/radar/sessions/signals"].post.security).toEqual([{ CollectorKey: [] }]);
    expect(doc.components.securitySchemes.CollectorKey).toEqual({
      type: "apiKey",
      in: "header",
      name: "x-radar-collector-key",
    });
  });
});

describe("disposable-domains", () => {
  describe("disposable-domain list, served as a static asset", () => {
    it.each([
      [DISPOSABLE_DOMAINS_ASSET, JSON.parse(domainsJson) as string[]],
      [DISPOSABLE_WILDCARDS_ASSET, JSON.parse(wildcardDomainsJson) as string[]],
    ])(
      "%s is the maintained package's list, sorted and newline-framed (run `npm run assets` after upgrading it)",
      async (path, list) => {
        const res = await env.ASSETS.fetch(new Request(`https://assets.local${path}`));
        expect(res.status).toBe(200);
        const text = await res.text();
        expect(text.startsWith("\n") && text.endsWith("\n")).toBe(true);
        const served = text.slice(1, -1).split("\n");
        expect(served).toEqual([...new Set(list.map((d) => d.trim().toLowerCase()))].sort());
      },
    );

    it.each([
      ["A@MAILINATOR.COM", true],
      ["a@sub.33m.co", true], // 33m.co is a wildcard entry
      ["a@gmail.com", false],
      ["a@example.com", false],
      ["a@mailinator.com.evil.example", false],
      ["a@inator.com", false],
    ])("%s -> %s", async (email, disposable) => {
      expect(await isDisposableEmail(env.ASSETS, email)).toBe(disposable);
    });
  });
});

describe("timezone-countries", () => {
  describe("zone-to-countries table, served as a static asset", () => {
    it("is the maintained package's table, every zone with its countries (run `npm run assets` after upgrading it)", async () => {
      const res = await env.ASSETS.fetch(new Request(`https://assets.local${TIMEZONE_COUNTRIES_ASSET}`));
      expect(res.status).toBe(200);
      const table = await timezoneCountries(env.ASSETS);
      const zones = Object.keys(getAllTimezones({ deprecated: true }));
      expect(Object.keys(table).sort()).toEqual(zones.sort());
      for (const zone of zones) expect(table[zone]).toEqual(getTimezone(zone)!.countries);
      expect(table["Europe/Berlin"]).toContain("DE");
    });
  });
});

describe("snippet", () => {
  const gzippedSize = async (text: string) => {
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
    return (await new Response(stream).arrayBuffer()).byteLength;
  };

  describe("snippet /radar.js (static asset)", () => {
    it("is served as JavaScript and is at most 5 KB gzipped", async () => {
      const res = await exports.default.fetch("https://edgestay.test/radar.js");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("javascript");
      const text = await res.text();
      expect(text).toContain("/api/v1/radar/sessions/signals");
      expect(await gzippedSize(text)).toBeLessThanOrEqual(5 * 1024);
    });

    it("has no dependencies, uses only the collector key, posts with keepalive and swallows its own errors", async () => {
      const text = await (await exports.default.fetch("https://edgestay.test/radar.js")).text();
      expect(text).not.toMatch(/\bimport\b|\brequire\(/);
      expect(text).not.toContain("api-key");
      expect(text).toContain("x-radar-collector-key");
      expect(text).toContain("keepalive: true");
      // Session ids under 16 characters are refused by the API; the snippet does not post them.
      expect(text).toContain("sessionId.length < 16");
      // The whole body is one try/catch inside an IIFE; only window.EdgestayRadar is assigned globally.
      expect(text.trim()).toMatch(/^\/\*[\s\S]*?\*\/\s*\(function \(\) \{\s*"use strict";[\s\S]*\}\)\(\);$/);
      expect([...text.matchAll(/\bw\.([A-Za-z]+)\s*=(?!=)/g)].map((m) => m[1])).toEqual(["EdgestayRadar"]);
    });
  });
});

describe("personal-data", () => {
  const DAY = 24 * 60 * 60_000;
  const db = database(env.DB);
  const check = (body: Record<string, unknown>, now: number) =>
    runCheck(db, {
      assets: env.ASSETS,
      partnerId: "demo",
      sessionId: unique("s"),
      idempotencyKey: null,
      piiKey: env.PII_HASH_SECRET,
      request: checkRequestSchema.parse(body),
      now,
    });
  const stored = (id: string) => env.DB.prepare("select * from radar_checks where id = ?").bind(id).first<any>();

  describe("radar-pii-retention upkeep task", () => {
    it("after RADAR_RETENTION_DAYS replaces e-mail, phone, IP, address and names with keyed hashes; newer checks keep theirs", async () => {
      const now = Date.UTC(2026, 10, 24, 3, 0, 0);
      const email = `${unique("old")}@example.com`;
      const old = await check(
        checkBody({ booker: { first_name: "Jane", last_name: "Roe", email, phone: "+12025550199" } }),
        now - 91 * DAY,
      );
      const recent = await check(
        checkBody({ booker: { first_name: "Jane", last_name: "Roe", email, phone: "+12025550199" } }),
        now - 89 * DAY,
      );
      const before = await stored(old.check.check_id);

      expect(radarPiiRetention.name).toBe("radar-pii-retention");
      expect(await radarPiiRetention.run(env, new Date(now))).toBe(1);

      const after = await stored(old.check.check_id);
      const inputs = JSON.parse(after.inputs);
      for (const value of [
        inputs.request.booker.email,
        inputs.request.booker.phone,
        inputs.request.booker.first_name,
        inputs.request.context.ip,
        inputs.request.payment.billing_address.line1,
        inputs.request.payment.billing_address.postal_code,
      ]) {
        expect(value).toMatch(/^hmac:[0-9a-f]{64}$/);
      }
      expect(inputs.request.booker.email).toBe(`hmac:${await keyedHash(env.PII_HASH_SECRET, email)}`);
      for (const raw of [email, "+12025550199", "Jane", "1 Main St", JSON.parse(before.inputs).request.context.ip])
        expect(after.inputs).not.toContain(raw);
      expect(inputs.request.payment.billing_address.country).toBe("US");
      // Decision, score and the identity hashes the velocity rules use are unchanged.
      expect(after).toMatchObject({
        decision: before.decision,
        score: before.score,
        email_hash: before.email_hash,
        ip_hash: before.ip_hash,
        input_digest: before.input_digest,
      });
      expect(after.pii_removed_at).toBe(now);
      expect((await stored(recent.check.check_id)).inputs).toContain(email);

      // A second run has nothing left to do.
      expect(await radarPiiRetention.run(env, new Date(now))).toBe(0);
    });

    it("velocity rules still match checks whose personal data is hashed", async () => {
      const t = Date.UTC(2026, 10, 24, 5, 0, 0);
      const email = `${unique("vel")}@example.com`;
      for (let i = 0; i < 5; i++) await check(checkBody({ booker: { email } }), t + i);
      await hashOldRadarPii(db, env.PII_HASH_SECRET, 0, t + 10);
      const rows = await env.DB.prepare("select inputs from radar_checks where checked_at_ms between ? and ?")
        .bind(t, t + 4)
        .all<{ inputs: string }>();
      expect(rows.results.every((r) => !r.inputs.includes(email))).toBe(true);
      const sixth = await check(checkBody({ booker: { email } }), t + 20);
      expect(sixth.check.reasons.map((r) => r.code)).toContain("email_velocity");
    });

    it("reads RADAR_RETENTION_DAYS, 90 by default", () => {
      expect(retentionDays({})).toBe(90);
      expect(retentionDays({ RADAR_RETENTION_DAYS: "30" })).toBe(30);
      expect(retentionDays({ RADAR_RETENTION_DAYS: "soon" })).toBe(90);
      expect(retentionDays(env)).toBe(90);
    });
  });
});

describe("POST /api/v1/radar/sessions/signals", () => {
  it("accepts a browser's signals with 202, CORS headers, and keeps them for the session for 24 hours", async () => {
    const sessionId = unique("s");
    const signals = humanSignals();
    const res = await sendSignals(signals, { sessionId, country: "us", ip: "203.0.113.7" });
    expect(res.status).toBe(202);
    expect(res.json.message).toBe("success");
    expect(res.json.data.accepted).toBe(true);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const row = await env.DB.prepare("select * from radar_signals where partner_id = 'demo' and session_id = ?")
      .bind(sessionId)
      .first<any>();
    expect(JSON.parse(row.signals)).toEqual(signals);
    expect(row.ip_country).toBe("US");
    expect(row.ip_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.ip_hash).not.toContain("203.0.113.7");
    expect(row.expires_at_ms - Date.parse(row.received_at)).toBe(SIGNALS_RETENTION_MS);
    expect(res.json.data.expires_at).toBe(new Date(row.expires_at_ms).toISOString());
  });

  it("keeps the first post of a session and stores a later one beside it, never in its place", async () => {
    const sessionId = unique("s");
    await sendSignals(humanSignals({ language: "en-US" }), { sessionId });
    // A post with card data in any field is refused (issue 25) and stored nowhere.
    const withCard = await sendSignals(
      { ...humanSignals({ language: "fr-FR" }), card_number: "4242424242424242" },
      { sessionId },
    );
    expect([withCard.status, withCard.json.code]).toEqual([400, "raw_card_data_refused"]);
    // So is an unknown field (issue 37), by name.
    const unknown = await sendSignals({ ...humanSignals({ language: "it-IT" }), unknown_field: "x" }, { sessionId });
    expect([unknown.status, unknown.json.message]).toEqual([400, "Unknown field: unknown_field"]);
    const res = await sendSignals(humanSignals({ language: "de-DE" }), { sessionId });
    expect(res.status).toBe(202);
    const { results } = await env.DB.prepare(
      "select signals from radar_signals where session_id = ? order by received_at, rowid",
    )
      .bind(sessionId)
      .all<any>();
    expect(results.map((r) => JSON.parse(r.signals).language)).toEqual(["en-US", "de-DE"]);
  });

  it(`stores at most ${MAX_SIGNAL_POSTS} posts per session, even when they arrive in parallel`, async () => {
    const sessionId = unique("s");
    const posts = await Promise.all(
      Array.from({ length: MAX_SIGNAL_POSTS + 5 }, () => sendSignals(humanSignals(), { sessionId })),
    );
    expect(posts.every((r) => r.status === 202)).toBe(true);
    const row = await env.DB.prepare("select count(*) as n from radar_signals where session_id = ?")
      .bind(sessionId)
      .first<{ n: number }>();
    expect(row!.n).toBe(MAX_SIGNAL_POSTS);
  });

  it("answers the CORS preflight so partner pages on other origins can post", async () => {
    const res = await sendSignals(undefined, {
      method: "OPTIONS",
      collectorKey: null,
      headers: {
        origin: "https://shop.partner.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,session-id,x-radar-collector-key",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = res.headers
      .get("access-control-allow-headers")!
      .split(",")
      .map((h) => h.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(["content-type", "session-id", "x-radar-collector-key"]));
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });

  it("needs a collector key (401), and carries CORS headers on errors so the page can read them", async () => {
    const res = await sendSignals(humanSignals(), { sessionId: unique("s"), collectorKey: null });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ message: "Collector key is required", code: "collector_key_required" });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("refuses an unknown collector key and an API key presented as a collector key", async () => {
    for (const key of ["nope", DEMO_KEY]) {
      const res = await sendSignals(humanSignals(), { sessionId: unique("s"), collectorKey: key });
      expect(res.status).toBe(401);
      expect(res.json.message).toBe("Invalid collector key");
    }
  });

  it("refuses the collector key of an inactive partner", async () => {
    await env.DB.prepare("update partners set is_active = 0 where id = 'other'").run();
    const res = await sendSignals(humanSignals(), { sessionId: unique("s"), collectorKey: "other-collector-key" });
    await env.DB.prepare("update partners set is_active = 1 where id = 'other'").run();
    expect(res.status).toBe(401);
  });

  it("stores signals under the collector key's partner", async () => {
    const sessionId = unique("s");
    expect((await sendSignals(humanSignals(), { sessionId, collectorKey: "other-collector-key" })).status).toBe(202);
    const row = await env.DB.prepare("select partner_id from radar_signals where session_id = ?")
      .bind(sessionId)
      .first<any>();
    expect(row.partner_id).toBe("other");
  });

  it("requires a sane session-id header", async () => {
    for (const sessionId of [null, "has spaces", "x".repeat(129), "short-sess-id15"]) {
      const res = await sendSignals(humanSignals(), { sessionId });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("session-id header is required (16 to 128 characters of A-Z a-z 0-9 . _ : -)");
    }
  });

  it("rejects malformed JSON, wrong types and a missing visitor id with 400", async () => {
    const sessionId = unique("s");
    const malformed = await sendSignals(undefined, { sessionId, raw: '{"page_url": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.message).toBe("Malformed JSON in request body");
    const wrongType = await sendSignals(humanSignals({ screen: { width: "wide" } }), { sessionId });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.message).toMatch(/^screen\.width/);
    const noVisitor = await sendSignals(humanSignals({ fingerprint: {} }), { sessionId });
    expect(noVisitor.status).toBe(400);
    expect(noVisitor.json.message).toBe("fingerprint.visitor_id is required");
    const notObject = await sendSignals([1, 2], { sessionId });
    expect(notObject.status).toBe(400);
    const textBody = await sendSignals(undefined, {
      sessionId,
      raw: "hello",
      headers: { "content-type": "text/plain" },
    });
    expect(textBody.status).toBe(400);
  });

  it("limits bodies to 16 KB (413) and huge bodies never reach a 5xx", async () => {
    const sessionId = unique("s");
    const justOver = await sendSignals(humanSignals({ page_url: "x".repeat(16 * 1024) }), { sessionId });
    expect(justOver.status).toBe(413);
    expect(justOver.json.message).toBe("Request body too large: the limit is 16384 bytes");
    const huge = await sendSignals(undefined, {
      sessionId,
      raw: JSON.stringify({ page_url: "y".repeat(2 * 1024 * 1024) }),
    });
    expect(huge.status).toBe(413);
    const { results } = await env.DB.prepare("select 1 from radar_signals where session_id = ?").bind(sessionId).all();
    expect(results).toHaveLength(0);
  });

  it("limits posts per partner and browser IP (429 with Retry-After); other IPs are unaffected", async () => {
    const ip = "198.51.100.77";
    for (let i = 0; i < SIGNALS_RATE.limit; i++) {
      const res = await sendSignals(humanSignals(), { sessionId: unique("s"), ip });
      expect(res.status).toBe(202);
    }
    const limited = await sendSignals(humanSignals(), { sessionId: unique("s"), ip });
    expect(limited.status).toBe(429);
    expect(limited.json.message).toBe("Rate limit exceeded");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    // A browser page can read only the headers listed in Access-Control-Expose-Headers.
    const exposed = (limited.headers.get("access-control-expose-headers") ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase());
    expect(exposed).toEqual(
      expect.arrayContaining(["retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]),
    );
    for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"])
      expect(limited.headers.get(name), name).toMatch(/^\d+$/);
    expect((await sendSignals(humanSignals(), { sessionId: unique("s"), ip: "198.51.100.78" })).status).toBe(202);
    expect(
      (await sendSignals(humanSignals(), { sessionId: unique("s"), ip, collectorKey: "other-collector-key" })).status,
    ).toBe(202);
  });

  it("prunes expired signals on later writes", async () => {
    const stale = unique("s");
    await sendSignals(humanSignals(), { sessionId: stale });
    await env.DB.prepare("update radar_signals set expires_at_ms = 1 where session_id = ?").bind(stale).run();
    await sendSignals(humanSignals(), { sessionId: unique("s") });
    const row = await env.DB.prepare("select 1 from radar_signals where session_id = ?").bind(stale).first();
    expect(row).toBeNull();
  });
});

describe("collector key origin allowlist: PUT /api/partners/:partnerId/radar-settings", () => {
  const settings = (partnerId: string, body: unknown, options: Parameters<typeof call>[3] = OPERATOR) =>
    call("PUT", `/api/partners/${partnerId}/radar-settings`, body, options);

  it("limits the partner's collector key to the listed origins: others get 403; other partners are unaffected", async () => {
    const set = await settings("demo", { allowedOrigins: ["https://shop.example", "http://localhost:8080"] });
    expect(set.status).toBe(200);
    expect(set.json.data).toEqual({
      partnerId: "demo",
      allowedOrigins: ["https://shop.example", "http://localhost:8080"],
    });

    const listed = await sendSignals(humanSignals(), {
      sessionId: unique("s"),
      headers: { origin: "https://shop.example" },
    });
    expect(listed.status).toBe(202);
    for (const origin of ["https://evil.example", "https://shop.example.evil.example", null]) {
      const sessionId = unique("s");
      const res = await sendSignals(humanSignals(), { sessionId, headers: origin ? { origin } : { origin: "" } });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({
        message: "This origin may not post signals with this collector key",
        code: "origin_not_allowed",
      });
      expect(
        await env.DB.prepare("select 1 from radar_signals where session_id = ?").bind(sessionId).first(),
      ).toBeNull();
    }
    // Partner "other" set no list: any origin.
    expect(
      (
        await sendSignals(humanSignals(), {
          sessionId: unique("s"),
          collectorKey: "other-collector-key",
          headers: { origin: "https://evil.example" },
        })
      ).status,
    ).toBe(202);

    // [] (or no field) lifts the limit.
    expect((await settings("demo", { allowedOrigins: [] })).json.data.allowedOrigins).toEqual([]);
    expect(
      (await sendSignals(humanSignals(), { sessionId: unique("s"), headers: { origin: "https://evil.example" } }))
        .status,
    ).toBe(202);
    await settings("demo", { allowedOrigins: ["https://shop.example"] });
    expect((await settings("demo", {})).json.data.allowedOrigins).toEqual([]);
  });

  it("accepts only origins (scheme, host, port), with a clear 400", async () => {
    for (const bad of [
      "shop.example",
      "https://shop.example/",
      "https://shop.example/path",
      "ftp://shop.example",
      "*",
      42,
    ]) {
      const res = await settings("demo", { allowedOrigins: [bad] });
      expect(res.status, String(bad)).toBe(400);
      expect(res.json.message).toMatch(/^allowedOrigins\[0\]/);
    }
    expect((await settings("demo", { allowedOrigins: "https://shop.example" })).status).toBe(400);
    expect(
      (
        await call("PUT", "/api/partners/demo/radar-settings", undefined, {
          ...OPERATOR,
          raw: "{",
          headers: { ...OPERATOR.headers, "content-type": "application/json" },
        })
      ).status,
    ).toBe(400);
  });

  it("refuses wildcard origins with a 400 naming the field, and stores nothing", async () => {
    await settings("demo", { allowedOrigins: [] });
    for (const wildcard of [
      "https://*.example",
      "https://*.shop.example",
      "https://shop.example:*",
      "*://shop.example",
    ]) {
      const res = await settings("demo", { allowedOrigins: ["https://shop.example", wildcard] });
      expect(res.status, wildcard).toBe(400);
      expect(res.json.message).toBe(
        "allowedOrigins[1]: wildcards are not supported: list each origin, such as https://shop.example",
      );
    }
    // Other characters no browser sends in a host are refused too.
    for (const odd of ["https://shop!.example", "https://sh$op.example"]) {
      const res = await settings("demo", { allowedOrigins: [odd] });
      expect(res.status, odd).toBe(400);
      expect(res.json.message).toMatch(/^allowedOrigins\[0\]: must be an origin/);
    }
    const row = await env.DB.prepare("select allowed_origins from radar_settings where partner_id = 'demo'").first();
    expect(row).toEqual({ allowed_origins: "[]" });
    // IDNs (as punycode), IP literals and ports are origins.
    const good = ["https://xn--bcher-kva.example", "http://127.0.0.1:8080", "https://[2001:db8::1]:8443"];
    expect((await settings("demo", { allowedOrigins: good })).json.data.allowedOrigins).toEqual(good);
    await settings("demo", { allowedOrigins: [] });
  });

  it("needs the operator token (a partner's key or bearer gets 401) and a known partner (404)", async () => {
    expect((await settings("demo", { allowedOrigins: [] }, { apiKey: DEMO_KEY })).status).toBe(401);
    const unknown = await settings("no-such-partner", { allowedOrigins: [] });
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe("Partner not found");
  });
});
