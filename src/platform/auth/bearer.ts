import { and, eq } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { sign, verify } from "hono/jwt";
import type { AppEnv, BearerUser } from "../app-env";
import { verifyWithKeyring, type Keyring } from "../crypto/keyring";
import type { Db } from "../db/client";
import { partners, users } from "../db/schema";
import { ApiError } from "../http/api-error";
import { bearerCredential } from "./bearer-credential";

/** Access tokens live one hour; there is no refresh token, the client logs in again. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;
/** Clock difference between the location that issued a token and the one reading it. */
const CLOCK_LEEWAY_SECONDS = 60;
const ISSUER = "edgestay";

/** hono/jwt checks `exp` only when present: a token without one, or claiming more than our lifetime, would never end. */
const hasOurLifetime = (exp: unknown, nowSeconds: number) =>
  typeof exp === "number" && exp <= nowSeconds + ACCESS_TOKEN_LIFETIME_SECONDS + CLOCK_LEEWAY_SECONDS;

/** HS256 JWT naming the user and partner; authority comes from the user row, not the token. */
export const issueAccessToken = async (
  keys: Keyring,
  user: { userId: string; partnerId: string },
  now = Date.now(),
) => {
  const iat = Math.floor(now / 1000);
  return sign(
    { sub: user.userId, pid: user.partnerId, iss: ISSUER, iat, exp: iat + ACCESS_TOKEN_LIFETIME_SECONDS },
    keys.current,
    "HS256",
  );
};

/** The active user of an active partner named by a verified token, or null. */
export const findBearerUser = async (db: Db, userId: string, partnerId: string): Promise<BearerUser | null> => {
  const [row] = await db
    .select({ userId: users.id, partnerId: users.partnerId, email: users.email, role: users.role })
    .from(users)
    .innerJoin(partners, eq(partners.id, users.partnerId))
    .where(
      and(eq(users.id, userId), eq(users.partnerId, partnerId), eq(users.isActive, true), eq(partners.isActive, true)),
    )
    .limit(1);
  return row ?? null;
};

/**
 * Spec section 5 rule 2: `Authorization: Bearer <accessToken>` from login, read by Hono's
 * bearer-auth. The token's signature, issuer and expiry (required, at most one lifetime ahead) are checked, then the user row is read
 * again, so a deactivated or deleted user's token stops working on its next request.
 */
export const bearerAuth = (): MiddlewareHandler<AppEnv> =>
  bearerCredential<AppEnv>({
    required: () => new ApiError("bearer_token_required", "Bearer token is required"),
    refused: () => new ApiError("invalid_token", "Invalid or expired token"),
    verify: async (token, c) => {
      // A token signed before a JWT_SECRET rotation keeps working until it expires.
      const claims = await verifyWithKeyring(c.get("services").jwtKeys, (secret) =>
        verify(token, secret, { alg: "HS256", iss: ISSUER }).catch(() => null),
      );
      if (!claims || typeof claims.sub !== "string" || typeof claims.pid !== "string") return false;
      if (!hasOurLifetime(claims.exp, Math.floor(Date.now() / 1000))) return false;
      const user = await findBearerUser(c.get("db"), claims.sub, claims.pid);
      if (!user) return false;
      c.set("user", user);
      return true;
    },
  });

export const bearerSecurity = [{ Bearer: [] as string[] }];
/** What a route taking a partner user's bearer token declares: its security and `bearerAuth()`. */
export const bearerRoute = () => ({ security: bearerSecurity, middleware: [bearerAuth()] });

/** Partner writes are an admin's (spec section 5 rule 3): a `user` gets 403 before anything is read. */
export const requireAdmin = (user: BearerUser) => {
  if (user.role !== "admin") throw new ApiError("admin_required", "Require partner admin role");
};
