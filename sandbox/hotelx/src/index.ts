import { hotelFor, scenarioOf, type SandboxHotel, type Scenario } from "./inventory";
import type { LedgerBooking, SandboxLedger } from "./ledger";

export { SandboxLedger } from "./ledger";

/**
 * A sandbox Hotel-X supplier: POST GraphQL JSON `{query, variables}` to any path. It recognises the
 * operation by the first field under `hotelX` (search, quote, booking, book, cancel) and reads
 * every input from `variables`; it does not parse or validate the rest of the document.
 */
type SandboxEnv = { HOTELX_API_KEY: string; LEDGER: DurableObjectNamespace<SandboxLedger> };
// biome-ignore lint/suspicious/noExplicitAny: GraphQL variables arrive untyped and are checked field by field.
type Vars = Record<string, any>;
type Issue = { code: string; type: string; description: string };

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const answer = (operation: string, payload: Record<string, unknown>) =>
  json({ data: { hotelX: { [operation]: { errors: null, warnings: null, ...payload } } } });
const refusal = (operation: string, errors: Issue[], extra: Record<string, unknown> = {}) =>
  answer(operation, { ...extra, errors });
const issue = (code: string, description: string, type = "SUPPLIER"): Issue => ({ code, type, description });
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const round2 = (n: number) => Math.round(n * 100) / 100;
const nightsBetween = (checkIn: string, checkOut: string) =>
  (Date.parse(`${checkOut}T00:00:00Z`) - Date.parse(`${checkIn}T00:00:00Z`)) / 86_400_000;
const isDate = (s: unknown): s is string =>
  typeof s === "string" && /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));

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

/** Price of a room for the stay, today; the price-up scenario asks 15 % more than it searched at. */
const priceOf = (hotel: SandboxHotel, roomCode: string, nights: number, rooms: number, raised: boolean) => {
  const room = hotel.rooms.find((r) => r.code === roomCode);
  if (!room) return null;
  return round2(room.nightly * nights * rooms * (raised ? 1.15 : 1));
};
const price = (net: number, currency: string) => ({
  currency,
  binding: false,
  net,
  gross: net,
  exchange: { currency, rate: 1 },
});
const cancelPolicyOf = (refundable: boolean, currency: string, net: number) => ({
  refundable,
  cancelPenalties: refundable
    ? [{ deadline: null, hoursBefore: 48, penaltyType: "PERCENT", currency, value: 100 }]
    : [{ deadline: null, hoursBefore: 8760, penaltyType: "IMPORT", currency, value: net }],
});

const searchOptions = (vars: Vars) => {
  const criteria = vars.criteria ?? {};
  const { checkIn, checkOut } = criteria;
  const occupancies: { paxes: { age: number }[] }[] = Array.isArray(criteria.occupancies) ? criteria.occupancies : [];
  const nights = isDate(checkIn) && isDate(checkOut) ? nightsBetween(checkIn, checkOut) : 0;
  if (
    nights < 1 ||
    nights > 30 ||
    occupancies.length < 1 ||
    occupancies.length > 9 ||
    !Array.isArray(criteria.hotels)
  ) {
    return {
      errors: [
        issue(
          "INVALID_CRITERIA",
          "checkIn/checkOut (1..30 nights), hotels and 1..9 occupancies are required",
          "CLIENT",
        ),
      ],
    };
  }
  const ages = occupancies.map((o) => (Array.isArray(o.paxes) ? o.paxes.map((p) => Number(p.age)) : []));
  const options = [];
  for (const code of criteria.hotels as string[]) {
    const hotel = hotelFor(code);
    if (!hotel) continue;
    for (const room of hotel.rooms) {
      const net = priceOf(hotel, room.code, nights, occupancies.length, false)!;
      const id = encodeOption({
        h: hotel.code,
        r: room.code,
        i: checkIn,
        o: checkOut,
        a: ages,
        p: net,
        c: hotel.currency,
      });
      options.push({
        id,
        supplierCode: "SANDBOX",
        accessCode: "sandbox",
        hotelCode: hotel.code,
        hotelName: hotel.name,
        boardCode: room.board,
        paymentType: "MERCHANT",
        status: "OK",
        occupancies: ages.map((paxes, i) => ({ id: i + 1, paxes: paxes.map((age) => ({ age })) })),
        rooms: ages.map((_, i) => ({
          occupancyRefId: i + 1,
          code: room.code,
          description: room.description,
          refundable: room.refundable,
        })),
        price: price(net, hotel.currency),
        rateRules: room.rateRules ?? null,
        cancelPolicy: cancelPolicyOf(room.refundable, hotel.currency, net),
        remarks: null,
      });
    }
  }
  return { options };
};

