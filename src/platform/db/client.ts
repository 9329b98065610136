// Raw SQL: the D1 session wrapper passes every statement through; the health probe is a bare `select 1`.

import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { allowsReplicaReads } from "./replica-reads";

// Columns name themselves in the schema; snake_case is what a column without a name would get.
export const database = (d1: D1Database) => drizzle(d1, { casing: "snake_case" });
export type Db = ReturnType<typeof database>;

/** The health probe: one round trip D1 must answer. */
export const probeDatabase = (db: Db) => db.run(sql`select 1`);

/** Request and response header carrying a D1 Sessions API bookmark. */
export const BOOKMARK_HEADER = "x-d1-bookmark";

// D1 bookmarks are four lower-case hex fields, 8-8-8-32. Fixed widths also make string order
// the order of commits, which is how the runtime itself keeps the latest of two.
const BOOKMARK_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;
export const isBookmark = (value: unknown): value is string => typeof value === "string" && BOOKMARK_SHAPE.test(value);
const latest = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);

/**
 * Where a request's session starts. Writes start at the primary, which is as fresh as any
 * bookmark. Reads that may be a moment stale start anywhere, or continue from the caller's
 * bookmark; a malformed bookmark is ignored in favour of the primary, the freshest there is, so
 * a caller who asked for consistency never gets less, and never an error, for a bad header.
 */
export const sessionStart = (
  sentBookmark: string | undefined,
  staleReadsAllowed: boolean,
): D1SessionConstraint | D1SessionBookmark => {
  if (!staleReadsAllowed) return "first-primary";
  if (!sentBookmark) return "first-unconstrained";
  return isBookmark(sentBookmark) ? sentBookmark : "first-primary";
};

/** A D1 session in the shape of the D1 binding, so raw statements and drizzle alike go through it. */
export type SessionDatabase = D1Database & {
  /** The latest bookmark this session (or a Durable Object continuing it) has seen, or null before any query. */
  bookmark(): string | null;
  /** Notes a bookmark returned by a Durable Object that continued this session. */
  advanceTo(bookmark: string | null | undefined): void;
};

export const sessionDatabase = (d1: D1Database, start: D1SessionConstraint | D1SessionBookmark): SessionDatabase => {
  const session = d1.withSession(start);
  let continued: string | null = null;
  const outside = (what: string) => new Error(`${what} would run outside the request's D1 session`);
  return {
    prepare: (query) => session.prepare(query),
    batch: (statements) => session.batch(statements),
    exec: () => Promise.reject(outside("exec")),
    dump: () => Promise.reject(outside("dump")),
    withSession: () => {
      throw outside("withSession");
    },
    bookmark: () => latest(session.getBookmark(), continued),
    advanceTo(bookmark) {
      if (isBookmark(bookmark)) continued = latest(continued, bookmark);
    },
  };
};

/**
 * Opens the request's one D1 session and makes it the only way to D1 for the request: `c.env.DB`
 * (raw statements, the API-key batch, booking services) and `c.get("db")` (drizzle) are both the
 * session. The latest bookmark goes back as `x-d1-bookmark` on every response that touched D1.
 */
export const withDb: MiddlewareHandler<AppEnv> = async function withDb(c, next) {
  const start = sessionStart(c.req.header(BOOKMARK_HEADER), allowsReplicaReads(c));
  const d1 = sessionDatabase(c.env.DB, start);
  // A copy: the env object is shared by every request of the isolate.
  c.env = { ...c.env, DB: d1 };
  c.set("d1", d1);
  c.set("db", database(d1));
  await next();
  const bookmark = d1.bookmark();
  if (bookmark) c.res.headers.set(BOOKMARK_HEADER, bookmark);
};
