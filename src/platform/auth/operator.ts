import type { MiddlewareHandler } from "hono";
import { timingSafeEqual } from "hono/utils/buffer";
import type { AppEnv } from "../app-env";
import { ApiError } from "../http/api-error";
import { bearerCredential } from "./bearer-credential";

/**
 * Operator routes: `Authorization: Bearer <OPERATOR_TOKEN>`, the token a secret compared in
 * constant time. A missing token is 401, a wrong one 403 (decision recorded in api-decisions).
 */
export const operatorAuth = (): MiddlewareHandler<AppEnv> =>
  bearerCredential<AppEnv>({
    required: () => new ApiError("operator_token_required", "Operator token is required"),
    refused: () => new ApiError("invalid_operator_token", "Invalid operator token"),
    verify: async (token, c) => {
      const expected = c.env.OPERATOR_TOKEN;
      return Boolean(expected) && (await timingSafeEqual(token, expected));
    },
  });

export const operatorSecurity = [{ OperatorToken: [] as string[] }];
