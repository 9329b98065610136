import { and, asc, count, countDistinct, eq, gt, gte, lt, ne, sql } from "drizzle-orm";
import { partners } from "../../platform/db/schema";
import type { Db } from "../../platform/db/client";
import { keyedHash, sha256Hex } from "../../platform/crypto/digest";
import { ApiError } from "../../platform/http/api-error";
import { canonicalJson } from "../../platform/idempotency/canonical-json";
import { isDisposableEmail } from "./disposable-domains";
import { timezoneCountries, type TimezoneCountries } from "./timezone-countries";
import { insertSignalPostWithinCap } from "./signal-posts";
import { DENY_SCORE, judgeRules, VELOCITY, verdictFor, type Reason, type VelocityCounts } from "./rules";
import type { BrowserSignals, CheckRequest, RiskCheck } from "./schemas";
import { radarChecks, radarSettings, radarSignals, type RadarCheckRow } from "./tables";
import { loggableError } from "../../platform/observability/loggable-error";

/** How long posted signals are merged into checks of their session. */
export const SIGNALS_RETENTION_MS = 24 * 60 * 60_000;
/** Time budget of one evaluation; past it the check is decided on what was read (see `decide`). */
export const CHECK_BUDGET_MS = 1_500;

export { canonicalJson };

export type SignalsInput = {
  partnerId: string;
  sessionId: string;
  signals: BrowserSignals;
  /** request.cf.country of the browser's request, when the edge provides it. */
  ipCountry: string | null;
  /** The browser's IP (cf-connecting-ip); only its keyed hash is kept. */
  ip: string | null;
  /** PII_HASH_SECRET: key of the hashes that stand in for e-mails and IPs. */
  piiKey: string;
  now?: number;
};

/** Posts kept per session: the first decides, the rest only reveal conflicts; more add nothing. */
export const MAX_SIGNAL_POSTS = 10;

/**
 * Stores one post of signals beside any earlier ones of the (partner, session), never in their
 * place, for SIGNALS_RETENTION_MS; past MAX_SIGNAL_POSTS live posts nothing more is stored. Prunes
 * expired rows on the way.
 */
export const storeSignals = async (db: Db, input: SignalsInput): Promise<{ expiresAt: string }> => {
  const now = input.now ?? Date.now();
  const expiresAtMs = now + SIGNALS_RETENTION_MS;
  const ipHash = input.ip ? await keyedHash(input.piiKey, input.ip) : null;
  await insertSignalPostWithinCap(
    db,
    {
      partnerId: input.partnerId,
      sessionId: input.sessionId,
      signals: JSON.stringify(input.signals),
      ipCountry: input.ipCountry,
      ipHash,
      receivedAt: new Date(now).toISOString(),
      expiresAtMs,
    },
    now,
    MAX_SIGNAL_POSTS,
  );
  // Clean-up on the write path (indexed on expires_at_ms) keeps the table near its live size without a cron.
  await db.delete(radarSignals).where(lt(radarSignals.expiresAtMs, now));
  return { expiresAt: new Date(expiresAtMs).toISOString() };
};

/** The origins a partner's collector key may post from; empty means any origin. */
export const allowedOriginsOf = async (db: Db, partnerId: string): Promise<string[]> => {
  const [row] = await db
    .select({ allowedOrigins: radarSettings.allowedOrigins })
    .from(radarSettings)
    .where(eq(radarSettings.partnerId, partnerId));
  return row?.allowedOrigins ? (JSON.parse(row.allowedOrigins) as string[]) : [];
};

/** Operator: limits a partner's collector key to these origins ([] = any origin). */
export const setAllowedOrigins = async (db: Db, partnerId: string, origins: string[]) => {
  const [partner] = await db.select({ id: partners.id }).from(partners).where(eq(partners.id, partnerId));
  if (!partner) throw new ApiError("partner_not_found", "Partner not found");
  const allowedOrigins = [...new Set(origins)];
  await db
    .insert(radarSettings)
    .values({ partnerId, allowedOrigins: JSON.stringify(allowedOrigins) })
    .onConflictDoUpdate({
      target: radarSettings.partnerId,
      set: { allowedOrigins: JSON.stringify(allowedOrigins), updatedAt: new Date().toISOString() },
    });
  return { partnerId, allowedOrigins };
};

