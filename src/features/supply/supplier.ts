/**
 * What the booking engine needs from a source of rooms and prices, as data. The embedded inventory
 * (inventory-supplier.ts) is the default; a connection pointed at an upstream is served by the
 * Hotel-X supplier (hotelx/hotelx-supplier.ts), or by both (`withEmbedded`), through `supplyDirectory`.
 */

import { FEE_TYPES } from "../content";
import type { RateAccess, RateRule, Visibility } from "./rate-rules";
import type { SellingTerms } from "./selling-price";
import type { SupplierMap } from "./maps/map-reads";

/**
 * A tax or a fee (content's fee types); `ROOM`: the room's own price, a charge only of a
 * `PayAtProperty` rate (never included: the property collects it, rate-lines.ts `payAtPropertyLines`).
 */
export const CHARGE_TYPES = [...FEE_TYPES, "ROOM"] as const;
export type ChargeType = (typeof CHARGE_TYPES)[number];
/**
 * One tax or fee of a rate, in the rate's currency. `included`: charged at booking (part of
 * `taxesAndFees` and `chargeTotal`); otherwise due at the property (also in `dueAtProperty`).
 */
export type RateCharge = { type: ChargeType; code: string; description: string; amount: number; included: boolean };
/** A charge the property collects from the guest, in the property's currency. */
export type PropertyCharge = { type: ChargeType; code: string; description: string; amount: number; currency: string };
/**
 * What the property collects from the guest, in the property's currency (always present: amount 0
 * and no charges when nothing is due); `amountInRateCurrency` only when that currency differs from the rate's.
 */
export type DueAtProperty = {
  amount: number;
  currency: string;
  amountInRateCurrency?: number;
  charges: PropertyCharge[];
};
/**
 * One night of a rate, whoever collects it. Charged at booking (no `currency`): its base and
 * included taxes and fees in the rate's currency (the nights sum to `baseRate` and
 * `taxesAndFees`). Paid at the property (`currency`: the property's): its base and every tax and fee
 * as the property collects them (the nights sum to the `ROOM` line and the other lines of `dueAtProperty`).
 */
export type NightPrice = { date: string; baseRate: number; taxesAndFees: number; currency?: string };

/**
 * A price: every amount an integer number of minor units of its currency (issue 38; the partner's
 * JSON shows them in major units through booking's wire.ts), so that `baseRate +
 * taxesAndFees = chargeTotal` (what the partner is charged at booking), the included `charges` sum
 * to `taxesAndFees`, `totalStayPrice = chargeTotal + dueAtProperty` in the rate's currency (the
 * due charges' `amount`s, or `amountInRateCurrency`), and `nights` sum to `baseRate` and
 * `taxesAndFees`, or for a rate paid at the property to `dueAtProperty` (NightPrice). What is due at
 * the property is the property's own figures, never converted back from the rate's currency.
 * `exchange`: the hotel's currency and the rate that converted its prices into `currency`.
 */
export type Rate = {
  currency: string;
  baseRate: number;
  taxesAndFees: number;
  chargeTotal: number;
  charges: RateCharge[];
  dueAtProperty: DueAtProperty;
  totalStayPrice: number;
  nights: NightPrice[];
  exchange?: { currency: string; rate: number };
};
/**
 * What cancelling costs from `deadline` on: `value` is always an amount in `currency`, in its minor
 * units (`supplierPenalty.value` is the upstream's, as it stated it). An upstream
 * that states a penalty another way (Hotel-X `PERCENT`, `NIGHTS`, or an `IMPORT` in its own
 * currency) keeps that statement in `supplierPenalty`, as given (docs/api-decisions.md, issue 27):
 * with its `hoursBefore` check-in, and its `deadline` only when it stated one (else ours is
 * computed from the hours).
 */
export type CancelPenalty = {
  penaltyType: string;
  currency: string;
  deadline: string;
  value: number;
  supplierPenalty?: { penaltyType: string; value: number; currency: string; hoursBefore?: number; deadline?: string };
};
export type CancelPolicy = { refundable: boolean; cancelPenalties: CancelPenalty[] };
/**
 * `code`: Edgestay's room code (the room map's, for a supplier with codes of its own); a room its
 * map does not have keeps the supplier's code and has no `supplierRoomCode`.
 */