/** The hotel code an operation is about, so the scenario can be chosen before answering. */
const hotelCodesOf = (operation: string, vars: Vars): string[] => {
  switch (operation) {
    case "search":
      return Array.isArray(vars.criteria?.hotels) ? vars.criteria.hotels : [];
    case "quote":
      return [decodeOption(vars.criteria?.optionRefId)?.h ?? ""];
    case "book":
      return [decodeOption(vars.input?.optionRefId)?.h ?? ""];
    case "cancel":
      return [vars.input?.hotelCode ?? ""];
    case "booking":
      return [vars.criteria?.references?.hotelCode ?? ""];
    default:
      return [];
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
  status: b.status,
  price: price(b.net, b.currency),
  quotePrice: null,
  cancelPolicy: null,
  hotel: { hotelCode: b.hotelCode, hotelName: b.hotelName, checkIn: b.checkIn, checkOut: b.checkOut },
  remarks: null,
});

const ledger = (env: SandboxEnv) => env.LEDGER.getByName("ledger");

const quote = (vars: Vars, scenario: Scenario) => {
  const key = decodeOption(vars.criteria?.optionRefId);
  const hotel = key && hotelFor(key.h);
  const nights = key ? nightsBetween(key.i, key.o) : 0;
  const net = hotel && key ? priceOf(hotel, key.r, nights, key.a.length, scenario.kind === "price_up") : null;
  if (!key || !hotel || net === null)
    return refusal("quote", [issue("OPTION_NOT_FOUND", "Unknown optionRefId", "CLIENT")]);
  const room = hotel.rooms.find((r) => r.code === key.r)!;
  return answer("quote", {
    optionQuote: {
      optionRefId: encodeOption({ ...key, p: net }),
      status: "OK",
      price: price(net, key.c),
      searchPrice: { currency: key.c, net: key.p, gross: key.p, binding: false },
      cancelPolicy: cancelPolicyOf(room.refundable, key.c, net),
      remarks: null,
    },
  });
};

const book = async (env: SandboxEnv, vars: Vars, scenario: Scenario) => {
  const input = vars.input ?? {};
  const key = decodeOption(input.optionRefId);
  const hotel = key && hotelFor(key.h);
  const clientReference = input.clientReference;
  if (
    !key ||
    !hotel ||
    typeof clientReference !== "string" ||
    clientReference === "" ||
    typeof input.holder?.name !== "string"
  ) {
    return refusal("book", [issue("INVALID_INPUT", "optionRefId, clientReference and holder are required", "CLIENT")]);
  }
  if (scenario.kind === "sold_out")
    return refusal("book", [issue("SOLD_OUT", "No rooms left for this option")], { booking: null });
  if (scenario.kind === "refused") {
    return refusal("book", [issue("BOOKING_REFUSED", "The hotel refused the booking")], {
      booking: {
        ...bookingDetail({
          clientReference,
          bookingId: "",
          supplierReference: "",
          hotelCode: hotel.code,
          hotelName: hotel.name,
          checkIn: key.i,
          checkOut: key.o,
          currency: key.c,
          net: key.p,
          status: "OK",
          holderName: "",
          holderSurname: "",
          cancelReference: null,
        }),
        status: "KO",
        reference: { client: clientReference },
      },
    });
  }
  // The price today against the price the option was offered at (deltaPrice honoured).
  const current = priceOf(hotel, key.r, nightsBetween(key.i, key.o), key.a.length, scenario.kind === "price_up")!;
  const delta = input.deltaPrice ?? {};
  const allowed = Math.max(Number(delta.amount ?? 0), key.p * (Number(delta.percent ?? 0) / 100));
  if (current > key.p + allowed) {
    return refusal("book", [issue("PRICE_CHANGED", `The price went from ${key.p} to ${current}`)], {
      booking: {
        reference: { client: clientReference },
        status: "KO",
        price: price(current, key.c),
        quotePrice: { currency: key.c, net: key.p, gross: key.p, binding: false },
      },
    });
  }
  const id = crypto.randomUUID().replaceAll("-", "").slice(0, 12).toUpperCase();
  const result = await ledger(env).commit({
    clientReference,
    bookingId: `HXB-${id}`,
    supplierReference: `SBX-${id}`,
    hotelCode: hotel.code,
    hotelName: hotel.name,
    checkIn: key.i,
    checkOut: key.o,
    currency: key.c,
    net: current,
    holderName: input.holder.name,
    holderSurname: String(input.holder.surname ?? ""),
  });
  if (!result.committed)
    return refusal(
      "book",
      [issue("DUPLICATED_CLIENT_REFERENCE", "A booking with this clientReference exists", "CLIENT")],
      { booking: null },
    );
  // Committed upstream; the answer leaves only after the delay (longer than any caller's deadline).
  if (scenario.kind === "answer_lost") await sleep(scenario.delayMs);
  return answer("book", { booking: bookingDetail(result.booking) });
};

