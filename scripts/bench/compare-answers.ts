/**
 * Old against new: the same searches (codes, geo, name) sent to the Worker at a git ref and to the
 * working tree, over copies of one bench dataset; answers must be equal once what depends on the
 * moment is masked (request id, response time, the signed part of option ids, and the deadline of a
 * non-refundable penalty, which is the moment of the search).
 *
 * Since issue 38 the working tree answers each search twice. With `settings.includePriceBreakdown:
 * true` it must give the old answer byte for byte. By default it must give the old answer as the
 * lighter form shows it (`listedForm`: no nights, each charge once, rooms with totals), and every
 * total of every option and room the same to the cent. Option ids are compared by product and
 * total in minor units (a ref before issue 38 writes the total in major units).
 *
 *   node --import tsx scripts/bench/compare-answers.ts --base <git ref> [--large]
 *
 * Run `npm run bench` (or `-- --large`) first: it builds the dataset in .wrangler/bench-<N>. Build it
 * at the base ref when the change adds migrations: the new state gets the working tree's migrations here.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { bootstrap, DEFAULT_ACCOMMODATIONS, LARGE_ACCOMMODATIONS } from "../../local/bootstrap";
import { root } from "../../local/platform";
import { startLocalServer } from "../../local/server";
import { accommodationCode } from "../../test/support/accommodations";
import { toMinor } from "../../src/platform/money";
import { API_KEY_HEADERS, NEW_YORK, searchBody } from "./scenarios";
import { canonical, listedForm, totalsDiffer, withPriceBreakdown } from "./search-answers";

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
// The working tree's migrations the dataset lacks (a dataset built at the base ref, which the old
// Worker must be able to read), applied to the new state as a deploy applies them to D1.
await bootstrap(accommodations, join(work, "new-state"));

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

/** An option id as `<signed>~<product>~<total in minor units>[~supplier]`, whichever version wrote it. */
const maskedId = (id: string, currency: string) => {
  const [signed, hotel, room, plan, total, ...supplier] = id.split("~");
  // Version 4 (before issue 38) signed base64url JSON and wrote the total in major units.
  const minor = signed!.startsWith("eyJ") ? toMinor(Number(total), currency) : Number(total);
  return ["<signed>", hotel, room, plan, minor, ...supplier].join("~");
};

const masked = (text: string): any => {
  const answer = JSON.parse(text, (key, value) => (key === "requestId" || key === "responseTime" ? "<moment>" : value));
  for (const hotel of answer.data?.accommodations ?? [])
    for (const option of hotel.options) {
      option.id = maskedId(option.id, option.rate.currency);
      for (const penalty of option.cancelPolicy.cancelPenalties)
        if (penalty.penaltyType === "NON_REFUNDABLE") penalty.deadline = "<moment>";
    }
  return answer;
};

const payAtPropertyRates = (answer: any): any[] =>
  (answer.data?.accommodations ?? []).flatMap((hotel: any) =>
    hotel.options
      .filter((o: any) => o.paymentType === "PayAtProperty")
      .flatMap((o: any) => [o.rate, ...o.rooms.map((r: any) => r.rate)]),
  );

/** The answer with every PayAtProperty rate's nights left out (a copy). */
const withoutPayAtPropertyNights = (answer: any): any => {
  const copy = structuredClone(answer);
  for (const rate of payAtPropertyRates(copy)) rate.nights = "<payAtProperty>";
  return copy;
};

/**
 * How many PayAtProperty rates have nights in the property's currency summing to their
 * dueAtProperty's ROOM line (bases) and other lines (taxes and fees), to the minor unit; null if one does not.
 */
const payAtPropertyNightsFixed = (answer: any): number | null => {
  let fixed = 0;
  for (const rate of payAtPropertyRates(answer)) {
    const due = rate.dueAtProperty;
    const cents = (n: number) => toMinor(n, due.currency);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    const room = sum(due.charges.filter((c: any) => c.type === "ROOM").map((c: any) => cents(c.amount)));
    const others = sum(due.charges.filter((c: any) => c.type !== "ROOM").map((c: any) => cents(c.amount)));
    const ok =
      rate.nights.every((n: any) => n.currency === due.currency) &&
      sum(rate.nights.map((n: any) => cents(n.baseRate))) === room &&
      sum(rate.nights.map((n: any) => cents(n.taxesAndFees))) === others;
    if (!ok) return null;
    fixed++;
  }
  return fixed;
};

const [before, after] = await Promise.all([
  startLocalServer(join(work, "old-state"), oldTree),
  startLocalServer(join(work, "new-state"), root),
]);
let differ = 0;
try {
  for (const [name, body] of searches) {
    const ask = async (base: string, sent: unknown) => {
      const res = await fetch(`${base}/api/search`, {
        method: "POST",
        headers: API_KEY_HEADERS,
        body: JSON.stringify(sent),
      });
      const text = await res.text();
      return { status: res.status, bytes: Buffer.byteLength(text), answer: masked(text) };
    };
    const [old, listed, whole] = await Promise.all([
      ask(before.base, body),
      ask(after.base, body),
      ask(after.base, withPriceBreakdown(body)),
    ]);
    const statuses = old.status === listed.status && old.status === whole.status;
    // Issue 38's fix: a PayAtProperty rate's nights carry their price (they were 0): compared apart.
    const nightsFixed = payAtPropertyNightsFixed(whole.answer);
    const wholeSame =
      statuses &&
      nightsFixed !== null &&
      JSON.stringify(withoutPayAtPropertyNights(old.answer)) ===
        JSON.stringify(withoutPayAtPropertyNights(whole.answer));
    const listedSame = statuses && canonical(listedForm(old.answer)) === canonical(listed.answer);
    const totals = totalsDiffer(old.answer, listed.answer);
    const same = wholeSame && listedSame && totals === 0;
    if (!same) differ++;
    const hotels = (listed.answer.data?.accommodations ?? []).length;
    console.log(
      `${same ? "same" : "DIFFERENT"}  ${name}  (${listed.status}, ${hotels} hotels; breakdown ${wholeSame ? "byte-identical" : "DIFFERENT"} (PayAtProperty nights: ${nightsFixed ?? "NOT"} summing to dueAtProperty), default ${listedSame ? "the listed form" : "DIFFERENT"}, ${totals} options with another total; ${old.bytes} bytes before, ${listed.bytes} by default: ${((1 - listed.bytes / old.bytes) * 100).toFixed(1)} % smaller)`,
    );
  }
} finally {
  await Promise.all([before.stop(), after.stop()]);
  execFileSync("git", ["worktree", "remove", "--force", oldTree], { cwd: root, stdio: "ignore" });
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `\n${searches.length - differ} of ${searches.length} answers the same at ${values.base} and in the working tree (${accommodations} accommodations): with includePriceBreakdown byte for byte but for PayAtProperty nights (issue 38: now priced, summing to dueAtProperty), by default in the listed form with every total to the cent.`,
);
process.exit(differ ? 1 : 0);
