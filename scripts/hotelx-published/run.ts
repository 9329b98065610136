/**
 * Where the published Hotel-X documents stand (issue 40 item 3): sends each document collected in
 * test/fixtures/hotelx-published through POST /api/graphql of a running Worker (npm start), on
 * connections 1001 and 1002, and prints per document `pass` or the first error. A report, not a test.
 *
 *   node --import tsx scripts/hotelx-published/run.ts [--url http://127.0.0.1:8787] [--key demo-partner-key]
 *
 * The variables change only through the overlay issue 40 allows a partner: hotel codes, dates,
 * option ids, references and access codes. Each document is sent as a Hotel-X client sends it
 * (`Authorization: Apikey <key>`, no Edgestay header), then once more with Edgestay's `access-code`
 * header, to tell the routing gap apart from the rest. Option ids, quotes and bookings the overlay
 * needs are made beforehand through /api/*\/tgx (their bodies are ours, not under test).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: { url: { type: "string" }, key: { type: "string" } },
});
const base = (args.url ?? process.env.EDGESTAY_URL ?? "http://127.0.0.1:8787").replace(/\/$/, "");
const key = args.key ?? "demo-partner-key";
const dir = join(import.meta.dirname, "../../test/fixtures/hotelx-published");
const read = (file: string) => readFileSync(join(dir, file), "utf8");

// biome-ignore lint/suspicious/noExplicitAny: the untyped JSON of published variables and of a running Worker's answers
type Json = Record<string, any>;
/** What the overlay may set, per connection, from the objects made beforehand. */
type Facts = {
  code: number;
  hotel: string;
  checkIn: string;
  checkOut: string;
  optionId: string;
  quoteId: string;
  read: Booking;
  cancelById: Booking;
  cancelByReference: Booking;
};
type Booking = { bookingID: string; client: string; supplier: string | null };

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** The overlay: each key the issue allows, wherever it sits in a document's variables. */
const overlay = (value: unknown, facts: Facts, parent = ""): unknown => {
  if (Array.isArray(value)) return value.map((item) => overlay(item, facts, parent));
  if (!value || typeof value !== "object") return value;
  const out: Json = {};
  for (const [name, v] of Object.entries(value as Json)) {
    const here = `${parent}.${name}`;
    if (name === "hotels") out[name] = (v as unknown[]).map(() => facts.hotel).slice(0, 1);
    else if (name === "checkIn") out[name] = facts.checkIn;
    else if (name === "checkOut") out[name] = facts.checkOut;
    else if (name === "hotelCode") out[name] = facts.hotel;
    else if (name === "accessCode") out[name] = String(facts.code);
    else if (here.endsWith("access.includes")) out[name] = [String(facts.code)];
    else if (name === "optionRefId") out[name] = parent.endsWith("criteriaQuote") ? facts.optionId : facts.quoteId;
    else if (name === "clientReference") out[name] = `PUB-${crypto.randomUUID()}`;
    else if (name === "bookingID")
      out[name] = parent.endsWith("cancelInput") ? facts.cancelById.bookingID : facts.read.bookingID;
    else if (here.endsWith("dates.start")) out[name] = day(-1);
    else if (here.endsWith("dates.end")) out[name] = day(40);
    else if (parent.endsWith("cancelInput.reference") && name === "supplier")
      out[name] = facts.cancelByReference.supplier ?? facts.cancelByReference.client;
    else if (here.endsWith("references.references"))
      out[name] = [{ client: facts.read.client, ...(facts.read.supplier ? { supplier: facts.read.supplier } : {}) }];
    else out[name] = overlay(v, facts, here);
  }
  return out;
};

