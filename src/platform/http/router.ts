import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { RouterRoute } from "hono/types";
import type { AppEnv } from "../app-env";
import { validationHook } from "./validation";

/** What an error body is made of: the error and the request's id. */
export type ErrorFacts = { message: string; code: string; details?: Record<string, unknown> };
export type ErrorBody = (error: ErrorFacts, requestId: string) => object;

/** The core API's error body: `{ message, code, requestId, details? }`. */
export const coreErrorBody: ErrorBody = (error, requestId) => ({
  message: error.message,
  code: error.code,
  requestId,
  ...(error.details ? { details: error.details } : {}),
});

/** The routers' own error bodies, found again by their first middleware in the app's route table. */
const errorBodyMarks = new WeakMap<object, ErrorBody>();

/**
 * Every feature's router: OpenAPI-described routes sharing the one validation hook (the body gate,
 * `jsonBody`, comes with every body route through `apiRoute`). A router mounted at its own prefix may
 * bring its own error body, used for every error under that prefix (the app's too: 404, 405, 503),
 * and middleware that runs first, before the body is read.
 */
export const featureRouter = <E extends AppEnv = AppEnv>(
  options: { errorBody?: ErrorBody; first?: MiddlewareHandler<E>[] } = {},
) => {
  const router = new OpenAPIHono<E>({ defaultHook: validationHook });
  if (options.errorBody) {
    const errorBodyMark: MiddlewareHandler<E> = (_c, next) => next();
    errorBodyMarks.set(errorBodyMark, options.errorBody);
    router.use("*", errorBodyMark);
  }
  for (const middleware of options.first ?? []) router.use("*", middleware);
  return router;
};

/**
 * The error body of a request path, read from the app's own route table (built on first use, after
 * every router is mounted): that of the router mounted at the longest prefix of the path, else the core one.
 */
export const errorBodies = (routes: readonly RouterRoute[]) => {
  let table: Array<{ prefix: string; body: ErrorBody }> | null = null;
  return (path: string): ErrorBody => {
    table ??= routes
      .filter((route) => route.method === "ALL" && errorBodyMarks.has(route.handler))
      .map((route) => ({ prefix: route.path.replace(/\/\*$/, ""), body: errorBodyMarks.get(route.handler)! }))
      .sort((a, b) => b.prefix.length - a.prefix.length);
    return table.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`))?.body ?? coreErrorBody;
  };
};
