import { percentOfMinor, toMinor } from "../../platform/money";

/**
 * How far a later price may rise above an earlier one and still be accepted: Hotel-X
 * `DeltaPriceInput`. `amount` is in the prices' currency, `percent` a percentage of the earlier
 * price. `applyBoth` false: the rise is accepted within either bound given; true: within every
 * bound given. No bound at all accepts no rise (Hotel-X: without deltaPrice "the price range is 0").
 */
export type PriceRise = { amount?: number; percent?: number; applyBoth: boolean };

/** Hotel-X's book without deltaPrice: the price may not rise at all. */
export const NO_PRICE_RISE: PriceRise = { applyBoth: true };

/**
 * Whether `current` is within `rise` of `previous` (both whole minor units of `currency`; a fall
 * always is). `rise.amount` is the request's, in major units, read here once (the request does not
 * know the option's currency).
 */
export const withinPriceRise = (previous: number, current: number, currency: string, rise: PriceRise): boolean => {
  const before = previous;
  const increase = current - before;
  if (increase <= 0) return true;
  const bounds = [
    ...(rise.amount === undefined ? [] : [toMinor(rise.amount, currency)]),
    ...(rise.percent === undefined ? [] : [percentOfMinor(before, rise.percent)]),
  ];
  if (bounds.length === 0) return false;
  return rise.applyBoth ? bounds.every((bound) => increase <= bound) : bounds.some((bound) => increase <= bound);
};
