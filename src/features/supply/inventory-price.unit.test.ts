import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sumMinor, toMinor } from "../../platform/money";
import { addDays } from "../../platform/time/zoned-time";
import type { FeeSchedule, MandatoryFee } from "../content";
import { exchangeFor } from "./exchange-rates";
import { CURRENCY, feePlanOf, roomLines } from "./inventory-price";
import { addLines, payAtPropertyLines, rateOfLines } from "./rate-lines";
import type { SellingTerms } from "./selling-price";
import type { Rate } from "./supplier";

/**
 * What is due at the property is the property's own figures (docs/api-decisions.md, "Issue 38:
 * what is due at the property"): over selling currencies, exchange rates, markups and fee
 * schedules (percent and flat fees, included or due), a PayAtProperty rate's `dueAtProperty` is the
 * same to the minor unit whatever currency the partner reads it in, and its nights sum to it.
 */

/** Units per USD, roughly as they trade; each run moves every rate by up to 30 % either way. */
const PER_USD = { USD: 1, EUR: 0.92, GBP: 0.79, CHF: 0.88, JPY: 151.3, KWD: 0.307, BHD: 0.377 } as const;
type Currency = keyof typeof PER_USD;
const CURRENCIES = Object.keys(PER_USD) as Currency[];
const CHECK_IN = "2027-03-10";

/** A mandatory fee: a percentage to 4 decimals, or an amount per room and night in cents; included or due. */
const feeArbitrary = fc.record({
  type: fc.constantFrom("TAX" as const, "FEE" as const),
  percent: fc.boolean(),
  value: fc.integer({ min: 0, max: 250_000 }),
  included: fc.boolean(),
});
const scheduleArbitrary = fc.array(feeArbitrary, { maxLength: 5 }).map((fees) =>
  fees.map(
    (f, i): MandatoryFee => ({
      type: f.type,
      code: `${f.type}_${i}`,
      description: f.type,
      basis: f.percent ? "PERCENT_OF_BASE" : "PER_ROOM_PER_NIGHT",
      value: f.percent ? f.value / 10_000 : f.value / 100,
      included: f.included,
    }),
  ),
);

const caseArbitrary = fc.record({
  /** Each rate per USD moved by a factor of 0.7 to 1.3. */
  moves: fc.array(fc.integer({ min: 7_000, max: 13_000 }), {
    minLength: CURRENCIES.length,
    maxLength: CURRENCIES.length,
  }),
  /** Net nights: whole US cents with a rate plan's two-decimal factor still to apply. */
  nets: fc.array(
    fc
      .record({ minor: fc.integer({ min: 100, max: 900_000 }), factor: fc.integer({ min: 50, max: 250 }) })
      .map((n) => ({ minor: n.minor, factor: n.factor / 100 })),
    { minLength: 1, maxLength: 10 },
  ),
  /** A room's occupancy factor: 1, plus 0.25 an extra adult and 0.15 a child. */
  factors: fc.array(fc.record({ adults: fc.integer({ min: 0, max: 2 }), children: fc.integer({ min: 0, max: 3 }) }), {
    minLength: 1,
    maxLength: 4,
  }),
  markupPercent: fc.integer({ min: 0, max: 500_000 }).map((n) => n / 10_000),
  fees: scheduleArbitrary,
});
type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** An offer of the case's rooms sold in `currency`, MerchantPay or PayAtProperty, as the embedded inventory prices it. */
const offerIn = (c: Case, currency: Currency, payAtProperty: boolean) => {
  const table = new Map(CURRENCIES.map((code, i) => [code as string, (PER_USD[code] * c.moves[i]!) / 10_000]));
  table.set("USD", 1);
  const terms: SellingTerms = {
    markupPercent: c.markupPercent,
    currency,
    exchange: exchangeFor(table, CURRENCY, currency),
  };
  const schedule: FeeSchedule = { currency: CURRENCY, mandatory: c.fees, optional: [], source: "operator" };
  const fees = feePlanOf(schedule, terms);
  const dates = c.nets.map((_, n) => addDays(CHECK_IN, n));
  const rooms = c.factors.map((f) => {
    const lines = roomLines(c.nets, 1 + 0.25 * f.adults + 0.15 * f.children, dates, terms, fees);
    return payAtProperty ? payAtPropertyLines(lines) : lines;
  });
  return { rate: rateOfLines(addLines(rooms)), rooms: rooms.map(rateOfLines) };
};

