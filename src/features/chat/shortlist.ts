import { cityCentre } from "../content";
import { ApiError } from "../../platform/http/api-error";
import { accommodationsByCodes, haversineKm, type Offer, type PaymentType } from "../supply";
import type { CoreConnection } from "../connections";
import {
  type BookingDeps,
  consumeRateLimit,
  DEFAULT_RADIUS_KM,
  amountJson,
  searchAvailability,
  type SearchQuery,
  type SupplierWarning,
} from "../booking";
import { minorScale, roundHalfAwayFromZero } from "../../platform/money";
import { stayNights } from "../../platform/time/zoned-time";
import type { SearchSlots } from "./understand";

/** How many options a shortlist shows. */
export const SHORTLIST_SIZE = 5;
/** Travellers not counted in the message: two adults, the most common party (said back in the reply). */
export const DEFAULT_ADULTS = 2;

export type ShortlistEntry = {
  optionId: string;
  accommodationCode: string;
  name: string;
  /** The all-in price (rate.totalStayPrice) per night, to the minor unit. */
  pricePerNight: number;
  /** The all-in price: what is charged at booking plus what is due at the hotel (rate.totalStayPrice). */
  totalPrice: number;
  /** Of it, what is charged at booking (rate.chargeTotal). */
  chargedAtBooking: number;
  /** Of it, what the hotel collects (rate.dueAtProperty), in the hotel's currency. */
  dueAtHotel: { amount: number; currency: string };
  /** PayAtProperty: nothing is charged at booking, the saved card is the hotel's guarantee. */
  paymentType: PaymentType;
  currency: string;
  refundable: boolean;
  rating: number;
  distanceTo?: string;
  detailsUrl: string;
};

export type SearchedStay = { checkIn: string; checkOut: string; rooms: number[][] };

/** A supplier's options the search could not show, with the names of the hotels it names. */
export type ShortlistWarning = { warning: SupplierWarning; hotels: string[] };

export type Shortlist = {
  place: string;
  stay: SearchedStay;
  entries: ShortlistEntry[];
  searched: number;
  /** What the search could not show (a supplier that did not answer, a currency without a rate). */
  warnings: ShortlistWarning[];
};

/** What the shortlist reads of an option: its terms as priced, amounts in minor units (not the partner's JSON). */
const pricedTerms = (offer: Offer) => ({
  isRefundable: offer.isRefundable,
  paymentType: offer.paymentType,
  rate: offer.rate,
});

/** Guests per room: adults spread first so every room has one, then children round-robin. */
export const roomsFor = (slots: SearchSlots): number[][] => {
  const adults = Math.max(1, slots.adults ?? DEFAULT_ADULTS);
  const count = Math.max(1, Math.min(slots.rooms ?? 1, adults));
  const rooms: number[][] = Array.from({ length: count }, () => []);
  for (let i = 0; i < adults; i++) rooms[i % count]!.push(30);
  for (const [i, age] of (slots.childrenAges ?? []).entries()) rooms[i % count]!.push(age);
  return rooms;
};

/**
 * The shortlist for complete search slots, from the same search service as POST /api/search:
 * a city is a geo search around its hotels' centre, anything else an accommodation-name search.
 * Budget, refundable-only and star filters apply; the cheapest matching option per hotel is kept
 * and the SHORTLIST_SIZE cheapest hotels are shown.
 */
