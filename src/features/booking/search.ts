import { ApiError } from "../../platform/http/api-error";
import {
  readExchangeTable,
  isSellable,
  sellingTotal,
  type SellingTerms,
  SupplierFailure,
  type AccommodationSelection,
  type Offer,
  type OfferRoom,
  type Rate,
  type ProviderTransaction,
  type Stay,
  type Supplier,
  type SupplierFailureCode,
  type CurrencyWarning,
  type SupplyAccommodation,
  type SearchAsk,
  type SupplierMap,
  logUnsellable,
  accommodationsOf,
  supplierMapsOf,
  needsExchangeRates,
  sellingTermsFor,
  callSupplier,
  supplyOptionsOf,
  type SupplyOptions,
  INVENTORY_SUPPLIER,
  maySell,
  PUBLIC_ACCESS,
  type RateAccess,
  type SearchAudience,
  rateAccessOf,
  rateAccessText,
} from "../supply";
import { addDays, stayNights } from "../../platform/time/zoned-time";
import type { CoreConnection } from "../connections";
import { accommodationTypeName, suppliersFor, type BookingDeps } from "./deps";
import { OPTION_LIFETIME_MS, optionIdsFor } from "./option-token";
import { rememberUpstreamOptions, type SearchedUpstreamOption } from "./upstream-options";
import type { AccommodationStatus, SearchRequest } from "./schemas";
import { amountJson, chargeJson, dueAtPropertyJson, policyJson, rateJson, roomsJson } from "./wire";
export const MAX_NIGHTS = 30;
/** Inventory is sold for check-ins up to this many days ahead. */
export const BOOKING_HORIZON_DAYS = 365;
export const DEFAULT_RADIUS_KM = 20;
export const DEFAULT_GEO_LIMIT = 1000;

export type Occupancy = { occupancyId?: number; paxes: Array<{ age: number; nationality?: string }> };
export type SearchFilters = SearchRequest["filters"];
export type BusinessRules = NonNullable<SearchRequest["settings"]["businessRules"]>;

/** What a search asks, as data: which accommodations, the stay, and what the partner keeps of the answer. */
export type SearchQuery = {
  selection: AccommodationSelection;
  checkIn: string;
  checkOut: string;
  occupancies: Occupancy[];
  /** `settings.currency` or `searchCriteria.currency` as sent (validated by the search); the hotel's currency when absent. */
  currency?: string;
  filters?: SearchFilters;
  businessRules?: BusinessRules;
  supply?: SupplyOptions;
  /** Which restricted rates the search may show (public rates only when absent). */
  access?: RateAccess;
  /** `settings.suppliers` (and `settings.supplier`): only these of the connection's suppliers are asked. */
  suppliers?: string[];
  /** Nationality, language and markets as sent: passed to the suppliers, which may price by them. */
  audience?: SearchAudience;
};

/**
 * A supplier that did not answer a search in time or at all (the search answers with the others),
 * or options a supplier answered that could not be priced in the requested currency.
 */
export type SupplierWarning = SupplierFault | CurrencyWarning;
/** A supplier that gave no answer. */
type SupplierFault = { code: SupplierFailureCode; supplier: string; message: string };

/** Per room, the partner's occupancy id, echoed as `occupancyRefId`; positions 1..n when none was sent. */
export const occupancyRefIdsOf = (occupancies: Occupancy[]): number[] => {
  const ids = occupancies.map((o, i) => o.occupancyId ?? i + 1);
  if (new Set(ids).size !== ids.length)
    throw new ApiError("invalid_occupancy", "occupancyId must be unique within a request");
  return ids;
};

/** Dates and guests every core operation validates the same way; ages per room in the order given. */
export const stayFrom = (checkIn: string, checkOut: string, occupancies: Occupancy[], now: number): Stay => {
  if (checkOut <= checkIn) throw new ApiError("invalid_dates", "checkOut must be after checkIn");
  // Yesterday in UTC is still today somewhere west of UTC; each hotel's own date is checked again later.
  const earliest = addDays(new Date(now).toISOString().slice(0, 10), -1);
  if (checkIn < earliest) throw new ApiError("invalid_dates", "checkIn must not be in the past");
  if (checkIn > addDays(earliest, BOOKING_HORIZON_DAYS + 1))
    throw new ApiError("invalid_dates", `checkIn must be within ${BOOKING_HORIZON_DAYS} days`);
  if (stayNights(checkIn, checkOut).length > MAX_NIGHTS)
    throw new ApiError("invalid_dates", `A stay is at most ${MAX_NIGHTS} nights`);
  const rooms = occupancies.map((o) => o.paxes.map((p) => p.age));
  if (rooms.some((ages) => !ages.some((age) => age >= 18))) {
    throw new ApiError("invalid_occupancy", "Each occupancy needs at least one adult (age 18 or over)");
  }
  return { checkIn, checkOut, rooms };
};

