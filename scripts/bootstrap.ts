import { parseArgs } from "node:util";
import { bootstrap, DEFAULT_ACCOMMODATIONS, LARGE_ACCOMMODATIONS } from "../local/bootstrap";

// npm run seed (and the first step of npm start): `--large` or `--accommodations <n>` says how many.
const accommodationCountFromArgs = (args: string[]) => {
  const { values } = parseArgs({
    args,
    options: { large: { type: "boolean", default: false }, accommodations: { type: "string" } },
  });
  if (values.accommodations !== undefined) {
    const n = Number(values.accommodations);
    if (!Number.isInteger(n) || n < 1 || n > 999_999)
      throw new Error("--accommodations takes a whole number from 1 to 999999");
    return n;
  }
  return values.large ? LARGE_ACCOMMODATIONS : DEFAULT_ACCOMMODATIONS;
};

await bootstrap(accommodationCountFromArgs(process.argv.slice(2)));
