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

/**
 * What an evaluation that ran out of time had read: `undefined` is an input it did not get to, and
 * the rules that need it are not judged (they neither fire nor count as quiet).
 */
export type ReadInputs = { [K in keyof Required<RuleInputs>]: RuleInputs[K] | undefined };

export type Judgement = {
  score: number;
  reasons: Reason[];
  /** Rules left unjudged because their input was not read. */
  unjudged: RuleCode[];
  /** The highest score before conflicting_signals the unjudged rules could still bring; below DENY_SCORE no full evaluation could deny. */
  ceiling: number;
};

/** Applies every rule whose inputs were read; returns the firing reasons in RULES order, the capped score and what was left unjudged. */
export const judgeRules = (inputs: ReadInputs): Judgement => {
  const fired: RuleCode[] = [];
  const unjudged: RuleCode[] = [];
  const { signals, billingCountry } = inputs;
  const judge = (code: RuleCode, known: boolean, fires: () => boolean) => {
    if (!known) unjudged.push(code);
    else if (fires()) fired.push(code);
  };

  judge("no_browser_signals", signals !== undefined, () => signals === null);
  judge("disposable_email_domain", inputs.disposableEmail !== undefined, () => inputs.disposableEmail === true);

  const userAgent = signals?.user_agent ?? "";
  // A headless browser is also an isbot match; one piece of evidence counts once.
  const headless = isHeadlessUserAgent(userAgent);
  judge("headless_browser", signals !== undefined, () => headless);
  judge("bot_user_agent", signals !== undefined, () => !headless && !!signals && isbot(userAgent));
  judge("webdriver", signals !== undefined, () => signals?.device?.webdriver === true);

  const ipCountry = inputs.ipCountry;
  judge("ip_country_mismatch", !billingCountry || ipCountry !== undefined, () =>
    Boolean(billingCountry && ipCountry && ipCountry !== billingCountry),
  );
  const zone = signals?.timezone;
  judge(
    "timezone_country_mismatch",
    !billingCountry || (signals !== undefined && (!zone || inputs.zoneCountries !== undefined)),
    () => {
      if (!billingCountry || !zone || !inputs.zoneCountries) return false;
      const countries = countriesOfTimezone(inputs.zoneCountries, zone);
      return countries.length > 0 && !countries.includes(billingCountry);
    },
  );

  const v = inputs.velocity;
  judge("visitor_velocity", v !== undefined, () => v!.visitorChecks >= VELOCITY.visitor.priorChecks);
  judge("email_velocity", v !== undefined, () => v!.emailChecks >= VELOCITY.email.priorChecks);
  judge("ip_velocity", v !== undefined, () => v!.ipChecks >= VELOCITY.ip.priorChecks);
  judge("device_many_identities", v !== undefined, () => v!.visitorOtherEmails >= VELOCITY.identities.otherEmails);

  const reason = (code: RuleCode) => ({ code, weight: RULES[code].weight, message: RULES[code].message });
  const reasons = fired.map(reason);
  const total = (codes: RuleCode[]) => codes.reduce((sum, code) => sum + RULES[code].weight, 0);
  const score = Math.min(100, total(fired));
  const ceiling = Math.min(100, score + total(unjudged));
  if (!inputs.conflictingSignals) return { score, reasons, unjudged, ceiling };
  // Anyone holding the session id can post later: that alone may raise the risk, never deny.
  const cap = score >= DENY_SCORE ? 100 : DENY_SCORE - 1;
  return {
    score: Math.min(cap, score + RULES.conflicting_signals.weight),
    reasons: [...reasons, reason("conflicting_signals")],
    unjudged,
    ceiling,
  };
};

/** Applies every rule to a complete read; returns the firing reasons in RULES order and the capped score. */
export const evaluateRules = (inputs: RuleInputs): { score: number; reasons: Reason[] } => {
  const { score, reasons } = judgeRules({ conflictingSignals: false, ...inputs });
  return { score, reasons };
};

export type Verdict = { decision: "deny" | "allow"; radarResult: "high_risk" | "elevated_risk" | "low_risk" };

/** Thresholds: deny at DENY_SCORE and above; otherwise allow, elevated from ELEVATED_SCORE. */
export const verdictFor = (score: number): Verdict => {
  if (score >= DENY_SCORE) return { decision: "deny", radarResult: "high_risk" };
  return { decision: "allow", radarResult: score >= ELEVATED_SCORE ? "elevated_risk" : "low_risk" };
};
