import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { root } from "../local/platform";

// The data-access rule of docs/architecture.md ("Queries"), checked on every `npm run lint`:
// drizzle is the default; raw SQL lives only in modules whose first line says why; row types come
// from the schema (`$inferSelect` or `SqlRow`), never from an object type written by hand.
const RAW_SQL = /\.prepare\(|\bsql\.exec\(|\bsql\.raw\(|\.(?:run|all|get|values)(?:<[^(]*>)?\(\s*sql`/;
const MARKER = /^\/\/ Raw SQL: \S.{10,}/;
const HAND_WRITTEN_ROW = /\.(?:first|all|raw|run)<\{|\btype \w*Row\w* = \{|\binterface \w*Row\w* \{/;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });

const problems: string[] = [];
for (const path of sources(join(root, "src"))) {
  const text = readFileSync(path, "utf8");
  const name = relative(root, path);
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
}
if (problems.length > 0) {
  console.error(`Data-access rule (docs/architecture.md, "Queries"):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log("Data-access rule holds.");
