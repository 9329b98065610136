import type { Context, Env as HonoEnv, MiddlewareHandler } from "hono";
import type { AppEnv, Caller } from "../app-env";
import { sha256Hex } from "../crypto/digest";
import { ApiError } from "../http/api-error";
import { callerStatement } from "./caller-lookup";

/** The caller for a presented API key, or null when it is unknown, revoked or its partner inactive. */
export const findCallerByApiKey = async (d1: D1Database, apiKey: string): Promise<Caller | null> =>
  callerStatement(d1, await sha256Hex(apiKey)).first<Caller>();

/**
 * Reads a route needs right after authentication, run in the same D1 batch as the key lookup (one
 * round trip instead of two). `keep` sees the results, in the order given, only when the key is valid.
 */
export type Companion<E extends HonoEnv> = {
  statements: (c: Context<E>) => Promise<D1PreparedStatement[]>;
  keep: (c: Context<E>, results: D1Result[]) => void;
};

/** Spec section 5 rule 1: the `api-key` header must map to a valid partner, which is put on the context. */
export const apiKeyAuth = <E extends AppEnv = AppEnv>(companion?: Companion<E>): MiddlewareHandler<E> =>
  async function apiKeyAuth(c, next) {
    const apiKey = c.req.header("api-key");
    if (!apiKey) throw new ApiError("api_key_required", "API key is required");
    const d1 = c.env.DB;
    const keyHash = await sha256Hex(apiKey);
    const extra = companion ? await companion.statements(c) : [];
    const [found, ...alongside] = await d1.batch([callerStatement(d1, keyHash), ...extra]);
    const caller = (found!.results[0] as Caller | undefined) ?? null;
    if (!caller) throw new ApiError("invalid_api_key", "Invalid API key");
    c.set("caller", caller);
    companion?.keep(c, alongside);
    await next();
  };

export const apiKeySecurity = [{ ApiKey: [] as string[] }];
