import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { apiKeyAuth, apiKeySecurity } from "./api-key";
import { bearerAuth, bearerSecurity } from "./bearer";

/**
 * A partner-scoped route a browser may call too (the console): the `api-key` header as always, or
 * a partner user's login token (`Authorization: Bearer`), since the contract keeps API keys out of
 * browser code. Either way the partner lands in `caller`; a token also sets `user` (its role decides
 * what it may do) and leaves `caller.apiKeyId` null. Without either credential: the API key's 401.
 */
export const apiKeyOrBearer = <E extends AppEnv = AppEnv>(
  withApiKey: MiddlewareHandler<E> = apiKeyAuth<E>(),
): MiddlewareHandler<E> => {
  const withToken = bearerAuth() as unknown as MiddlewareHandler<E>;
  return async function apiKeyOrBearer(c, next) {
    if (c.req.header("api-key") !== undefined || c.req.header("authorization") === undefined)
      return withApiKey(c, next);
    return withToken(c, async () => {
      c.set("caller", { partnerId: c.get("user").partnerId, apiKeyId: null });
      await next();
    });
  };
};

/** Either scheme, as OpenAPI states alternatives. */
export const apiKeyOrBearerSecurity = [...apiKeySecurity, ...bearerSecurity];

/** True when the request came with a login token rather than an API key. */
export const byLoginToken = (caller: { apiKeyId: string | null }) => caller.apiKeyId === null;
