/**
 * Precision and recall of hotel mapping's `auto` decisions on the labelled set.
 *
 *   node --import tsx scripts/hotel-matching/evaluate.ts             # the training part (tuning)
 *   node --import tsx scripts/hotel-matching/evaluate.ts --held-out  # the held-out fifth (once, at the end)
 *   node --import tsx scripts/hotel-matching/evaluate.ts --sandbox   # the sandbox suppliers' lists (never tuned on)
 *
 * `--sandbox` reads the hotel lists and truth hotel maps of sandbox/hotelx/fixtures/<supplier>/
 * (written by another hand than the matcher's), labelled by the truth map. On the training part
 * `--verbose` lists the wrong and the missed decisions, to tune by.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type LabelledHotel, labelledHotels, scoreMatcher } from "../../test/support/hotel-matching";

const { values } = parseArgs({
  options: {
    "held-out": { type: "boolean", default: false },
    sandbox: { type: "boolean", default: false },
    verbose: { type: "boolean", default: false },
  },
});
const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
const report = (part: string, hotels: LabelledHotel[]) => {
  const score = scoreMatcher(hotels);
  console.log(
    `${part}: ${score.hotels} supplier hotels, ${score.ours} ours; auto ${score.auto} (${score.autoCorrect} right), review ${score.review}; ` +
      `precision ${pct(score.precision)}, recall ${pct(score.recall)}`,
  );
  return score;
};

type SandboxHotel = {
  code: string;
  name: string;
  address: string | null;
  postalCode: string | null;
  city: string | null;
  countryCode: string | null;
  latitude: number;
  longitude: number;
};
const sandboxLists = () => {
  const dir = join(import.meta.dirname, "../../sandbox/hotelx/fixtures");
  if (!existsSync(dir)) throw new Error(`${dir}: no sandbox suppliers' fixtures`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "hotel-map.json")))
    .map((d) => {
      const read = <T>(file: string) => JSON.parse(readFileSync(join(dir, d.name, file), "utf8")) as T;
      const truth = new Map(
        read<Array<{ supplierHotelCode: string; accommodationCode: string }>>("hotel-map.json").map((r) => [
          r.supplierHotelCode,
          r.accommodationCode,
        ]),
      );
      const hotels = read<SandboxHotel[]>("hotels.json").map(
        (h): LabelledHotel => ({
          supplierHotelCode: h.code,
          name: h.name,
          latitude: h.latitude,
          longitude: h.longitude,
          ...(h.address ? { address: h.address } : {}),
          ...(h.postalCode ? { postalCode: h.postalCode } : {}),
          ...(h.city ? { city: h.city } : {}),
          ...(h.countryCode ? { countryCode: h.countryCode } : {}),
          expected: truth.get(h.code) ?? null,
          kind: truth.has(h.code) ? "match" : "absent",
        }),
      );
      return { supplier: d.name, hotels };
    });
};

if (values.sandbox) {
  // Each list on its own (a map is one-to-one per supplier), then the lists summed.
  const scores = sandboxLists().map(({ supplier, hotels }) => report(`sandbox ${supplier}`, hotels));
  const sum = (of: (score: (typeof scores)[number]) => number) => scores.reduce((n, score) => n + of(score), 0);
  const [auto, right, ours] = [sum((s) => s.auto), sum((s) => s.autoCorrect), sum((s) => s.ours)];
  console.log(
    `sandbox, the ${scores.length} summed: ${sum((s) => s.hotels)} supplier hotels, ${ours} ours; auto ${auto} (${right} right); ` +
      `precision ${pct(auto === 0 ? 1 : right / auto)}, recall ${pct(ours === 0 ? 1 : right / ours)}`,
  );
} else {
  const part = values["held-out"] ? "held-out" : "training";
  const score = report(part, labelledHotels(part));
  if (part === "training" && values.verbose) {
    const show = ({ hotel, match }: (typeof score.wrong)[number]) =>
      `  ${hotel.kind} ${JSON.stringify(hotel.name)} expected ${hotel.expected} -> ${match.decision} ${JSON.stringify(match.candidates)}`;
    console.log(`wrong auto (${score.wrong.length}):\n${score.wrong.map(show).join("\n")}`);
    console.log(`missed (${score.missed.length}):\n${score.missed.map(show).join("\n")}`);
  }
}