/** Fields whose change between posts of one session means someone else posted (or the page lies). */
const conflictsWith = (first: BrowserSignals) => (later: BrowserSignals) =>
  later.user_agent !== first.user_agent ||
  (later.device?.webdriver ?? false) !== (first.device?.webdriver ?? false) ||
  later.fingerprint.visitor_id !== first.fingerprint.visitor_id ||
  later.timezone !== first.timezone;

export type CheckInput = {
  /** Static assets, where the disposable-domain list and the zone-to-countries table live. */
  assets: Fetcher;
  partnerId: string;
  sessionId: string;
  idempotencyKey: string | null;
  request: CheckRequest;
  /** PII_HASH_SECRET: e-mails and IPs are matched by keyed hash, so retention can drop the values. */
  piiKey: string;
  /** Tests: a budget spent after a chosen step (default: CHECK_BUDGET_MS on the clock). */
  budget?: EvaluationBudget;
  now?: number;
};

/** What the check saw of the browser, so the partner can read why (from the stored inputs). */
const mergedSignalsOf = (inputs: {
  signals: BrowserSignals | null;
  ip_country: string | null;
}): RiskCheck["merged_signals"] =>
  inputs.signals
    ? {
        visitor_id: inputs.signals.fingerprint.visitor_id,
        user_agent: inputs.signals.user_agent ?? null,
        timezone: inputs.signals.timezone ?? null,
        language: inputs.signals.language ?? null,
        webdriver: inputs.signals.device?.webdriver ?? null,
        ip_country: inputs.ip_country,
      }
    : null;

const toRiskCheck = (row: RadarCheckRow): RiskCheck => ({
  check_id: row.id,
  partner_id: row.partnerId,
  session_id: row.sessionId,
  decision: row.decision,
  radar_result: row.radarResult as RiskCheck["radar_result"],
  should_hide_rate: row.shouldHideRate,
  billable: row.billable,
  checked_at: row.checkedAt,
  trigger_event: row.triggerEvent as RiskCheck["trigger_event"],
  score: row.score,
  reasons: JSON.parse(row.reasons) as Reason[],
  merged_signals: mergedSignalsOf(JSON.parse(row.inputs)),
});

/** Results of an evaluation that ran to its end: only these are billable. */
const COMPLETE_RESULTS: ReadonlySet<RiskCheck["radar_result"]> = new Set(["low_risk", "elevated_risk", "high_risk"]);

const isRadarEnabled = async (db: Db, partnerId: string) => {
  const [row] = await db
    .select({ enabled: radarSettings.enabled })
    .from(radarSettings)
    .where(eq(radarSettings.partnerId, partnerId));
  return row?.enabled ?? true;
};

/** Turns radar on or off for a partner (no row means on). */
export const setRadarEnabled = async (db: Db, partnerId: string, enabled: boolean) => {
  await db
    .insert(radarSettings)
    .values({ partnerId, enabled })
    .onConflictDoUpdate({ target: radarSettings.partnerId, set: { enabled, updatedAt: new Date().toISOString() } });
};

type Identities = { visitorId: string | null; deviceKey: string | null; emailHash: string; ipHash: string | null };

type Evaluation = {
  decision: RiskCheck["decision"];
  radarResult: RiskCheck["radar_result"];
  score: number;
  reasons: Reason[];
  signals: BrowserSignals | null;
  ipCountry: string | null;
  identities: Identities;
};

/** The steps of an evaluation that are followed by a budget check, in order (the last step, the lists, completes it). */
export type EvaluationStep = "signals" | "velocity";

