import { ApiError } from "../../platform/http/api-error";
import type { AccommodationSelection, Offer, Stay, SupplyAccommodation } from "../supply/supplier";
import { addDays, isCalendarDate, stayNights } from "../supply/zoned-time";
import { byCodes, named, near } from "./accommodation-lookup";
import type { CoreConnection } from "./connection-access";
import { accommodationTypeName, supplierFor, type BookingDeps } from "./deps";
import { OPTION_LIFETIME_MS, optionIdsFor } from "./option-token";
import type { SearchRequest } from "./schemas";

export const MAX_NIGHTS = 30;
/** Inventory is sold for check-ins up to this many days ahead. */
export const BOOKING_HORIZON_DAYS = 365;
export const DEFAULT_RADIUS_KM = 20;
export const DEFAULT_GEO_LIMIT = 1000;

type Occupancy = { paxes: Array<{ age: number }> };

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
export const offerFilter = (filters: SearchRequest["filters"]): ((offer: Offer) => boolean) => {
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
export const applyBusinessRules = (offers: Offer[], rules: NonNullable<SearchRequest["settings"]["businessRules"]> | undefined): Offer[] => {
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

/** The terms of an offer, the same in a search option and in a quote. */
export const offerTerms = (offer: Offer) => ({
  boardCode: offer.boardCode,
  boardName: offer.boardName,
  isRefundable: offer.isRefundable,
  rate: offer.rate,
  cancelPolicy: offer.cancelPolicy,
  rooms: offer.rooms,
});

const selectionOf = (criteria: SearchRequest["searchCriteria"]): AccommodationSelection => {
  const codes = criteria.destinations?.accommodations;
  if (codes) return byCodes(codes.map((c) => c.code));
  if (criteria.accommodationName !== undefined) return named(criteria.accommodationName);
  const geo = criteria.geo!;
  return near(geo.lat!, geo.lng!, geo.radiusKm ?? DEFAULT_RADIUS_KM, geo.limit ?? DEFAULT_GEO_LIMIT);
};

/** POST /api/search. Whatever the selector and count, the supplier reads D1 once; nothing is written per option. */
export const searchAvailability = async (deps: BookingDeps, connection: CoreConnection, request: SearchRequest, now = Date.now()) => {
  const criteria = request.searchCriteria;
  const stay = stayFrom(criteria.checkIn, criteria.checkOut, criteria.occupancies, now);
  const supplier = supplierFor(deps, connection);
  const { accommodations, offers: offersByCode } = await supplier.search(selectionOf(criteria), stay, now);
  const optionId = await optionIdsFor(deps.secret, { partnerId: connection.partnerId, ...stay, expiresAt: now + OPTION_LIFETIME_MS });
  const keep = offerFilter(request.filters);
  const result = [];
  for (const accommodation of accommodations) {
    const offers = applyBusinessRules((offersByCode.get(accommodation.code) ?? []).filter(keep), request.settings.businessRules);
    if (offers.length === 0) continue;
    const options = offers.map((offer) => ({
      id: optionId({ accommodationCode: accommodation.code, roomCode: offer.roomCode, ratePlanCode: offer.ratePlanCode, chargeTotal: offer.rate.chargeTotal }),
      ...offerTerms(offer),
    }));
    result.push({ ...accommodationSummary(accommodation), options });
  }
  return { accommodations: result };
};
