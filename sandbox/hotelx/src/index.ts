import { execute, type GraphQLError, parse, validate } from "graphql";
import {
  hotelFor,
  inventoryList,
  roomKey,
  type SandboxHotel,
  type SandboxRoom,
  type Scenario,
  scenarioHotel,
  scenarioOf,
} from "./inventory";
import type { LedgerBooking, SandboxLedger } from "./ledger";
import { buildHotelxSchema, HOTELX_CONTENT_SDL, HOTELX_SDL } from "./schema";
import { type SandboxSupplier, supplierHotel, supplierNamed } from "./suppliers";

export { SandboxLedger } from "./ledger";

/**
 * A sandbox Hotel-X supplier: a GraphQL server. `POST` `{query, variables, operationName}` to any
 * path; graphql-js parses, validates and executes it against the part of Hotel-X's schema the
 * sandbox serves (schema.ts), so a malformed request gets GraphQL `errors`, an answer holds exactly
 * the fields selected, and a null in a non-null field follows the GraphQL rules. The resolvers
 * compute whole payloads from the inventory and the ledger; graphql-js shapes them.
 */
type SandboxEnv = { HOTELX_API_KEY: string; LEDGER: DurableObjectNamespace<SandboxLedger> };
// biome-ignore lint/suspicious/noExplicitAny: inputs arrive coerced by graphql-js from the schema's input types.
type Args = Record<string, any>;
type Issue = { code: string; type: string; description: string };
type Operation = "search" | "quote" | "booking" | "book" | "cancel" | "commit" | "hotels";

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const payload = (extra: Record<string, unknown>) => ({ errors: null, warnings: null, ...extra });
const refusal = (errors: Issue[], extra: Record<string, unknown> = {}) => payload({ ...extra, errors });
const issue = (code: string, description: string, type = "SUPPLIER"): Issue => ({ code, type, description });
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const round2 = (n: number) => Math.round(n * 100) / 100;
const nightsBetween = (checkIn: string, checkOut: string) =>
  (Date.parse(`${checkOut}T00:00:00Z`) - Date.parse(`${checkIn}T00:00:00Z`)) / 86_400_000;

// Hotel-X's booking flow and, for the suppliers' hotel lists, its `hotels` content query.
const schema = buildHotelxSchema(HOTELX_SDL + HOTELX_CONTENT_SDL);

/**
 * The hotel a code names where the request was sent: a supplier's own hotel (its table) at
 * `/suppliers/<code>/`, the sandbox's inventory elsewhere; scenario codes everywhere (README.md).
 */
const hotelAt = (supplier: SandboxSupplier | null, code: string): SandboxHotel | null =>
  supplier ? (supplierHotel(supplier, code) ?? scenarioHotel(code, supplier.currency)) : hotelFor(code);