/**
 * When an evaluation's time is up. `ms` also bounds a step that hangs (a timer races the
 * evaluation); `isSpent` is asked after each step. Tests pass a budget spent after a chosen step
 * to slow the evaluation down without waiting.
 */
export type EvaluationBudget = { ms: number; isSpent: (after: EvaluationStep) => boolean };

export const clockBudget = (ms: number): EvaluationBudget => {
  const deadline = Date.now() + ms;
  return { ms, isSpent: () => Date.now() > deadline };
};

/** What the evaluation has read so far (`undefined` = not yet); a timed-out check is decided on this alone. */
type Findings = {
  signals: BrowserSignals | null | undefined;
  conflictingSignals: boolean | undefined;
  ipCountry: string | null | undefined;
  velocity: VelocityCounts | undefined;
  disposableEmail: boolean | undefined;
  zoneCountries: TimezoneCountries | undefined;
  identities: Identities;
};

class BudgetExceeded extends Error {}

const bypass = (
  radarResult: RiskCheck["radar_result"],
  code: string,
  message: string,
  identities: Identities,
): Evaluation => ({
  decision: "bypass",
  radarResult,
  score: 0,
  reasons: [{ code, weight: 0, message }],
  signals: null,
  ipCountry: null,
  identities,
});

/** Reads this partner's live signals of the session, then the velocity counts (one batch), then the lists, into `found`. */
const evaluate = async (
  db: Db,
  input: CheckInput,
  now: number,
  found: Findings,
  budget: EvaluationBudget,
): Promise<void> => {
  const step = (name: EvaluationStep) => {
    if (budget.isSpent(name)) throw new BudgetExceeded();
  };
  const signalRows = await db
    .select()
    .from(radarSignals)
    .where(
      and(
        eq(radarSignals.partnerId, input.partnerId),
        eq(radarSignals.sessionId, input.sessionId),
        gt(radarSignals.expiresAtMs, now),
      ),
    )
    .orderBy(asc(radarSignals.receivedAt), sql`rowid`)
    .limit(MAX_SIGNAL_POSTS);
  // The first post is the session's signals; later ones only reveal a conflict.
  const signalRow = signalRows[0] ?? null;
  const signals = signalRow ? (JSON.parse(signalRow.signals) as BrowserSignals) : null;
  const conflictingSignals =
    signals !== null &&
    signalRows.slice(1).some((row) => conflictsWith(signals)(JSON.parse(row.signals) as BrowserSignals));
  const visitorId = signals?.fingerprint.visitor_id ?? null;
  const emailHash = found.identities.emailHash;
  const ipHash = found.identities.ipHash ?? signalRow?.ipHash ?? null;
  // The device: the visitor id with the browser's own IP, else the server's, else the booker id.
  const bookerUuid = input.request.context?.booker_uuid;
  const anchor = signalRow?.ipHash ?? ipHash ?? (bookerUuid ? `booker:${bookerUuid}` : null);
  const deviceKey = visitorId && anchor ? await sha256Hex(`${visitorId}\n${anchor}`) : null;
  Object.assign(found, {
    signals,
    conflictingSignals,
    ipCountry: signalRow?.ipCountry ?? null,
    identities: { visitorId, deviceKey, emailHash, ipHash },
  });
  step("signals");

  const partner = eq(radarChecks.partnerId, input.partnerId);
  const since = (windowMs: number) => gte(radarChecks.checkedAtMs, now - windowMs);
  // Sentinels that match nothing keep the batch shape fixed when an identity is unknown.
  const [visitorRows, emailRows, ipRows, identityRows] = await db.batch([
    db
      .select({ n: count() })
      .from(radarChecks)
      .where(and(partner, eq(radarChecks.deviceKey, deviceKey ?? "\u0000"), since(VELOCITY.visitor.windowMs))),
    db
      .select({ n: count() })
      .from(radarChecks)
      .where(and(partner, eq(radarChecks.emailHash, emailHash), since(VELOCITY.email.windowMs))),
    db
      .select({ n: count() })
      .from(radarChecks)
      .where(and(partner, eq(radarChecks.ipHash, ipHash ?? "\u0000"), since(VELOCITY.ip.windowMs))),
    db
      .select({ n: countDistinct(radarChecks.emailHash) })
      .from(radarChecks)
      .where(
        and(
          partner,
          eq(radarChecks.deviceKey, deviceKey ?? "\u0000"),
          ne(radarChecks.emailHash, emailHash),
          since(VELOCITY.identities.windowMs),
        ),
      ),
  ]);
  found.velocity = {
    visitorChecks: deviceKey ? (visitorRows[0]?.n ?? 0) : 0,
    emailChecks: emailRows[0]?.n ?? 0,
    ipChecks: ipHash ? (ipRows[0]?.n ?? 0) : 0,
    visitorOtherEmails: deviceKey ? (identityRows[0]?.n ?? 0) : 0,
  };
  step("velocity");

  const [disposableEmail, zoneCountries] = await Promise.all([
    isDisposableEmail(input.assets, input.request.booker.email),
    timezoneCountries(input.assets),
  ]);
  // Everything is read: from here the decision is complete, however late.
  Object.assign(found, { disposableEmail, zoneCountries });
};

