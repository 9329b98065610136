import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes `x-request-id` from the caller when it is sane, else makes one, and echoes it on every response. */
export const requestId = (): MiddlewareHandler<AppEnv> =>
  async function requestId(c, next) {
    const given = c.req.header("x-request-id");
    const id = given && acceptable.test(given) ? given : crypto.randomUUID();
    c.set("requestId", id);
    await next();
    c.res.headers.set("x-request-id", id);
  };
