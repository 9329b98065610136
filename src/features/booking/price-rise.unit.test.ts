import { describe, expect, it } from "vitest";
import { NO_PRICE_RISE, withinPriceRise } from "./price-rise";

describe("Hotel-X deltaPrice: how far a price may rise (withinPriceRise; prices in minor units, the bound in major)", () => {
  it("no bound accepts no rise; a fall or the same price is always accepted", () => {
    expect(withinPriceRise(10_000, 10_000, "EUR", NO_PRICE_RISE)).toBe(true);
    expect(withinPriceRise(10_000, 9999, "EUR", NO_PRICE_RISE)).toBe(true);
    expect(withinPriceRise(10_000, 10_001, "EUR", NO_PRICE_RISE)).toBe(false);
    expect(withinPriceRise(10_000, 10_001, "EUR", { applyBoth: false })).toBe(false);
  });

  it("amount: in the prices' currency, to its minor unit (JPY has none)", () => {
    expect(withinPriceRise(10_000, 11_000, "EUR", { amount: 10, applyBoth: false })).toBe(true);
    expect(withinPriceRise(10_000, 11_001, "EUR", { amount: 10, applyBoth: false })).toBe(false);
    expect(withinPriceRise(10_000, 10_100, "JPY", { amount: 100, applyBoth: true })).toBe(true);
    expect(withinPriceRise(10_000, 10_101, "JPY", { amount: 100, applyBoth: true })).toBe(false);
  });

  it("percent: of the earlier price, rounded once to the minor unit", () => {
    expect(withinPriceRise(20_000, 23_000, "EUR", { percent: 15, applyBoth: false })).toBe(true);
    expect(withinPriceRise(20_000, 23_001, "EUR", { percent: 15, applyBoth: false })).toBe(false);
    // 1 % of 123.45 (12345 cents) is 1.2345, rounded to 1.23.
    expect(withinPriceRise(12_345, 12_468, "EUR", { percent: 1, applyBoth: true })).toBe(true);
    expect(withinPriceRise(12_345, 12_469, "EUR", { percent: 1, applyBoth: true })).toBe(false);
  });

  it("applyBoth false: within either bound; true: within every bound given", () => {
    // A rise of 20 on 100: within 25 (amount), beyond 10 % (percent).
    const both = { amount: 25, percent: 10 };
    expect(withinPriceRise(10_000, 12_000, "EUR", { ...both, applyBoth: false })).toBe(true);
    expect(withinPriceRise(10_000, 12_000, "EUR", { ...both, applyBoth: true })).toBe(false);
    expect(withinPriceRise(10_000, 11_000, "EUR", { ...both, applyBoth: true })).toBe(true);
    expect(withinPriceRise(10_000, 12_600, "EUR", { ...both, applyBoth: false })).toBe(false);
  });
});
