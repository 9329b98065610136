import { eq, sql } from "drizzle-orm";
import { ACCESS_TOKEN_LIFETIME_SECONDS, issueAccessToken } from "../../platform/auth/bearer";
import type { Keyring } from "../../platform/crypto/keyring";
import type { Db } from "../../platform/db/client";
import { partners, users } from "../../platform/db/schema";
import { verifyPassword } from "../../platform/crypto/password";
import { ApiError } from "../../platform/http/api-error";
import { loginFailures } from "./tables";

/** 5 failed logins for one e-mail within 15 minutes lock it for 15 minutes (429 with Retry-After). */
export const LOGIN_LOCKOUT = { maxFailures: 5, windowMs: 15 * 60_000, lockMs: 15 * 60_000 } as const;

export const INVALID_CREDENTIALS = "Invalid email or password";
export const PHONE_UNSUPPORTED = "accountType phone is not supported; use email";
const MD5 = /^[0-9a-fA-F]{32}$/;

// A well-formed hash that matches nothing: unknown e-mails cost the same PBKDF2 work as known ones.
const DECOY_HASH = "pbkdf2-sha256$100000$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

export type LoginInput = { accountType: "email" | "phone"; accountValue: string; password: string };
export type LoginResult = { accessToken: string; tokenType: "Bearer"; expiresIn: number };

export class LoginLocked extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, "Too many failed login attempts; try again later", "login_locked", { retryAfterSeconds });
  }
}

/** Counts one failure atomically (one statement, so concurrent failures are all counted). */
const recordFailure = async (db: Db, email: string, now: number) => {
  const { maxFailures, windowMs, lockMs } = LOGIN_LOCKOUT;
  const windowOpen = sql`${loginFailures.windowStartedAt} > ${now - windowMs}`;
  await db
    .insert(loginFailures)
    .values({ email, failures: 1, windowStartedAt: now, lockedUntil: maxFailures <= 1 ? now + lockMs : null })
    .onConflictDoUpdate({
      target: loginFailures.email,
      set: {
        failures: sql`case when ${windowOpen} then ${loginFailures.failures} + 1 else 1 end`,
        windowStartedAt: sql`case when ${windowOpen} then ${loginFailures.windowStartedAt} else ${now} end`,
        lockedUntil: sql`case when ${windowOpen} and ${loginFailures.failures} + 1 >= ${maxFailures} then ${now + lockMs} else null end`,
      },
    });
};

/**
 * Spec 4.7. The MD5 string is checked against the stored PBKDF2 hash. Unknown e-mail and wrong
 * password give the same 401 after the same work; a locked account gets 429 before any check.
 */
export const login = async (db: Db, jwtKeys: Keyring, input: LoginInput, now = Date.now()): Promise<LoginResult> => {
  if (input.accountType === "phone") throw new ApiError(400, PHONE_UNSUPPORTED, "unsupported_account_type");
  if (!MD5.test(input.password)) throw new ApiError(400, "password must be an MD5 hex string (32 hexadecimal characters)", "invalid_request");
  const email = input.accountValue.trim().toLowerCase();

  const [lock] = await db.select().from(loginFailures).where(eq(loginFailures.email, email)).limit(1);
  if (lock?.lockedUntil && lock.lockedUntil > now) throw new LoginLocked(Math.ceil((lock.lockedUntil - now) / 1000));

  const [user] = await db
    .select({ id: users.id, partnerId: users.partnerId, passwordHash: users.passwordHash, isActive: users.isActive, partnerActive: partners.isActive })
    .from(users)
    .innerJoin(partners, eq(partners.id, users.partnerId))
    .where(eq(users.email, email))
    .limit(1);
  const passwordOk = await verifyPassword(input.password.toLowerCase(), user?.passwordHash ?? DECOY_HASH);
  if (!user || !passwordOk) {
    await recordFailure(db, email, now);
    throw new ApiError(401, INVALID_CREDENTIALS, "invalid_credentials");
  }
  // Only someone who knows the password learns that the account is switched off.
  if (!user.isActive || !user.partnerActive) throw new ApiError(403, "User is inactive", "user_inactive");

  await db.delete(loginFailures).where(eq(loginFailures.email, email));
  const accessToken = await issueAccessToken(jwtKeys, { userId: user.id, partnerId: user.partnerId }, now);
  return { accessToken, tokenType: "Bearer", expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS };
};

/**
 * Housekeeping: forgets failure counters whose window and lock have both run out (they no longer
 * affect any login), or, given an e-mail, that account's counter (an operator unlocking it).
 */
export const purgeLoginFailures = async (db: Db, options: { email?: string }, now = Date.now()): Promise<{ deleted: number }> => {
  const where = options.email
    ? eq(loginFailures.email, options.email.trim().toLowerCase())
    : sql`${loginFailures.windowStartedAt} <= ${now - LOGIN_LOCKOUT.windowMs} and coalesce(${loginFailures.lockedUntil}, 0) <= ${now}`;
  const deleted = await db.delete(loginFailures).where(where).returning({ email: loginFailures.email });
  return { deleted: deleted.length };
};
