/**
 * What the booking engine needs from a source of rooms and prices. The embedded inventory
 * (inventory-supplier.ts) is the default; a `tgx` or `metasearch` connection can later be
 * served by another implementation without touching the API layer.
 */

import type { SellingTerms } from "./selling-price";

/** `exchange`: the hotel's currency and the rate that converted its prices into `currency`. */
export type Rate = { currency: string; baseRate: number; taxesAndFees: number; chargeTotal: number; exchange?: { currency: string; rate: number } };
export type CancelPenalty = { penaltyType: string; currency: string; deadline: string; value: number };
export type CancelPolicy = { refundable: boolean; cancelPenalties: CancelPenalty[] };
export type OfferRoom = { occupancyRefId: number; code: string; description: string; rate: Rate };

/** The accommodation row a supplier prices (content lives in our own D1). */
export type SupplyAccommodation = {
  code: string;
  name: string;
  type: string;
  country: string;
  latitude: number;
  longitude: number;
  starRating: number;
  timezone: string;
};

/**
 * Which accommodations a search prices, as data: codes, a geo circle or a name query. Each
 * supplier resolves it its own way (the embedded inventory in one D1 round trip).
 */
export type AccommodationSelection =
  | { kind: "codes"; codes: string[] }
  | { kind: "geo"; lat: number; lng: number; radiusKm: number; limit: number }
  | { kind: "name"; query: string };

/** A stay: dates and, per room, the ages of its guests. */
export type Stay = { checkIn: string; checkOut: string; rooms: number[][] };

/**
 * Which product of an accommodation an offer sells. A mixed offer (one room type per occupancy)
 * joins its codes with `+` in occupancy order, e.g. `STD+FAM` and `STD-RO-FLX+FAM-RO-FLX`.
 */
export type OfferRef = { roomCode: string; ratePlanCode: string };

export const MIXED_PRODUCT_SEPARATOR = "+";

export type Offer = OfferRef & {
  roomName: string;
  boardCode: string;
  boardName: string;
  isRefundable: boolean;
  /** Rate rules attached to the offer (filterable by rateRuleFilter); empty for plain rates. */
  rateRules: string[];
  /** `OK`: confirmable at once (the only status the embedded inventory produces). */
  status: "OK" | "RQ";
  rate: Rate;
  cancelPolicy: CancelPolicy;
  rooms: OfferRoom[];
};

export type SupplierBooking = { supplierReference: string; hotelConfirmationNumber: string | null };

export type BookedStay = OfferRef & { accommodationCode: string; checkIn: string; checkOut: string; roomCount: number; supplierReference: string };

/** Thrown by `book` when the supplier refuses (sold out, stop-sell); nothing was taken. */
export class SupplierRefusal extends Error {
  constructor(readonly reason: "unavailable" | "failed") {
    super(`Supplier refused the booking: ${reason}`);
  }
}

export interface Supplier {
  readonly name: string;
  /** The currency its net prices are in (the hotel's currency); `SellingTerms.exchange` converts from it. */
  readonly currency: string;
  /** The selected accommodations and their offers by code; accommodations without offers have no entry. */
  search(selection: AccommodationSelection, stay: Stay, now: number, terms: SellingTerms): Promise<{ accommodations: SupplyAccommodation[]; offers: Map<string, Offer[]> }>;
  /** The product priced now, or null when it is not sellable for the stay. */
  quote(accommodation: SupplyAccommodation, ref: OfferRef, stay: Stay, now: number, terms: SellingTerms): Promise<Offer | null>;
  /** Takes the rooms for every night (every room type of a mixed offer), all or nothing. */
  book(accommodation: SupplyAccommodation, ref: OfferRef, stay: Stay): Promise<SupplierBooking>;
  /** Gives the rooms of a booked stay back. */
  cancel(stay: BookedStay): Promise<void>;
}
