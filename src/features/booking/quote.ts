import { ApiError } from "../../platform/http/api-error";
import {
  readExchangeTable,
  isSellable,
  sellingTotal,
  type PaymentType,
  accommodationByCode,
  INVENTORY_SUPPLIER,
  SupplierFailure,
  SupplierRefusal,
  type ProviderTransaction,
  callSupplier,
  supplierFailureError,
  supplyOptionsOf,
  type SupplyOptions,
  logUnsellable,
  needsExchangeRates,
  sellingTermsFor,
  maySell,
} from "../supply";
import { percentOfMinor } from "../../platform/money";
import type { CoreConnection } from "../connections";
import { connectionSupplier, type BookingDeps, type SandboxScenario } from "./deps";
import { coreOptionId, readOptionId } from "./option-token";
import { newQuoteId, QUOTE_TTL_SECONDS, quoteStore, type StoredQuote } from "./quote-store";
import { upstreamOptionOf } from "./upstream-options";
import { type PriceRise, withinPriceRise } from "./price-rise";
import type { QuoteRequest } from "./schemas";
import { accommodationSummary, occupancyRefIdsOf, offerRooms, offerTerms, stayFrom, type Occupancy } from "./search";
import { amountJson } from "./wire";
/** A price may rise by up to 1 % of the searched total before quote refuses with `Price changed`. */
export const PRICE_TOLERANCE_PERCENT = 1;
const SEARCH_PRICE_RISE: PriceRise = { percent: PRICE_TOLERANCE_PERCENT, applyBoth: true };

/** `total` (minor units) raised by `percent` %, to the minor unit (money.ts rounding). */
const raisedBy = (total: number, percent: number) => total + percentOfMinor(total, percent);

const sameRooms = (a: number[][], b: number[][]) =>
  a.length === b.length &&
  a.every((ages, i) => {
    const x = [...ages].sort((m, n) => m - n);
    const y = [...b[i]!].sort((m, n) => m - n);
    return x.length === y.length && x.every((v, j) => v === y[j]);
  });

/** 400 `Price changed`, its totals (minor units) as the contract writes them. */
const priceChanged = (previousTotal: number, currentTotal: number, currency: string) =>
  new ApiError("price_changed", "Price changed", {
    previousTotal: amountJson(previousTotal, currency),
    currentTotal: amountJson(currentTotal, currency),
    currency,
  });

/** 400: the request names a payment type other than the option's own (docs/api-decisions.md, issue 27). */
export const paymentTypeMismatch = (optionPaymentType: PaymentType, requestedPaymentType: PaymentType) =>
  new ApiError(
    "payment_type_mismatch",
    `paymentType ${requestedPaymentType} does not match the option's paymentType ${optionPaymentType}`,
    { optionPaymentType, requestedPaymentType },
  );

/** What a quote asks, as data: the searched option and the stay the partner names again. */
export type QuoteQuery = {
  optionId: string;
  accommodationCode: string;
  checkIn: string;
  checkOut: string;
  occupancies: Occupancy[];
  /** `settings.currency` or `quoteCriteria.currency` as sent; the option's currency when absent. */
  currency?: string;
  /** `quoteCriteria.paymentType` as sent: must be the option's when present. */
  paymentType?: PaymentType;
  supply?: SupplyOptions;
  /**
   * How far above the searched total the price may be (Hotel-X `deltaPrice` on a book from a search
   * option), or `any` (a Hotel-X quote answers today's price beside the search's); absent: 1 %.
   */
  priceRise?: PriceRise | "any";
  /** The language asked for (`quoteCriteria.language`, Hotel-X's criteria.language): passed to the supplier. */
  language?: string;
};

/** The data a POST /api/quote body stands for. */
export const quoteQueryOf = (request: QuoteRequest): QuoteQuery => {
  const criteria = request.quoteCriteria;
  return {
    optionId: criteria.optionId,
    accommodationCode: criteria.accommodation.code,
    checkIn: criteria.checkIn,
    checkOut: criteria.checkOut,
    occupancies: criteria.occupancies,
    currency: request.settings.currency ?? criteria.currency,
    ...(criteria.paymentType ? { paymentType: criteria.paymentType } : {}),
    ...(criteria.language ? { language: criteria.language } : {}),
    supply: supplyOptionsOf(request.settings),
  };
};