/**
 * Filters of section 4.2, as one predicate per search. Option status is `OK` (confirmable at
 * once; `RQ` would be on request). Rate rules: `NON_REFUNDABLE` on non-refundable plans, none on the others.
 */
export const offerFilter = (filters: SearchFilters): ((offer: Offer) => boolean) => {
  const status = filters?.status;
  const rules = filters?.rateRuleFilter;
  const upper = (list?: string[]) => list?.map((s) => s.toUpperCase());
  const statusIn = upper(status?.includes);
  const statusOut = upper(status?.excludes);
  const ruleIn = upper(rules?.includes);
  const ruleOut = upper(rules?.excludes);
  const includeEmpty = rules?.includeEmptyRateRulesOptions ?? true;
  return (offer) => {
    if (statusIn?.length && !statusIn.includes(offer.status)) return false;
    if (statusOut?.includes(offer.status)) return false;
    if (ruleOut?.length && offer.rateRules.some((r) => ruleOut.includes(r))) return false;
    if (ruleIn?.length) {
      if (offer.rateRules.length === 0) return includeEmpty;
      return offer.rateRules.some((r) => ruleIn.includes(r));
    }
    if (offer.rateRules.length === 0 && rules?.includeEmptyRateRulesOptions === false) return false;
    return true;
  };
};

const payAtPropertyLast = (offer: Offer) => (offer.paymentType === "PayAtProperty" ? 1 : 0);

/** The business-rules table of section 4.2, per accommodation; sorts `offers` in place, cheapest first. */
export const applyBusinessRules = (offers: Offer[], rules: BusinessRules | undefined): Offer[] => {
  // By the all-in price (a PayAtProperty option charges 0 at booking but is no cheaper for the
  // guest), MerchantPay first at the same price, then by rate plan code.
  const sorted = offers.sort(
    (a, b) =>
      a.rate.totalStayPrice - b.rate.totalStayPrice ||
      payAtPropertyLast(a) - payAtPropertyLast(b) ||
      a.ratePlanCode.localeCompare(b.ratePlanCode),
  );
  if (rules?.businessRuleType === "CHEAPEST") return sorted.slice(0, 1);
  if (rules?.optionsQuota !== undefined) return sorted.slice(0, rules.optionsQuota);
  return sorted;
};

const locationOf = (a: SupplyAccommodation) => ({ country: a.country, longitude: a.longitude, latitude: a.latitude });

/** How search results and quotes name an accommodation. */
export const accommodationSummary = (a: SupplyAccommodation) => ({
  accommodationCode: a.code,
  accommodationName: a.name,
  accommodationType: accommodationTypeName(a.type),
  location: locationOf(a),
});

/**
 * An option's terms in the contract's order: what it sells besides its price (board,
 * refundability, rules, visibility, who takes the money), its rate, policy and rooms as written.
 * One literal, not spreads: a search writes one per option, and a spread object is slower to make
 * and to encode (with spreads, a micro-benchmark pricing, writing and encoding 1,379 options took
 * about a fifth longer).
 */
const termsOf = <R, Room>(offer: Offer, rate: R, rooms: Room[]) => ({
  boardCode: offer.boardCode,
  boardName: offer.boardName,
  isRefundable: offer.isRefundable,
  rateRules: offer.rateRules,
  visibility: offer.visibility,
  paymentType: offer.paymentType,
  rate,
  cancelPolicy: policyJson(offer.cancelPolicy),
  rooms,
});

/**
 * The terms of an offer as the contract writes them (wire.ts), the same in a search option and in a quote. Rooms carry the partner's
 * occupancy ids; without any (`undefined`) they keep the supplier's positions 1..n as they are.
 */
export const offerTerms = (offer: Offer, occupancyRefIds?: number[]) =>
  termsOf(
    offer,
    rateJson(offer.rate),
    roomsJson(offerRooms(offer, occupancyRefIds).map((room) => roomCodes(offer, room))),
  );

/**
 * A room's codes as an option shows them: ours as `code`, and on a search option (one that names
 * its supplier) the supplier's as `roomCodeSupplier` (ours for a supplier that speaks ours).
 */
