/**
 * How a net night becomes the price a connection sells it at: the connection's markup on the net
 * price, then the exchange into the currency the partner asked for. Each step is rounded per night
 * (net to cents, marked-up to cents, converted to the target currency's minor unit), so two
 * connections differing only in markup differ by exactly that markup on every night.
 */

import { isChargeable } from "../../platform/money";
import type { CoreConnection } from "../connections";
import { exchangeFor, type ExchangeTable } from "./exchange-rates";
import type { Offer, Supplier } from "./supplier";

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

/**
 * One net night (hotel currency, before rounding) as sold, in whole minor units of the target
 * currency. Net and marked-up prices are rounded to cents of the hotel currency; the converted
 * price to the target's minor unit. Integer cents keep `net × 1.1` exact at the half cent.
 */
export const sellNight = (net: number, terms: SellingTerms, targetScale: number): number => {
  const netCents = Math.round(net * 100);
  const soldCents = terms.markupPercent === 0 ? netCents : Math.round((netCents * (100 + terms.markupPercent)) / 100);
  if (terms.exchange.rate === 1 && targetScale === 100) return soldCents;
  return Math.round((soldCents / 100) * terms.exchange.rate * targetScale);
};

/** Whether an offer can be sold: its total and every room's total are chargeable. */
export const isSellable = (offer: Pick<Offer, "rate" | "rooms">): boolean =>
  isChargeable(offer.rate.chargeTotal, offer.rate.currency) &&
  offer.rooms.every((room) => isChargeable(room.rate.chargeTotal, room.rate.currency));

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
