import { and, eq, lte, sql, type SQL } from "drizzle-orm";
import { ACCESS_TOKEN_LIFETIME_SECONDS, issueAccessToken } from "../../platform/auth/bearer";
import type { Keyring } from "../../platform/crypto/keyring";
import type { Db } from "../../platform/db/client";
import { partners, users } from "../../platform/db/schema";
import { verifyPassword } from "../../platform/crypto/password";
import { ApiError } from "../../platform/http/api-error";
import { retryAfterHeader, secondsUntil } from "../../platform/ratelimit/rate-headers";
import { loginFailures } from "./tables";

/**
 * 5 failures for one e-mail from one client IP within 15 minutes lock that IP out of that e-mail for
 * 15 minutes; the owner elsewhere is unaffected. Past 50 failures from all IPs in 15 minutes, every
 * further attempt on the e-mail waits a little longer (1 s more per failure, at most 15 minutes).
 */
export const LOGIN_LOCKOUT = {
  maxFailures: 5,
  windowMs: 15 * 60_000,
  lockMs: 15 * 60_000,
  slowAfterFailures: 50,
  slowStepMs: 1_000,
} as const;

export const INVALID_CREDENTIALS = "Invalid email or password";
export const PHONE_UNSUPPORTED = "accountType phone is not supported; use email";
const LOCKED_MESSAGE = "Too many failed login attempts; try again later";
const ALL_IPS = "*";
const MD5 = /^[0-9a-fA-F]{32}$/;

// A well-formed hash that matches nothing: unknown e-mails cost the same PBKDF2 work as known ones.
const DECOY_HASH = "pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export type LoginInput = { accountType: "email" | "phone"; accountValue: string; password: string };
export type LoginResult = { accessToken: string; tokenType: "Bearer"; expiresIn: number };

export class LoginLocked extends ApiError {
  constructor(
    readonly retryAfterSeconds: number,
    code: "login_locked" | "login_slowed",
  ) {
    super(code, LOCKED_MESSAGE, { retryAfterSeconds }, retryAfterHeader(retryAfterSeconds));
  }
}

/**
 * Cloudflare sets CF-Connecting-IP on every deployed request (a client cannot forge it there).
 * Without it (local calls) every client shares one "unknown" bucket: stricter, never looser.
 */
export const clientIp = (request: Request): string =>
  request.headers.get("cf-connecting-ip")?.trim().slice(0, 64) || "unknown";

/** The counter row of one e-mail from one client IP. */
export const ipScope = (clientIp: string) => `ip:${clientIp}`;

/**
 * Reserves one attempt as a failure before the password is checked: one upsert, so a parallel
 * burst is counted exactly. A blocked row is left alone. Returns whether this attempt got through
 * (its id became the row's attempt id) and, if not, until when the row is blocked.
 */
const reserveAttempt = async (db: Db, email: string, scope: string, now: number) => {
  const { maxFailures, windowMs, lockMs, slowAfterFailures, slowStepMs } = LOGIN_LOCKOUT;
  const attemptId = crypto.randomUUID();
  const f = loginFailures;
  const blocked = sql`coalesce(${f.blockedUntil}, 0) > ${now}`;
  const open = sql`${f.windowStartedAt} > ${now - windowMs}`;
  const next = sql`(case when ${open} then ${f.failures} + 1 else 1 end)`;
  // Per IP: a lock from the 5th failure. All IPs: a delay that grows with every failure past 50.
  const blockAfter = (failures: SQL | number) =>
    scope === ALL_IPS
      ? sql`case when ${failures} > ${slowAfterFailures} then ${now} + min((${failures} - ${slowAfterFailures}) * ${slowStepMs}, ${lockMs}) end`
      : sql`case when ${failures} >= ${maxFailures} then ${now + lockMs} end`;
  const [row] = await db
    .insert(f)
    .values({ email, scope, failures: 1, windowStartedAt: now, blockedUntil: sql`${blockAfter(1)}`, attemptId })
    .onConflictDoUpdate({
      target: [f.email, f.scope],
      set: {
        failures: sql`case when ${blocked} then ${f.failures} else ${next} end`,
        windowStartedAt: sql`case when ${blocked} or ${open} then ${f.windowStartedAt} else ${now} end`,
        blockedUntil: sql`case when ${blocked} then ${f.blockedUntil} else ${blockAfter(next)} end`,
        attemptId: sql`case when ${blocked} then ${f.attemptId} else ${attemptId} end`,
      },
    })
    .returning({ attemptId: f.attemptId, blockedUntil: f.blockedUntil });
  return { admitted: row!.attemptId === attemptId, blockedUntil: row!.blockedUntil ?? now };
};

