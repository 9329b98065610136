import { describe, expect, it } from "vitest";
import {
  countriesOfTimezone,
  DENY_SCORE,
  ELEVATED_SCORE,
  evaluateRules,
  RULES,
  VELOCITY,
  verdictFor,
  type RuleInputs,
} from "./rules";
import { CHROME_UA, humanSignals } from "../../../test/support/radar-fixtures";
// The table radar reads through ASSETS (timezone-countries.ts; its test checks the asset is served).
import zoneTable from "../../../snippet/_data/timezone-countries.json";
import type { TimezoneCountries } from "./timezone-countries";

const zoneCountries: TimezoneCountries = zoneTable;

const quiet = { visitorChecks: 0, emailChecks: 0, ipChecks: 0, visitorOtherEmails: 0 };
const human = (overrides: Partial<RuleInputs> = {}): RuleInputs => ({
  disposableEmail: false,
  billingCountry: "US",
  signals: humanSignals() as RuleInputs["signals"],
  ipCountry: "US",
  velocity: quiet,
  zoneCountries,
  ...overrides,
});
const codes = (inputs: RuleInputs) => evaluateRules(inputs).reasons.map((r) => r.code);

describe("conflicting_signals", () => {
  it("adds a small weight, and never turns an allow into a deny", () => {
    expect(RULES.conflicting_signals.weight).toBeLessThanOrEqual(20);
    expect(evaluateRules(human({ conflictingSignals: true }))).toEqual({
      score: RULES.conflicting_signals.weight,
      reasons: [{ code: "conflicting_signals", ...RULES.conflicting_signals }],
    });
    const berlin = humanSignals({ timezone: "Europe/Berlin" }) as RuleInputs["signals"];
    const nearDeny = human({ disposableEmail: true, signals: berlin });
    expect(evaluateRules(nearDeny).score).toBe(55);
    const conflicted = evaluateRules({ ...nearDeny, conflictingSignals: true });
    expect(conflicted.score).toBe(DENY_SCORE - 1);
    expect(verdictFor(conflicted.score).decision).toBe("allow");
    // A deny stays a deny.
    const denied = human({ disposableEmail: true, velocity: { ...quiet, emailChecks: VELOCITY.email.priorChecks } });
    expect(evaluateRules({ ...denied, conflictingSignals: true }).score).toBe(75);
  });
});

