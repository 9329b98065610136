/**
 * Old against new: the same searches (codes, geo, name) sent to the Worker at a git ref and to the
 * working tree, over copies of one bench dataset; answers must be equal once what depends on the
 * moment is masked (request id, response time, the signed part of option ids, and the deadline of a
 * non-refundable penalty, which is the moment of the search).
 *
 *   node --import tsx scripts/bench/compare-answers.ts --base <git ref> [--large]
 *
 * Run `npm run bench` (or `-- --large`) first: it builds the dataset in .wrangler/bench-<N>.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_ACCOMMODATIONS, LARGE_ACCOMMODATIONS } from "../../local/bootstrap";
import { root } from "../../local/platform";
import { startLocalServer } from "../../local/server";
import { accommodationCode } from "../../test/support/accommodations";
import { API_KEY_HEADERS, NEW_YORK, searchBody } from "./scenarios";

const { values } = parseArgs({ options: { base: { type: "string" }, large: { type: "boolean", default: false } } });
if (!values.base) throw new Error("--base <git ref> is required");
const accommodations = values.large ? LARGE_ACCOMMODATIONS : DEFAULT_ACCOMMODATIONS;
const dataset = join(root, ".wrangler", `bench-${accommodations}`);
if (!existsSync(dataset))
  throw new Error(`${dataset} is missing: run npm run bench${values.large ? " -- --large" : ""} first`);

const work = mkdtempSync(join(tmpdir(), "edgestay-compare-"));
const oldTree = join(work, "tree");
execFileSync("git", ["worktree", "add", "--detach", oldTree, values.base], { cwd: root, stdio: "ignore" });
symlinkSync(join(root, "node_modules"), join(oldTree, "node_modules"));
cpSync(join(root, ".dev.vars"), join(oldTree, ".dev.vars"));
cpSync(dataset, join(work, "old-state"), { recursive: true });
cpSync(dataset, join(work, "new-state"), { recursive: true });

const codes = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ code: accommodationCode(1 + Math.floor((i * accommodations) / n)) }));
const centres = [
  NEW_YORK,
  { lat: 34.05, lng: -118.24 },
  { lat: 41.88, lng: -87.63 },
  { lat: 29.76, lng: -95.37 },
  { lat: 47.61, lng: -122.33 },
];
const searches: Array<[string, unknown]> = [
  ...[1, 100, 1000].map(
    (n) => [`codes ${n}`, searchBody({ destinations: { accommodations: codes(n) } })] as [string, unknown],
  ),
  ...centres.flatMap((c) =>
    [{}, { limit: 100 }, { limit: 7, radiusKm: 5 }, { radiusKm: 60 }, { radiusKm: 0.5 }].map(
      (extra) =>
        [
          `geo ${c.lat},${c.lng} ${JSON.stringify(extra)}`,
          searchBody({ geo: { lat: c.lat, lng: c.lng, ...extra } }),
        ] as [string, unknown],
    ),
  ),
  ...["harbor", "ha", "inn", "Grand"].map(
    (name) => [`name ${name}`, searchBody({ accommodationName: name })] as [string, unknown],
  ),
];

const masked = (text: string) =>
  JSON.stringify(JSON.parse(text), (key, value) => {
    if (key === "requestId" || key === "responseTime") return "<moment>";
    if (key === "id" && typeof value === "string" && value.includes("~"))
      return `<signed>${value.slice(value.indexOf("~"))}`;
    return value;
  }).replace(
    /"penaltyType":"NON_REFUNDABLE","currency":"([A-Z]{3})","deadline":"[^"]+"/g,
    '"penaltyType":"NON_REFUNDABLE","currency":"$1","deadline":"<moment>"',
  );

const [before, after] = await Promise.all([
  startLocalServer(join(work, "old-state"), oldTree),
  startLocalServer(join(work, "new-state"), root),
]);
let differ = 0;
try {
  for (const [name, body] of searches) {
    const ask = async (base: string) => {
      const res = await fetch(`${base}/api/search`, {
        method: "POST",
        headers: API_KEY_HEADERS,
        body: JSON.stringify(body),
      });
      return { status: res.status, text: masked(await res.text()) };
    };
    const [a, b] = await Promise.all([ask(before.base), ask(after.base)]);
    const hotels = (JSON.parse(b.text).data?.accommodations ?? []).length;
    const same = a.status === b.status && a.text === b.text;
    if (!same) differ++;
    console.log(`${same ? "same" : "DIFFERENT"}  ${name}  (${b.status}, ${hotels} hotels, ${b.text.length} bytes)`);
  }
} finally {
  await Promise.all([before.stop(), after.stop()]);
  execFileSync("git", ["worktree", "remove", "--force", oldTree], { cwd: root, stdio: "ignore" });
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `\n${searches.length - differ} of ${searches.length} answers the same at ${values.base} and in the working tree (${accommodations} accommodations).`,
);
process.exit(differ ? 1 : 0);