/** What an optionRefId carries: the stay, the room and the price it was offered at. */
type OptionKey = { h: string; r: string; i: string; o: string; a: number[][]; p: number; c: string };
const encodeOption = (key: OptionKey) =>
  btoa(JSON.stringify(key)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
const decodeOption = (id: unknown): OptionKey | null => {
  if (typeof id !== "string") return null;
  try {
    const key = JSON.parse(atob(id.replaceAll("-", "+").replaceAll("_", "/"))) as OptionKey;
    return typeof key.h === "string" && typeof key.r === "string" && typeof key.p === "number" ? key : null;
  } catch {
    return null;
  }
};

/** Each night of a stay, as YYYY-MM-DD. */
const nightsOf = (checkIn: string, checkOut: string) =>
  Array.from({ length: nightsBetween(checkIn, checkOut) }, (_, i) =>
    new Date(Date.parse(`${checkIn}T00:00:00Z`) + i * 86_400_000).toISOString().slice(0, 10),
  );
/**
 * Price of a room for the stay, today: night by night, each by the hotel's season for its month
 * when it has seasons. The price-up scenario asks 15 % more than it searched at.
 */
const priceOf = (hotel: SandboxHotel, key: string, stay: { i: string; o: string }, rooms: number, raised: boolean) => {
  const room = hotel.rooms.find((r) => roomKey(r) === key);
  if (!room) return null;
  const nightly = nightsOf(stay.i, stay.o).reduce(
    (sum, night) => sum + room.nightly * (hotel.season?.[Number(night.slice(5, 7)) - 1] ?? 1),
    0,
  );
  return round2(nightly * rooms * (raised ? 1.15 : 1));
};
const price = (net: number, currency: string) => ({
  currency,
  binding: false,
  net,
  gross: net,
  exchange: { currency, rate: 1 },
  minimumSellingPrice: null,
});
/** A room's own penalties when it states some; else 100 % from 48 h before check-in, or the whole net when not refundable. */
const cancelPolicyOf = (room: SandboxRoom, currency: string, net: number) => ({
  refundable: room.refundable,
  cancelPenalties: (
    room.penalties ??
    (room.refundable
      ? [{ hoursBefore: 48, penaltyType: "PERCENT", value: 100 }]
      : [{ hoursBefore: 8760, penaltyType: "IMPORT", value: net }])
  ).map((p) => ({
    // The sandbox states penalties by hours before check-in, never by a deadline of its own.
    deadline: null,
    isCalculatedDeadline: false,
    ...p,
    currency,
  })),
  description: null,
});

/** A room's surcharges for the stay (every room of the option, every night), in the hotel's currency unless one names its own. */
const surchargesOf = (room: SandboxRoom, currency: string, nights: number, rooms: number) =>
  room.surcharges?.map((s) => ({
    code: s.code,
    chargeType: s.chargeType,
    mandatory: s.mandatory,
    description: s.description,
    price: price(round2(s.nightly * nights * rooms), s.currency ?? currency),
  })) ?? null;

/** The one market the sandbox's accesses sell in. */
const MARKETS = ["ES"];

const searchOptions = (criteria: Args, supplier: SandboxSupplier | null) => {
  const { checkIn, checkOut } = criteria;
  const occupancies: { paxes: { age: number }[] }[] = criteria.occupancies;
  const nights = nightsBetween(checkIn, checkOut);
  if (nights < 1 || nights > 30 || occupancies.length < 1 || occupancies.length > 9 || !criteria.hotels) {
    return refusal([
      issue("INVALID_CRITERIA", "checkIn/checkOut (1..30 nights), hotels and 1..9 occupancies are required", "CLIENT"),
    ]);
  }
  const ages = occupancies.map((o) => o.paxes.map((p) => p.age));
  const options = [];
  for (const code of criteria.hotels as string[]) {
    const hotel = hotelAt(supplier, code);
    if (!hotel) continue;
    for (const room of hotel.rooms) {
      const net = priceOf(hotel, roomKey(room), { i: checkIn, o: checkOut }, occupancies.length, false)!;
      const id = encodeOption({
        h: hotel.code,
        r: roomKey(room),
        i: checkIn,
        o: checkOut,
        a: ages,
        p: net,
        c: hotel.currency,
      });
      options.push({
        id,
        supplierCode: supplier?.hotelxSupplierCode ?? "SANDBOX",
        accessCode: supplier?.accessCode ?? "sandbox",
        markets: MARKETS,
        hotelCode: hotel.code,
        hotelCodeSupplier: hotel.code,
        hotelName: hotel.name,
        boardCode: room.board,
        boardCodeSupplier: room.board,
        paymentType: hotel.paymentType ?? "MERCHANT",
        status: "OK",
        occupancies: ages.map((paxes, i) => ({ id: i + 1, paxes: paxes.map((age) => ({ age })) })),
        rooms: ages.map((_, i) => ({
          occupancyRefId: i + 1,
          legacyRoomId: `${i + 1}|${roomKey(room)}`,
          code: room.code,
          supplierCode: room.code,
          description: room.description,
          refundable: room.refundable,
          units: null,
          roomPrice: { price: price(round2(net / ages.length), hotel.currency) },
          cancelPolicy: null,
          remarks: null,
        })),
        price: price(net, hotel.currency),
        rateRules: room.rateRules ?? (room.refundable ? null : ["NON_REFUNDABLE"]),
        surcharges: surchargesOf(room, hotel.currency, nights, occupancies.length),
        cancelPolicy: cancelPolicyOf(room, hotel.currency, net),
        remarks: null,
      });
    }
  }
  return payload({ context: null, options });
};

/** The hotel codes an operation is about, so the scenario can be chosen before answering. */
const hotelCodesOf = (operation: Operation, args: Args): string[] => {
  switch (operation) {
    case "search":
      return args.criteria?.hotels ?? [];
    case "quote":
      return [decodeOption(args.criteria.optionRefId)?.h ?? ""];
    case "book":
      return [decodeOption(args.input.optionRefId)?.h ?? ""];
    case "cancel":
      return [args.input.hotelCode ?? ""];
    case "booking":
      return [args.criteria.references?.hotelCode ?? ""];
    case "commit":
      // A commit names no hotel: it is answered as a normal hotel's.
      return [];
    case "hotels":
      return args.criteria?.hotelCodes ?? [];
  }
};

/** Scenarios that spoil the whole answer win over the rest when a search names several hotels. */
const SPOILERS: Scenario["kind"][] = ["slow", "http_500", "bad_json", "graphql_errors", "bad_shape"];
const scenarioFor = (codes: string[]): Scenario => {
  const scenarios = codes.map(scenarioOf);
  return (
    scenarios.find((s) => SPOILERS.includes(s.kind)) ?? scenarios.find((s) => s.kind !== "normal") ?? { kind: "normal" }
  );
};

const bookingDetail = (b: LedgerBooking) => ({
  reference: { client: b.clientReference, supplier: b.supplierReference, hotel: null, bookingID: b.bookingId },
  holder: { name: b.holderName, surname: b.holderSurname },
  status: b.status,
  price: price(b.net, b.currency),
  quotePrice: null,
  cancelPolicy: null,
  hotel: {
    hotelCode: b.hotelCode,
    hotelName: b.hotelName,
    start: b.checkIn,
    end: b.checkOut,
    // Deprecated by Hotel-X since 2018, still answered as it does.
    checkIn: b.checkIn,
    checkOut: b.checkOut,
    bookingDate: null,
    // What was booked, in the seller's own codes: a test reads what a supplier was sent.
    boardCode: b.boardCode,
    occupancies: null,
    rooms:
      b.roomCode === null
        ? null
        : Array.from({ length: b.roomCount ?? 1 }, (_, i) => ({
            occupancyRefId: i + 1,
            code: b.roomCode,
            description: null,
            price: null,
          })),
  },
  remarks: b.remarks,
});

/** Each supplier keeps its own bookings (and counts); the sandbox at its own path has one ledger of its own. */
const ledger = ({ env, supplier }: Pick<Context, "env" | "supplier">) =>
  env.LEDGER.getByName(supplier ? `supplier:${supplier.code}` : "ledger");

const quote = (criteria: Args, scenario: Scenario, supplier: SandboxSupplier | null) => {
  const key = decodeOption(criteria.optionRefId);
  const hotel = key && hotelAt(supplier, key.h);
  const nights = key ? nightsBetween(key.i, key.o) : 0;
  const net = hotel && key ? priceOf(hotel, key.r, key, key.a.length, scenario.kind === "price_up") : null;
  if (!key || !hotel || net === null) return refusal([issue("OPTION_NOT_FOUND", "Unknown optionRefId", "CLIENT")]);
  if (scenario.kind === "quote_refused") return refusal([issue(scenario.code, scenario.description)]);
  const room = hotel.rooms.find((r) => roomKey(r) === key.r)!;
  return payload({
    optionQuote: {
      optionRefId: encodeOption({ ...key, p: net }),
      status: "OK",
      price: price(net, key.c),
      searchPrice: { currency: key.c, net: key.p, gross: key.p, binding: false },
      cancelPolicy: cancelPolicyOf(room, key.c, net),
      surcharges: surchargesOf(room, key.c, nights, key.a.length),
      remarks: null,
      rooms: key.a.map((_, i) => ({
        // RoomOptionQuote.occupancyRefId is an ID: serialized as a string.
        occupancyRefId: i + 1,
        legacyRoomId: `${i + 1}|${roomKey(room)}`,
        code: room.code,
        supplierCode: room.code,
        description: room.description,
      })),
      paymentType: hotel.paymentType ?? "MERCHANT",
    },
  });
};

const book = async (context: Context, input: Args, scenario: Scenario, commitRequired: boolean) => {
  const key = decodeOption(input.optionRefId);
  const hotel = key && hotelAt(context.supplier, key.h);
  const clientReference: string = input.clientReference;
  const rooms: { occupancyRefId: number; paxes: { name: string; surname: string; age: number }[] }[] = input.rooms;
  const named = (p: { name: string; surname: string }) => p.name.trim() !== "" && p.surname.trim() !== "";
  // The schema makes these present; the sandbox also wants them meaningful: one room per searched occupancy, every name given.
  if (
    !key ||
    !hotel ||
    clientReference.trim() === "" ||
    !named(input.holder) ||
    rooms.length !== key.a.length ||
    rooms.some((r) => r.paxes.length === 0 || !r.paxes.every(named))
  ) {
    return refusal([
      issue(
        "INVALID_INPUT",
        "optionRefId, clientReference, the holder's name and surname, and one room per occupancy with named paxes are required",
        "CLIENT",
      ),
    ]);
  }
  if (scenario.kind === "sold_out")
    return refusal([issue("SOLD_OUT", "No rooms left for this option")], { booking: null });
  const room = hotel.rooms.find((r) => roomKey(r) === key.r);
  if (!room)
    return refusal([issue("INVALID_INPUT", "The optionRefId names a room this hotel does not sell", "CLIENT")]);
  const attempt = {
    clientReference,
    bookingId: "",
    supplierReference: "",
    hotelCode: hotel.code,
    hotelName: hotel.name,
    checkIn: key.i,
    checkOut: key.o,
    currency: key.c,
    net: key.p,
    status: "OK" as const,
    holderName: input.holder.name,
    holderSurname: input.holder.surname,
    cancelReference: null,
    boardCode: room.board,
    roomCode: room.code,
    roomCount: key.a.length,
    paxes: rooms.map((r) => r.paxes.map((p) => ({ name: p.name, surname: p.surname, age: p.age }))),
    remarks: typeof input.remarks === "string" ? input.remarks : null,
  };
  if (scenario.kind === "refused") {
    return refusal([issue("BOOKING_REFUSED", "The hotel refused the booking")], {
      booking: { ...bookingDetail(attempt), status: "KO", reference: { client: clientReference } },
    });
  }
  // The price today against the price the option was offered at (deltaPrice honoured).
  const current = priceOf(hotel, key.r, key, key.a.length, scenario.kind === "price_up")!;
  const delta = input.deltaPrice ?? {};
  const allowed = Math.max(Number(delta.amount ?? 0), key.p * (Number(delta.percent ?? 0) / 100));
  if (current > key.p + allowed) {
    return refusal([issue("PRICE_CHANGED", `The price went from ${key.p} to ${current}`)], {
      booking: {
        ...bookingDetail({ ...attempt, net: current }),
        reference: { client: clientReference },
        status: "KO",
        quotePrice: { currency: key.c, net: key.p, gross: key.p, binding: false },
      },
    });
  }
  const id = crypto.randomUUID().replaceAll("-", "").slice(0, 12).toUpperCase();
  // A supplier's references in its own form: its prefix and a number, not the sandbox's HXB-/SBX-.
  const supplierId = Number.parseInt(id.slice(0, 10), 16) % 10_000_000_000;
  const committing = ledger(context).commit({
    ...attempt,
    bookingId: context.supplier ? `${context.supplier.bookingPrefix}${supplierId}` : `HXB-${id}`,
    supplierReference: context.supplier ? `${context.supplier.bookingPrefix}-${id.slice(0, 8)}` : `SBX-${id}`,
    net: current,
    // Two steps: asked for (settings.commitRequired), or the scenario whose commit never comes.
    status: commitRequired || scenario.kind === "pending_commit" ? "PENDING_COMMIT" : "OK",
  });
  // A booking once asked for is committed even if the caller stops waiting (as an upstream would).
  context.waitUntil(committing.catch(() => undefined));
  const result = await committing;
  if (!result.committed)
    return refusal([issue("DUPLICATED_CLIENT_REFERENCE", "A booking with this clientReference exists", "CLIENT")], {
      booking: null,
    });
  // Committed upstream; the answer leaves only after the delay (longer than any caller's deadline).
  if (scenario.kind === "answer_lost") await sleep(scenario.delayMs);
  return payload({ booking: bookingDetail(result.booking) });
};

const refOf = (ref: Args | undefined | null, bookingID: unknown) => ({
  clientReference: typeof ref?.client === "string" ? ref.client : undefined,
  supplierReference: typeof ref?.supplier === "string" ? ref.supplier : undefined,
  bookingId: typeof bookingID === "string" ? bookingID : undefined,
});

/** Hotel-X finds the booking by `bookingID` alone, or by all of `accessCode`, `hotelCode` and `reference`. */
const cancel = async (context: Context, input: Args) => {
  const byId = typeof input.bookingID === "string" && input.bookingID !== "";
  if (!byId && !(input.accessCode && input.hotelCode && input.reference))
    return refusal([
      issue("INVALID_INPUT", "bookingID, or accessCode, hotelCode and reference are required", "CLIENT"),
    ]);
  const by = byId ? refOf(null, input.bookingID) : refOf(input.reference, undefined);
  const found = by.clientReference || by.supplierReference || by.bookingId ? await ledger(context).cancel(by) : null;
  if (!found || (!byId && found.hotelCode !== input.hotelCode))
    return refusal([issue("BOOKING_NOT_FOUND", "No booking with this reference at this hotel", "CLIENT")]);
  return payload({
    cancellation: {
      reference: bookingDetail(found).reference,
      cancelReference: found.cancelReference,
      status: "CANCELLED",
      price: price(0, found.currency),
      booking: bookingDetail(found),
    },
  });
};

/** The second step of a two-step book, by the access and the references the book answered. */
const commit = async (context: Context, input: Args) => {
  const by = refOf(input.reference, undefined);
  if (!input.accessCode || !(by.clientReference || by.supplierReference))
    return refusal([issue("INVALID_INPUT", "accessCode and reference (client or supplier) are required", "CLIENT")]);
  const found = await ledger(context).confirm(by);
  if (!found) return refusal([issue("BOOKING_NOT_FOUND", "No booking with this reference", "CLIENT")]);
  if (found.status === "CANCELLED")
    return refusal([issue("BOOKING_CANCELLED", "The booking was cancelled before its commit", "CLIENT")]);
  return payload({ commitDetails: { reference: bookingDetail(found).reference, status: found.status } });
};

/** By references, the access the bookings were made through is needed (Hotel-X: "Necessary if your search is by references"). */
const readBookings = async (context: Context, criteria: Args) => {
  if (criteria.typeSearch !== "REFERENCES" || !criteria.references || !criteria.accessCode)
    return refusal([
      issue(
        "INVALID_CRITERIA",
        "The sandbox reads bookings by references: typeSearch REFERENCES, references and accessCode",
        "CLIENT",
      ),
    ]);
  const { hotelCode, references } = criteria.references as { hotelCode: string; references: Args[] };
  const found = await Promise.all(references.map((ref) => ledger(context).find(refOf(ref, undefined))));
  return payload({
    bookings: found.flatMap((b) => (b !== null && b.hotelCode === hotelCode ? [bookingDetail(b)] : [])),
  });
};

/** Hotel-X's page size of the `hotels` query when `maxSize` is absent, and the largest it takes. */
const HOTEL_PAGE = { default: 500, max: 10_000 } as const;
/** When the sandbox's hotel lists were last written (every hotel's `createdAt` and `updatedAt`). */
const LISTED_AT = "2026-11-01T00:00:00Z";

/** One row of a hotel list, whichever path serves it. */
type ListedHotel = {
  code: string;
  name: string;
  category: string | null;
  address: string | null;
  postalCode: string | null;
  city: string;
  countryCode: string;
  latitude: number;
  longitude: number;
};
const listAt = (supplier: SandboxSupplier | null): ListedHotel[] =>
  supplier
    ? supplier.hotels
    : inventoryList().map(({ hotel, city }) => ({
        code: hotel.code,
        name: hotel.name,
        category: null,
        address: null,
        postalCode: null,
        city: city.name,
        countryCode: city.country,
        latitude: city.latitude,
        longitude: city.longitude,
      }));

/** The continuation token: where the next page starts. Opaque to the client, as Hotel-X's is. */
const pageToken = (offset: number) => btoa(`hotels:${offset}`);
const tokenOffset = (token: string): number | null => {
  try {
    const match = /^hotels:(\d+)$/.exec(atob(token));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
};

/**
 * Hotel-X's `hotels` content query: the hotel list of the access, `criteria.maxSize` at a time,
 * the next page asked with the `token` the last one answered (null on the last page). `count` is
 * the hotels of the whole list (after `hotelCodes` and `countries`), `access` when given must be
 * the supplier's own. A bad token or size is a GraphQL error, as Hotel-X answers it.
 */
const hotelList = (args: Args, supplier: SandboxSupplier | null) => {
  const criteria = args.criteria as { access?: string; hotelCodes?: string[]; countries?: string[]; maxSize?: number };
  const access = supplier?.accessCode ?? "sandbox";
  if (criteria.access != null && criteria.access !== access) throw new Error(`Unknown access ${criteria.access}`);
  const size = criteria.maxSize ?? HOTEL_PAGE.default;
  if (!Number.isInteger(size) || size < 1 || size > HOTEL_PAGE.max)
    throw new Error(`maxSize must be between 1 and ${HOTEL_PAGE.max}`);
  const offset = args.token ? tokenOffset(args.token) : 0;
  if (offset === null) throw new Error("Invalid or expired token");
  const codes = criteria.hotelCodes && new Set(criteria.hotelCodes);
  const countries = criteria.countries && new Set(criteria.countries);
  const listed = listAt(supplier).filter(
    (h) => (!codes || codes.has(h.code)) && (!countries || countries.has(h.countryCode)),
  );
  const page = listed.slice(offset, offset + size);
  const next = offset + page.length < listed.length ? offset + page.length : null;
  const edges = page.map((h, i) => ({
    cursor: btoa(`hotel:${offset + i}`),
    node: {
      code: h.code,
      createdAt: LISTED_AT,
      updatedAt: LISTED_AT,
      hotelData: {
        code: h.code,
        hotelCode: h.code,
        hotelCodeSupplier: h.code,
        hotelName: h.name,
        categoryCode: h.category,
        chainCode: null,
        exclusiveDeal: false,
        location: {
          address: h.address,
          city: h.city,
          zipCode: h.postalCode,
          country: h.countryCode,
          coordinates: { latitude: h.latitude, longitude: h.longitude },
        },
      },
    },
  }));
  return {
    edges,
    count: listed.length,
    token: next === null ? null : pageToken(next),
    pageInfo: {
      hasNextPage: next !== null,
      hasPreviousPage: offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
};

/** Where the redirect scenarios send the client (a path of the sandbox itself). */
const REDIRECT_TARGET = "/redirected";

/** An answer that is not GraphQL's to shape (an HTTP error, a redirect, a broken body): sent as it is. */
class RawAnswer extends Error {
  constructor(readonly response: Response) {
    super("raw answer");
  }
}

/**
 * `supplier`: the supplier a `/suppliers/<code>/` request is sent to (null at any other path);
 * `base`: that path's prefix, so a redirect stays at the supplier; `scenario`: the scenario
 * `/suppliers/<code>/as/<scenario code>/` puts the whole supplier in (README.md), else null.
 */
type Context = {
  env: SandboxEnv;
  supplier: SandboxSupplier | null;
  base: string;
  scenario: Scenario | null;
  redirected: boolean;
  waitUntil: (promise: Promise<unknown>) => void;
};

/** Scenario first (some answer outside GraphQL), then the operation; every call is counted for its client. */
const resolver =
  (operation: Operation, run: (args: Args, context: Context, scenario: Scenario) => unknown) =>
  async (args: Args, context: Context) => {
    // Counted beside the work, so that the count costs a booking's commit no time.
    // A request its caller gave up on (a deadline) can lose the count: it is never left unhandled.
    const counted = ledger(context)
      .count(String(args.settings?.client ?? ""), operation)
      .catch(() => undefined);
    try {
      return await answer(operation, run, args, context);
    } finally {
      await counted;
    }
  };

const answer = async (
  operation: Operation,
  run: (args: Args, context: Context, scenario: Scenario) => unknown,
  args: Args,
  context: Context,
) => {
  const scenario = context.scenario ?? scenarioFor(hotelCodesOf(operation, args));
  // The redirect target serves what it is sent as a normal hotel would: a client that follows
  // the redirect (and re-posts a book on 307) gets an answer, and a booking, from here.
  if (scenario.kind === "redirect" && !context.redirected && (scenario.operations === "all" || operation === "book")) {
    const location = `${context.base}${REDIRECT_TARGET}`;
    throw new RawAnswer(
      new Response(JSON.stringify({ errors: [{ message: `Moved to ${location}` }] }), {
        status: scenario.status,
        headers: { location, "content-type": "application/json" },
      }),
    );
  }
  switch (scenario.kind) {
    case "slow":
      await sleep(scenario.delayMs);
      break;
    case "http_500":
      throw new RawAnswer(json({ errors: [{ message: "Internal server error" }] }, 500));
    case "bad_json":
      throw new RawAnswer(
        new Response(`{"data": {"hotelX": {"${operation}": {"options": [`, {
          headers: { "content-type": "application/json" },
        }),
      );
    case "graphql_errors":
      // A resolver failure: the field is null and the error is listed, as GraphQL has it.
      throw new Error(`Supplier connection failed for ${operation}`);
    case "bad_shape":
      // Valid JSON in the wrong shape, as no GraphQL server would send: a list where an object
      // belongs, an enum value Hotel-X does not have.
      throw new RawAnswer(
        json({
          data: {
            hotelX: {
              [operation]: {
                errors: null,
                warnings: null,
                options: "none",
                optionQuote: { price: "free" },
                booking: { status: "MAYBE" },
                cancellation: [],
                bookings: {},
              },
            },
          },
        }),
      );
  }
  return run(args, context, scenario);
};

const rootValue = {
  hotelX: {
    search: resolver("search", (args, context) => searchOptions(args.criteria ?? {}, context.supplier)),
    quote: resolver("quote", (args, context, scenario) => quote(args.criteria, scenario, context.supplier)),
    booking: resolver("booking", (args, context) => readBookings(context, args.criteria)),
    book: resolver("book", (args, context, scenario) =>
      book(context, args.input, scenario, args.settings?.commitRequired === true),
    ),
    cancel: resolver("cancel", (args, context) => cancel(context, args.input)),
    commit: resolver("commit", (args, context) => commit(context, args.input)),
    hotels: resolver("hotels", (args, context) => hotelList(args, context.supplier)),
  },
};

/** `GET /requests?client=<client>`: how many of each operation the sandbox answered for that `settings.client` (tests count upstream calls). */
const REQUESTS_PATH = "/requests";
/** `GET /booking?clientReference=<reference>`: the ledger's booking as sent (guests, remarks), for tests of what a client sends. */
const BOOKING_PATH = "/booking";

/** `/suppliers/<code>/...`: one of the three suppliers (README.md, "Three suppliers"), each at its own path. */
const SUPPLIER_PATH = /^\/suppliers\/([^/]+)(?:\/as\/([A-Z0-9]+))?(\/.*)?$/;

export default {
  async fetch(request: Request, env: SandboxEnv, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    const routed = SUPPLIER_PATH.exec(url.pathname);
    const supplier = routed ? supplierNamed(routed[1]!) : null;
    if (routed && !supplier) return json({ errors: [{ message: `No sandbox supplier ${routed[1]}` }] }, 404);
    // A whole supplier slow, failing or down: every operation at /suppliers/<code>/as/<scenario code>/.
    const scenario = routed?.[2] ? scenarioOf(routed[2]) : null;
    if (scenario?.kind === "normal") return json({ errors: [{ message: `No sandbox scenario ${routed![2]}` }] }, 404);
    const base = routed ? url.pathname.slice(0, url.pathname.length - (routed[3]?.length ?? 0)) : "";
    const path = routed ? (routed[3] ?? "/") : url.pathname;
    const counts = request.method === "GET" && path === REQUESTS_PATH;
    const booked = request.method === "GET" && path === BOOKING_PATH;
    if (request.method !== "POST" && !counts && !booked)
      return json({ errors: [{ message: "POST a GraphQL request" }] }, 405);
    if (request.headers.get("authorization") !== `Apikey ${env.HOTELX_API_KEY}`)
      return json({ errors: [{ message: "Unauthorized: invalid or missing Apikey" }] }, 401);
    if (counts) return json(await ledger({ env, supplier }).requests(url.searchParams.get("client") ?? ""));
    if (booked)
      return json(
        await ledger({ env, supplier }).find({ clientReference: url.searchParams.get("clientReference") ?? "" }),
      );
    let body: { query?: unknown; variables?: unknown; operationName?: unknown };
    try {
      body = await request.json();
    } catch {
      return json({ errors: [{ message: "Malformed JSON body" }] }, 400);
    }
    if (typeof body?.query !== "string")
      return json({ errors: [{ message: "Missing query: POST {query, variables}" }] }, 400);
    let document;
    try {
      document = parse(body.query);
    } catch (error) {
      return json({ errors: [error as GraphQLError] });
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) return json({ errors: invalid });
    const result = await execute({
      schema,
      document,
      rootValue,
      contextValue: {
        env,
        supplier,
        base,
        scenario,
        redirected: path === REDIRECT_TARGET,
        waitUntil: (promise) => ctx.waitUntil(promise),
      } satisfies Context,
      variableValues:
        body.variables && typeof body.variables === "object" ? (body.variables as Record<string, unknown>) : undefined,
      operationName: typeof body.operationName === "string" ? body.operationName : undefined,
    });
    const raw = result.errors?.find((e) => e.originalError instanceof RawAnswer)?.originalError as
      | RawAnswer
      | undefined;
    if (raw) return raw.response;
    return json(result);
  },
} satisfies ExportedHandler<SandboxEnv>;