/** Where a deny stops money or a booking, a check that ran out of time must not let it through unchecked. */
const FAIL_CLOSED_TRIGGERS: ReadonlySet<RiskCheck["trigger_event"]> = new Set(["booking_attempt", "payment_attempt"]);

/**
 * The decision on what was read. Complete: the rules' verdict. Out of time (radar_result
 * evaluation_timeout, with a reason saying which way it was decided): deny when the rules read
 * already deny; allow when the rules not read could not reach the deny score; otherwise deny a
 * booking or payment attempt and bypass a rate view.
 */
const decide = (input: CheckInput, found: Findings, budgetMs: number | null): Evaluation => {
  const judged = judgeRules({
    disposableEmail: found.disposableEmail,
    billingCountry: input.request.payment?.billing_address?.country?.toUpperCase() ?? null,
    signals: found.signals,
    ipCountry: found.ipCountry,
    velocity: found.velocity,
    conflictingSignals: found.conflictingSignals,
    zoneCountries: found.zoneCountries,
  });
  const read = {
    signals: found.signals ?? null,
    ipCountry: found.ipCountry ?? null,
    identities: found.identities,
  };
  if (budgetMs === null) return { ...verdictFor(judged.score), score: judged.score, reasons: judged.reasons, ...read };

  const trigger = input.request.trigger_event;
  const late = `The evaluation did not finish within ${budgetMs} ms`;
  const unjudged = judged.unjudged.join(", ");
  const [decision, message]: [RiskCheck["decision"], string] =
    verdictFor(judged.score).decision === "deny"
      ? ["deny", `${late}; the rules it applied already deny`]
      : judged.ceiling < DENY_SCORE
        ? ["allow", `${late}; the rules it could not apply (${unjudged}) could not reach the deny score`]
        : FAIL_CLOSED_TRIGGERS.has(trigger)
          ? ["deny", `${late}; a ${trigger} is denied rather than passed unchecked (not judged: ${unjudged})`]
          : ["bypass", `${late}; failing open for a ${trigger} (not judged: ${unjudged})`];
  return {
    decision,
    radarResult: "evaluation_timeout",
    score: judged.score,
    reasons: [...judged.reasons, { code: "evaluation_timeout", weight: 0, message }],
    ...read,
  };
};

