/**
 * Money in one place: amounts are carried as numbers of the currency's major unit at the edges (the
 * contract's JSON) and computed in whole minor units (integers), so that sums never drift. No
 * library: every operation below is integer arithmetic plus at most one rounding, always the same
 * one, half away from zero (2.5 -> 3, -2.5 -> -3), the commercial rule tax authorities use.
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

const scaleByCurrency = new Map<string, number>();

/** Minor units per major unit: 100 for USD, 1 for JPY, 1000 for KWD (kept per currency: every amount written asks). */
export const minorScale = (currency: string): number => {
  let scale = scaleByCurrency.get(currency);
  if (scale === undefined) scaleByCurrency.set(currency, (scale = 10 ** minorUnitDigits(currency)));
  return scale;
};

/** The one rounding of this module: to the nearest integer, a half away from zero (never -0: + 0 makes it 0). */
export const roundHalfAwayFromZero = (n: number): number => (n < 0 ? -Math.round(-n) : Math.round(n)) + 0;

/** An amount in major units (442.11) as whole minor units (44211), rounded once. */
export const toMinor = (amount: number, currency: string): number =>
  roundHalfAwayFromZero(amount * minorScale(currency));

/** Whole minor units as the major-unit number the JSON carries (44211 -> 442.11). */
export const toMajor = (minor: number, currency: string): number => minor / minorScale(currency);

/** The sum of whole minor units (exact below 2^53). */
export const sumMinor = (amounts: readonly number[]): number => {
  let total = 0;
  for (const amount of amounts) total += amount;
  return total;
};

/** Percentages are exact to this many decimals (6.25 %, 8.875 %): a percent is held as an integer of 1/10,000 %. */
const PERCENT_DECIMALS = 4;
const PERCENT_SCALE = 10 ** PERCENT_DECIMALS;

/**
 * `minor x numerator / divisor`, rounded once (half away from zero), in integers: exact whatever
 * the sizes (BigInt only when the product passes 2^53).
 */
const ratioOfMinor = (minor: number, numerator: number, divisor: number): number => {
  const product = minor * numerator;
  if (Number.isSafeInteger(product)) {
    const quotient = Math.trunc(product / divisor);
    const remainder = product - quotient * divisor;
    return (2 * Math.abs(remainder) >= divisor ? quotient + Math.sign(product) : quotient) + 0;
  }
  const big = BigInt(minor) * BigInt(numerator);
  const d = BigInt(divisor);
  const quotient = big / d;
  const remainder = big - quotient * d;
  const absRemainder = remainder < 0n ? -remainder : remainder;
  return Number(2n * absRemainder >= d ? quotient + (big < 0n ? -1n : 1n) : quotient);
};

/**
 * `percent` % of whole minor units, rounded once (half away from zero). The percent is read to 4
 * decimals and multiplied as integers, so 12 % of 12.5 cents is exactly 1.5 cents before rounding.
 */
export const percentOfMinor = (minor: number, percent: number): number =>
  ratioOfMinor(minor, roundHalfAwayFromZero(percent * PERCENT_SCALE), 100 * PERCENT_SCALE);

/** Factors are exact to this many decimals: a product of a few two-decimal factors (1.35 x 0.85 x 1.15) fits. */
const FACTOR_SCALE = 10 ** 8;

/**
 * Whole minor units times a factor (a price list's 1.12 for a board, 1.15 for a child), rounded
 * once. The factor is read to 8 decimals and multiplied as integers: `12345 x 1.1` is 13579.5,
 * hence 13580, where floating point (or the same in major units, 123.45 x 1.1) can land on either side.
 */
export const scaleMinor = (minor: number, factor: number): number =>
  factor === 1 ? minor : ratioOfMinor(minor, roundHalfAwayFromZero(factor * FACTOR_SCALE), FACTOR_SCALE);

/**
 * Whole minor units of `from` converted into `to` at `rate` (units of `to` per unit of `from`),
 * rounded once to the minor unit of `to`. Converting back at the inverse rate lands within one
 * minor unit of the start whenever a minor unit of `to` is worth at most one of `from`.
 */
export const convertMinor = (minor: number, from: string, to: string, rate: number): number => {
  if (from === to && rate === 1) return minor;
  const shift = minorUnitDigits(to) - minorUnitDigits(from);
  return roundHalfAwayFromZero(shift >= 0 ? minor * rate * 10 ** shift : (minor * rate) / 10 ** -shift);
};

/**
 * Splits whole minor units into parts proportional to `weights` (non-negative integers, not all 0),
 * by largest remainder: each part gets the floor of its share, then the units left go one each to
 * the largest remainders (the earlier part on a tie). The parts sum to `total` exactly.
 */
export const splitMinor = (total: number, weights: readonly number[]): number[] => {
  const weightSum = sumMinor(weights);
  if (weights.length === 0) return [];
  if (weightSum <= 0) throw new RangeError("splitMinor needs a positive weight");
  const sign = total < 0 ? -1 : 1;
  const magnitude = Math.abs(total);
  // Equal weights (rooms, nights): equal shares, the units left one each to the first parts, as below.
  if (weights.every((w) => w === weights[0])) {
    const share = Math.floor(magnitude / weights.length);
    const left = magnitude - share * weights.length;
    return weights.map((_, i) => (share + (i < left ? 1 : 0)) * sign);
  }
  const parts = weights.map((w) => Math.floor((magnitude * w) / weightSum));
  const remainders = weights.map((w, i) => ({ i, r: magnitude * w - parts[i]! * weightSum }));
  let left = magnitude - sumMinor(parts);
  remainders.sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; left > 0; k++, left--) parts[remainders[k % remainders.length]!.i]! += 1;
  return parts.map((p) => p * sign);
};

/**
 * Whether an amount (whole minor units) can be charged: above zero and exact (a safe integer). A
 * rate far from 1 can round a price down to 0 or up past what a double holds exactly.
 */
export const isChargeable = (minor: number): boolean => Number.isSafeInteger(minor) && minor > 0;