/** Each collected document with the published variables it is run with (none: the integration's own shape). */
const cases: { document: string; variables: string | ((facts: Facts) => Json); operation: string }[] = [
  ...[
    "search.quickstart",
    "search.without-filter",
    "search.one-access",
    "search.two-rooms",
    "search.multiple-hotels",
  ].map((v) => ({
    document: "tgx-docs/search.quickstart.graphql",
    variables: `tgx-docs/${v}.variables.json`,
    operation: "search",
  })),
  {
    document: "tgx-docs/search.multiplehotels.graphql",
    variables: "tgx-docs/search.multiplehotels.variables.json",
    operation: "search",
  },
  {
    document: "tgx-docs/quote.quickstart.graphql",
    variables: "tgx-docs/quote.quickstart.variables.json",
    operation: "quote",
  },
  {
    document: "tgx-docs/book.quickstart.graphql",
    variables: "tgx-docs/book.quickstart.variables.json",
    operation: "book",
  },
  ...["by-booking-id", "by-reference", "by-arrival-dates", "by-booking-dates"].map((v) => ({
    document: "tgx-docs/booking.read.graphql",
    variables: `tgx-docs/booking.${v}.variables.json`,
    operation: "booking",
  })),
  ...["by-booking-id", "by-reference"].map((v) => ({
    document: "tgx-docs/cancel.graphql",
    variables: `tgx-docs/cancel.${v}.variables.json`,
    operation: "cancel",
  })),
  // The Angular client builds its variables in code: these follow the shapes its documents declare.
  {
    document: "hotelx-angular-sample/avail.graphql",
    operation: "search",
    variables: (f) => ({
      criteria: {
        checkIn: f.checkIn,
        checkOut: f.checkOut,
        hotels: [f.hotel],
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
      },
      settings: { context: "HOTELTEST", client: "client_demo", testMode: true },
      filter: { access: { includes: [String(f.code)] } },
    }),
  },
  {
    document: "hotelx-angular-sample/quote.graphql",
    operation: "quote",
    variables: (f) => ({
      optionRefId: f.optionId,
      language: "en",
      settings: { client: "client_demo", testMode: true },
    }),
  },
  {
    document: "hotelx-angular-sample/booking.graphql",
    operation: "booking",
    variables: (f) => ({
      criteriaBooking: {
        accessCode: String(f.code),
        typeSearch: "REFERENCES",
        references: { hotelCode: f.hotel, currency: "EUR", references: [{ client: f.read.client }] },
      },
      settings: { client: "client_demo", testMode: true },
    }),
  },
  {
    document: "hotelx-angular-sample/book.graphql",
    operation: "book",
    variables: (f) => ({
      input: {
        optionRefId: f.quoteId,
        clientReference: `PUB-${crypto.randomUUID()}`,
        holder: { name: "Jane", surname: "Doe" },
        rooms: [
          {
            occupancyRefId: 1,
            paxes: [
              { name: "Jane", surname: "Doe", age: 30 },
              { name: "John", surname: "Smith", age: 30 },
            ],
          },
        ],
      },
      settings: { client: "client_demo", testMode: true },
    }),
  },
  {
    document: "hotelx-angular-sample/cancel-booking.graphql",
    operation: "cancel",
    variables: (f) => ({
      input: { accessCode: String(f.code), hotelCode: f.hotel, reference: { client: f.cancelByReference.client } },
      settings: { client: "client_demo", testMode: true },
    }),
  },
];

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

/** Setup through the REST Hotel-X routes (our bodies): an option, a quote and three bookings. */
const prepare = async (code: number, hotel: string): Promise<Facts> => {
  const checkIn = day(30);
  const checkOut = day(31);
  const settings = { access: { code } };
  const criteria = { checkIn, checkOut, hotels: [hotel], occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }] };
  const option = async () => {
    const res = await post("/api/search/tgx", { criteria, settings });
    const found = res.json?.data?.hotelX?.search?.options?.find((o: Json) => o.cancelPolicy?.refundable);
    if (!found) throw new Error(`setup search on ${code}: ${res.status} ${res.text.slice(0, 300)}`);
    return found as Json;
  };
  const quote = async (optionRefId: string) => {
    const res = await post("/api/quote/tgx", { criteria: { optionRefId }, settings });
    const id = res.json?.data?.hotelX?.quote?.optionQuote?.optionRefId;
    if (!id) throw new Error(`setup quote on ${code}: ${res.status} ${res.text.slice(0, 300)}`);
    return id as string;
  };
  const book = async (): Promise<Booking> => {
    const picked = await option();
    const client = `PUB-${crypto.randomUUID()}`;
    const res = await post("/api/book/tgx", {
      input: {
        optionRefId: await quote(picked.id),
        clientReference: client,
        holder: { name: "Jane", surname: "Doe" },
        rooms: picked.occupancies.map((o: Json) => ({
          occupancyRefId: o.id,
          paxes: o.paxes.map((p: Json, i: number) => ({ name: `Guest${i}`, surname: "Doe", age: p.age })),
        })),
      },
      settings,
    });
    const reference = res.json?.data?.hotelX?.book?.booking?.reference;
    if (!reference?.bookingID) throw new Error(`setup book on ${code}: ${res.status} ${res.text.slice(0, 300)}`);
    return { bookingID: reference.bookingID, client, supplier: reference.supplier ?? null };
  };
  const searched = await option();
  return {
    code,
    hotel,
    checkIn,
    checkOut,
    optionId: (await option()).id,
    quoteId: await quote(searched.id),
    read: await book(),
    cancelById: await book(),
    cancelByReference: await book(),
  };
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
  { code: 1001, hotel: "US000001" },
  { code: 1002, hotel: "HX001" },
];
const results = new Map<string, { plain?: string; routed?: string }>();
let passed = 0;
let runs = 0;
for (const { code, hotel } of connections) {
  // Each way of sending gets its own option, quote and bookings: a cancel of one does not spoil the other.
  for (const way of ["plain", "routed"] as const) {
    const facts = await prepare(code, hotel);
    const headers: Record<string, string> = way === "routed" ? { "access-code": String(code) } : {};
    for (const item of cases) {
      const query = read(item.document);
      const variables =
        typeof item.variables === "string"
          ? (overlay(JSON.parse(read(item.variables)), facts) as Json)
          : item.variables(facts);
      const name = `${code}  ${item.document} + ${typeof item.variables === "string" ? item.variables : "(the integration's variables shape)"}`;
      const result = verdict(await post("/api/graphql", { query, variables }, headers), item.operation);
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