describe("radar rules, each alone", () => {
  it("a plain human browser with matching countries fires nothing", () => {
    expect(evaluateRules(human())).toEqual({ score: 0, reasons: [] });
  });

  it("no_browser_signals", () => {
    expect(codes(human({ signals: null }))).toEqual(["no_browser_signals"]);
  });

  it("disposable_email_domain (the list itself is tested in disposable-domains.test.ts)", () => {
    expect(codes(human({ disposableEmail: true }))).toEqual(["disposable_email_domain"]);
  });

  it("headless_browser (HeadlessChrome) counts once, not again as a bot", () => {
    const ua = CHROME_UA.replace("Chrome/", "HeadlessChrome/");
    expect(codes(human({ signals: humanSignals({ user_agent: ua }) as RuleInputs["signals"] }))).toEqual([
      "headless_browser",
    ]);
  });

  it("bot_user_agent via isbot", () => {
    for (const ua of [
      "curl/8.5.0",
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "python-requests/2.32",
    ]) {
      expect(codes(human({ signals: humanSignals({ user_agent: ua }) as RuleInputs["signals"] }))).toEqual([
        "bot_user_agent",
      ]);
    }
  });

  it("webdriver", () => {
    const signals = humanSignals({
      device: { platform: "Linux x86_64", hardware_concurrency: 4, touch_points: 0, webdriver: true },
    });
    expect(codes(human({ signals: signals as RuleInputs["signals"] }))).toEqual(["webdriver"]);
  });

  it("ip_country_mismatch only when both countries are known", () => {
    expect(codes(human({ ipCountry: "DE" }))).toEqual(["ip_country_mismatch"]);
    expect(codes(human({ ipCountry: null }))).toEqual([]);
    expect(codes(human({ ipCountry: "DE", billingCountry: null }))).toEqual([]);
  });

  it("timezone_country_mismatch from the package's zone to countries table (a static asset); shared and unknown zones are tolerated", () => {
    expect(codes(human({ signals: humanSignals({ timezone: "Europe/Paris" }) as RuleInputs["signals"] }))).toEqual([
      "timezone_country_mismatch",
    ]);
    expect(countriesOfTimezone(zoneCountries, "Europe/Berlin")).toContain("DE");
    expect(countriesOfTimezone(zoneCountries, "constructor")).toEqual([]);
    // Europe/Berlin is also the zone of Denmark, Norway and Sweden in the tz database: no mismatch for SE.
    expect(
      codes(
        human({
          billingCountry: "SE",
          ipCountry: "SE",
          signals: humanSignals({ timezone: "Europe/Berlin" }) as RuleInputs["signals"],
        }),
      ),
    ).toEqual([]);
    expect(codes(human({ signals: humanSignals({ timezone: "Etc/UTC" }) as RuleInputs["signals"] }))).toEqual([]);
    expect(codes(human({ signals: humanSignals({ timezone: "Mars/Olympus" }) as RuleInputs["signals"] }))).toEqual([]);
  });

  it("velocity rules fire at their documented counts of prior checks, not below", () => {
    const at = (velocity: Partial<typeof quiet>) => codes(human({ velocity: { ...quiet, ...velocity } }));
    expect(at({ visitorChecks: VELOCITY.visitor.priorChecks - 1 })).toEqual([]);
    expect(at({ visitorChecks: VELOCITY.visitor.priorChecks })).toEqual(["visitor_velocity"]);
    expect(at({ emailChecks: VELOCITY.email.priorChecks - 1 })).toEqual([]);
    expect(at({ emailChecks: VELOCITY.email.priorChecks })).toEqual(["email_velocity"]);
    expect(at({ ipChecks: VELOCITY.ip.priorChecks - 1 })).toEqual([]);
    expect(at({ ipChecks: VELOCITY.ip.priorChecks })).toEqual(["ip_velocity"]);
    expect(at({ visitorOtherEmails: VELOCITY.identities.otherEmails - 1 })).toEqual([]);
    expect(at({ visitorOtherEmails: VELOCITY.identities.otherEmails })).toEqual(["device_many_identities"]);
  });

  it("each reason carries its documented weight and message", () => {
    const { reasons } = evaluateRules(human({ signals: null, disposableEmail: true }));
    expect(reasons).toEqual([
      {
        code: "no_browser_signals",
        weight: RULES.no_browser_signals.weight,
        message: RULES.no_browser_signals.message,
      },
      {
        code: "disposable_email_domain",
        weight: RULES.disposable_email_domain.weight,
        message: RULES.disposable_email_domain.message,
      },
    ]);
  });
});

describe("score and thresholds", () => {
  it("sums weights and caps the score at 100", () => {
    expect(evaluateRules(human({ signals: null, disposableEmail: true })).score).toBe(65);
    const everything = human({
      disposableEmail: true,
      ipCountry: "DE",
      signals: humanSignals({
        user_agent: "HeadlessChrome",
        device: { webdriver: true },
        timezone: "Asia/Tokyo",
      }) as RuleInputs["signals"],
      velocity: { visitorChecks: 99, emailChecks: 99, ipChecks: 99, visitorOtherEmails: 99 },
    });
    expect(evaluateRules(everything).score).toBe(100);
  });

  it("deny from 60, elevated risk from 30, low risk below", () => {
    expect(DENY_SCORE).toBe(60);
    expect(ELEVATED_SCORE).toBe(30);
    expect(verdictFor(100)).toEqual({ decision: "deny", radarResult: "high_risk" });
    expect(verdictFor(60)).toEqual({ decision: "deny", radarResult: "high_risk" });
    expect(verdictFor(59)).toEqual({ decision: "allow", radarResult: "elevated_risk" });
    expect(verdictFor(30)).toEqual({ decision: "allow", radarResult: "elevated_risk" });
    expect(verdictFor(29)).toEqual({ decision: "allow", radarResult: "low_risk" });
    expect(verdictFor(0)).toEqual({ decision: "allow", radarResult: "low_risk" });
  });
});
