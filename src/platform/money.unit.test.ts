import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { itemizedRate } from "../features/supply/rate-lines";
import {
  convertMinor,
  minorScale,
  minorUnitDigits,
  percentOfMinor,
  roundHalfAwayFromZero,
  scaleMinor,
  splitMinor,
  sumMinor,
  toMajor,
  toMinor,
} from "./money";

const CURRENCIES = ["EUR", "USD", "JPY", "KWD"] as const;
/** Units of each currency per USD, roughly as they trade: every minor unit is worth at most a US cent. */
const PER_USD: Record<(typeof CURRENCIES)[number], number> = { USD: 1, EUR: 0.92, JPY: 151.3, KWD: 0.3071 };

describe("money: integer minor units, one rounding", () => {
  it("knows the minor units of JPY (0), USD (2) and KWD (3)", () => {
    expect([minorUnitDigits("JPY"), minorUnitDigits("USD"), minorUnitDigits("KWD")]).toEqual([0, 2, 3]);
  });

  it("rounds half away from zero", () => {
    expect([2.5, -2.5, 2.4999, 0.5, -0.5].map(roundHalfAwayFromZero)).toEqual([3, -3, 2, 1, -1]);
    // 12 % of 12.5 cents... of 125 tenths: 15 exactly, 8.875 % of 200 cents is 17.75 -> 18.
    expect(percentOfMinor(200, 8.875)).toBe(18);
    expect(percentOfMinor(50, 1)).toBe(1); // 0.5 -> 1
    expect(percentOfMinor(-50, 1)).toBe(-1);
  });

  it("a percent is the exact rational result, rounded once (checked against BigInt arithmetic)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (minor, tenThousandths) => {
          const exact = BigInt(minor) * BigInt(tenThousandths);
          const d = 1_000_000n;
          const abs = exact < 0n ? -exact : exact;
          const rounded = (abs / d + (2n * (abs % d) >= d ? 1n : 0n)) * (exact < 0n ? -1n : 1n);
          expect(percentOfMinor(minor, tenThousandths / 10_000)).toBe(Number(rounded));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a price times its factors is rounded once from the exact product, where floating point is not", () => {
    // 101.10 x 0.85 is 85.935: the half cent rounds up. As floats, 101.1 * 0.85 * 100 is 8593.499999999998.
    expect(toMinor(101.1 * 0.85, "USD")).toBe(8593);
    expect(scaleMinor(10110, 0.85)).toBe(8594);
    expect(scaleMinor(12345, 1.1)).toBe(13580);
    // A rate plan's factor times an occupancy's: 10000 x 1.1475 x 1.15 is 13196.25 exactly.
    expect(scaleMinor(10000, 1.1475 * 1.15)).toBe(13196);
    expect(scaleMinor(-10110, 0.85)).toBe(-8594);
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 400 }),
        (minor, a, b) => {
          // Two two-decimal factors, as the price list and the occupancy give them: their product has 4 decimals.
          const exact = BigInt(minor) * BigInt(a) * BigInt(b);
          const d = 10_000n;
          const abs = exact < 0n ? -exact : exact;
          const rounded = (abs / d + (2n * (abs % d) >= d ? 1n : 0n)) * (exact < 0n ? -1n : 1n);
          expect(scaleMinor(minor, (a / 100) * (b / 100))).toBe(Number(rounded));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a split by largest remainder sums to the whole, each part within one unit of its share", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e9, max: 1e9 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 31 }).filter((w) => sumMinor(w) > 0),
        (total, weights) => {
          const parts = splitMinor(total, weights);
          expect(sumMinor(parts)).toBe(total);
          const weightSum = sumMinor(weights);
          parts.forEach((part, i) => {
            expect(Number.isInteger(part)).toBe(true);
            expect(Math.abs(part - (total * weights[i]!) / weightSum)).toBeLessThan(1);
          });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("a conversion and back lands within one minor unit, for EUR, USD, JPY and KWD", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.constantFrom(...CURRENCIES),
        fc.integer({ min: 0, max: 1e10 }),
        (from, to, minor) => {
          const rate = PER_USD[to] / PER_USD[from];
          const there = convertMinor(minor, from, to, rate);
          expect(Number.isInteger(there)).toBe(true);
          const back = convertMinor(there, to, from, 1 / rate);
          // Each leg rounds once: back within a unit of `from` whenever a unit of `to` is worth no more than one of `from`.
          const toUnitInFrom = (1 / rate) * 10 ** (minorUnitDigits(from) - minorUnitDigits(to));
          expect(Math.abs(back - minor)).toBeLessThanOrEqual(Math.max(1, Math.ceil(toUnitInFrom / 2 + 0.5)));
          if (toUnitInFrom <= 1) expect(Math.abs(back - minor)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("major and minor units convert exactly for every amount that has whole minor units", () => {
    fc.assert(
      fc.property(fc.constantFrom(...CURRENCIES), fc.integer({ min: -1e12, max: 1e12 }), (currency, minor) => {
        expect(toMinor(toMajor(minor, currency), currency)).toBe(minor);
        expect(toMajor(minor, currency) * minorScale(currency)).toBeCloseTo(minor, 3);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("itemizedRate: a booking stored before rates were itemized", () => {
  it("derives a breakdown whose items and nights sum to its stored totals", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CURRENCIES),
        fc.integer({ min: 1, max: 1e8 }),
        fc.integer({ min: 0, max: 1e7 }),
        fc.integer({ min: 1, max: 30 }),
        (currency, base, taxes, nights) => {
          // A record's totals, whole minor units (issue 38).
          const stored = {
            currency,
            baseRate: base,
            taxesAndFees: taxes,
            chargeTotal: base + taxes,
            exchange: { currency: "USD", rate: PER_USD[currency] },
          };
          const checkOut = new Date(Date.UTC(2027, 0, 1 + nights)).toISOString().slice(0, 10);
          const rate = itemizedRate(stored, "2027-01-01", checkOut);
          expect(rate).toMatchObject(stored);
          expect(rate.nights).toHaveLength(nights);
          expect(sumMinor(rate.nights.map((n) => n.baseRate))).toBe(base);
          expect(sumMinor(rate.nights.map((n) => n.taxesAndFees))).toBe(taxes);
          expect(sumMinor(rate.charges.map((c) => c.amount))).toBe(taxes);
          expect(rate.totalStayPrice).toBe(stored.chargeTotal);
          expect(rate.dueAtProperty.amount).toBe(0);
          expect(rate.dueAtProperty.amountInRateCurrency === undefined).toBe(currency === "USD");
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps a rate that is itemized already as it is", () => {
    const rate = itemizedRate(
      { currency: "USD", baseRate: 10_000, taxesAndFees: 0, chargeTotal: 10_000 },
      "2027-01-01",
      "2027-01-03",
    );
    expect(itemizedRate(rate, "2027-01-01", "2027-01-03")).toBe(rate);
  });
});
