/**
 * The collected published Hotel-X documents (test/fixtures/hotelx-published) as runs: each document
 * with the variables it is sent with, and the overlay issue 40 allows a partner (hotel codes, dates,
 * option ids, references and access codes; nothing else changes). Shared by the workerd test
 * (src/features/hotelx-api/tgx-flow.test.ts) and the report script (scripts/hotelx-published/run.ts).
 */

/** The untyped JSON of published variables. */
type Json = Record<string, any>;

/** A booking the overlay names: its Edgestay bookingID and the partner's and supplier's references. */
export type PublishedBooking = { bookingID: string; client: string; supplier: string | null };

/** What the overlay may set, made beforehand on one connection through /api/*\/tgx (our bodies, not under test). */
export type PublishedFacts = {
  code: number;
  /** The connection's hotels, each published hotel code replaced by one of them in turn. */
  hotels: string[];
  checkIn: string;
  checkOut: string;
  /** The window read by dates (ARRIVAL or BOOKING), around the booking. */
  from: string;
  to: string;
  optionId?: string;
  quoteId?: string;
  booking?: PublishedBooking;
  /** A fresh client reference per run: a published one would be a duplicate the second time. */
  clientReference: string;
};

/** What a run needs made beforehand. */
export type Needs = "nothing" | "option" | "quote" | "booking";

export type PublishedCase = {
  name: string;
  document: string;
  /** A fixture's file, or (the Angular client builds its variables in code) the shape its documents declare. */
  variables: string | ((facts: PublishedFacts) => Json);
  operation: "search" | "quote" | "book" | "booking" | "cancel";
  needs: Needs;
  /** Its variables name no access: a search on every `tgx` connection of the partner, as Hotel-X runs every access. */
  everyAccess?: true;
};

const need = <K extends "optionId" | "quoteId" | "booking">(f: PublishedFacts, key: K) => {
  const value = f[key];
  if (value === undefined) throw new Error(`the overlay needs ${key}, not made for this run`);
  return value as NonNullable<PublishedFacts[K]>;
};

/** The overlay: each key the issue allows, wherever it sits in a document's variables. */
export const overlay = (value: unknown, f: PublishedFacts, parent = ""): unknown => {
  if (Array.isArray(value)) return value.map((item) => overlay(item, f, parent));
  if (!value || typeof value !== "object") return value;
  const out: Json = {};
  for (const [name, v] of Object.entries(value as Json)) {
    const here = `${parent}.${name}`;
    if (name === "hotels") out[name] = (v as unknown[]).map((_, i) => f.hotels[i % f.hotels.length]);
    else if (name === "checkIn") out[name] = f.checkIn;
    else if (name === "checkOut") out[name] = f.checkOut;
    else if (name === "hotelCode") out[name] = f.hotels[0];
    else if (name === "accessCode") out[name] = String(f.code);
    else if (here.endsWith("access.includes")) out[name] = [String(f.code)];
    else if (name === "optionRefId")
      out[name] = parent.endsWith("criteriaQuote") ? need(f, "optionId") : need(f, "quoteId");
    else if (name === "clientReference") out[name] = f.clientReference;
    else if (name === "bookingID") out[name] = need(f, "booking").bookingID;
    else if (here.endsWith("dates.start")) out[name] = f.from;
    else if (here.endsWith("dates.end")) out[name] = f.to;
    else if (parent.endsWith("cancelInput.reference") && name === "supplier") {
      const booking = need(f, "booking");
      out[name] = booking.supplier ?? booking.client;
    } else if (here.endsWith("references.references")) {
      const booking = need(f, "booking");
      out[name] = [{ client: booking.client, ...(booking.supplier ? { supplier: booking.supplier } : {}) }];
    } else out[name] = overlay(v, f, here);
  }
  return out;
};

