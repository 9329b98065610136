/**
 * How a net night becomes the price a connection sells it at: the connection's markup on the net
 * price, then the exchange into the currency the partner asked for. Each step is rounded per night
 * (net to cents, marked-up to cents, converted to the target currency's minor unit), so two
 * connections differing only in markup differ by exactly that markup on every night.
 */

import type { Offer } from "./supplier";

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

const digitsByCurrency = new Map<string, number>();

/** ISO 4217 minor-unit digits (JPY 0, USD 2, KWD 3), from the runtime's ICU data; 2 when it does not know. */
export const minorUnitDigits = (currency: string): number => {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsByCurrency.set(currency, digits);
  }
  return digits;
};

/**
 * Prices in one currency, kept as whole minor units while adding so that sums do not drift.
 */
export const moneyIn = (currency: string) => {
  const scale = 10 ** minorUnitDigits(currency);
  return {
    currency,
    scale,
    amount: (minor: number) => minor / scale,
  };
};

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

/**
 * Whether an amount can be charged: above zero, finite, and exact in minor units (a safe integer).
 * A rate far from 1 can round a price down to 0 or up past what a double holds exactly.
 */
export const isChargeable = (amount: number, currency: string): boolean =>
  Number.isFinite(amount) && amount > 0 && Number.isSafeInteger(Math.round(amount * 10 ** minorUnitDigits(currency)));

/** Whether an offer can be sold: its total and every room's total are chargeable. */
export const isSellable = (offer: Pick<Offer, "rate" | "rooms">): boolean =>
  isChargeable(offer.rate.chargeTotal, offer.rate.currency) &&
  offer.rooms.every((room) => isChargeable(room.rate.chargeTotal, room.rate.currency));
