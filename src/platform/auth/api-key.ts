import type { Context, Env as HonoEnv, MiddlewareHandler } from "hono";
import type { AppEnv, Caller } from "../app-env";
import { sha256Hex } from "../crypto/digest";
import { ApiError } from "../http/api-error";

// Read on every call, so a revoked key or a deactivated partner fails on its next call.
const CALLER_SQL =
  "SELECT k.partner_id AS partnerId, k.id AS apiKeyId FROM api_keys k JOIN partners p ON p.id = k.partner_id WHERE k.key_hash = ?1 AND k.revoked_at IS NULL AND p.is_active = 1 LIMIT 1";

const callerStatement = async (d1: D1Database, apiKey: string) => d1.prepare(CALLER_SQL).bind(await sha256Hex(apiKey));

/** The caller for a presented API key, or null when it is unknown, revoked or its partner inactive. */
export const findCallerByApiKey = async (d1: D1Database, apiKey: string): Promise<Caller | null> =>
  (await callerStatement(d1, apiKey)).first<Caller>();

/**
 * A read a route needs right after authentication, run in the same D1 batch as the key lookup
 * (one round trip instead of two). `keep` sees its rows only when the key is valid.
 */
export type Companion<E extends HonoEnv> = {
  statement: (c: Context<E>) => Promise<D1PreparedStatement | null>;
  keep: (c: Context<E>, rows: unknown[]) => void;
};

/** Spec section 5 rule 1: the `api-key` header must map to a valid partner, which is put on the context. */
export const apiKeyAuth = <E extends AppEnv = AppEnv>(companion?: Companion<E>): MiddlewareHandler<E> =>
  async function apiKeyAuth(c, next) {
    const apiKey = c.req.header("api-key");
    if (!apiKey) throw new ApiError(401, "API key is required", "api_key_required");
    const d1 = c.env.DB;
    const extra = companion ? await companion.statement(c) : null;
    const [found, alongside] = await d1.batch([await callerStatement(d1, apiKey), ...(extra ? [extra] : [])]);
    const caller = (found!.results[0] as Caller | undefined) ?? null;
    if (!caller) throw new ApiError(401, "Invalid API key", "invalid_api_key");
    c.set("caller", caller);
    if (companion && alongside) companion.keep(c, alongside.results);
    await next();
  };

export const apiKeySecurity = [{ ApiKey: [] as string[] }];
