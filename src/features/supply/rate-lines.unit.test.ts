import { describe, expect, it } from "vitest";
import { addCharge, addLines, emptyLines, linesOfRate, payAtPropertyLines, rateOfLines, sumRates } from "./rate-lines";

const DATES = ["2027-03-10", "2027-03-11"];
const TAX = { type: "TAX" as const, code: "CITY_TAX", description: "City tax", included: true };
const RESORT = { type: "FEE" as const, code: "RESORT_FEE", description: "Resort fee", included: false };

/** A room's lines: its base per night, a tax per night, a resort fee due at the property (in EUR when converted). */
const room = (base: number[], tax: number[], converted: boolean) => {
  const lines = emptyLines(
    "USD",
    converted ? "EUR" : "USD",
    DATES,
    converted ? { currency: "EUR", rate: 1.0837 } : undefined,
  );
  lines.base = [...base];
  // The property's own figures: in EUR about 1 / 1.0837 of the dollars (never computed from them).
  const inProperty = (minor: number) => (converted ? Math.round(minor / 1.0837) : minor);
  lines.property.base = base.map(inProperty);
  for (let n = 0; n < DATES.length; n++) {
    addCharge(lines, n, TAX, tax[n]!, inProperty(tax[n]!));
    addCharge(lines, n, RESORT, 2_500 + n, converted ? 2_307 + n : 2_500 + n);
  }
  return lines;
};

describe("sumRates: rates summed from their published form, exactly", () => {
  for (const converted of [false, true])
    for (const payAtProperty of [false, true])
      it(`${converted ? "due in another currency" : "one currency"}, ${payAtProperty ? "PayAtProperty" : "MerchantPay"}`, () => {
        const sold = (lines: ReturnType<typeof room>) => (payAtProperty ? payAtPropertyLines(lines) : lines);
        const rooms = [
          room([12_345, 12_346], [1_111, 1_112], converted),
          room([9_999, 10_001], [901, 899], converted),
        ].map(sold);
        const [first, second] = rooms.map(rateOfLines);
        // A rate read back is the rate it was published as, and a sum is the sum the offer was built as.
        expect(rateOfLines(linesOfRate(first!))).toEqual(first);
        expect(sumRates([first!])).toEqual(first);
        expect(sumRates([first!, second!])).toEqual(rateOfLines(addLines(rooms)));
      });
});

describe("a rate paid at the property (issue 38): the property's own figures, night by night", () => {
  for (const converted of [false, true])
    it(`${converted ? "property in another currency" : "one currency"}: the nights sum to what is due there`, () => {
      const lines = room([12_345, 12_346], [1_111, 1_112], converted);
      const twin = rateOfLines(lines);
      const rate = rateOfLines(payAtPropertyLines(lines));
      const property = converted ? "EUR" : "USD";
      // What is due is what the property priced, never the rate's amounts converted back.
      expect(rate.dueAtProperty.charges.map((c) => [c.code, c.amount])).toEqual([
        ["ROOM", sumOf(lines.property.base)],
        ["CITY_TAX", converted ? Math.round(1_111 / 1.0837) + Math.round(1_112 / 1.0837) : 2_223],
        ["RESORT_FEE", converted ? 2_307 + 2_308 : 2_500 + 2_501],
      ]);
      expect(rate.nights.map((n) => n.currency)).toEqual([property, property]);
      expect(rate.nights.map((n) => n.baseRate)).toEqual(lines.property.base);
      expect(sumOf(rate.nights.map((n) => n.baseRate + n.taxesAndFees))).toBe(rate.dueAtProperty.amount);
      // In the rate's currency nothing moved: the all-in price is the twin's; the twin's nights have no currency.
      expect(rate.totalStayPrice).toBe(twin.totalStayPrice);
      expect(twin.nights.every((n) => n.currency === undefined)).toBe(true);
    });
});

const sumOf = (amounts: number[]) => amounts.reduce((a, b) => a + b, 0);
