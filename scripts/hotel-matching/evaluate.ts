/**
 * Precision and recall of hotel mapping's `auto` decisions on the labelled set.
 *
 *   node --import tsx scripts/hotel-matching/evaluate.ts             # the training part (tuning)
 *   node --import tsx scripts/hotel-matching/evaluate.ts --held-out  # the held-out fifth (once, at the end)
 *
 * On the training part it also lists the wrong and the missed decisions, to tune by.
 */
import { parseArgs } from "node:util";
import { labelledHotels, scoreMatcher } from "../../test/support/hotel-matching";

const { values } = parseArgs({
  options: { "held-out": { type: "boolean", default: false }, verbose: { type: "boolean", default: false } },
});
const part = values["held-out"] ? "held-out" : "training";
const score = scoreMatcher(labelledHotels(part));
const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
console.log(
  `${part}: ${score.hotels} supplier hotels, ${score.ours} ours; auto ${score.auto} (${score.autoCorrect} right), review ${score.review}; ` +
    `precision ${pct(score.precision)}, recall ${pct(score.recall)}`,
);
if (part === "training" && values.verbose) {
  const show = ({ hotel, match }: (typeof score.wrong)[number]) =>
    `  ${hotel.kind} ${JSON.stringify(hotel.name)} expected ${hotel.expected} -> ${match.decision} ${JSON.stringify(match.candidates)}`;
  console.log(`wrong auto (${score.wrong.length}):\n${score.wrong.map(show).join("\n")}`);
  console.log(`missed (${score.missed.length}):\n${score.missed.map(show).join("\n")}`);
}
