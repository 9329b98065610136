import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import operations from "../../docs/operations.md?raw";

/**
 * Every `D1 "..."` line of docs/operations.md (the operator tasks run with `wrangler d1 execute`),
 * with its shell parts made literal: a shell substitution or a `<placeholder>` inside quotes
 * becomes a plain string, and the example partner `acme` the demo partner.
 */
const documentedQueries = (markdown: string): string[] =>
  [...markdown.matchAll(/^D1 "(.+)"$/gm)].map((m) =>
    m[1]!
      .replace(/'\$\(.*?\)'/g, "'x'")
      .replace(/'<[^'>]+>'/g, "'x'")
      // The docs' example partner; the demo partner exists in every test database.
      .replaceAll("'acme'", "'demo'"),
  );

describe("operator SQL in docs/operations.md", () => {
  it("runs every documented query against today's tables", async () => {
    const queries = documentedQueries(operations);
    expect(queries.length).toBeGreaterThanOrEqual(10);
    const failures: string[] = [];
    for (const sql of queries) {
      try {
        await env.DB.prepare(sql).run();
      } catch (err) {
        failures.push(`${sql}\n  -> ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
