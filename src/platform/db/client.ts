import { drizzle } from "drizzle-orm/d1";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";

export const database = (d1: D1Database) => drizzle(d1);
export type Db = ReturnType<typeof database>;

/** Puts the drizzle client on the context so handlers never build one. */
export const withDb = (): MiddlewareHandler<AppEnv> =>
  async function withDb(c, next) {
    c.set("db", database(c.env.DB));
    await next();
  };
