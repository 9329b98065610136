import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { timingSafeEqual } from "../crypto/digest";
import { ApiError } from "../http/api-error";

/**
 * Operator routes: `Authorization: Bearer <OPERATOR_TOKEN>`, the token a secret compared in
 * constant time. A missing token is 401, a wrong one 403 (decision recorded in api-decisions).
 */
export const operatorAuth = (): MiddlewareHandler<AppEnv> =>
  async function operatorAuth(c, next) {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match) throw new ApiError("operator_token_required", "Operator token is required");
    const expected = c.env.OPERATOR_TOKEN;
    if (!expected || !timingSafeEqual(match[1]!.trim(), expected)) {
      throw new ApiError("invalid_operator_token", "Invalid operator token");
    }
    await next();
  };

export const operatorSecurity = [{ OperatorToken: [] as string[] }];
