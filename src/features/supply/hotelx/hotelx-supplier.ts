import type { Db } from "../../../platform/db/client";
import { defaultSupplierTimeoutMs } from "../supplier-deadline";
import { BOARD_NAMES } from "../catalogue";
import { recordProviderTransaction } from "../provider-transactions";
import { ApiError } from "../../../platform/http/api-error";
import { readExchangeTable } from "../exchange-rates";
import { rateRulesOf, visibilityOf } from "../rate-rules";
import type { SellingTerms } from "../selling-price";
import {
  MIXED_PRODUCT_SEPARATOR,
  SupplierFailure,
  SupplierRefusal,
  type BookingLookup,
  type CurrencyWarning,
  type Offer,
  type OfferRef,
  type ProviderOperation,
  type Stay,
  type Supplier,
  type SupplierCall,
  type BookAnswer,
  type SearchAudience,
} from "../supplier";
import { supplierMapsOf, type SupplierMap } from "../maps/map-reads";
import { circuitFor } from "../upstream-circuit";
import {
  cancelPolicyOf,
  currenciesOf,
  NotConvertible,
  paymentTypeOf,
  ratesOf,
  type TermsFrom,
  termsFromTable,
} from "./hotelx-price";
import * as hotelx from "./client";
import { upstreamFetch } from "./upstream-fetch";
import type { HotelxBookingDetail, HotelxOption, HotelxReference } from "./wire";

// Prices are asked in the supplier's currency (criteria.currency, its setting; EUR unless set); an
// upstream may answer in any other, converted with the operator's exchange rates (a warning when there is none).

/** What a Hotel-X supplier can do: book (in two steps when the operator says so) and cancel; no changes. */
export const hotelxCapabilities = (twoStepBooking: boolean) => ({
  localWrites: false,
  twoStepBooking,
  modifications: false,
});

/** A Hotel-X supplier as its kind's factory opens it: settings and the opened credentials. */
export type HotelxUpstream = {
  url: string;
  client: string;
  context: string;
  apiKey: string;
  /** The supplier behind the access books in two steps (Hotel-X commitRequired, then commit): holds are sold. */
  twoStepBooking: boolean;
  /** The currency it is asked to price in. */
  currency: string;
  /** Its deadline when the caller gives none (the deploy's default when absent). */
  timeoutMs?: number;
  /** `mapped`: asked in its own codes, through its maps; `identity` (absent): in ours. */
  hotelCodes?: "identity" | "mapped";
};

const OPERATIONS: Record<hotelx.HotelxOperation, ProviderOperation> = {
  search: "search",
  quote: "quote",
  book: "book",
  commit: "commit",
  cancel: "cancel",
  booking: "bookingByReference",
};

type HotelxEnv = Pick<Env, "UPSTREAM_CIRCUIT"> & { ENVIRONMENT?: string };

/**
 * Whether a failed call speaks of the upstream's health, and so counts in the supplier's circuit:
 * no HTTP answer, a 5xx, or no answer within a deadline at least the default one. A deadline the
 * caller shortened (`settings.timeout`), a 3xx or 4xx, GraphQL or payload errors and answers we
 * could not use count for nothing: a caller's own input can bring those about.
 */
const upstreamFailed = (fault: hotelx.CallFault, deadlineMs: number, defaultMs: number): boolean =>
  fault === "unreachable" || fault === "server" || (fault === "timeout" && deadlineMs >= defaultMs);

/**
 * The product of an option, as our option ids carry it: room code(s), and room + board as the rate
 * plan, plus its rules but `NON_REFUNDABLE` (`DBL-RO-PACKAGE`), so a package rate of a room is
 * never the public rate of that room and board.
 */
const productOf = (option: HotelxOption): OfferRef => {
  const roomCode = option.rooms.map((r) => r.code).join(MIXED_PRODUCT_SEPARATOR);
  const rules = rateRulesOf(option.rateRules).filter((r) => r !== "NON_REFUNDABLE");
  return { roomCode, ratePlanCode: [`${roomCode}-${option.boardCode}`, ...rules].join("-") };
};