/** Gives back a reserved attempt that turned out not to be a failure. */
const releaseAttempt = (db: Db, email: string, scope: string) =>
  db
    .update(loginFailures)
    .set({
      failures: sql`max(${loginFailures.failures} - 1, 0)`,
      blockedUntil:
        scope === ALL_IPS
          ? sql`${loginFailures.blockedUntil}`
          : sql`case when ${loginFailures.failures} - 1 < ${LOGIN_LOCKOUT.maxFailures} then null else ${loginFailures.blockedUntil} end`,
    })
    .where(and(eq(loginFailures.email, email), eq(loginFailures.scope, scope)));

/**
 * Spec 4.7. The MD5 string is checked against the stored PBKDF2 hash. Unknown e-mail and wrong
 * password give the same 401 after the same work. Each attempt is first reserved as a failure for
 * (e-mail, client IP) and then for the e-mail from all IPs; only a reserved attempt is verified.
 */
export const login = async (
  db: Db,
  jwtKeys: Keyring,
  input: LoginInput,
  clientIp: string,
  now = Date.now(),
): Promise<LoginResult> => {
  if (input.accountType === "phone") throw new ApiError("unsupported_account_type", PHONE_UNSUPPORTED);
  if (!MD5.test(input.password))
    throw new ApiError("invalid_request", "password must be an MD5 hex string (32 hexadecimal characters)");
  const email = input.accountValue.trim().toLowerCase();
  const fromIp = ipScope(clientIp);

  const perIp = await reserveAttempt(db, email, fromIp, now);
  if (!perIp.admitted) throw new LoginLocked(secondsUntil(perIp.blockedUntil, now), "login_locked");
  const allIps = await reserveAttempt(db, email, ALL_IPS, now);
  if (!allIps.admitted) {
    // The slowdown is not this IP's failure: it must not count toward its lock.
    await releaseAttempt(db, email, fromIp);
    throw new LoginLocked(secondsUntil(allIps.blockedUntil, now), "login_slowed");
  }

  const [user] = await db
    .select({
      id: users.id,
      partnerId: users.partnerId,
      passwordHash: users.passwordHash,
      isActive: users.isActive,
      partnerActive: partners.isActive,
    })
    .from(users)
    .innerJoin(partners, eq(partners.id, users.partnerId))
    .where(eq(users.email, email))
    .limit(1);
  const passwordOk = await verifyPassword(input.password.toLowerCase(), user?.passwordHash ?? DECOY_HASH);
  if (!user || !passwordOk) throw new ApiError("invalid_credentials", INVALID_CREDENTIALS);

  // The right password: this IP starts afresh; the attempt is given back to the all-IPs count.
  await db.batch([
    db.delete(loginFailures).where(and(eq(loginFailures.email, email), eq(loginFailures.scope, fromIp))),
    releaseAttempt(db, email, ALL_IPS),
    db
      .delete(loginFailures)
      .where(and(eq(loginFailures.email, email), eq(loginFailures.scope, ALL_IPS), lte(loginFailures.failures, 0))),
  ]);
  // Only someone who knows the password learns that the account is switched off.
  if (!user.isActive || !user.partnerActive) throw new ApiError("user_inactive", "User is inactive");

  const accessToken = await issueAccessToken(jwtKeys, { userId: user.id, partnerId: user.partnerId }, now);
  return { accessToken, tokenType: "Bearer", expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS };
};

/** Counters that no longer affect any login: window and block both over. */
const expired = (now: number) =>
  sql`${loginFailures.windowStartedAt} <= ${now - LOGIN_LOCKOUT.windowMs} and coalesce(${loginFailures.blockedUntil}, 0) <= ${now}`;

/**
 * Housekeeping: forgets expired failure counters, or, given an e-mail, that account's counters
 * from every IP (an operator unlocking it).
 */
export const purgeLoginFailures = async (
  db: Db,
  options: { email?: string },
  now = Date.now(),
): Promise<{ deleted: number }> => {
  const where = options.email ? eq(loginFailures.email, options.email.trim().toLowerCase()) : expired(now);
  const deleted = await db.delete(loginFailures).where(where).returning({ email: loginFailures.email });
  return { deleted: deleted.length };
};
