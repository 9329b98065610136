import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../local/platform";
import { architectureDocGaps } from "./lint-rules/architecture-doc";

// docs/architecture.md must name every migration and room, so neither is added unsaid.
const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
const migrations = readdirSync(join(root, "migrations"))
  .filter((name) => name.endsWith(".sql"))
  .map((name) => name.slice(0, -".sql".length))
  .sort();
const rooms = readdirSync(join(root, "src", "features"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const missing = architectureDocGaps(doc, migrations, rooms);
if (missing.length > 0) {
  console.error(`docs/architecture.md does not name:\n${missing.map((m) => `  - ${m}`).join("\n")}`);
  process.exit(1);
}
console.log(`docs/architecture.md names all ${migrations.length} migrations and ${rooms.length} rooms.`);