const refOf = (ref: Vars | undefined, bookingID: unknown) => ({
  clientReference: typeof ref?.client === "string" ? ref.client : undefined,
  supplierReference: typeof ref?.supplier === "string" ? ref.supplier : undefined,
  bookingId: typeof bookingID === "string" ? bookingID : undefined,
});

const cancel = async (env: SandboxEnv, vars: Vars) => {
  const input = vars.input ?? {};
  const by = refOf(input.reference, input.bookingID);
  const found = by.clientReference || by.supplierReference || by.bookingId ? await ledger(env).cancel(by) : null;
  if (!found || found.hotelCode !== input.hotelCode)
    return refusal("cancel", [issue("BOOKING_NOT_FOUND", "No booking with this reference at this hotel", "CLIENT")]);
  return answer("cancel", {
    cancellation: {
      reference: bookingDetail(found).reference,
      cancelReference: found.cancelReference,
      status: "CANCELLED",
      price: price(0, found.currency),
    },
  });
};

const readBookings = async (env: SandboxEnv, vars: Vars) => {
  const refs: Vars[] = Array.isArray(vars.criteria?.references?.references) ? vars.criteria.references.references : [];
  const hotelCode = vars.criteria?.references?.hotelCode;
  const found = await Promise.all(refs.map((ref) => ledger(env).find(refOf(ref, undefined))));
  return answer("booking", {
    bookings: found.flatMap((b) => (b !== null && b.hotelCode === hotelCode ? [bookingDetail(b)] : [])),
  });
};

/** Where the redirect scenarios send the client (a path of the sandbox itself). */
const REDIRECT_TARGET = "/redirected";

const OPERATION = /\bhotelX\s*\{\s*(search|quote|booking|book|cancel)\s*\(/;

export default {
  async fetch(request: Request, env: SandboxEnv): Promise<Response> {
    if (request.method !== "POST") return json({ errors: [{ message: "POST a GraphQL request" }] }, 405);
    if (request.headers.get("authorization") !== `Apikey ${env.HOTELX_API_KEY}`)
      return json({ errors: [{ message: "Unauthorized: invalid or missing Apikey" }] }, 401);
    let body: { query?: unknown; variables?: Vars };
    try {
      body = await request.json();
    } catch {
      return json({ errors: [{ message: "Malformed JSON body" }] }, 400);
    }
    const operation = typeof body.query === "string" ? OPERATION.exec(body.query)?.[1] : undefined;
    if (!operation)
      return json({
        errors: [{ message: "Unsupported operation: expected hotelX { search | quote | book | cancel | booking }" }],
      });
    const vars = body.variables ?? {};
    const scenario = scenarioFor(hotelCodesOf(operation, vars));

    // The redirect target serves what it is sent as a normal hotel would: a client that follows
    // the redirect (and re-posts a book on 307) gets an answer, and a booking, from here.
    const redirected = new URL(request.url).pathname === REDIRECT_TARGET;
    if (scenario.kind === "redirect" && !redirected && (scenario.operations === "all" || operation === "book"))
      return new Response(JSON.stringify({ errors: [{ message: `Moved to ${REDIRECT_TARGET}` }] }), {
        status: scenario.status,
        headers: { location: REDIRECT_TARGET, "content-type": "application/json" },
      });
    switch (scenario.kind) {
      case "slow":
        await sleep(scenario.delayMs);
        break;
      case "http_500":
        return json({ errors: [{ message: "Internal server error" }] }, 500);
      case "bad_json":
        return new Response(`{"data": {"hotelX": {"${operation}": {"options": [`, {
          headers: { "content-type": "application/json" },
        });
      case "graphql_errors":
        return json({
          data: null,
          errors: [{ message: `Supplier connection failed for ${operation}`, path: ["hotelX", operation] }],
        });
      case "bad_shape":
        // Valid JSON in the wrong shape: a list where an object belongs, an enum value Hotel-X does not have.
        return answer(operation, {
          options: "none",
          optionQuote: { price: "free" },
          booking: { status: "MAYBE" },
          cancellation: [],
          bookings: {},
        });
    }
    switch (operation) {
      case "search":
        return answer("search", searchOptions(vars));
      case "quote":
        return quote(vars, scenario);
      case "book":
        return book(env, vars, scenario);
      case "cancel":
        return cancel(env, vars);
      default:
        return readBookings(env, vars);
    }
  },
} satisfies ExportedHandler<SandboxEnv>;