/** The supplier's rules as they are, and `NON_REFUNDABLE` when the option cannot be cancelled free. */
const rulesOf = (option: HotelxOption, refundable: boolean) =>
  rateRulesOf(refundable ? option.rateRules : [...(option.rateRules ?? []), "NON_REFUNDABLE"]);

/** The operator's exchange rates, read only when some amount is not in the supplier's currency. */
const tableFor = async (db: Db, terms: SellingTerms, currencies: string[]) =>
  currencies.some((c) => c !== terms.exchange.currency) ? readExchangeTable(db) : null;

const offerOf = (
  option: HotelxOption,
  stay: Stay,
  termsFrom: TermsFrom,
  price = option.price,
  policy = option.cancelPolicy,
  surcharges = option.surcharges,
  upstreamOptionId?: string,
): Offer => {
  const product = productOf(option);
  const paymentType = paymentTypeOf(option.paymentType);
  const { rate, rooms, stay: stayRate } = ratesOf(price, surcharges, termsFrom, stay, option.rooms.length, paymentType);
  const refundable = policy?.refundable ?? option.rooms.every((r) => r.refundable !== false);
  const rateRules = rulesOf(option, refundable);
  return {
    roomCode: product.roomCode,
    ratePlanCode: product.ratePlanCode,
    ...(upstreamOptionId ? { upstreamOptionId } : {}),
    roomName: option.rooms[0]?.description ?? product.roomCode,
    boardCode: option.boardCode,
    boardName: BOARD_NAMES[option.boardCode as keyof typeof BOARD_NAMES] ?? option.boardCode,
    isRefundable: refundable,
    rateRules,
    visibility: visibilityOf(rateRules),
    paymentType,
    status: option.status,
    rate,
    // Paid at the hotel, penalties are on the stay's value (the guaranteed card is charged), not on the 0 charged.
    cancelPolicy: cancelPolicyOf(policy, refundable, stayRate, stay, termsFrom),
    rooms: option.rooms.map((room, i) => ({
      occupancyRefId: room.occupancyRefId,
      code: room.code,
      description: room.description ?? room.code,
      rate: rooms[i]!,
    })),
  };
};

/**
 * A mapped supplier's option in Edgestay's codes (its maps, read by the search): the hotel through
 * the hotel map, each room through that hotel's room map (a room not in it keeps the supplier's
 * code), the board through the board map (one not in it passes through under the supplier's code).
 * Null for a hotel its map does not have (it was not asked for it).
 */
const inOurCodes = (option: HotelxOption, map: SupplierMap): HotelxOption | null => {
  const accommodationCode = map.accommodations.get(option.hotelCode);
  if (!accommodationCode) return null;
  const rooms = map.rooms.get(option.hotelCode);
  return {
    ...option,
    hotelCode: accommodationCode,
    boardCode: map.boards.get(option.boardCode) ?? option.boardCode,
    rooms: option.rooms.map((room) => ({ ...room, code: rooms?.get(room.code) ?? room.code })),
  };
};

/**
 * The supplier's own codes beside ours on an offer made from `ours` (inOurCodes of `theirs`). Set
 * on the offer itself, made just before for this option alone (offerOf): a search copied every
 * offer and room for it, and those copies were a tenth of a supplier's answer's CPU.
 */
const withSupplierCodes = (offer: Offer, theirs: HotelxOption, map: SupplierMap): Offer => {
  const rooms = map.rooms.get(theirs.hotelCode);
  offer.supplierHotelCode = theirs.hotelCode;
  offer.supplierBoardCode = theirs.boardCode;
  for (const [i, room] of offer.rooms.entries()) {
    const code = theirs.rooms[i]?.code;
    // Only a mapped room names the supplier's code apart: an unmapped one already is the supplier's.
    if (code !== undefined && rooms?.has(code)) room.supplierRoomCode = code;
  }
  return offer;
};

