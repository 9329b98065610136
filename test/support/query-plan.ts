import { env } from "cloudflare:test";

/** SQLite's EXPLAIN QUERY PLAN of a statement, one line per step, for asserting which index it uses. */
export const queryPlan = async (query: { sql: string; params: unknown[] }) =>
  (
    await env.DB.prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
      .bind(...query.params)
      .all<{ detail: string }>()
  ).results
    .map((r) => r.detail)
    .join("\n");
