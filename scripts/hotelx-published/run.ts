/**
 * Where the published Hotel-X documents stand (issue 40 item 3): sends each document collected in
 * test/fixtures/hotelx-published through POST /api/graphql of a running Worker (npm start), on
 * connections 1001 and 1002, and prints per document `pass` or the first error. A report, not a test.
 *
 *   node --import tsx scripts/hotelx-published/run.ts [--url http://127.0.0.1:8787] [--key demo-partner-key]
 *
 * The variables change only through the overlay issue 40 allows a partner (test/support/hotelx-published.ts,
 * shared with the workerd test in src/features/hotelx-api/tgx-flow.test.ts): hotel codes, dates,
 * option ids, references and access codes. Each document is sent as a Hotel-X client sends it
 * (`Authorization: Apikey <key>`, no Edgestay header), then once more with Edgestay's `access-code`
 * header, to tell the routing gap apart from the rest. Option ids, quotes and bookings the overlay
 * needs are made beforehand through /api/*\/tgx (their bodies are ours, not under test).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  type Needs,
  PUBLISHED_CASES,
  type PublishedFacts,
  publishedVariables,
} from "../../test/support/hotelx-published";

const { values: args } = parseArgs({
  options: { url: { type: "string" }, key: { type: "string" } },
});
const base = (args.url ?? process.env.EDGESTAY_URL ?? "http://127.0.0.1:8787").replace(/\/$/, "");
const key = args.key ?? "demo-partner-key";
const dir = join(import.meta.dirname, "../../test/fixtures/hotelx-published");
const read = (file: string) => readFileSync(join(dir, file), "utf8");

// biome-ignore lint/suspicious/noExplicitAny: the untyped JSON of a running Worker's answers
type Json = Record<string, any>;

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Apikey ${key}`, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text };
};

/** Setup through the REST Hotel-X routes (our bodies): the option, quote or booking a run's overlay names. */
const prepare = async (code: number, hotels: string[], needs: Needs): Promise<PublishedFacts> => {
  const facts: PublishedFacts = {
    code,
    hotels,
    checkIn: day(30),
    checkOut: day(31),
    from: day(-1),
    to: day(40),
    clientReference: `PUB-${crypto.randomUUID()}`,
  };
  if (needs === "nothing") return facts;
  const settings = { access: { code } };
  const criteria = {
    checkIn: facts.checkIn,
    checkOut: facts.checkOut,
    hotels: [hotels[0]],
    occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
  };
  const searched = await post("/api/search/tgx", { criteria, settings });
  const option = searched.json?.data?.hotelX?.search?.options?.find((o: Json) => o.cancelPolicy?.refundable);
  if (!option) throw new Error(`setup search on ${code}: ${searched.status} ${searched.text.slice(0, 300)}`);
  facts.optionId = option.id;
  if (needs === "option") return facts;
  const quoted = await post("/api/quote/tgx", { criteria: { optionRefId: option.id }, settings });
  facts.quoteId = quoted.json?.data?.hotelX?.quote?.optionQuote?.optionRefId;
  if (!facts.quoteId) throw new Error(`setup quote on ${code}: ${quoted.status} ${quoted.text.slice(0, 300)}`);
  if (needs === "quote") return facts;
  const client = `PUB-${crypto.randomUUID()}`;
  const booked = await post("/api/book/tgx", {
    input: {
      optionRefId: facts.quoteId,
      clientReference: client,
      holder: { name: "Jane", surname: "Doe" },
      rooms: option.occupancies.map((o: Json) => ({
        occupancyRefId: o.id,
        paxes: o.paxes.map((p: Json, i: number) => ({ name: `Guest${i}`, surname: "Doe", age: p.age })),
      })),
    },
    settings,
  });
  const reference = booked.json?.data?.hotelX?.book?.booking?.reference;
  if (!reference?.bookingID) throw new Error(`setup book on ${code}: ${booked.status} ${booked.text.slice(0, 300)}`);
  facts.booking = { bookingID: reference.bookingID, client, supplier: reference.supplier ?? null };
  return facts;
};

/** pass, or the first error: the envelope's, GraphQL's, or the payload's Hotel-X error. */
const verdict = (res: Awaited<ReturnType<typeof post>>, operation: string): string => {
  if (!res.json) return `HTTP ${res.status}: ${res.text.slice(0, 200)}`;
  if (res.json.errors?.length) {
    const [first] = res.json.errors;
    return `GraphQL error: ${first.message}${first.extensions?.code ? ` (${first.extensions.code})` : ""}`;
  }
  if (res.status !== 200)
    return `HTTP ${res.status} ${res.json.code ?? ""}: ${res.json.message ?? res.text.slice(0, 200)}`;
  const payload = res.json.data?.hotelX?.[operation];
  if (!payload) return `no data.hotelX.${operation}`;
  if (payload.errors?.length) return `payload error: ${payload.errors[0].code}: ${payload.errors[0].description}`;
  return "pass";
};

const connections = [
  { code: 1001, hotels: ["US000001", "US000002"] },
  { code: 1002, hotels: ["HX001", "HX002"] },
];
const results = new Map<string, { plain?: string; routed?: string }>();
let passed = 0;
let runs = 0;
for (const { code, hotels } of connections) {
  for (const way of ["plain", "routed"] as const) {
    const headers: Record<string, string> = way === "routed" ? { "access-code": String(code) } : {};
    for (const item of PUBLISHED_CASES) {
      // Each run gets its own option, quote or booking: a cancel of one does not spoil another.
      const facts = await prepare(code, hotels, item.needs);
      const variables = publishedVariables(item, facts, read);
      const name = `${code}  ${item.name}`;
      const result = verdict(
        await post("/api/graphql", { query: read(item.document), variables }, headers),
        item.operation,
      );
      results.set(name, { ...results.get(name), [way]: result });
      if (way === "plain") {
        runs++;
        if (result === "pass") passed++;
      }
    }
  }
}
for (const [name, { plain, routed }] of results)
  console.log(`${name}\n      as published: ${plain}\n      with access-code header: ${routed}`);
console.log(`\n${passed} of ${runs} runs pass as published (${base}).`);
