import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "../app-env";

/**
 * One JSON line per request for Workers Logs: the route pattern (never the raw path, which carries
 * ids), the partner once authentication has named it, status and wall time. Stacks are logged by
 * onError alone. Nothing here reads the body or awaits anything beyond the request itself.
 */
export const requestLog = (): MiddlewareHandler<AppEnv> =>
  async function requestLog(c, next) {
    const started = Date.now();
    await next();
    const status = c.res.status;
    const colo = (c.req.raw as { cf?: { colo?: unknown } }).cf?.colo;
    console.log(
      JSON.stringify({
        level: status >= 500 ? "error" : "info",
        event: "request",
        requestId: c.get("requestId"),
        partnerId: c.get("caller")?.partnerId ?? c.get("user")?.partnerId ?? null,
        method: c.req.method,
        route: routePath(c),
        status,
        // Workers advance the clock only across I/O, so this is the time spent waiting, not CPU.
        durationMs: Date.now() - started,
        ...(typeof colo === "string" ? { colo } : {}),
      }),
    );
  };