const tgxDocs = (
  operation: PublishedCase["operation"],
  document: string,
  needs: Needs,
  variables: string[],
): PublishedCase[] =>
  variables.map((v) => ({
    name: `${document} + ${v}`,
    document: `tgx-docs/${document}`,
    variables: `tgx-docs/${v}`,
    operation,
    needs,
  }));

const angular = { client: "client_demo", testMode: true };

/** Every collected document with the variables it runs with, in the order a partner's flow meets them. */
export const PUBLISHED_CASES: PublishedCase[] = [
  ...tgxDocs("search", "search.quickstart.graphql", "nothing", ["search.quickstart.variables.json"]),
  ...tgxDocs("search", "search.quickstart.graphql", "nothing", ["search.without-filter.variables.json"]).map(
    (item) => ({ ...item, everyAccess: true as const }),
  ),
  ...tgxDocs("search", "search.quickstart.graphql", "nothing", [
    "search.one-access.variables.json",
    "search.two-rooms.variables.json",
    "search.multiple-hotels.variables.json",
  ]),
  ...tgxDocs("search", "search.multiplehotels.graphql", "nothing", ["search.multiplehotels.variables.json"]),
  ...tgxDocs("quote", "quote.quickstart.graphql", "option", ["quote.quickstart.variables.json"]),
  ...tgxDocs("book", "book.quickstart.graphql", "quote", ["book.quickstart.variables.json"]),
  ...tgxDocs("booking", "booking.read.graphql", "booking", [
    "booking.by-booking-id.variables.json",
    "booking.by-reference.variables.json",
    "booking.by-arrival-dates.variables.json",
    "booking.by-booking-dates.variables.json",
  ]),
  ...tgxDocs("cancel", "cancel.graphql", "booking", [
    "cancel.by-booking-id.variables.json",
    "cancel.by-reference.variables.json",
  ]),
  {
    name: "hotelx-angular-sample/avail.graphql",
    document: "hotelx-angular-sample/avail.graphql",
    operation: "search",
    needs: "nothing",
    variables: (f) => ({
      criteria: {
        checkIn: f.checkIn,
        checkOut: f.checkOut,
        hotels: [f.hotels[0]],
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
      },
      settings: { context: "HOTELTEST", ...angular },
      filter: { access: { includes: [String(f.code)] } },
    }),
  },
  {
    name: "hotelx-angular-sample/quote.graphql",
    document: "hotelx-angular-sample/quote.graphql",
    operation: "quote",
    needs: "option",
    variables: (f) => ({ optionRefId: need(f, "optionId"), language: "en", settings: angular }),
  },
  {
    name: "hotelx-angular-sample/book.graphql",
    document: "hotelx-angular-sample/book.graphql",
    operation: "book",
    needs: "quote",
    variables: (f) => ({
      input: {
        optionRefId: need(f, "quoteId"),
        clientReference: f.clientReference,
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
      settings: angular,
    }),
  },
  {
    name: "hotelx-angular-sample/booking.graphql",
    document: "hotelx-angular-sample/booking.graphql",
    operation: "booking",
    needs: "booking",
    variables: (f) => ({
      criteriaBooking: {
        accessCode: String(f.code),
        typeSearch: "REFERENCES",
        references: { hotelCode: f.hotels[0], currency: "EUR", references: [{ client: need(f, "booking").client }] },
      },
      settings: angular,
    }),
  },
  {
    name: "hotelx-angular-sample/cancel-booking.graphql",
    document: "hotelx-angular-sample/cancel-booking.graphql",
    operation: "cancel",
    needs: "booking",
    variables: (f) => ({
      input: { accessCode: String(f.code), hotelCode: f.hotels[0], reference: { client: need(f, "booking").client } },
      settings: angular,
    }),
  },
];

/** A run's variables: the published ones through the overlay, or the integration's own shape. */
export const publishedVariables = (item: PublishedCase, facts: PublishedFacts, read: (file: string) => string) =>
  (typeof item.variables === "string"
    ? overlay(JSON.parse(read(item.variables)), facts)
    : item.variables(facts)) as Json;