/**
 * Who a search is for, in Hotel-X's scalars: `Language` an ISO 639-1 code ("en-US" sends "en"),
 * `Country` an ISO 3166-1 alpha-2 code; a value in another form is left out (the upstream would
 * refuse the whole request for it).
 */
const hotelxAudience = (audience: SearchAudience | undefined) => {
  const language = /^([a-z]{2})(?:[-_]|$)/i.exec(audience?.language ?? "")?.[1]?.toLowerCase();
  const nationality = /^[a-z]{2}$/i.test(audience?.nationality ?? "")
    ? audience!.nationality!.toUpperCase()
    : undefined;
  return {
    ...(nationality ? { nationality } : {}),
    ...(language ? { language } : {}),
    ...(audience?.markets?.length ? { markets: audience.markets } : {}),
  };
};

const pickLanguage = ({ language }: { language?: string }) => (language ? { language } : {});

/** Hotel-X search criteria: the stay, and who it is for (nationality, language, markets) when the partner said. */
const criteriaOf = (
  stay: Stay,
  hotels: string[],
  currency: string,
  audience?: SearchAudience,
): hotelx.SearchCriteria => ({
  checkIn: stay.checkIn,
  checkOut: stay.checkOut,
  hotels,
  occupancies: stay.rooms.map((ages) => ({ paxes: ages.map((age) => ({ age })) })),
  currency,
  ...hotelxAudience(audience),
});

/**
 * The option a quote answered for, shaped as a searched one: its rooms as quoted (positions and our
 * product's codes when the upstream lists none), the board and rules from our rate plan code. Null when the
 * quoted rooms are not the product asked for (the id given back was another option's).
 */
const quotedOption = (
  hotelCode: string,
  ref: OfferRef,
  quoted: hotelx.QuoteResult,
  roomCount: number,
): HotelxOption | null => {
  const prefix = `${ref.roomCode}-`;
  if (!ref.ratePlanCode.startsWith(prefix)) return null;
  // A quote answer carries no rate rules: they come back from the rate plan code (productOf).
  const [boardCode = "", ...rateRules] = ref.ratePlanCode.slice(prefix.length).split("-");
  const codes = ref.roomCode.split(MIXED_PRODUCT_SEPARATOR);
  const rooms =
    quoted.rooms ??
    (codes.length === roomCount ? codes.map((code, i) => ({ occupancyRefId: i + 1, code, description: null })) : []);
  const option: HotelxOption = {
    id: quoted.optionRefId,
    accessCode: ref.upstreamAccessCode ?? "",
    hotelCode,
    boardCode,
    rateRules,
    paymentType: quoted.paymentType ?? "",
    status: quoted.status,
    rooms,
    price: quoted.price,
    surcharges: quoted.surcharges,
    cancelPolicy: quoted.cancelPolicy,
  };
  const product = productOf(option);
  return rooms.length === roomCount && product.roomCode === ref.roomCode && product.ratePlanCode === ref.ratePlanCode
    ? option
    : null;
};

/** A booking the upstream has, as we keep it: its references (the bookingID when it names no supplier reference). */
const bookedOf = (reference: HotelxReference) => ({
  supplierReference: reference.supplier ?? reference.bookingID ?? "",
  hotelConfirmationNumber: reference.hotel ?? null,
  upstreamBookingId: reference.bookingID ?? null,
});

const lookupOf = (booking: HotelxBookingDetail): BookingLookup => {
  switch (booking.status) {
    case "OK":
      return { status: "confirmed", ...bookedOf(booking.reference) };
    case "CANCELLED":
    case "KO":
      return { status: "cancelled" };
    default:
      // ON_REQUEST, UNKNOWN, PENDING_COMMIT not answered above: not settled upstream either; asked again later.
      throw new Error(`booking status ${booking.status}`);
  }
};

/**
 * A Hotel-X upstream as a Supplier, named by its code. The accommodations it sells are those of our own
 * content index (D1) that the selection names: their codes are what the upstream is asked for.
 * Every call takes the caller's deadline, passes the supplier's circuit first (open: refused at
 * once) and reports to it after; client errors become SupplierFailure, refusals SupplierRefusal.
 */
