// The data-access rule of docs/architecture.md ("Queries"): drizzle is the default; raw SQL lives
// only in modules whose first line says why; row types come from the schema (`$inferSelect` or
// `SqlRow`), never from an object type written by hand.
const RAW_SQL = /\.prepare\(|\bsql\.exec\(|\bsql\.raw\(|\.(?:run|all|get|values)(?:<[^(]*>)?\(\s*sql`/;
const MARKER = /^\/\/ Raw SQL: \S.{10,}/;
const HAND_WRITTEN_ROW = /\.(?:first|all|raw|run)<\{|\btype \w*Row\w* = \{|\binterface \w*Row\w* \{/;

/** What breaks the rule in one source file (`name` is how the problem names it). */
export const dataAccessProblems = (name: string, text: string): string[] => {
  const problems: string[] = [];
  if (RAW_SQL.test(text) && !MARKER.test(text)) {
    problems.push(`${name}: raw SQL outside a query module (first line "// Raw SQL: <why>"), or write it with drizzle`);
  }
  text.split("\n").forEach((line, i) => {
    if (HAND_WRITTEN_ROW.test(line)) {
      problems.push(
        `${name}:${i + 1}: row type written by hand; use typeof table.$inferSelect or SqlRow<typeof table>`,
      );
    }
  });
  return problems;
};