export type OfferRoom = {
  occupancyRefId: number;
  code: string;
  description: string;
  rate: Rate;
  /** The supplier's own room code, set by a supplier whose codes differ from ours when its room map maps it. */
  supplierRoomCode?: string;
};

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

/**
 * What a search asks one supplier, as data (booking's search builds it for every supplier from one
 * resolution of the partner's selection and one read of the maps): the accommodations of our
 * content it is asked about, in answer order, and for a supplier with codes of its own
 * (`hotelCodes: "mapped"`) its maps, every accommodation asked being one its hotel map maps.
 */
export type SearchAsk = { accommodations: SupplyAccommodation[]; map?: SupplierMap };

/** A stay: dates and, per room, the ages of its guests. */
export type Stay = { checkIn: string; checkOut: string; rooms: number[][] };

/**
 * Which product of an accommodation an offer sells. A mixed offer (one room type per occupancy)
 * joins its codes with `+` in occupancy order, e.g. `STD+FAM` and `STD-RO-FLX+FAM-RO-FLX`.
 */
/**
 * What a supplier books an offer by: our room and rate plan codes, and for an upstream the option id
 * it gave (Hotel-X's `optionRefId`: the search's on a searched offer, the quote's on a quoted one, which
 * book must send as it is) and the access it sells through (Hotel-X's `accessCode`, which cancel and
 * the booking read send back).
 */
export type OfferRef = {
  roomCode: string;
  ratePlanCode: string;
  upstreamOptionId?: string;
  upstreamAccessCode?: string;
};

export const MIXED_PRODUCT_SEPARATOR = "+";

/**
 * Who takes the money. `MerchantPay`: Edgestay charges `chargeTotal` at booking (the contract's
 * default). `PayAtProperty`: nothing is charged at booking (`chargeTotal` 0); the property collects
 * the whole stay (`dueAtProperty`) and the booking keeps a card guarantee (issue 27, payment types).
 */
export const PAYMENT_TYPES = ["MerchantPay", "PayAtProperty"] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

export type Offer = OfferRef & {
  roomName: string;
  boardCode: string;
  boardName: string;
  isRefundable: boolean;
  /** Hotel-X `RateRulesType` names (rate-rules.ts), never `NORMAL`; empty for plain rates. */
  rateRules: RateRule[];
  /** Who may see it: a `PACKAGE` rate only a partner that sells packages (rate-rules.ts). */
  visibility: Visibility;
  paymentType: PaymentType;
  /** `OK`: confirmable at once (the only status the embedded inventory produces). */
  status: "OK" | "RQ";
  rate: Rate;
  cancelPolicy: CancelPolicy;
  rooms: OfferRoom[];
  /** The Edgestay code of the supplier that made it (set by booking's search merge for every option). */
  supplierCode?: string;
  /** The supplier's own hotel code, set by a supplier whose codes differ from ours (from its hotel map). */
  supplierHotelCode?: string;
  /** The supplier's own board code, set by a supplier whose codes differ from ours. */
  supplierBoardCode?: string;
};

/** `upstreamBookingId`: an upstream's own id of the booking (Hotel-X's `bookingID`), which cancel sends when known. */
export type SupplierBooking = {
  supplierReference: string;
  hotelConfirmationNumber: string | null;
  upstreamBookingId?: string | null;
};

export type BookedStay = OfferRef & {
  /** Our booking reference: the client reference the supplier was given. */
  clientReference: string;
  upstreamBookingId?: string | null;
  accommodationCode: string;
  checkIn: string;
  checkOut: string;
  roomCount: number;
  supplierReference: string;
  /** The supplier's own code of the hotel (its hotel map's), which cancel and look-ups send; absent: ours. */
  supplierHotelCode?: string | null;
};

/**
 * Thrown by `book` when the supplier refuses (sold out, stop-sell); nothing was taken. Thrown by
 * `quote` when the supplier says the option is no longer sold at its searched price and names no new
 * one (`price_changed`; an option sold out or gone is `quote`'s null).
 */