/** Evaluates within the budget; past it the check is decided on what was read (see decide); on an unexpected failure it fails open as a bypass. */
const evaluateWithinBudget = async (db: Db, input: CheckInput, now: number, identities: Identities) => {
  const budget = input.budget ?? clockBudget(CHECK_BUDGET_MS);
  const found: Findings = {
    signals: undefined,
    conflictingSignals: undefined,
    ipCountry: undefined,
    velocity: undefined,
    disposableEmail: undefined,
    zoneCountries: undefined,
    identities,
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const finished = await Promise.race([
      evaluate(db, input, now, found, budget).then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), budget.ms);
      }),
    ]);
    // A snapshot: the evaluation may still be reading after the timer won.
    return decide(input, { ...found }, finished ? null : budget.ms);
  } catch (error) {
    if (error instanceof BudgetExceeded) return decide(input, { ...found }, budget.ms);
    // Fail open: a risk check must not block bookings when its own storage misbehaves.
    console.error(
      JSON.stringify({
        level: "error",
        event: "radar_evaluation_failed",
        partnerId: input.partnerId,
        error: loggableError(error, { stack: false }),
      }),
    );
    return bypass("evaluation_error", "evaluation_error", "The evaluation failed; failing open", identities);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Runs one risk check (replays of an idempotency-key are platform/idempotency's, in the route): merges this partner's signals for the session with the server's
 * payload, applies the rules, stores the check with the SHA-256 of its inputs and returns it.
 */
export const runCheck = async (db: Db, input: CheckInput): Promise<{ check: RiskCheck }> => {
  const now = input.now ?? Date.now();
  // Known before any read: a timed-out check still counts towards velocity by these.
  const identities: Identities = {
    visitorId: null,
    deviceKey: null,
    emailHash: await keyedHash(input.piiKey, input.request.booker.email.trim().toLowerCase()),
    ipHash: input.request.context?.ip ? await keyedHash(input.piiKey, input.request.context.ip) : null,
  };

  const evaluation = (await isRadarEnabled(db, input.partnerId))
    ? await evaluateWithinBudget(db, input, now, identities)
    : bypass("radar_disabled", "radar_disabled", "Radar is turned off for this partner", identities);

  const inputs = {
    partner_id: input.partnerId,
    session_id: input.sessionId,
    request: input.request,
    signals: evaluation.signals,
    ip_country: evaluation.ipCountry,
  };
  const serialized = canonicalJson(inputs);
  const row: RadarCheckRow = {
    id: `chk_${crypto.randomUUID()}`,
    partnerId: input.partnerId,
    sessionId: input.sessionId,
    idempotencyKey: input.idempotencyKey,
    triggerEvent: input.request.trigger_event,
    decision: evaluation.decision,
    radarResult: evaluation.radarResult,
    score: evaluation.score,
    reasons: JSON.stringify(evaluation.reasons),
    shouldHideRate: evaluation.decision === "deny",
    // Billed only when the evaluation was complete.
    billable: COMPLETE_RESULTS.has(evaluation.radarResult),
    inputDigest: await sha256Hex(serialized),
    inputs: serialized,
    visitorId: evaluation.identities.visitorId,
    deviceKey: evaluation.identities.deviceKey,
    emailHash: evaluation.identities.emailHash,
    ipHash: evaluation.identities.ipHash,
    checkedAt: new Date(now).toISOString(),
    checkedAtMs: now,
    piiRemovedAt: null,
  };
  await db.insert(radarChecks).values(row);
  return { check: toRiskCheck(row) };
};

/** A stored check of this partner, for review (digest, inputs, reasons). */
export const findCheck = async (db: Db, partnerId: string, checkId: string) => {
  const [row] = await db
    .select()
    .from(radarChecks)
    .where(and(eq(radarChecks.id, checkId), eq(radarChecks.partnerId, partnerId)));
  return row ?? null;
};

export const countBillableChecks = async (db: Db, partnerId: string, sinceMs = 0) => {
  const [row] = await db
    .select({ n: count() })
    .from(radarChecks)
    .where(
      and(eq(radarChecks.partnerId, partnerId), eq(radarChecks.billable, true), gte(radarChecks.checkedAtMs, sinceMs)),
    );
  return row?.n ?? 0;
};
