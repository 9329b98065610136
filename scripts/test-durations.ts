import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { replaceFile, root } from "../local/platform";

// npm run test:durations: writes test/support/file-durations.json from vitest's own timings of the
// files it ran last (its results cache, node_modules/.vite/vitest/*/results.json), so a fresh clone,
// which has no cache, orders each project's files longest first too (test/support/file-order.ts).
// Run it after a whole `npm test` when files were added or have grown much slower or faster.
const cacheDir = join(root, "node_modules", ".vite", "vitest");
const results = readdirSync(cacheDir)
  .map((dir) => join(cacheDir, dir, "results.json"))
  .filter((path) => existsSync(path));
if (results.length === 0) throw new Error("no vitest results cache: run npm test first");
// Only the projects vitest.config.ts declares now (the cache keeps the names of earlier ones).
const projects = new Set(
  [...readFileSync(join(root, "vitest.config.ts"), "utf8").matchAll(/^\s+name: "([\w-]+)",$/gm)].map((m) => m[1]),
);
const durations: Record<string, number> = {};
for (const path of results) {
  const cached = JSON.parse(readFileSync(path, "utf8")) as { results: Array<[string, { duration?: number }]> };
  for (const [file, { duration }] of cached.results)
    if (
      typeof duration === "number" &&
      projects.has(file.slice(0, file.indexOf(":"))) &&
      existsSync(join(root, file.slice(file.indexOf(":") + 1)))
    )
      durations[file] = Math.round(duration / 100) * 100;
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
replaceFile(join(root, "test", "support", "file-durations.json"), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/support/file-durations.json: ${Object.keys(sorted).length} files.`);
