import { describe, expect, it } from "vitest";
import { NO_PRICE_RISE, withinPriceRise } from "./price-rise";

describe("Hotel-X deltaPrice: how far a price may rise (withinPriceRise)", () => {
  it("no bound accepts no rise; a fall or the same price is always accepted", () => {
    expect(withinPriceRise(100, 100, "EUR", NO_PRICE_RISE)).toBe(true);
    expect(withinPriceRise(100, 99.99, "EUR", NO_PRICE_RISE)).toBe(true);
    expect(withinPriceRise(100, 100.01, "EUR", NO_PRICE_RISE)).toBe(false);
    expect(withinPriceRise(100, 100.01, "EUR", { applyBoth: false })).toBe(false);
  });

  it("amount: in the prices' currency, to its minor unit (JPY has none)", () => {
    expect(withinPriceRise(100, 110, "EUR", { amount: 10, applyBoth: false })).toBe(true);
    expect(withinPriceRise(100, 110.01, "EUR", { amount: 10, applyBoth: false })).toBe(false);
    expect(withinPriceRise(10_000, 10_100, "JPY", { amount: 100, applyBoth: true })).toBe(true);
    expect(withinPriceRise(10_000, 10_101, "JPY", { amount: 100, applyBoth: true })).toBe(false);
  });

  it("percent: of the earlier price, rounded once to the minor unit", () => {
    expect(withinPriceRise(200, 230, "EUR", { percent: 15, applyBoth: false })).toBe(true);
    expect(withinPriceRise(200, 230.01, "EUR", { percent: 15, applyBoth: false })).toBe(false);
    // 1 % of 123.45 is 1.2345, rounded to 1.23.
    expect(withinPriceRise(123.45, 124.68, "EUR", { percent: 1, applyBoth: true })).toBe(true);
    expect(withinPriceRise(123.45, 124.69, "EUR", { percent: 1, applyBoth: true })).toBe(false);
  });

  it("applyBoth false: within either bound; true: within every bound given", () => {
    // A rise of 20 on 100: within 25 (amount), beyond 10 % (percent).
    const both = { amount: 25, percent: 10 };
    expect(withinPriceRise(100, 120, "EUR", { ...both, applyBoth: false })).toBe(true);
    expect(withinPriceRise(100, 120, "EUR", { ...both, applyBoth: true })).toBe(false);
    expect(withinPriceRise(100, 110, "EUR", { ...both, applyBoth: true })).toBe(true);
    expect(withinPriceRise(100, 126, "EUR", { ...both, applyBoth: false })).toBe(false);
  });
});