export const buildShortlist = async (
  deps: BookingDeps,
  connection: CoreConnection,
  slots: SearchSlots & { destination: string; checkIn: string; checkOut: string },
  detailsUrl: (accommodationCode: string) => string,
  now: number,
): Promise<Shortlist> => {
  const rooms = roomsFor(slots);
  const centre = await cityCentre(deps.db, slots.destination);
  const name = slots.destination.trim();
  if (!centre && (name.length < 2 || name.length > 200))
    throw new ApiError("destination_unreadable", "Tell me a city or a hotel name of 2 to 200 characters.");
  const query: SearchQuery = {
    selection: centre
      ? { kind: "geo", lat: centre.lat, lng: centre.lng, radiusKm: DEFAULT_RADIUS_KM, limit: 300 }
      : { kind: "name", query: name },
    occupancies: rooms.map((ages) => ({ paxes: ages.map((age) => ({ age })) })),
    checkIn: slots.checkIn,
    checkOut: slots.checkOut,
  };
  // Chat searches count against the connection's own limit too, before any supplier work.
  await consumeRateLimit(deps.rateLimiter, connection);
  const { accommodations, warnings = [] } = await searchAvailability(deps, connection, query, now, pricedTerms);
  const nights = stayNights(slots.checkIn, slots.checkOut).length;
  // A hotel left out for want of an exchange rate is named to the traveller, so its name is read too.
  const leftOut = warnings.flatMap((w) => ("accommodationCodes" in w ? w.accommodationCodes : []));
  const details = new Map(
    (await accommodationsByCodes(deps.db, [...accommodations.map((a) => a.accommodationCode), ...leftOut])).map((a) => [
      a.code,
      a,
    ]),
  );
  const entries: ShortlistEntry[] = [];
  for (const hotel of accommodations) {
    const content = details.get(hotel.accommodationCode);
    const rating = content?.starRating ?? 0;
    if (slots.minStars && rating < slots.minStars) continue;
    const fitting = hotel.options.filter((o) => {
      if (slots.refundableOnly && !o.isRefundable) return false;
      // A budget is for what the stay costs in all, fees due at the hotel included; it is the
      // traveller's amount in major units, compared unrounded in the option's minor units.
      const budget = slots.budget;
      if (!budget) return true;
      const limit = budget.amount * minorScale(o.rate.currency);
      return (budget.per === "night" ? o.rate.totalStayPrice / nights : o.rate.totalStayPrice) <= limit;
    });
    // Options come back cheapest first by chargeTotal; the guest compares all-in prices.
    const cheapest = fitting.reduce<(typeof fitting)[number] | undefined>(
      (best, o) => (best && best.rate.totalStayPrice <= o.rate.totalStayPrice ? best : o),
      undefined,
    );
    if (!cheapest) continue;
    const { rate } = cheapest;
    const due = rate.dueAtProperty;
    const entry: ShortlistEntry = {
      optionId: cheapest.id,
      accommodationCode: hotel.accommodationCode,
      name: hotel.accommodationName,
      // An average per night, to the minor unit; every amount as the partner's JSON writes it.
      pricePerNight: amountJson(roundHalfAwayFromZero(rate.totalStayPrice / nights), rate.currency),
      totalPrice: amountJson(rate.totalStayPrice, rate.currency),
      chargedAtBooking: amountJson(rate.chargeTotal, rate.currency),
      dueAtHotel: { amount: amountJson(due.amount, due.currency), currency: due.currency },
      paymentType: cheapest.paymentType,
      currency: cheapest.rate.currency,
      refundable: cheapest.isRefundable,
      rating,
      detailsUrl: detailsUrl(hotel.accommodationCode),
    };
    if (centre)
      entry.distanceTo = `${haversineKm(centre.lat, centre.lng, hotel.location.latitude, hotel.location.longitude).toFixed(1)} km from the centre of ${centre.city}`;
    entries.push(entry);
  }
  entries.sort((a, b) => a.totalPrice - b.totalPrice || a.name.localeCompare(b.name));
  return {
    place: centre?.city ?? name,
    stay: { checkIn: slots.checkIn, checkOut: slots.checkOut, rooms },
    entries: entries.slice(0, SHORTLIST_SIZE),
    searched: accommodations.length,
    warnings: warnings.map((warning) => ({
      warning,
      hotels: ("accommodationCodes" in warning ? warning.accommodationCodes : []).map(
        (code) => details.get(code)?.name ?? code,
      ),
    })),
  };
};