export class SupplierRefusal extends Error {
  constructor(readonly reason: "unavailable" | "failed" | "price_changed") {
    super(`Supplier refused: ${reason}`);
  }
}

/** Why a supplier gave no answer: a broken answer, not asked at all (circuit open), or too late. */
export const supplierFailureCodes = ["supplier_error", "supplier_unavailable", "supplier_timeout"] as const;
export type SupplierFailureCode = (typeof supplierFailureCodes)[number];

/** Thrown by a supplier that could not answer; a search turns it into one `warnings[]` entry. */
export class SupplierFailure extends Error {
  constructor(
    readonly code: SupplierFailureCode,
    readonly supplier: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Options a supplier answered and could not price for the search: priced in a currency the
 * operator has no exchange rate for into the requested one. One per source currency; the search
 * answers 200 with it in `warnings[]` (the supplier's other options are kept).
 */
export type CurrencyWarning = {
  code: "currency_not_convertible";
  supplier: string;
  message: string;
  /** The currency the supplier priced in. */
  currency: string;
  /** The currency the search sells in. */
  requestedCurrency: string;
  /** The accommodations whose options were left out (each once). */
  accommodationCodes: string[];
  /** How many options were left out. */
  options: number;
};

export type ProviderOperation = "search" | "quote" | "book" | "commit" | "cancel" | "bookingByReference";

/** One exchange with a supplier over the network, texts already redacted (provider-transactions.ts). */
export type ProviderTransaction = {
  supplier: string;
  operation: ProviderOperation;
  request: string;
  response: string;
  status: number | null;
  durationMs: number;
};

/** What travels with every call: the deadline, and where a network supplier records its exchanges. */
export type SupplierCall = {
  /** Aborted at the caller's deadline; a supplier stops waiting then (the caller stops waiting for it anyway). */
  signal?: AbortSignal;
  /** When present, the supplier appends each request and response it exchanged (none for the embedded inventory). */
  transactions?: ProviderTransaction[];
  /** The caller's deadline in milliseconds (the signal fires at it), for a supplier that passes it on upstream. */
  timeoutMs?: number;
  /** What the caller may sell: a supplier may leave out restricted rates beyond it (the caller filters anyway). */
  rateAccess?: RateAccess;
  /** Who a search is for, as the partner said: a supplier that prices by them passes them on (issue 40). */
  audience?: SearchAudience;
};

/** The travellers' nationality, the language asked for and the markets sold in, each when sent. */
export type SearchAudience = { nationality?: string; language?: string; markets?: string[] };

/** Who a booking is for, as a supplier needs it (the hotel holds the room under this name). */
export type BookingHolder = { name: string; surname: string };

/**
 * `confirmed`: booked. `unknown`: the request went out and no answer came in time, so the booking
 * may exist; the caller keeps it pending and asks `bookingByReference` later.
 */
export type BookAnswer =
  | ({ status: "confirmed" } & SupplierBooking)
  | ({ status: "held" } & SupplierBooking)
  | { status: "unknown"; upstreamBookingId?: string | null };

/** A guest as the partner named them (issue 40: each pax's own name goes upstream). */
export type BookingGuest = { name: string; surname: string; age: number };

/**
 * How a booking is asked: `hold`, taken but not confirmed until `commit` (only of a supplier that
 * `holds`); `guests`, per room in the stay's order, each named, when the partner named them all;
 * `remarks`, the partner's words for the hotel.
 */
export type BookOptions = { hold?: boolean; guests?: BookingGuest[][]; remarks?: string };

/**
 * What a supplier says of a booking made under our client reference. `held`: taken and waiting for
 * its commit, said only of a booking asked as a hold (`commitPending` false).
 */
export type BookingLookup =
  | ({ status: "confirmed" } & SupplierBooking)
  | ({ status: "held" } & SupplierBooking)
  | { status: "not_found" }
  | { status: "cancelled" };

/**
 * What a supplier can do, which booking asks instead of its kind (declared by its kind in the
 * registry, kinds/): `localWrites` (its rooms are taken in our own D1 batch: the embedded
 * inventory), `twoStepBooking` (holds are sold: a booking asked with `hold` is taken and answered
 * `held`, then confirmed by `commit` or given back by `cancel`; the embedded inventory keeps holds
 * itself), `modifications` (a booking's stay can be changed).
 */
export type SupplierCapabilities = { localWrites: boolean; twoStepBooking: boolean; modifications: boolean };

export interface Supplier {
  readonly name: string;
  /** The currency its net prices are in (the hotel's currency); `SellingTerms.exchange` converts from it. */
  readonly currency: string;
  /** Reached over the network: its calls get the caller's deadline. The embedded inventory (our own D1) does not. */
  readonly remote: boolean;
  /** A remote supplier's deadline when the caller gives none (DEFAULT_SUPPLIER_TIMEOUT_MS when absent). */
  readonly defaultTimeoutMs?: number;
  readonly capabilities: SupplierCapabilities;
  /**
   * `mapped`: it speaks its own hotel, room and board codes, so a search reads its maps and asks it
   * only for the accommodations its hotel map maps. `identity` (or absent): it speaks ours.
   */
  readonly hotelCodes?: "identity" | "mapped";
  /**
   * Every accommodation asked (with offers or not: the search tells a hotel without availability
   * from one it could not answer) and the offers by our accommodation code, in our codes (the
   * supplier's own beside them); accommodations without offers have no entry.
   */
  search(
    ask: SearchAsk,
    stay: Stay,
    now: number,
    terms: SellingTerms,
    call?: SupplierCall,
  ): Promise<{ accommodations: SupplyAccommodation[]; offers: Map<string, Offer[]>; warnings?: CurrencyWarning[] }>;
  /**
   * `search` of a selection not resolved yet, for a supplier that resolves it in the same read as its
   * prices (the embedded inventory: one D1 statement): a search whose only supplier it is asks this
   * and takes its accommodations as the ones resolved, saving a round trip.
   */
  searchSelection?(
    selection: AccommodationSelection,
    stay: Stay,
    now: number,
    terms: SellingTerms,
    call?: SupplierCall,
  ): Promise<{ accommodations: SupplyAccommodation[]; offers: Map<string, Offer[]> }>;
  /**
   * The product priced now, or null when it is not sellable for the stay (the supplier says it is
   * sold out or gone). Throws SupplierRefusal `price_changed` when it refuses the searched price.
   */
  quote(
    accommodation: SupplyAccommodation,
    ref: OfferRef,
    stay: Stay,
    now: number,
    terms: SellingTerms,
    call?: SupplierCall,
  ): Promise<Offer | null>;
  /**
   * Takes the rooms for every night (every room type of a mixed offer), all or nothing, under our
   * booking reference as the client reference (so that a retry or a later look-up finds the same booking).
   * Throws SupplierRefusal when nothing was taken.
   */
  book(
    accommodation: SupplyAccommodation,
    /** As quoted: with the supplier's own hotel code when the quote gave one. */
    ref: OfferRef & Pick<Offer, "supplierHotelCode">,
    stay: Stay,
    clientReference: string,
    call?: SupplierCall,
    holder?: BookingHolder,
    options?: BookOptions,
  ): Promise<BookAnswer>;
  /** Confirms a held booking (the second step of a two-step book); a supplier outside our D1 only. */
  commit?(stay: BookedStay, call?: SupplierCall): Promise<SupplierBooking>;
  /** Gives the rooms of a booked stay back. */
  cancel(stay: BookedStay, call?: SupplierCall): Promise<void>;
  /**
   * The booking made under our client reference, for settling one whose answer never came.
   * `booking`: what we stored of it (an upstream looks bookings up per hotel). `commitPending`: the
   * booking was asked for outright (no hold), so one found waiting for its commit (a two-step
   * booking whose commit did not come through) is committed now, as the book would have; false (a
   * hold), one found waiting for its commit is `held`.
   */
  bookingByReference?(
    clientReference: string,
    call?: SupplierCall,
    booking?: {
      accommodationCode: string;
      upstreamAccessCode?: string | null;
      supplierHotelCode?: string | null;
      commitPending?: boolean;
    },
  ): Promise<BookingLookup>;
}