const cents = (amount: number) => toMinor(amount, CURRENCY);

/** A PayAtProperty rate's nights are the property's and sum to what is due there, base to ROOM, the rest to the other charges. */
const expectNightsAreDue = (rate: Rate) => {
  const due = rate.dueAtProperty;
  expect(due.currency).toBe(CURRENCY);
  expect(rate.nights.every((n) => n.currency === CURRENCY)).toBe(true);
  const room = due.charges.find((ch) => ch.code === "ROOM");
  expect(sumMinor(rate.nights.map((n) => cents(n.baseRate)))).toBe(room ? cents(room.amount) : 0);
  expect(sumMinor(rate.nights.map((n) => cents(n.taxesAndFees)))).toBe(
    sumMinor(due.charges.filter((ch) => ch.code !== "ROOM").map((ch) => cents(ch.amount))),
  );
  expect(sumMinor(due.charges.map((ch) => cents(ch.amount)))).toBe(cents(due.amount));
};

describe("dueAtProperty is the property's own figures (issue 38)", () => {
  it("identical to the cent in every selling currency, for the offer and each room; the nights sum to it", () => {
    fc.assert(
      fc.property(caseArbitrary, fc.constantFrom(...CURRENCIES), (c, selling) => {
        const home = offerIn(c, "USD", true);
        const sold = offerIn(c, selling, true);
        expect(sold.rate.dueAtProperty.amount).toBe(home.rate.dueAtProperty.amount);
        expect(sold.rate.dueAtProperty.charges).toEqual(home.rate.dueAtProperty.charges);
        expect(sold.rate.nights).toEqual(home.rate.nights);
        sold.rooms.forEach((room, r) => {
          expect(room.dueAtProperty.charges).toEqual(home.rooms[r]!.dueAtProperty.charges);
          expectNightsAreDue(room);
        });
        expectNightsAreDue(sold.rate);
        // Sold in the property's own currency, the stay due there is its MerchantPay twin's all-in price.
        expect(home.rate.dueAtProperty.amount).toBe(offerIn(c, "USD", false).rate.totalStayPrice);
        // In the selling currency nothing moved: the all-in price is the twin's there too.
        expect(sold.rate.totalStayPrice).toBe(offerIn(c, selling, false).rate.totalStayPrice);
      }),
      { numRuns: 300 },
    );
  }, 30_000);

  it("a MerchantPay rate's nights stay in the rate's currency, summing to baseRate and taxesAndFees", () => {
    fc.assert(
      fc.property(caseArbitrary, fc.constantFrom(...CURRENCIES), (c, selling) => {
        const { rate } = offerIn(c, selling, false);
        const m = (amount: number) => toMinor(amount, selling);
        expect(rate.nights.every((n) => n.currency === undefined)).toBe(true);
        expect(sumMinor(rate.nights.map((n) => m(n.baseRate)))).toBe(m(rate.baseRate));
        expect(sumMinor(rate.nights.map((n) => m(n.taxesAndFees)))).toBe(m(rate.taxesAndFees));
        // What was due already (fees not included) is the same figure in every selling currency.
        expect(rate.dueAtProperty).toMatchObject({ currency: CURRENCY });
        expect(rate.dueAtProperty.charges).toEqual(offerIn(c, "USD", false).rate.dueAtProperty.charges);
      }),
      { numRuns: 200 },
    );
  }, 30_000);
});
