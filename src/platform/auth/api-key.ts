import { and, eq, isNull } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import type { AppEnv, Caller } from "../app-env";
import type { Db } from "../db/client";
import { apiKeys, partners } from "../db/schema";
import { sha256Hex } from "../crypto/digest";
import { ApiError } from "../http/api-error";

/** The caller for a presented API key, or null when it is unknown, revoked or its partner inactive. */
export const findCallerByApiKey = async (db: Db, apiKey: string): Promise<Caller | null> => {
  const [row] = await db
    .select({ partnerId: apiKeys.partnerId, apiKeyId: apiKeys.id })
    .from(apiKeys)
    .innerJoin(partners, eq(partners.id, apiKeys.partnerId))
    .where(and(eq(apiKeys.keyHash, await sha256Hex(apiKey)), isNull(apiKeys.revokedAt), eq(partners.isActive, true)))
    .limit(1);
  return row ?? null;
};

/** Spec section 5 rule 1: the `api-key` header must map to a valid partner, which is put on the context. */
export const apiKeyAuth = (): MiddlewareHandler<AppEnv> =>
  async function apiKeyAuth(c, next) {
    const apiKey = c.req.header("api-key");
    if (!apiKey) throw new ApiError(401, "API key is required", "api_key_required");
    const caller = await findCallerByApiKey(c.get("db"), apiKey);
    if (!caller) throw new ApiError(401, "Invalid API key", "invalid_api_key");
    c.set("caller", caller);
    await next();
  };

export const apiKeySecurity = [{ ApiKey: [] as string[] }];
