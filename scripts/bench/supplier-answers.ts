/**
 * Before against after for searches that suppliers answer (connections 1003 and 1002, through the
 * sandbox): the answers of a fixed set of searches, written to a file, then compared byte for byte
 * with the same searches of another build. What depends on the moment is masked: request id,
 * response time, the signed part of option ids (it signs the search's expiry), and a
 * non-refundable penalty's deadline (the moment of the search). Each run serves a fresh copy of
 * one bench dataset, so both sides start from the same data.
 *
 *   node --import tsx scripts/bench/supplier-answers.ts --save /tmp/before.json      # at the old build
 *   node --import tsx scripts/bench/supplier-answers.ts --against /tmp/before.json   # at the new one
 *
 * Run `npm run bench` first (it builds .wrangler/bench-2000); `--state` names another copy.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_ACCOMMODATIONS } from "../../local/bootstrap";
import { devVar, root } from "../../local/platform";
import { startLocalSandbox, startLocalServer } from "../../local/server";
import { accommodationCode } from "../../test/support/accommodations";
import { API_KEY_HEADERS, NEW_YORK, searchBody } from "./scenarios";
import { oneSandbox, pointSuppliersAtSandbox } from "./suppliers";
import { pointAtSandbox, upstreamScenarios } from "./upstream";

const { values } = parseArgs({
  options: { save: { type: "string" }, against: { type: "string" }, state: { type: "string" } },
});
if (!values.save === !values.against) throw new Error("give one of --save <file> or --against <file>");
const dataset = values.state ?? join(root, ".wrangler", `bench-${DEFAULT_ACCOMMODATIONS}`);
if (!existsSync(dataset)) throw new Error(`${dataset} is missing: run npm run bench first`);

const codes = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ code: accommodationCode(from + i) }));
const on = (code: number, extra: Record<string, unknown> = {}) => ({ access: { code }, ...extra });
const twoRooms = [
  { occupancyId: 1, paxes: [{ age: 30 }, { age: 30 }] },
  { occupancyId: 2, paxes: [{ age: 40 }, { age: 8 }] },
];
const withOccupancies = (body: ReturnType<typeof searchBody>, occupancies: unknown) => ({
  ...body,
  searchCriteria: { ...body.searchCriteria, occupancies },
});
const searches: Array<[string, unknown]> = [
  ["1003 codes 1-100", searchBody({ destinations: { accommodations: codes(1, 100) } }, on(1003))],
  ["1003 codes 1-25", searchBody({ destinations: { accommodations: codes(1, 25) } }, on(1003))],
  ["1003 codes 90-140", searchBody({ destinations: { accommodations: codes(90, 50) } }, on(1003))],
  [
    "1003 codes 1-40, includePriceBreakdown",
    searchBody({ destinations: { accommodations: codes(1, 40) } }, on(1003, { includePriceBreakdown: true })),
  ],
  [
    "1003 codes 1-40 in EUR",
    searchBody({ destinations: { accommodations: codes(1, 40) } }, on(1003, { currency: "EUR" })),
  ],
  [
    "1003 codes 1-40 in GBP, breakdown",
    searchBody(
      { destinations: { accommodations: codes(1, 40) } },
      on(1003, { currency: "GBP", includePriceBreakdown: true }),
    ),
  ],
  [
    "1003 codes 1-30, two rooms",
    withOccupancies(searchBody({ destinations: { accommodations: codes(1, 30) } }, on(1003)), twoRooms),
  ],
  [
    "1003 codes 1-30, two rooms, breakdown",
    withOccupancies(
      searchBody({ destinations: { accommodations: codes(1, 30) } }, on(1003, { includePriceBreakdown: true })),
      twoRooms,
    ),
  ],
  [
    "1003 codes 1-100, CHEAPEST",
    searchBody(
      { destinations: { accommodations: codes(1, 100) } },
      on(1003, { businessRules: { businessRuleType: "CHEAPEST" } }),
    ),
  ],
  [
    "1003 codes 1-60, suppliers iberbeds and albion",
    searchBody(
      { destinations: { accommodations: codes(1, 60) } },
      on(1003, { suppliers: [{ code: "iberbeds" }, { code: "albion" }] }),
    ),
  ],
  ["1003 geo New York", searchBody({ geo: { lat: NEW_YORK.lat, lng: NEW_YORK.lng, limit: 100 } }, on(1003))],
  // 1002: the bench's upstream row (the sandbox's own hotels, in our codes).
  ["1002 the upstream row's 100 codes", upstreamScenarios()[0]!.body],
  [
    "1002 the same, two rooms, breakdown",
    withOccupancies(
      {
        ...(upstreamScenarios()[0]!.body as ReturnType<typeof searchBody>),
        settings: on(1002, { includePriceBreakdown: true }),
      },
      twoRooms,
    ),
  ],
];

const masked = (text: string): string => {
  const answer = JSON.parse(text, (key, value) => (key === "requestId" || key === "responseTime" ? "<moment>" : value));
  for (const hotel of answer.data?.accommodations ?? [])
    for (const option of hotel.options) {
      option.id = String(option.id).replace(/^[^~]*/, "<signed>");
      for (const penalty of option.cancelPolicy?.cancelPenalties ?? [])
        if (penalty.penaltyType === "NON_REFUNDABLE") penalty.deadline = "<moment>";
    }
  return JSON.stringify(answer);
};

const work = mkdtempSync(join(tmpdir(), "edgestay-supplier-answers-"));
cpSync(dataset, work, { recursive: true });
const server = await startLocalServer(work);
const sandbox = await startLocalSandbox(work);
const answers: Record<string, { status: number; options: number; body: string }> = {};
try {
  await pointAtSandbox(server.base, sandbox.base, devVar("OPERATOR_TOKEN"));
  await pointSuppliersAtSandbox(server.base, oneSandbox(sandbox.base), devVar("OPERATOR_TOKEN"));
  for (const [name, body] of searches) {
    const res = await fetch(`${server.base}/api/search`, {
      method: "POST",
      headers: { ...API_KEY_HEADERS, "accept-encoding": "identity" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const options = (JSON.parse(text).data?.accommodations ?? []).reduce(
      (n: number, h: { options: unknown[] }) => n + h.options.length,
      0,
    );
    answers[name] = { status: res.status, options, body: masked(text) };
  }
} finally {
  await Promise.all([server.stop(), sandbox.stop()]);
  rmSync(work, { recursive: true, force: true });
}

if (values.save) {
  writeFileSync(values.save, JSON.stringify(answers));
  for (const [name, a] of Object.entries(answers))
    console.log(`${name}: ${a.status}, ${a.options} options, ${a.body.length} bytes`);
} else {
  const before = JSON.parse(readFileSync(values.against!, "utf8")) as typeof answers;
  let differ = 0;
  for (const [name, a] of Object.entries(answers)) {
    const old = before[name];
    const same = old !== undefined && old.status === a.status && old.body === a.body;
    if (!same) differ++;
    console.log(
      `${same ? "same" : "DIFFERENT"}  ${name}: ${a.status}, ${a.options} options, ${a.body.length} bytes${old ? "" : " (not in the earlier capture)"}`,
    );
  }
  console.log(
    `\n${searches.length - differ} of ${searches.length} answers byte-identical (masked) to ${values.against}`,
  );
  process.exit(differ ? 1 : 0);
}
