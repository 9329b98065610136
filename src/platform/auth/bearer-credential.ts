import type { Context, Env as HonoEnv, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import type { ApiError } from "../http/api-error";

/** A bearer-auth hook that answers with one of our errors: thrown, so the app's error handler shapes it. */
const answer = (error: () => ApiError) => ({
  message: (): never => {
    throw error();
  },
});

/**
 * `Authorization: Bearer <token>` on Hono's bearer-auth, answering with this API's errors instead
 * of its plain-text ones: `required` when no bearer credential was sent (no header, or another
 * scheme), `refused` when the token does not verify. A `Bearer` header whose value is not a token
 * (RFC 6750 token68) is a wrong token, not a missing one.
 */
export const bearerCredential = <E extends HonoEnv>(options: {
  required: () => ApiError;
  refused: () => ApiError;
  verify: (token: string, c: Context<E>) => Promise<boolean>;
}): MiddlewareHandler<E> =>
  bearerAuth<E>({
    verifyToken: options.verify,
    noAuthenticationHeader: answer(options.required),
    invalidAuthenticationHeader: {
      message: (c) => {
        throw /^bearer\s/i.test(c.req.header("authorization") ?? "") ? options.refused() : options.required();
      },
    },
    invalidToken: answer(options.refused),
  });
