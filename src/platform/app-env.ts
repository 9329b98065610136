import type { Context, MiddlewareHandler } from "hono";
import type { Keyring } from "./crypto/keyring";
import type { Db, SessionDatabase } from "./db/client";

/** The partner behind an authenticated API key; `apiKeyId` is null when a partner user's login token stands for it (`apiKeyOrBearer`). */
export type Caller = { partnerId: string; apiKeyId: string | null };

/** The partner user behind a valid bearer token, re-read from D1 on every request. */
export type BearerUser = { userId: string; partnerId: string; email: string; role: "admin" | "user" };

/**
 * What handlers work with, built once per request (`withServices`) from the request's bindings;
 * each member is made on first use. Features add their own members by declaration merging
 * (`declare module ".../platform/app-env" { interface Services { ... } }`), and the app's builder
 * (src/services.ts) makes them all; a test may hand createApp a builder of its own.
 */
export interface Services {
  /** Signs and verifies links and cursors (content pages, option ids, booking pages, card setup). */
  pageKeys: Keyring;
  /** Signs and verifies partner users' access tokens. */
  jwtKeys: Keyring;
}

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: Db;
    d1: SessionDatabase;
    caller: Caller;
    user: BearerUser;
    services: Services;
  };
};

/**
 * Work the answer does not wait for (a count, a cache fill): handed to the request's `waitUntil`,
 * which keeps the Worker alive until it settles; awaited where there is none (the promise it returns).
 */
export type AfterAnswer = (work: Promise<void>) => Promise<void> | undefined;

/** Awaits the work: where nothing outlives the answer (a test's app.request(), a queue or cron task). */
export const awaitWork: AfterAnswer = (work) => work;

/** The request's `afterAnswer`: a test's app.request() has no execution context, so there it awaits. */
export const afterAnswerOf = (c: Context): AfterAnswer => {
  let ctx: Pick<ExecutionContext, "waitUntil">;
  try {
    ctx = c.executionCtx;
  } catch {
    return awaitWork;
  }
  return (work) => {
    ctx.waitUntil(work);
    return undefined;
  };
};

/** Puts the request's services on the context; after `withDb`, so they see the request's D1 session. */
export const withServices = (build: (env: Env, afterAnswer: AfterAnswer) => Services): MiddlewareHandler<AppEnv> =>
  async function withServices(c, next) {
    c.set("services", build(c.env, afterAnswerOf(c)));
    await next();
  };