export const hotelxSupplier = (env: HotelxEnv, db: Db, code: string, upstream: HotelxUpstream): Supplier => {
  // Its code names it everywhere: options, quotes, bookings, warnings and its circuit.
  const name = code;
  const access: hotelx.HotelxAccess = {
    url: upstream.url,
    client: upstream.client,
    context: upstream.context,
    apiKey: upstream.apiKey,
    fetch: upstreamFetch(env, upstream.url),
  };
  // The supplier's own circuit (every connection selling it shares what it learns of its health).
  const circuit = circuitFor(env, code);
  const defaultMs = upstream.timeoutMs ?? defaultSupplierTimeoutMs(env);
  /** The caller's deadline for a call (a caller that is not the booking services gives none: the default). */
  const deadlineOf = (call: SupplierCall | undefined) => call?.timeoutMs ?? defaultMs;

  const optionsOf = (call: SupplierCall | undefined): hotelx.CallOptions => {
    const timeoutMs = deadlineOf(call);
    return {
      // A little under the caller's deadline, so that the failure is recorded in the circuit before the caller stops waiting.
      deadlineMs: Math.max(1, timeoutMs - Math.min(100, Math.floor(timeoutMs / 10))),
      signal: call?.signal,
      transactions: call?.transactions
        ? (t) =>
            recordProviderTransaction(call, {
              supplier: name,
              operation: OPERATIONS[t.operation],
              request: t.request,
              response: t.response ?? "",
              status: t.status,
              durationMs: t.durationMs,
            })
        : undefined,
    };
  };

  /** Tells the circuit how a call went: a success, a failure of the upstream's, or neither. */
  const report = (call: SupplierCall | undefined, fault: hotelx.CallFault | null) => {
    if (fault === null) return circuit.record(true, Date.now());
    return upstreamFailed(fault, deadlineOf(call), defaultMs)
      ? circuit.record(false, Date.now())
      : circuit.release(Date.now());
  };

  /**
   * Circuit first; then the call; a client error becomes a SupplierFailure, reported to the circuit
   * before it is thrown (`lost`: the fault of an answer that is not one, a lost book answer). An
   * answer's report (`reported`) is the caller's to await: a search prices the answer meanwhile.
   */
  const guardedCall = async <T>(
    call: SupplierCall | undefined,
    work: () => Promise<T>,
    lost: (answer: T) => hotelx.CallFault | null = () => null,
  ): Promise<{ answer: T; reported: Promise<unknown> }> => {
    const verdict = await circuit.allow(Date.now());
    if (!verdict.allowed)
      throw new SupplierFailure(
        "supplier_unavailable",
        name,
        `${name} is unavailable after repeated failures; retry in ${Math.ceil(verdict.retryAfterMs / 1000)} s`,
      );
    let answer: T;
    try {
      answer = await work();
    } catch (error) {
      if (error instanceof hotelx.SupplierCallError) {
        await report(call, error.fault);
        throw new SupplierFailure(error.code, name, error.message);
      }
      throw error;
    }
    const reported = report(call, lost(answer));
    // Awaited by the caller; a rejection is never unhandled while the caller is still at work.
    reported.catch(() => {});
    return { answer, reported };
  };

  /** `guardedCall` with its answer reported before it is returned. */
  const guarded = async <T>(
    call: SupplierCall | undefined,
    work: () => Promise<T>,
    lost?: (answer: T) => hotelx.CallFault | null,
  ): Promise<T> => {
    const { answer, reported } = await guardedCall(call, work, lost);
    await reported;
    return answer;
  };

  /** One search of the upstream for these hotels, in the codes it is asked in, for whom the partner said. */
  const upstreamSearch = (hotels: string[], stay: Stay, call: SupplierCall | undefined) => () =>
    hotelx.search(access, criteriaOf(stay, hotels, upstream.currency, call?.audience), optionsOf(call));

  /**
   * A booking the upstream answered PENDING_COMMIT to a plain book: committed through the access it
   * was booked on, once (the book is answered once: a retry of it is replayed, not booked again).
   * Confirmed when the commit answers OK; refused or unanswered, it stays pending (ON_REQUEST's way).
   */
  const commitUnasked = async (
    accessCode: string,
    clientReference: string,
    booked: { supplierReference: string; hotelConfirmationNumber: string | null; upstreamBookingId: string | null },
    call: SupplierCall | undefined,
  ): Promise<BookAnswer> => {
    const pending = { status: "unknown" as const, upstreamBookingId: booked.upstreamBookingId };
    try {
      const outcome = await guarded(call, () =>
        hotelx.commit(
          access,
          {
            accessCode,
            clientReference,
            ...(booked.supplierReference ? { supplierReference: booked.supplierReference } : {}),
          },
          optionsOf(call),
        ),
      );
      if (outcome.outcome !== "committed") return pending;
      return {
        status: "confirmed",
        supplierReference: outcome.reference.supplier ?? booked.supplierReference,
        hotelConfirmationNumber: outcome.reference.hotel ?? booked.hotelConfirmationNumber,
        upstreamBookingId: outcome.reference.bookingID ?? booked.upstreamBookingId,
      };
    } catch (error) {
      if (error instanceof SupplierFailure) return pending;
      throw error;
    }
  };

  /** A quote's call options, with the language the partner asked for (issue 40). */
  const quoteOptionsOf = (call: SupplierCall | undefined) => ({
    ...optionsOf(call),
    ...pickLanguage(hotelxAudience(call?.audience)),
  });

  const supplier: Supplier = {
    name,
    currency: upstream.currency,
    remote: true,
    defaultTimeoutMs: defaultMs,
    // Whether the supplier behind the access books in two steps is the operator's word (its settings).
    capabilities: hotelxCapabilities(upstream.twoStepBooking),
    hotelCodes: upstream.hotelCodes ?? "identity",

    async search(ask, stay, _now, terms, call) {
      const map = upstream.hotelCodes === "mapped" ? ask.map : null;
      // Mapped, it is asked only for hotels of its map (none without one).
      if (map === undefined) return { accommodations: [], offers: new Map() };
      const accommodations = map ? ask.accommodations.filter((a) => map.hotelCodes.has(a.code)) : ask.accommodations;
      if (accommodations.length === 0) return { accommodations: [], offers: new Map() };
      // Asked in its own codes when it has them (its hotel map), in ours otherwise.
      const hotels = accommodations.map((a) => (map ? map.hotelCodes.get(a.code)! : a.code));
      // The circuit hears of the answer while it is priced; the search ends once it has.
      const { answer, reported } = await guardedCall(call, upstreamSearch(hotels, stay, call));
      const asked = new Set(accommodations.map((a) => a.code));
      const table = await tableFor(
        db,
        terms,
        answer.options.flatMap((o) => currenciesOf(o.price, o.surcharges, o.cancelPolicy)),
      );
      const termsFrom = termsFromTable(terms, table);
      const offers = new Map<string, Offer[]>();
      // Options left out for want of an exchange rate, by the currency that has none: never without a warning.
      const unconvertible = new Map<string, { codes: Set<string>; options: number }>();
      for (const theirs of answer.options) {
        if (theirs.rooms.length !== stay.rooms.length) continue;
        const option = map ? inOurCodes(theirs, map) : theirs;
        // A hotel it was not asked for is not sold as one of ours.
        if (!option || !asked.has(option.hotelCode)) continue;
        let offer: Offer;
        try {
          offer = offerOf(option, stay, termsFrom);
        } catch (error) {
          if (!(error instanceof NotConvertible)) throw error;
          const left = unconvertible.get(error.currency) ?? { codes: new Set<string>(), options: 0 };
          left.codes.add(option.hotelCode);
          left.options++;
          unconvertible.set(error.currency, left);
          continue;
        }
        if (map) withSupplierCodes(offer, theirs, map);
        // The option's own id and access: quote asks for exactly this option when it gets them back.
        // The offer was made just above for this option alone: it takes them as it is, not copied.
        offer.upstreamOptionId = option.id;
        offer.upstreamAccessCode = option.accessCode;
        const list = offers.get(option.hotelCode);
        if (list) list.push(offer);
        else offers.set(option.hotelCode, [offer]);
      }
      const warnings: CurrencyWarning[] = [...unconvertible].map(([currency, left]) => ({
        code: "currency_not_convertible",
        supplier: name,
        message: `${name} priced ${left.options} option(s) in ${currency}; the operator has no exchange rate from ${currency} to ${terms.currency} (PUT /api/operator/exchange-rates)`,
        currency,
        requestedCurrency: terms.currency,
        accommodationCodes: [...left.codes],
        options: left.options,
      }));
      await reported;
      return {
        // Every accommodation asked about, with offers or not: the search tells "no availability" from "unknown".
        accommodations,
        offers,
        ...(warnings.length ? { warnings } : {}),
      };
    },

    /**
     * One upstream call when the caller gives the searched option's id back (`ref.upstreamOptionId`):
     * that option is quoted, and its quoted rooms must be the product asked for. Without it (or when
     * the quote names other rooms, or the upstream no longer knows the id) the option is found again
     * by a search of its hotel, then quoted.
     * The offer carries the quote's optionRefId (upstreamOptionId): book sends exactly that.
     */
    async quote(accommodation, ref, stay, _now, terms, call) {
      /** The quoted option as an offer; an amount in a currency without an exchange rate is a clear error. */
      const priced = async (option: HotelxOption, quoted: hotelx.QuoteResult) => {
        const table = await tableFor(db, terms, currenciesOf(quoted.price, quoted.surcharges, quoted.cancelPolicy));
        try {
          return offerOf(
            option,
            stay,
            termsFromTable(terms, table),
            quoted.price,
            quoted.cancelPolicy,
            quoted.surcharges,
            quoted.optionRefId,
          );
        } catch (error) {
          if (!(error instanceof NotConvertible)) throw error;
          throw new ApiError(
            "currency_not_convertible",
            `The supplier prices this option in ${error.currency}; there is no exchange rate from ${error.currency} to ${terms.currency}`,
            { supplier: name, currency: error.currency, requestedCurrency: terms.currency },
          );
        }
      };
      // A mapped supplier is asked in its own codes; its answer is read back in ours (its maps of this hotel).
      const map =
        upstream.hotelCodes === "mapped"
          ? ((await supplierMapsOf(db, [name], [accommodation.code])).get(name) ?? null)
          : null;
      const hotelCode = map ? map.hotelCodes.get(accommodation.code) : accommodation.code;
      if (hotelCode === undefined) return null;
      const ours = (option: HotelxOption) => (map ? inOurCodes(option, map) : option);
      const withTheirs = (offer: Offer, theirs: HotelxOption) => (map ? withSupplierCodes(offer, theirs, map) : offer);
      /**
       * The upstream's quote of one option, or why there is none: `sold_out`, or `gone` (an id it no
       * longer knows). A refusal is its answer, not a failure: `guarded` counts it a success, as a refused book.
       */
      const quoteUpstream = async (optionRefId: string) => {
        const answer = await guarded(call, () => hotelx.quote(access, optionRefId, quoteOptionsOf(call)));
        if (answer.outcome === "quoted") return answer;
        if (answer.reason === "price_changed") throw new SupplierRefusal("price_changed");
        return answer.reason;
      };
      const quoted = ref.upstreamOptionId ? await quoteUpstream(ref.upstreamOptionId) : null;
      // Sold out is the upstream's own word on the option searched: not searched again (that costs two more calls).
      if (quoted === "sold_out") return null;
      // An id it no longer knows (`gone`) says nothing of the room, its ids age before our option id
      // does: the option is found again below, as without one.
      if (quoted && quoted !== "gone") {
        const rooms = map?.rooms.get(hotelCode);
        const inOurs = map
          ? { ...quoted, rooms: quoted.rooms?.map((r) => ({ ...r, code: rooms?.get(r.code) ?? r.code })) ?? null }
          : quoted;
        const option = quotedOption(accommodation.code, ref, inOurs, stay.rooms.length);
        if (option) {
          // A quote names no board: the supplier's is the one its board map reads as ours.
          const board = [...(map?.boards ?? [])].find(([, b]) => b === option.boardCode)?.[0] ?? option.boardCode;
          const theirs = { ...option, hotelCode, boardCode: board, rooms: quoted.rooms ?? option.rooms };
          const offer = withTheirs(await priced(option, quoted), theirs);
          return ref.upstreamAccessCode ? { ...offer, upstreamAccessCode: ref.upstreamAccessCode } : offer;
        }
      }
      let theirs: HotelxOption | undefined;
      const found = (await guarded(call, upstreamSearch([hotelCode], stay, call))).options.find((o) => {
        const option = ours(o);
        const product = option && productOf(option);
        if (!option || option.hotelCode !== accommodation.code) return false;
        if (product!.roomCode !== ref.roomCode || product!.ratePlanCode !== ref.ratePlanCode) return false;
        theirs = o;
        return true;
      });
      if (!found || !theirs) return null;
      const requoted = await quoteUpstream(found.id);
      if (typeof requoted === "string") return null;
      // A changed price is the offer at its new price: the caller compares it with the searched one.
      const offer = withTheirs(await priced(ours(found)!, requoted), theirs);
      return { ...offer, upstreamAccessCode: found.accessCode };
    },

    async book(accommodation, ref, stay, clientReference, call, holder, bookOptions) {
      const guest = holder ?? { name: "Guest", surname: "Guest" };
      const hold = bookOptions?.hold === true;
      let outcome: hotelx.BookOutcome;
      try {
        outcome = await guarded(
          call,
          () =>
            hotelx.book(
              access,
              {
                // A quote stored before upstreamOptionId existed carried the option id as its rate plan code.
                optionRefId: ref.upstreamOptionId ?? ref.ratePlanCode,
                clientReference,
                holder: guest,
                // Each guest under their own name when the partner named them; else the holder's.
                rooms: stay.rooms.map((ages, i) => ({
                  occupancyRefId: i + 1,
                  paxes: bookOptions?.guests?.[i] ?? ages.map((age) => ({ ...guest, age })),
                })),
                ...(bookOptions?.remarks ? { remarks: bookOptions.remarks } : {}),
              },
              { ...optionsOf(call), commitRequired: hold },
            ),
          (o) => (o.outcome === "answer_lost" ? o.fault : null),
        );
      } catch (error) {
        // A rejected request (3xx, 4xx, GraphQL errors) booked nothing; an open circuit sent nothing.
        if (error instanceof SupplierFailure && error.code === "supplier_error") throw new SupplierRefusal("failed");
        throw error;
      }
      switch (outcome.outcome) {
        case "confirmed": {
          const booked = bookedOf(outcome.reference);
          // Asked in two steps: waiting for the commit is what a hold is. An upstream that confirmed at
          // once holds the rooms all the same (its commit answers OK again); the hold decides.
          if (hold && (outcome.status === "PENDING_COMMIT" || outcome.status === "OK"))
            return { status: "held", ...booked };
          // A plain book the upstream took in two steps anyway: Edgestay commits it, once, here
          // (issue 40); a commit refused or unanswered leaves it pending, settled later.
          if (outcome.status === "PENDING_COMMIT" && ref.upstreamAccessCode)
            return commitUnasked(ref.upstreamAccessCode, clientReference, booked, call);
          // ON_REQUEST, or PENDING_COMMIT with no access to commit through: booked upstream, not confirmed yet: pending, settled later.
          if (outcome.status !== "OK") return { status: "unknown", upstreamBookingId: booked.upstreamBookingId };
          return { status: "confirmed", ...booked };
        }
        case "answer_lost":
          return { status: "unknown" };
        case "price_changed":
          throw new SupplierRefusal("failed");
        case "refused": {
          if (outcome.reason === "sold_out") throw new SupplierRefusal("unavailable");
          if (outcome.reason !== "duplicate_client_reference") throw new SupplierRefusal("failed");
          // Booked before under this reference (an earlier attempt whose answer was lost): that booking is the answer.
          const found = await supplier.bookingByReference!(clientReference, call, {
            accommodationCode: accommodation.code,
            upstreamAccessCode: ref.upstreamAccessCode ?? null,
            supplierHotelCode: ref.supplierHotelCode ?? null,
            commitPending: !hold,
          });
          if (found.status === "confirmed" || found.status === "held") return found;
          throw new SupplierRefusal("failed");
        }
      }
    },

    async commit(stay, call) {
      if (!stay.upstreamAccessCode)
        throw new SupplierFailure("supplier_error", name, `${name} commits by the access booked through: none is kept`);
      const accessCode = stay.upstreamAccessCode;
      const outcome = await guarded(call, () =>
        hotelx.commit(
          access,
          {
            accessCode,
            clientReference: stay.clientReference,
            ...(stay.supplierReference ? { supplierReference: stay.supplierReference } : {}),
          },
          optionsOf(call),
        ),
      );
      if (outcome.outcome !== "committed")
        throw new SupplierFailure(
          "supplier_error",
          name,
          `${name} refused the commit: ${outcome.issues.map((i) => i.code).join(", ")}`,
        );
      return {
        supplierReference: outcome.reference.supplier ?? stay.supplierReference,
        hotelConfirmationNumber: outcome.reference.hotel ?? null,
        upstreamBookingId: outcome.reference.bookingID ?? stay.upstreamBookingId ?? null,
      };
    },

    async cancel(stay, call) {
      const outcome = await guarded(call, () =>
        hotelx.cancel(
          access,
          {
            hotelCode: stay.supplierHotelCode ?? stay.accommodationCode,
            ...(stay.upstreamBookingId ? { bookingID: stay.upstreamBookingId } : {}),
            ...(stay.upstreamAccessCode ? { accessCode: stay.upstreamAccessCode } : {}),
            clientReference: stay.clientReference,
            ...(stay.supplierReference ? { supplierReference: stay.supplierReference } : {}),
          },
          optionsOf(call),
        ),
      );
      if (outcome.outcome !== "cancelled")
        throw new SupplierFailure(
          "supplier_error",
          name,
          `${name} refused the cancellation: ${outcome.issues.map((i) => i.code).join(", ")}`,
        );
    },

    async bookingByReference(clientReference, call, booking) {
      if (!booking)
        throw new SupplierFailure(
          "supplier_error",
          name,
          `${name} looks bookings up by hotel: the accommodation is needed`,
        );
      const found = await guarded(call, () =>
        hotelx.bookingByClientReference(
          access,
          {
            hotelCode: booking.supplierHotelCode ?? booking.accommodationCode,
            currency: upstream.currency,
            clientReference,
            ...(booking.upstreamAccessCode ? { accessCode: booking.upstreamAccessCode } : {}),
          },
          optionsOf(call),
        ),
      );
      if (!found.found) return { status: "not_found" };
      const waiting = found.booking;
      // Booked outright, its commit never came through (issue 40: Edgestay commits a plain book): commit it now.
      if (waiting.status === "PENDING_COMMIT" && booking.commitPending && booking.upstreamAccessCode) {
        const committed = await commitUnasked(
          booking.upstreamAccessCode,
          clientReference,
          bookedOf(waiting.reference),
          call,
        );
        if (committed.status === "confirmed") return committed;
        throw new SupplierFailure(
          "supplier_error",
          name,
          `${name}: booking status PENDING_COMMIT, its commit unanswered`,
        );
      }
      // Asked to hold: waiting for its commit is what a hold is, as the book's answer says (never committed here).
      if (waiting.status === "PENDING_COMMIT" && !booking.commitPending)
        return { status: "held", ...bookedOf(waiting.reference) };
      try {
        return lookupOf(found.booking);
      } catch (error) {
        throw new SupplierFailure("supplier_error", name, `${name}: ${(error as Error).message}`);
      }
    },
  };
  return supplier;
};
