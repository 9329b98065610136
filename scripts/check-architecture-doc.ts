import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { root } from "../local/platform";
import { architectureDocGaps } from "./lint-rules/architecture-doc";
import { doorTableExports } from "./lint-rules/door-tables";
import { importOrderIn, importOrderProblems, importsOf, type ModuleImports } from "./lint-rules/feature-order";
import { missingPaths, namedPaths, scriptImports } from "./lint-rules/named-paths";
import { pagesWithoutWorker, runWorkerFirstIn } from "./lint-rules/static-pages";

// docs/architecture.md must name every migration and room, so neither is added unsaid, and the
// import order it writes down must be the one the code keeps.
const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
const migrations = readdirSync(join(root, "migrations"))
  .filter((name) => name.endsWith(".sql"))
  .map((name) => name.slice(0, -".sql".length))
  .sort();
const rooms = readdirSync(join(root, "src", "features"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const problems = architectureDocGaps(doc, migrations, rooms).map((gap) => `does not name ${gap}`);
const order = importOrderIn(doc);
if (!order) problems.push("has no `Import order: platform < ... < app.ts` line");
else {
  const named = new Set(order.flat());
  for (const room of ["platform", ...rooms, "app.ts"])
    if (!named.has(room)) problems.push(`import order leaves out ${room}`);
  // Tests may reach into any room to arrange what they check; the order binds the code that ships.
  const sources = (readdirSync(join(root, "src"), { recursive: true }) as string[])
    .map((path) =>
      relative(root, join(root, "src", path))
        .split("\\")
        .join("/"),
    )
    .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts") && !path.endsWith(".d.ts"));
  const modules: ModuleImports[] = sources.map((file) => ({
    file,
    imports: importsOf(file, readFileSync(join(root, file), "utf8"), (path) => existsSync(join(root, path))),
  }));
  problems.push(...importOrderProblems(modules, order));
}
// No room's door exports a drizzle table (docs/architecture.md, section 2).
for (const room of rooms) {
  const dir = join(root, "src", "features", room);
  const door = join(dir, "index.ts");
  if (!existsSync(door)) continue;
  const read = (specifier: string) => {
    const path = join(dir, `${specifier.replace(/\.(js|ts)$/, "")}.ts`);
    return existsSync(path) ? readFileSync(path, "utf8") : null;
  };
  problems.push(...doorTableExports(`src/features/${room}/index.ts`, readFileSync(door, "utf8"), read));
}

// Every path docs/architecture.md and wrangler.toml name is there (a moved file leaves no stale name).
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((file) => file && existsSync(join(root, file)));
const topLevel = new Set(files.map((file) => file.split("/")[0]!));
// Generated (ignored) files and packages count as there: `npm run openapi:types` writes one, npm the others.
const present = (path: string) =>
  existsSync(join(root, path)) ||
  existsSync(join(root, "node_modules", path)) ||
  spawnSync("git", ["check-ignore", "-q", "--no-index", path], { cwd: root }).status === 0;
const stale: string[] = [];
for (const [name, kind] of [
  ["docs/architecture.md", "markdown"],
  ["wrangler.toml", "toml"],
] as const) {
  const named = namedPaths(readFileSync(join(root, name), "utf8"), kind, topLevel);
  stale.push(...missingPaths(named, files, present).map((path) => `${name} names ${path}, which does not exist`));
}

// Every HTML page runs the Worker first, so it says which version answered (x-edgestay-version).
stale.push(
  ...pagesWithoutWorker(
    // Every page of the folder, the console's (snippet/console/index.html) too; the vendored
    // UIs have none of their own.
    (readdirSync(join(root, "snippet"), { recursive: true }) as string[]).map((path) => path.split("\\").join("/")),
    runWorkerFirstIn(readFileSync(join(root, "wrangler.toml"), "utf8")),
  ),
);

// Tests and sources import nothing from scripts/ (entry points only).
const under = (dir: string) =>
  (readdirSync(join(root, dir), { recursive: true }) as string[])
    .map((path) => `${dir}/${path.split("\\").join("/")}`)
    .filter((path) => path.endsWith(".ts"));
stale.push(
  ...scriptImports(
    [...under("src"), ...under("test")].map((file) => ({ file, text: readFileSync(join(root, file), "utf8") })),
    (path) => existsSync(join(root, path)),
  ),
);

if (problems.length > 0 || stale.length > 0) {
  if (problems.length > 0)
    console.error(`docs/architecture.md and the code disagree:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  if (stale.length > 0)
    console.error(
      `Stale names, pages the Worker does not answer, imports of scripts/:\n${stale.map((p) => `  - ${p}`).join("\n")}`,
    );
  process.exit(1);
}
console.log(
  `docs/architecture.md names all ${migrations.length} migrations and ${rooms.length} rooms; imports keep its order; every path it and wrangler.toml name exists; every page runs the Worker first; nothing under src/ or test/ imports scripts/.`,
);
