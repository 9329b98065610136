/**
 * How a net night becomes the price a connection sells it at: the connection's markup on the net
 * price, then the exchange into the currency the partner asked for. Each step is rounded per night
 * (net to the hotel currency's minor unit, marked-up likewise, converted to the target currency's
 * minor unit; money.ts), so two connections differing only in markup differ by exactly that markup
 * on every night. Taxes are computed on the marked-up (selling) base, fees are never marked up.
 */

import { convertMinor, isChargeable, percentOfMinor } from "../../platform/money";
import type { CoreConnection } from "../connections";
import { exchangeFor, type ExchangeTable } from "./exchange-rates";
import type { Offer, PaymentType, Rate, Supplier } from "./supplier";

/** What an offer is sold at; `exchange.rate` converts one unit of the hotel's currency into `currency`. */
export type SellingTerms = {
  markupPercent: number;
  currency: string;
  exchange: { currency: string; rate: number };
};

/** No markup, no conversion: the net price in the hotel's own currency. */
export const netTerms = (hotelCurrency: string): SellingTerms => ({
  markupPercent: 0,
  currency: hotelCurrency,
  exchange: { currency: hotelCurrency, rate: 1 },
});

/** A sold amount in whole minor units: in the property's (hotel's) currency, and converted into the selling currency. */
export type SoldAmount = { property: number; sold: number };

/** Whole minor units of a net price (hotel currency) as sold: the markup added (rounded once), then converted. */
export const sellMinor = (netMinor: number, terms: SellingTerms): SoldAmount => {
  const property = terms.markupPercent === 0 ? netMinor : netMinor + percentOfMinor(netMinor, terms.markupPercent);
  return { property, sold: toSellingCurrency(property, terms) };
};

/** Whole minor units of the hotel's currency in the selling currency, at the terms' rate (rounded once). */
export const toSellingCurrency = (propertyMinor: number, terms: SellingTerms): number =>
  convertMinor(propertyMinor, terms.exchange.currency, terms.currency, terms.exchange.rate);

/**
 * What an offer is worth to whoever takes the money: `chargeTotal` when Edgestay charges it
 * (MerchantPay), the whole stay when the property does (PayAtProperty: `chargeTotal` is 0). An
 * option id signs it and quote compares it, so the price a hotel will collect cannot drift unseen.
 */
export const sellingTotal = (rate: Pick<Rate, "chargeTotal" | "totalStayPrice">, paymentType: PaymentType): number =>
  paymentType === "PayAtProperty" ? rate.totalStayPrice : rate.chargeTotal;

/**
 * Whether an offer can be sold: its total and every room's total are chargeable (`sellingTotal`: a
 * PayAtProperty offer's 0 charged at booking is its nature, its stay's value must be chargeable).
 */
export const isSellable = (offer: Pick<Offer, "rate" | "rooms" | "paymentType">): boolean =>
  isChargeable(sellingTotal(offer.rate, offer.paymentType)) &&
  offer.rooms.every((room) => isChargeable(sellingTotal(room.rate, offer.paymentType)));

/** Whether pricing in `currency` needs the operator's exchange rates (a currency other than the supplier's). */
export const needsExchangeRates = (supplier: Pick<Supplier, "currency">, currency: string | undefined) =>
  currency !== undefined && currency !== supplier.currency;

/**
 * What a connection sells at: its `netMarkups` percentage on the net price, converted into the
 * requested currency (`table` is required when `needsExchangeRates`). A currency without a rate
 * is 400 `Unsupported currency`.
 */
export const sellingTermsFor = (
  connection: Pick<CoreConnection, "netMarkups">,
  supplier: Pick<Supplier, "currency">,
  currency: string | undefined,
  table: ExchangeTable | null,
): SellingTerms => {
  const target = currency ?? supplier.currency;
  const exchange =
    target === supplier.currency
      ? { currency: supplier.currency, rate: 1 }
      : exchangeFor(table ?? new Map(), supplier.currency, target);
  return { markupPercent: connection.netMarkups, currency: target, exchange };
};

/** Offers left out for a price that cannot be charged (`isSellable`): logged with the terms that made it, for the operator. */
export const logUnsellable = (supplier: string, terms: SellingTerms, offers: number) =>
  console.error(
    JSON.stringify({
      level: "warn",
      event: "unsellable_offers_dropped",
      supplier,
      currency: terms.currency,
      exchange: terms.exchange,
      markupPercent: terms.markupPercent,
      offers,
    }),
  );
