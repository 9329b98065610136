import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "../local/platform";

// docs/architecture.md must name every migration (its file name without `.sql`) and give every room
// (directory of src/features) its entry, `**<room>**` under "Rooms", so neither is added unsaid.
const docPath = join(root, "docs", "architecture.md");
const doc = readFileSync(docPath, "utf8");
const migrations = readdirSync(join(root, "migrations"))
  .filter((name) => name.endsWith(".sql"))
  .map((name) => name.slice(0, -".sql".length))
  .sort();
const rooms = readdirSync(join(root, "src", "features"), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

// Whole words only: `0001_partners` is not named by `0001_partners_custom`.
const words = new Set(doc.match(/\w+/g) ?? []);
const missing = [
  ...migrations.filter((name) => !words.has(name)).map((name) => `migration ${name} (migrations/${name}.sql)`),
  ...rooms.filter((name) => !doc.includes(`**${name}**`)).map((name) => `room **${name}** (src/features/${name}/)`),
];
if (missing.length > 0) {
  console.error(`docs/architecture.md does not name:\n${missing.map((m) => `  - ${m}`).join("\n")}`);
  process.exit(1);
}
console.log(`docs/architecture.md names all ${migrations.length} migrations and ${rooms.length} rooms.`);
