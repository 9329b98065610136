/**
 * Money in one place: amounts are carried as numbers of the currency's major unit at the edges (the
 * contract's JSON) and computed in whole minor units, so that sums never drift.
 */

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
 * Whether an amount can be charged: above zero, finite, and exact in minor units (a safe integer).
 * A rate far from 1 can round a price down to 0 or up past what a double holds exactly.
 */
export const isChargeable = (amount: number, currency: string): boolean =>
  Number.isFinite(amount) && amount > 0 && Number.isSafeInteger(Math.round(amount * 10 ** minorUnitDigits(currency)));

/** An amount rounded to cents (two decimals). */
export const round2 = (n: number) => Math.round(n * 100) / 100;