const roomCodes = <Room extends OfferRoom>(
  offer: Offer,
  { supplierRoomCode, ...room }: Room,
): Omit<Room, "supplierRoomCode"> & { roomCodeSupplier?: string } =>
  offer.supplierCode === undefined ? room : { ...room, roomCodeSupplier: supplierRoomCode ?? room.code };

/**
 * Every total of a room's rate and no item: a room of a default search option. Its currencies are
 * the option's (`rate.currency`, `rate.dueAtProperty.currency`), not repeated.
 */
const roomTotals = (rate: Rate) => {
  const { currency, dueAtProperty: due } = rate;
  return {
    baseRate: amountJson(rate.baseRate, currency),
    taxesAndFees: amountJson(rate.taxesAndFees, currency),
    chargeTotal: amountJson(rate.chargeTotal, currency),
    dueAtProperty:
      due.amountInRateCurrency === undefined
        ? { amount: amountJson(due.amount, due.currency) }
        : {
            amount: amountJson(due.amount, due.currency),
            amountInRateCurrency: amountJson(due.amountInRateCurrency, currency),
          },
    totalStayPrice: amountJson(rate.totalStayPrice, currency),
  };
};

/**
 * A default search option's rate: every total, each charge once (one due at the property only in
 * `dueAtProperty.charges`, where it is in the property's currency), no nights, and `exchange` only
 * when the price was converted.
 */
const listedRate = (rate: Rate) => {
  const { currency } = rate;
  return {
    currency,
    baseRate: amountJson(rate.baseRate, currency),
    taxesAndFees: amountJson(rate.taxesAndFees, currency),
    chargeTotal: amountJson(rate.chargeTotal, currency),
    // Those not included are each in dueAtProperty.charges (supplier.ts, RateCharge).
    charges: rate.charges.filter((c) => c.included).map((c) => chargeJson(c, currency)),
    dueAtProperty: dueAtPropertyJson(rate.dueAtProperty, currency),
    totalStayPrice: amountJson(rate.totalStayPrice, currency),
    // Only a converted price says so: the hotel's currency is dueAtProperty.currency either way.
    // Undefined is left out of the JSON, and every listed rate keeps one shape.
    exchange: rate.exchange && rate.exchange.currency !== currency ? rate.exchange : undefined,
  };
};

/**
 * The terms of a search option as a list shows them (the default of POST /api/search): `offerTerms`
 * with every total of the option and of each room, each charge once, and no nights or per-room
 * items (docs/api-decisions.md, "Issue 38: the lighter search answer").
 */
export const listedOfferTerms = (offer: Offer, occupancyRefIds?: number[]) =>
  termsOf(
    offer,
    listedRate(offer.rate),
    offer.rooms.map((room, i) =>
      offer.supplierCode === undefined
        ? {
            occupancyRefId: occupancyRefIds?.[i] ?? room.occupancyRefId,
            code: room.code,
            description: room.description,
            rate: roomTotals(room.rate),
          }
        : {
            occupancyRefId: occupancyRefIds?.[i] ?? room.occupancyRefId,
            code: room.code,
            roomCodeSupplier: room.supplierRoomCode ?? room.code,
            description: room.description,
            rate: roomTotals(room.rate),
          },
    ),
  );

type OptionTerms = (
  offer: Offer,
  occupancyRefIds?: number[],
) => ReturnType<typeof offerTerms> | ReturnType<typeof listedOfferTerms>;

/** How POST /api/search shows an option: the list form, or the whole breakdown with `settings.includePriceBreakdown`. */
export const optionTermsOf = (request: SearchRequest): OptionTerms =>
  request.settings.includePriceBreakdown ? offerTerms : listedOfferTerms;
/** An offer's rooms with the partner's occupancy ids (`undefined`: the supplier's positions, as they are). */
export const offerRooms = (offer: Offer, occupancyRefIds?: number[]) =>
  occupancyRefIds
    ? offer.rooms.map((room, i) => ({ ...room, occupancyRefId: occupancyRefIds[i] ?? room.occupancyRefId }))
    : offer.rooms;

