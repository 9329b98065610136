import { and, eq, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Context, Env as HonoEnv, MiddlewareHandler } from "hono";
import type { AppEnv, Caller } from "../app-env";
import { sha256Hex } from "../crypto/digest";
import type { Db } from "../db/client";
import { apiKeys, partners } from "../db/schema";
import { ApiError } from "../http/api-error";

// Read on every call, so a revoked key or a deactivated partner fails on its next call.
const callerQuery = (db: Db, keyHash: string) =>
  db
    .select({ partnerId: apiKeys.partnerId, apiKeyId: apiKeys.id })
    .from(apiKeys)
    .innerJoin(partners, eq(partners.id, apiKeys.partnerId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt), eq(partners.isActive, true)))
    .limit(1);

/** The caller for a presented API key, or null when it is unknown, revoked or its partner inactive. */
export const findCallerByApiKey = async (db: Db, apiKey: string): Promise<Caller | null> =>
  (await callerQuery(db, await sha256Hex(apiKey)))[0] ?? null;

/**
 * Reads a route needs right after authentication, run in the same D1 batch as the key lookup (one
 * round trip instead of two). `keep` sees their results, in the order given, only when the key is valid.
 */
export type Companion<E extends HonoEnv> = {
  queries: (c: Context<E>) => Promise<BatchItem<"sqlite">[]>;
  keep: (c: Context<E>, results: unknown[]) => void;
};

/**
 * Which headers may carry the key: `api-key` (the contract's) everywhere; on the Hotel-X routes also
 * `Authorization: Apikey <key>`, Hotel-X's documented header, so a Hotel-X client configured with
 * only a URL and a key works. Elsewhere `Authorization` stays for bearer tokens and is not read here.
 */
export type KeyHeaders = "api-key" | "api-key or Apikey";

const HOTELX_AUTHORIZATION = /^apikey[ \t]+(\S+)[ \t]*$/i;

const presentedKey = (c: Context, accepted: KeyHeaders): string | undefined => {
  const apiKey = c.req.header("api-key") || undefined;
  if (accepted === "api-key") return apiKey;
  // Another scheme (a bearer token) is not a key: the `api-key` header decides alone.
  const hotelx = HOTELX_AUTHORIZATION.exec(c.req.header("authorization") ?? "")?.[1];
  // Two headers naming two keys: refused rather than one picked, so no call runs under a key its sender did not mean.
  if (apiKey && hotelx && apiKey !== hotelx)
    throw new ApiError("invalid_api_key", "api-key and Authorization: Apikey name different keys");
  return apiKey ?? hotelx;
};

/** Spec section 5 rule 1: the `api-key` header must map to a valid partner, which is put on the context. */
export const apiKeyAuth = <E extends AppEnv = AppEnv>(
  companion?: Companion<E>,
  accepted: KeyHeaders = "api-key",
): MiddlewareHandler<E> =>
  async function apiKeyAuth(c, next) {
    const apiKey = presentedKey(c, accepted);
    if (!apiKey) throw new ApiError("api_key_required", "API key is required");
    const db = c.get("db");
    const keyHash = await sha256Hex(apiKey);
    const extra = companion ? await companion.queries(c) : [];
    const [found, ...alongside] = (await db.batch([callerQuery(db, keyHash), ...extra])) as [Caller[], ...unknown[]];
    const caller = found[0] ?? null;
    if (!caller) throw new ApiError("invalid_api_key", "Invalid API key");
    c.set("caller", caller);
    companion?.keep(c, alongside);
    await next();
  };

export const apiKeySecurity = [{ ApiKey: [] as string[] }];

/** The Hotel-X routes: either header (OpenAPI: alternatives). */
export const hotelxKeySecurity: Record<string, string[]>[] = [{ ApiKey: [] }, { HotelxApiKey: [] }];
