import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { matchedRoutes } from "hono/route";

/**
 * Route middleware marking a read that a D1 read replica may answer a moment stale (content
 * export, search, booking reads). It does nothing itself: `withDb` looks for it among the request's
 * matched handlers before any of them runs, so each route says so where it is declared.
 */
export const replicaReadsAllowed: MiddlewareHandler<AppEnv> = async function replicaReadsAllowed(_c, next) {
  await next();
};

export const allowsReplicaReads = (c: Context) =>
  matchedRoutes(c).some((route) => route.handler === replicaReadsAllowed);