const selectionOf = (criteria: SearchRequest["searchCriteria"]): AccommodationSelection => {
  const codes = criteria.destinations?.accommodations;
  if (codes) return { kind: "codes", codes: codes.map((c) => c.code) };
  if (criteria.accommodationName !== undefined) return { kind: "name", query: criteria.accommodationName };
  const geo = criteria.geo!;
  return {
    kind: "geo",
    lat: geo.lat!,
    lng: geo.lng!,
    radiusKm: geo.radiusKm ?? DEFAULT_RADIUS_KM,
    limit: geo.limit ?? DEFAULT_GEO_LIMIT,
  };
};

/** The data a POST /api/search body stands for. */
export const searchQueryOf = (request: SearchRequest): SearchQuery => {
  const criteria = request.searchCriteria;
  return {
    selection: selectionOf(criteria),
    checkIn: criteria.checkIn,
    checkOut: criteria.checkOut,
    occupancies: criteria.occupancies,
    currency: request.settings.currency ?? criteria.currency,
    filters: request.filters,
    businessRules: request.settings.businessRules,
    supply: supplyOptionsOf(request.settings),
    access: rateAccessOf({
      supportedVisibilityTypes: request.distributionContext?.supportedVisibilityTypes,
      salesChannel: request.distributionContext?.salesChannel,
      includes: request.filters?.rateRuleFilter?.includes,
      rooms: criteria.occupancies.map((o) => o.paxes.map((p) => p.age)),
    }),
    ...suppliersAsked(request.settings),
    audience: {
      ...(criteria.nationality ? { nationality: criteria.nationality } : {}),
      ...(criteria.language ? { language: criteria.language } : {}),
      ...(criteria.markets?.length ? { markets: criteria.markets } : {}),
    },
  };
};

/** `settings.suppliers` (Hotel-X's name) and the contract's `settings.supplier`, one list; none: every supplier. */
const suppliersAsked = (settings: SearchRequest["settings"]): { suppliers?: string[] } => {
  const codes = [...(settings.suppliers ?? []).map((s) => s.code), ...(settings.supplier ? [settings.supplier] : [])];
  return codes.length ? { suppliers: [...new Set(codes)] } : {};
};

/** What one supplier made of one accommodation of a search (issue 39): `not_mapped` when its map does not have it. */
export type SupplierStatus = Exclude<AccommodationStatus, "unknown_code">;

/**
 * What became of one accommodation of a search (docs/api-decisions.md, "Issue 29: per-hotel
 * statuses" and "Issue 39: one search, every supplier"), and per supplier of the search.
 */
export type CodeStatus = {
  accommodationCode: string;
  status: AccommodationStatus;
  suppliers: Array<{ code: string; status: SupplierStatus }>;
};

/** Which of a hotel's supplier statuses speaks for it when no supplier had an option (the order). */
const HOTEL_STATUS_ORDER: SupplierStatus[] = [
  "supplier_timeout",
  "supplier_error",
  "supplier_unavailable",
  "filtered_out",
  "no_availability",
];

/**
 * A hotel's status from its suppliers': `available` when any had an option, `not_mapped` when none
 * maps it, otherwise the first of HOTEL_STATUS_ORDER among them.
 */
const hotelStatusOf = (suppliers: CodeStatus["suppliers"]): AccommodationStatus => {
  if (suppliers.some((s) => s.status === "available")) return "available";
  const found = new Set(suppliers.map((s) => s.status));
  return HOTEL_STATUS_ORDER.find((status) => found.has(status)) ?? "not_mapped";
};

type SupplierAnswer = {
  supplier: Supplier;
  selling: SellingTerms;
  accommodations: SupplyAccommodation[];
  offers: Map<string, Offer[]>;
  warnings?: CurrencyWarning[];
};

/**
 * Asks one supplier. A SupplierFailure, or any throw of a remote supplier, is a warning; the
 * embedded inventory's own faults (our D1) stay faults, as before.
 */
