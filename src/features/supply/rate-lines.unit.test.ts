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
  for (let n = 0; n < DATES.length; n++) {
    addCharge(lines, n, TAX, tax[n]!);
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
