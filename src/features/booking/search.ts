import { ApiError } from "../../platform/http/api-error";
import { readExchangeTable } from "../operators/exchange-rates";
import type { AccommodationSelection, Offer, Stay, SupplyAccommodation } from "../supply/supplier";
import { addDays, isCalendarDate, stayNights } from "../supply/zoned-time";
import type { CoreConnection } from "./connection-access";
import { accommodationTypeName, supplierFor, type BookingDeps } from "./deps";
import { OPTION_LIFETIME_MS, optionIdsFor } from "./option-token";
import type { SearchRequest } from "./schemas";
import { needsExchangeRates, requestedCurrency, sellingTermsFor } from "./selling-terms";

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
  /** `settings.currency` as sent (validated by the search); the hotel's currency when absent. */
  currency?: string;
  filters?: SearchFilters;
  businessRules?: BusinessRules;
};

/** Per room, the partner's occupancy id, echoed as `occupancyRefId`; positions 1..n when none was sent. */
export const occupancyRefIdsOf = (occupancies: Occupancy[]): number[] => {
  const ids = occupancies.map((o, i) => o.occupancyId ?? i + 1);
  if (new Set(ids).size !== ids.length) throw new ApiError(400, "occupancyId must be unique within a request", "invalid_occupancy");
  return ids;
};

/** Dates and guests every core operation validates the same way; ages per room in the order given. */
export const stayFrom = (checkIn: string, checkOut: string, occupancies: Occupancy[], now: number): Stay => {
  if (!isCalendarDate(checkIn)) throw new ApiError(400, "checkIn is not a valid date", "invalid_dates");
  if (!isCalendarDate(checkOut)) throw new ApiError(400, "checkOut is not a valid date", "invalid_dates");
  if (checkOut <= checkIn) throw new ApiError(400, "checkOut must be after checkIn", "invalid_dates");
  // Yesterday in UTC is still today somewhere west of UTC; each hotel's own date is checked again later.
  const earliest = addDays(new Date(now).toISOString().slice(0, 10), -1);
  if (checkIn < earliest) throw new ApiError(400, "checkIn must not be in the past", "invalid_dates");
  if (checkIn > addDays(earliest, BOOKING_HORIZON_DAYS + 1)) throw new ApiError(400, `checkIn must be within ${BOOKING_HORIZON_DAYS} days`, "invalid_dates");
  if (stayNights(checkIn, checkOut).length > MAX_NIGHTS) throw new ApiError(400, `A stay is at most ${MAX_NIGHTS} nights`, "invalid_dates");
  const rooms = occupancies.map((o) => o.paxes.map((p) => p.age));
  if (rooms.some((ages) => !ages.some((age) => age >= 18))) {
    throw new ApiError(400, "Each occupancy needs at least one adult (age 18 or over)", "invalid_occupancy");
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

/** The business-rules table of section 4.2, per accommodation; sorts `offers` in place, cheapest first. */
export const applyBusinessRules = (offers: Offer[], rules: BusinessRules | undefined): Offer[] => {
  const sorted = offers.sort((a, b) => a.rate.chargeTotal - b.rate.chargeTotal || a.ratePlanCode.localeCompare(b.ratePlanCode));
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
 * The terms of an offer, the same in a search option and in a quote. Rooms carry the partner's
 * occupancy ids; without any (`undefined`) they keep the supplier's positions 1..n as they are.
 */
export const offerTerms = (offer: Offer, occupancyRefIds?: number[]) => ({
  boardCode: offer.boardCode,
  boardName: offer.boardName,
  isRefundable: offer.isRefundable,
  rate: offer.rate,
  cancelPolicy: offer.cancelPolicy,
  rooms: occupancyRefIds ? offer.rooms.map((room, i) => ({ ...room, occupancyRefId: occupancyRefIds[i] ?? room.occupancyRefId })) : offer.rooms,
});

const selectionOf = (criteria: SearchRequest["searchCriteria"]): AccommodationSelection => {
  const codes = criteria.destinations?.accommodations;
  if (codes) return { kind: "codes", codes: codes.map((c) => c.code) };
  if (criteria.accommodationName !== undefined) return { kind: "name", query: criteria.accommodationName };
  const geo = criteria.geo!;
  return { kind: "geo", lat: geo.lat!, lng: geo.lng!, radiusKm: geo.radiusKm ?? DEFAULT_RADIUS_KM, limit: geo.limit ?? DEFAULT_GEO_LIMIT };
};

/** The data a POST /api/search body stands for. */
export const searchQueryOf = (request: SearchRequest): SearchQuery => {
  const criteria = request.searchCriteria;
  return {
    selection: selectionOf(criteria),
    checkIn: criteria.checkIn,
    checkOut: criteria.checkOut,
    occupancies: criteria.occupancies,
    currency: request.settings.currency,
    filters: request.filters,
    businessRules: request.settings.businessRules,
  };
};

/** POST /api/search. Whatever the selector and count, the supplier reads D1 once; nothing is written per option. */
export const searchAvailability = async <Terms extends ReturnType<typeof offerTerms> = ReturnType<typeof offerTerms>>(
  deps: BookingDeps,
  connection: CoreConnection,
  query: SearchQuery,
  now = Date.now(),
  /** How an offer's terms appear in an option; the Hotel-X shape also needs rate rules and status. */
  terms: (offer: Offer, occupancyRefIds?: number[]) => Terms = offerTerms as (offer: Offer, occupancyRefIds?: number[]) => Terms,
) => {
  const stay = stayFrom(query.checkIn, query.checkOut, query.occupancies, now);
  const occupancyRefIds = occupancyRefIdsOf(query.occupancies);
  const currency = requestedCurrency({ currency: query.currency });
  const supplier = supplierFor(deps, connection);
  // Rates are read only for a search in another currency than the supplier's.
  const table = needsExchangeRates(supplier, currency) ? await readExchangeTable(deps.d1) : null;
  const selling = sellingTermsFor(connection, supplier, currency, table);
  const { accommodations, offers: offersByCode } = await supplier.search(query.selection, stay, now, selling);
  const optionId = await optionIdsFor(deps.keys, { partnerId: connection.partnerId, ...stay, currency: selling.currency, occupancyRefIds, expiresAt: now + OPTION_LIFETIME_MS });
  const keep = offerFilter(query.filters);
  // The common search sends no occupancy ids: its rooms go out as priced, without a copy per option.
  const partnerIds = query.occupancies.some((o) => o.occupancyId !== undefined) ? occupancyRefIds : undefined;
  const result = [];
  for (const accommodation of accommodations) {
    const offers = applyBusinessRules((offersByCode.get(accommodation.code) ?? []).filter(keep), query.businessRules);
    if (offers.length === 0) continue;
    const options = offers.map((offer) => ({
      id: optionId({ accommodationCode: accommodation.code, roomCode: offer.roomCode, ratePlanCode: offer.ratePlanCode, chargeTotal: offer.rate.chargeTotal }),
      ...terms(offer, partnerIds),
    }));
    result.push({ ...accommodationSummary(accommodation), options });
  }
  return { accommodations: result };
};