const askSupplier = async (
  supplier: Supplier,
  /** `selection`: a supplier that resolves it itself (`searchSelection`), the search's only one. */
  ask: SearchAsk | { selection: AccommodationSelection },
  stay: Stay,
  now: number,
  selling: SellingTerms,
  options: SupplyOptions,
  transactions: ProviderTransaction[] | undefined,
  access: RateAccess,
  audience: SearchAudience | undefined,
): Promise<SupplierAnswer | SupplierFault> => {
  try {
    const answer = await callSupplier(supplier, options, transactions, (call) => {
      const rated = { ...call, rateAccess: access, audience };
      return "selection" in ask
        ? supplier.searchSelection!(ask.selection, stay, now, selling, rated)
        : supplier.search(ask, stay, now, selling, rated);
    });
    return { supplier, selling, ...answer };
  } catch (error) {
    if (error instanceof SupplierFailure) return { code: error.code, supplier: error.supplier, message: error.message };
    if (!supplier.remote) throw error;
    console.error(
      JSON.stringify({
        level: "error",
        event: "supplier_search_failed",
        supplier: supplier.name,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
    return { code: "supplier_error", supplier: supplier.name, message: `${supplier.name} failed to answer` };
  }
};

/**
 * The connection's suppliers a search asks, in the connection's order: all of them, or those
 * `settings.suppliers` names (each must be one of the connection's: 400 naming the first that is not).
 */
const searchedSuppliers = (all: Supplier[], connection: CoreConnection, asked: string[] | undefined): Supplier[] => {
  if (!asked) return all;
  const unknown = asked.find((code) => !connection.suppliers.includes(code));
  if (unknown !== undefined)
    throw new ApiError("unknown_supplier", `Unknown supplier: ${unknown}`, {
      field: "settings.suppliers",
      supplier: unknown,
    });
  return all.filter((s) => asked.includes(s.name));
};

/**
 * What the search asks each supplier: every accommodation resolved, or for a supplier with codes of
 * its own only those its hotel map maps, with its maps (`maps`: read for all such suppliers in ONE statement).
 */
const asksOf = (suppliers: Supplier[], accommodations: SupplyAccommodation[], maps: Map<string, SupplierMap>) =>
  suppliers.map((supplier): SearchAsk => {
    const map = supplier.hotelCodes === "mapped" ? maps.get(supplier.name) : undefined;
    if (!map) return { accommodations };
    return { accommodations: accommodations.filter((a) => map.hotelCodes.has(a.code)), map };
  });

/** Options of one accommodation, each with the supplier that priced it and that supplier's place in the connection's order. */
type Priced = {
  offer: Offer;
  supplier: string;
  currency: string;
  rank: number;
  /** Its terms as the search writes them, when written as its supplier's answer arrived. */
  terms?: object;
};

/**
 * What makes two offers the same product, or null for an offer that never collapses: one with a
 * room its supplier's room map does not have (its code is the supplier's, not ours).
 */
const productKey = (offer: Offer): string | null => {
  if (offer.supplierHotelCode !== undefined && offer.rooms.some((r) => r.supplierRoomCode === undefined)) return null;
  return JSON.stringify([
    offer.rooms.map((r) => r.code),
    offer.boardCode,
    offer.isRefundable,
    offer.paymentType,
    [...offer.rateRules].sort(),
  ]);
};

/**
 * Identical offers (same rooms in our codes, board, refundability, payment type and rate rules)
 * from several suppliers are one: the cheapest supplier's (ties: the connection's order), as
 * Hotel-X's cheapest-price aggregation does. That supplier's own offers of the product are all kept
 * (it sells them apart); every other supplier's are dropped. `DEFAULT` still answers every distinct
 * offer (docs/api-decisions.md, "Issue 39: identical offers collapse").
 */
export const collapseIdentical = (priced: Priced[]): Priced[] => {
  const winners = new Map<string, Priced>();
  // Each offer's key made once (a JSON text per offer, and a merged search has a thousand offers and more).
  const keys = priced.map((p) => productKey(p.offer));
  for (const [i, p] of priced.entries()) {
    const key = keys[i] ?? null;
    if (key === null) continue;
    const best = winners.get(key);
    if (
      !best ||
      p.offer.rate.totalStayPrice < best.offer.rate.totalStayPrice ||
      (p.offer.rate.totalStayPrice === best.offer.rate.totalStayPrice && p.rank < best.rank)
    )
      winners.set(key, p);
  }
  return priced.filter((p, i) => {
    const key = keys[i] ?? null;
    return key === null || winners.get(key)!.supplier === p.supplier;
  });
};

/**
 * POST /api/search (issue 39 item 4). The selection is resolved to accommodations of our content
 * once (one D1 round trip), the maps of every supplier with codes of its own read in one statement,
 * then every supplier is asked at once for the accommodations it sells, in its codes; its answer
 * comes back in ours. Options of one accommodation from all suppliers are merged, identical ones
 * collapsed, then filtered and ordered by the business rules across suppliers. Nothing is written per option.
 */
export const searchAvailability = async <Terms extends object = ReturnType<typeof offerTerms>>(
  deps: BookingDeps,
  connection: CoreConnection,
  query: SearchQuery,
  now = Date.now(),
  /** How an offer's terms appear in an option; the Hotel-X shape also needs rate rules and status. */
  terms: (offer: Offer, occupancyRefIds?: number[]) => Terms = offerTerms as (
    offer: Offer,
    occupancyRefIds?: number[],
  ) => Terms,
) => {
  const stay = stayFrom(query.checkIn, query.checkOut, query.occupancies, now);
  const occupancyRefIds = occupancyRefIdsOf(query.occupancies);
  // Every answer is in the connection's selling currency unless the request names another (issue 39).
  const currency = query.currency ?? connection.currency;
  // Several suppliers: the selection is resolved here (a lone one may resolve it itself, below), so
  // it is read beside the suppliers, and a list of codes has its maps read then too: the suppliers
  // are asked after one round trip to D1 instead of three.
  const named = query.suppliers ?? connection.suppliers;
  const supplying = suppliersFor(deps, connection);
  // Exchange rates: with several suppliers, read beside the rest (each prices in its own currency,
  // so a merged search nearly always converts); with one, only if it prices in another currency.
  const rates =
    named.length > 1
      ? readExchangeTable(deps.db)
      : supplying.then((all) => (all.some((s) => needsExchangeRates(s, currency)) ? readExchangeTable(deps.db) : null));
  // Awaited below; a failure before then is the search's, never an unhandled rejection.
  rates.catch(() => {});
  const [all, early, earlyMaps] = await Promise.all([
    supplying,
    named.length > 1 ? accommodationsOf(deps.db, query.selection) : null,
    named.length > 1 && query.selection.kind === "codes" ? supplierMapsOf(deps.db, named, query.selection.codes) : null,
  ]);
  const searched = searchedSuppliers(all, connection, query.suppliers);
  // A search whose only supplier resolves the selection in the read that prices it (the embedded
  // inventory: one D1 statement) leaves the resolution to it; any other resolves first, once.
  const selfResolving = searched.length === 1 && searched[0]!.searchSelection !== undefined;
  let resolved = selfResolving ? null : (early ?? (await accommodationsOf(deps.db, query.selection)));
  const mapped = searched.filter((s) => s.hotelCodes === "mapped").map((s) => s.name);
  const [maps, table] = await Promise.all([
    resolved?.length && mapped.length
      ? (earlyMaps ??
        supplierMapsOf(
          deps.db,
          mapped,
          resolved.map((a) => a.code),
        ))
      : new Map<string, SupplierMap>(),
    rates,
  ]);
  const asks: Array<SearchAsk | { selection: AccommodationSelection }> = resolved
    ? resolved.length
      ? asksOf(searched, resolved, maps)
      : []
    : [{ selection: query.selection }];
  // A supplier with nothing to be asked (no hotel of the search in its map) is not called at all.
  const isAsked = (ask: SearchAsk | { selection: AccommodationSelection } | undefined) =>
    ask !== undefined && ("selection" in ask || ask.accommodations.length > 0);
  const suppliers = searched.filter((_, i) => isAsked(asks[i]));
  const supplierAsks = asks.filter(isAsked);
  // A currency the request names must be convertible (400 Unsupported currency); in the connection's
  // own, a supplier priced in one without a rate is a currency_not_convertible warning, not asked.
  const sellings = suppliers.map((supplier) =>
    query.currency ? sellingTermsFor(connection, supplier, currency, table) : defaultTermsFor(supplier),
  );
  function defaultTermsFor(supplier: Supplier): SellingTerms | CurrencyWarning {
    try {
      return sellingTermsFor(connection, supplier, currency, table);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "unsupported_currency") throw error;
      return {
        code: "currency_not_convertible",
        supplier: supplier.name,
        message: `${supplier.name} prices in ${supplier.currency}; the operator has no exchange rate from ${supplier.currency} to ${currency} (PUT /api/operator/exchange-rates): it was not asked`,
        currency: supplier.currency,
        requestedCurrency: currency,
        accommodationCodes: [],
        options: 0,
      };
    }
  }
  const options = query.supply ?? {};
  const access = query.access ?? PUBLIC_ACCESS;
  const transactions = options.includeProviderTransactions ? ([] as ProviderTransaction[]) : undefined;
  const filter = offerFilter(query.filters);
  // A restricted rate the search may not sell is never shown, whatever the filters (rate-rules.ts).
  const keep = (offer: Offer) => maySell(offer, access) && filter(offer);
  // The common search sends no occupancy ids: its rooms go out as priced, without a copy per option.
  const partnerIds = query.occupancies.some((o) => o.occupancyId !== undefined) ? occupancyRefIds : undefined;
  // Each answer's options are written out (their terms) as it arrives, while the slower suppliers
  // are still awaited: after the last one only its own are left to write. Not for a lone supplier
  // (nothing to wait for), nor when the business rules keep a few options of many (CHEAPEST, a
  // quota): those are written once chosen.
  const rules = query.businessRules;
  const writeEarly =
    suppliers.length > 1 && rules?.businessRuleType !== "CHEAPEST" && rules?.optionsQuota === undefined;
  const written = new Map<Offer, Terms>();
  const writeOut = (answer: SupplierAnswer | SupplierFault | CurrencyWarning) => {
    if (!("selling" in answer)) return answer;
    // Each option names its supplier: set on the offers the supplier made for this search, not on copies.
    for (const offers of answer.offers.values()) for (const offer of offers) offer.supplierCode = answer.supplier.name;
    if (!writeEarly) return answer;
    for (const offers of answer.offers.values())
      for (const offer of offers) if (isSellable(offer) && keep(offer)) written.set(offer, terms(offer, partnerIds));
    return answer;
  };
  // One signed stay per selling currency (every option of a supplier shares one), signed while the
  // suppliers are asked rather than after the last answer.
  const signing = Promise.all(
    [...new Set(sellings.flatMap((selling) => ("code" in selling ? [] : [selling.currency])))].map(
      async (c) =>
        [
          c,
          await optionIdsFor(deps.keys, {
            partnerId: connection.partnerId,
            ...stay,
            currency: c,
            occupancyRefIds,
            expiresAt: now + OPTION_LIFETIME_MS,
            // What the search may sell goes into its ids: a quote sells no restricted rate beyond it.
            rateAccess: rateAccessText(access),
          }),
        ] as const,
    ),
  );
  // Awaited after the answers; a failure then is the search's, never an unhandled rejection before.
  signing.catch(() => {});
  // Every supplier at once; each answers in time or becomes a warning.
  const answers = await Promise.all(
    suppliers.map((supplier, i) => {
      const selling = sellings[i]!;
      return "code" in selling
        ? selling
        : askSupplier(
            supplier,
            supplierAsks[i]!,
            stay,
            now,
            selling,
            options,
            transactions,
            access,
            query.audience,
          ).then(writeOut);
    }),
  );
  const answered = answers.filter((a): a is SupplierAnswer => "supplier" in a && "selling" in a);
  // Resolved by the only supplier when it answered; read here when it was not asked (its currency).
  resolved ??= answered[0]?.accommodations ?? (await accommodationsOf(deps.db, query.selection));
  const failures = answers.filter((a): a is SupplierFault => "code" in a && a.code !== "currency_not_convertible");
  const unpriced = answers.filter((a): a is CurrencyWarning => "code" in a && a.code === "currency_not_convertible");
  const warnings: SupplierWarning[] = [...failures, ...unpriced, ...answered.flatMap((a) => a.warnings ?? [])];

  const signers = new Map(await signing);
  // Per supplier of the search and accommodation, what it made of it; `available` is settled below.
  const supplierStatuses = new Map<string, Map<string, SupplierStatus>>();
  const statusOf = (supplier: string) => {
    let statuses = supplierStatuses.get(supplier);
    if (!statuses) supplierStatuses.set(supplier, (statuses = new Map()));
    return statuses;
  };
  for (const [i, supplier] of suppliers.entries()) {
    const answer = answers[i]!;
    // Not answered: every hotel it was asked about carries why (its currency left it unasked: filtered out).
    const status: SupplierStatus | null =
      "code" in answer ? (answer.code === "currency_not_convertible" ? "filtered_out" : answer.code) : null;
    const ask = supplierAsks[i]!;
    for (const a of "selection" in ask ? resolved : ask.accommodations)
      statusOf(supplier.name).set(a.code, status ?? "no_availability");
  }
  // Options of one accommodation from every supplier, in the connection's order.
  const merged = new Map<string, Priced[]>();
  for (const answer of answered) {
    const rank = searched.indexOf(answer.supplier);
    const statuses = statusOf(answer.supplier.name);
    // An offer priced at nothing, or past what a double holds exactly, is never offered (issue 25).
    let unsellable = 0;
    for (const accommodation of answer.accommodations) {
      const priced = merged.get(accommodation.code) ?? [];
      for (const offer of answer.offers.get(accommodation.code) ?? []) {
        if (isSellable(offer))
          priced.push({
            offer,
            supplier: answer.supplier.name,
            currency: answer.selling.currency,
            rank,
            terms: written.get(offer),
          });
        else {
          unsellable++;
          // Offered, and the search's terms (its currency's rate, the markup) priced it unchargeable.
          statuses.set(accommodation.code, "filtered_out");
        }
      }
      merged.set(accommodation.code, priced);
    }
    if (unsellable) logUnsellable(answer.supplier.name, answer.selling, unsellable);
  }
  // Options left out for the search's currency (no exchange rate) were offered: the search's terms removed them.
  for (const warning of warnings)
    if (warning.code === "currency_not_convertible")
      for (const code of warning.accommodationCodes) statusOf(warning.supplier).set(code, "filtered_out");
  const result = [];
  const searchedUpstream: SearchedUpstreamOption[] = [];
  for (const accommodation of resolved) {
    const priced = merged.get(accommodation.code);
    if (!priced?.length) continue;
    const kept = priced.filter((p) => keep(p.offer));
    // Offered, and the filters or what the search may sell removed every option of a supplier.
    for (const p of priced) statusOf(p.supplier).set(accommodation.code, "filtered_out");
    for (const p of kept) statusOf(p.supplier).set(accommodation.code, "available");
    // Collapsed, then ordered and cut by the business rules across suppliers.
    const collapsed = kept.length > 1 && answered.length > 1 ? collapseIdentical(kept) : kept;
    const bySupplier = new Map(collapsed.map((p) => [p.offer, p]));
    const offers = applyBusinessRules(
      collapsed.map((p) => p.offer),
      query.businessRules,
    );
    if (offers.length === 0) continue;
    const options = [];
    for (const offer of offers) {
      const from = bySupplier.get(offer)!;
      const id = signers.get(from.currency)!({
        accommodationCode: accommodation.code,
        roomCode: offer.roomCode,
        ratePlanCode: offer.ratePlanCode,
        // PayAtProperty: the stay's value, since 0 is charged (selling-price.ts `sellingTotal`).
        chargeTotal: sellingTotal(offer.rate, offer.paymentType),
        ...(from.supplier === INVENTORY_SUPPLIER ? {} : { supplier: from.supplier }),
      });
      if (offer.upstreamOptionId)
        searchedUpstream.push({ optionId: id, supplier: from.supplier, accommodationCode: accommodation.code, offer });
      options.push({
        id,
        supplierCode: from.supplier,
        ...((from.terms as Terms | undefined) ?? terms(offer, partnerIds)),
      });
    }
    result.push({ ...accommodationSummary(accommodation), options });
  }
  // Kept for quote (readable by this isolate's quotes at once); the answer does not wait for KV.
  if (searchedUpstream.length)
    await deps.afterAnswer((await rememberUpstreamOptions(deps.quotes, searchedUpstream)).written);
  const statuses = statusesOf(query.selection, resolved, searched, supplierStatuses);
  return {
    accommodations: result,
    // Every code asked, or every hotel a geo or name search resolved (docs/api-decisions.md, issues 29 and 39).
    statuses,
    // Absent when every supplier answered, so a search served by the embedded inventory alone reads as before.
    ...(warnings.length ? { warnings } : {}),
    ...(transactions ? { providerTransactions: transactions } : {}),
  };
};

/**
 * One status per requested code, each code once in the order asked (`unknown_code` for one our
 * content does not have, no supplier named), or per hotel a geo or name search resolved; each with
 * every supplier of the search (`not_mapped`: one that was not asked about it, its map lacking it).
 */
const statusesOf = (
  selection: AccommodationSelection,
  resolved: SupplyAccommodation[],
  suppliers: Supplier[],
  bySupplier: Map<string, Map<string, SupplierStatus>>,
): CodeStatus[] => {
  const known = new Set(resolved.map((a) => a.code));
  const codes = selection.kind === "codes" ? [...new Set(selection.codes)] : resolved.map((a) => a.code);
  return codes.map((code) => {
    if (!known.has(code)) return { accommodationCode: code, status: "unknown_code", suppliers: [] };
    const perSupplier = suppliers.map((s): CodeStatus["suppliers"][number] => ({
      code: s.name,
      status: bySupplier.get(s.name)?.get(code) ?? "not_mapped",
    }));
    return { accommodationCode: code, status: hotelStatusOf(perSupplier), suppliers: perSupplier };
  });
};
