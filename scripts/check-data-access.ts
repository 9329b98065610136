import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { root } from "../local/platform";
import { dataAccessProblems } from "./lint-rules/data-access";

// Checked on every `npm run lint` (docs/architecture.md, "Queries").
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });

const problems = sources(join(root, "src")).flatMap((path) =>
  dataAccessProblems(relative(root, path), readFileSync(path, "utf8")),
);
if (problems.length > 0) {
  console.error(`Data-access rule (docs/architecture.md, "Queries"):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log("Data-access rule holds.");
