import { isbot } from "isbot";
import type { BrowserSignals } from "./schemas";
import type { TimezoneCountries } from "./timezone-countries";

/**
 * The radar rules. Each firing rule adds its weight to the score (capped at 100) and one reason to
 * the response. Weights and thresholds are documented in docs/api-decisions.md (Radar: rules).
 */
export const RULES = {
  no_browser_signals: { weight: 25, message: "No browser signals were received for this session" },
  disposable_email_domain: { weight: 40, message: "The booker's e-mail domain is a disposable e-mail provider" },
  headless_browser: { weight: 60, message: "The browser reports itself as headless" },
  bot_user_agent: { weight: 60, message: "The browser's user agent is a known bot or automation tool" },
  webdriver: { weight: 60, message: "The browser is driven by automation (navigator.webdriver)" },
  ip_country_mismatch: { weight: 20, message: "The browser's IP country differs from the billing country" },
  timezone_country_mismatch: { weight: 15, message: "The browser's timezone is not used in the billing country" },
  visitor_velocity: { weight: 20, message: "Many checks from this device in a short time" },
  email_velocity: { weight: 20, message: "Many checks for this e-mail in a short time" },
  ip_velocity: { weight: 20, message: "Many checks from this IP in a short time" },
  device_many_identities: { weight: 35, message: "This device was used with several different e-mail addresses" },
  conflicting_signals: { weight: 15, message: "Later browser signals for this session disagree with the first ones" },
} as const;

export type RuleCode = keyof typeof RULES;
export type Reason = { code: string; weight: number; message: string };

/** Score at or above which the decision is deny. */
export const DENY_SCORE = 60;
/** Score at or above which an allowed check is reported as elevated risk. */
export const ELEVATED_SCORE = 30;

/** Sliding windows: a rule fires when at least `priorChecks` earlier checks fall in the window. */
export const VELOCITY = {
  visitor: { windowMs: 10 * 60_000, priorChecks: 5 },
  email: { windowMs: 60 * 60_000, priorChecks: 5 },
  ip: { windowMs: 10 * 60_000, priorChecks: 10 },
  // Distinct other e-mails seen on the same visitor id within the window.
  identities: { windowMs: 24 * 60 * 60_000, otherEmails: 2 },
} as const;

export type VelocityCounts = {
  visitorChecks: number;
  emailChecks: number;
  ipChecks: number;
  visitorOtherEmails: number;
};

export type RuleInputs = {
  /** Whether the booker's e-mail domain is on the disposable list (looked up by the service). */
  disposableEmail: boolean;
  billingCountry: string | null;
  signals: BrowserSignals | null;
  /** Country of the browser's IP from the edge (request.cf.country at signal time). */
  ipCountry: string | null;
  velocity: VelocityCounts;
  /** A later post of the session disagrees with the first (user agent, webdriver, visitor id, timezone). */
  conflictingSignals?: boolean;
  /** Which countries use each IANA zone (timezone-countries.ts, read by the service). */
  zoneCountries: TimezoneCountries;
};

/** Countries that use an IANA zone (several for shared zones), empty when the zone is unknown or not a country's. */
export const countriesOfTimezone = (table: TimezoneCountries, zone: string): string[] =>
  Object.hasOwn(table, zone) ? table[zone]! : [];

export const isHeadlessUserAgent = (userAgent: string): boolean => /Headless/i.test(userAgent);

/** Applies every rule; returns the firing reasons in RULES order and the capped score. */
export const evaluateRules = (inputs: RuleInputs): { score: number; reasons: Reason[] } => {
  const fired: RuleCode[] = [];
  const { signals, billingCountry } = inputs;

  if (!signals) fired.push("no_browser_signals");
  if (inputs.disposableEmail) fired.push("disposable_email_domain");

  const userAgent = signals?.user_agent ?? "";
  // A headless browser is also an isbot match; one piece of evidence counts once.
  if (isHeadlessUserAgent(userAgent)) fired.push("headless_browser");
  else if (signals && isbot(userAgent)) fired.push("bot_user_agent");
  if (signals?.device?.webdriver === true) fired.push("webdriver");

  if (billingCountry && inputs.ipCountry && inputs.ipCountry !== billingCountry) fired.push("ip_country_mismatch");
  if (billingCountry && signals?.timezone) {
    const countries = countriesOfTimezone(inputs.zoneCountries, signals.timezone);
    if (countries.length > 0 && !countries.includes(billingCountry)) fired.push("timezone_country_mismatch");
  }

  const v = inputs.velocity;
  if (v.visitorChecks >= VELOCITY.visitor.priorChecks) fired.push("visitor_velocity");
  if (v.emailChecks >= VELOCITY.email.priorChecks) fired.push("email_velocity");
  if (v.ipChecks >= VELOCITY.ip.priorChecks) fired.push("ip_velocity");
  if (v.visitorOtherEmails >= VELOCITY.identities.otherEmails) fired.push("device_many_identities");

  const reason = (code: RuleCode) => ({ code, weight: RULES[code].weight, message: RULES[code].message });
  const reasons = fired.map(reason);
  const score = Math.min(
    100,
    reasons.reduce((sum, r) => sum + r.weight, 0),
  );
  if (!inputs.conflictingSignals) return { score, reasons };
  // Anyone holding the session id can post later: that alone may raise the risk, never deny.
  const ceiling = score >= DENY_SCORE ? 100 : DENY_SCORE - 1;
  return {
    score: Math.min(ceiling, score + RULES.conflicting_signals.weight),
    reasons: [...reasons, reason("conflicting_signals")],
  };
};

export type Verdict = { decision: "deny" | "allow"; radarResult: "high_risk" | "elevated_risk" | "low_risk" };

/** Thresholds: deny at DENY_SCORE and above; otherwise allow, elevated from ELEVATED_SCORE. */
export const verdictFor = (score: number): Verdict => {
  if (score >= DENY_SCORE) return { decision: "deny", radarResult: "high_risk" };
  return { decision: "allow", radarResult: score >= ELEVATED_SCORE ? "elevated_risk" : "low_risk" };
};