/**
 * Checks the option against the query and re-prices it from current supply: the public quote and
 * what booking it needs, kept nowhere (chat books it at once; POST /api/quote keeps it).
 */
export const priceQuote = async (
  deps: BookingDeps,
  connection: CoreConnection,
  criteria: QuoteQuery,
  meta: { requestId: string; startedAt: number; scenario: SandboxScenario | null },
  now = Date.now(),
) => {
  // A Hotel-X option id's access prefix is routing only: the core id is what search kept.
  criteria = { ...criteria, optionId: coreOptionId(criteria.optionId) };
  const option = await readOptionId(deps.keys, criteria.optionId, connection.partnerId, now);
  if (criteria.accommodationCode !== option.accommodationCode)
    throw new ApiError("accommodation_mismatch", "Accommodation code mismatch");
  if (criteria.checkIn !== option.checkIn || criteria.checkOut !== option.checkOut)
    throw new ApiError("stay_dates_mismatch", "Stay dates mismatch");
  const requested = criteria.occupancies.map((o) => o.paxes.map((p) => p.age));
  if (!sameRooms(requested, option.rooms)) throw new ApiError("occupancy_mismatch", "Occupancy details mismatch");
  // The partner's occupancy ids, when sent again, must be the ones searched (in the same order).
  const sentIds = criteria.occupancies.some((o) => o.occupancyId !== undefined)
    ? occupancyRefIdsOf(criteria.occupancies)
    : option.occupancyRefIds;
  if (sentIds.some((id, i) => id !== option.occupancyRefIds[i]))
    throw new ApiError("occupancy_mismatch", "Occupancy details mismatch");
  // An option is priced in the currency it was searched in; asking for another is a different search.
  const currency = criteria.currency ?? option.currency;
  if (currency !== option.currency)
    throw new ApiError("currency_mismatch", "Currency mismatch", {
      optionCurrency: option.currency,
      requestedCurrency: currency,
    });
  const stay = stayFrom(option.checkIn, option.checkOut, criteria.occupancies, now);

  const accommodation = await accommodationByCode(deps.db, option.accommodationCode);
  if (!accommodation) throw new ApiError("option_invalid", "Option reference invalid");
  if (meta.scenario === "room_unavailable")
    throw new ApiError("room_unavailable", "Room is unavailable", { sandbox: true });
  if (meta.scenario === "price_changed") {
    throw new ApiError("price_changed", "Price changed", {
      previousTotal: amountJson(option.chargeTotal, option.currency),
      currentTotal: amountJson(raisedBy(option.chargeTotal, 10), option.currency),
      currency: option.currency,
      sandbox: true,
    });
  }
  // The supplier that priced the option, while it still serves this connection.
  const supplier = await connectionSupplier(deps, connection, option.supplier ?? INVENTORY_SUPPLIER);
  if (!supplier) throw new ApiError("option_expired_or_invalid", "Option reference expired or invalid");
  // Today's markup of this connection and today's rate: the quote fixes both for book.
  const table = needsExchangeRates(supplier, currency) ? await readExchangeTable(deps.db) : null;
  const terms = sellingTermsFor(connection, supplier, currency, table);
  const options = criteria.supply ?? {};
  const transactions = options.includeProviderTransactions ? ([] as ProviderTransaction[]) : undefined;
  // An upstream's option is quoted by the id its search gave, so it is asked once (upstream-options.ts).
  const upstream = supplier.remote ? await upstreamOptionOf(deps.quotes, criteria.optionId, option) : {};
  let offer;
  try {
    offer = await callSupplier(supplier, options, transactions, (call) =>
      supplier.quote(
        accommodation,
        { roomCode: option.roomCode, ratePlanCode: option.ratePlanCode, ...upstream },
        stay,
        now,
        terms,
        criteria.language ? { ...call, audience: { language: criteria.language } } : call,
      ),
    );
  } catch (error) {
    if (error instanceof SupplierFailure) throw supplierFailureError(error);
    // The supplier refused the searched price without naming today's: the searched total is all there is to show.
    if (error instanceof SupplierRefusal && error.reason === "price_changed")
      throw new ApiError("price_changed", "Price changed", {
        previousTotal: amountJson(option.chargeTotal, option.currency),
        currency: option.currency,
      });
    // The supplier's own clear answer (an option priced in a currency without an exchange rate).
    if (error instanceof ApiError) throw error;
    if (supplier.remote)
      throw supplierFailureError(new SupplierFailure("supplier_error", supplier.name, String(error)));
    throw error;
  }
  if (!offer) throw new ApiError("room_unavailable", "Room is unavailable");
  // A restricted rate the search could not show (a plan code changed in the unsigned part of the id) is not sold.
  if (!maySell(offer, option.access)) throw new ApiError("option_invalid", "Option reference invalid");
  // Priced at nothing (or past an exact amount) in this currency: not for sale, as search would not offer it.
  if (!isSellable(offer)) {
    logUnsellable(supplier.name, terms, 1);
    throw new ApiError("room_unavailable", "Room is unavailable");
  }
  // Quoting asks for the option's own payment type: another one is a different product, not a conversion.
  if (criteria.paymentType !== undefined && criteria.paymentType !== offer.paymentType)
    throw paymentTypeMismatch(offer.paymentType, criteria.paymentType);
  // The id signs the selling total (PayAtProperty: the stay's value), compared alike.
  const total = sellingTotal(offer.rate, offer.paymentType);
  const rise = criteria.priceRise ?? SEARCH_PRICE_RISE;
  if (rise !== "any" && !withinPriceRise(option.chargeTotal, total, option.currency, rise)) {
    throw priceChanged(option.chargeTotal, total, offer.rate.currency);
  }

  const quoteId = newQuoteId();
  const quote = {
    id: quoteId,
    accommodation: accommodationSummary(accommodation),
    occupancies: criteria.occupancies.map((o, i) => ({
      occupancyId: option.occupancyRefIds[i]!,
      paxes: o.paxes.map((p) => ({ age: p.age, ...(p.nationality ? { nationality: p.nationality } : {}) })),
    })),
    checkIn: stay.checkIn,
    checkOut: stay.checkOut,
    roomCodes: offer.rooms.map((r) => r.code),
    roomNames: offer.rooms.map((r) => r.description),
    ...offerTerms(offer, option.occupancyRefIds),
    requestId: meta.requestId,
    responseTime: Math.max(0, Date.now() - meta.startedAt),
  };
  const stored: StoredQuote = {
    v: 2,
    partnerId: connection.partnerId,
    connectionId: connection.id,
    supplier: {
      name: supplier.name,
      roomCode: offer.roomCode,
      ratePlanCode: offer.ratePlanCode,
      ...(offer.upstreamOptionId ? { upstreamOptionId: offer.upstreamOptionId } : {}),
      ...(offer.upstreamAccessCode ? { upstreamAccessCode: offer.upstreamAccessCode } : {}),
      ...(offer.supplierHotelCode ? { supplierHotelCode: offer.supplierHotelCode } : {}),
    },
    stay,
    occupancyRefIds: option.occupancyRefIds,
    accommodationCode: accommodation.code,
    expiresAt: now + QUOTE_TTL_SECONDS * 1000,
    // What book takes, as the offer priced it (minor units): never read back from the answer.
    quote: {
      id: quoteId,
      rate: offer.rate,
      paymentType: offer.paymentType,
      boardCode: offer.boardCode,
      cancelPolicy: offer.cancelPolicy,
      rooms: offerRooms(offer, option.occupancyRefIds),
    },
  };
  return { quote, stored, transactions };
};

/** POST /api/quote: the priced quote, kept 30 minutes for book. */
export const quoteOption = async (
  ...[deps, connection, criteria, meta, now = Date.now()]: Parameters<typeof priceQuote>
) => {
  const { quote, stored, transactions } = await priceQuote(deps, connection, criteria, meta, now);
  await quoteStore(deps.quotes, deps.db).put(quote.id, stored);
  return transactions ? { ...quote, providerTransactions: transactions } : quote;
};
