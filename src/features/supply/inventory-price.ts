/**
 * How one room of the embedded inventory is priced, night by night in whole minor units, from its
 * net nights and the accommodation's fee schedule (content's). Pure (no I/O), so its properties
 * are checked under Node (inventory-price.unit.test.ts).
 */
import { percentOfMinor, scaleMinor, toMinor } from "../../platform/money";
import type { FeeSchedule } from "../content";
import { addCharge, emptyLines, type ChargeOf, type RateLines } from "./rate-lines";
import { sellMinor, toSellingCurrency, type SellingTerms } from "./selling-price";

/** The embedded inventory's (every property's) currency; fee schedules are in it too (FEE_SCHEDULE_CURRENCY). */
export const CURRENCY = "USD";

/**
 * An accommodation's fee schedule made ready for one search: each mandatory fee with its
 * percentage, or its amount per room and night in whole minor units of the property's currency and
 * of the selling currency (converted once, not per night).
 */
export type FeePlan = Array<{ charge: ChargeOf; percent: number | null; property: number; sold: number }>;

export const feePlanOf = (schedule: FeeSchedule, terms: SellingTerms): FeePlan =>
  schedule.mandatory.map((fee) => {
    const charge: ChargeOf = { type: fee.type, code: fee.code, description: fee.description, included: fee.included };
    if (fee.basis === "PERCENT_OF_BASE") return { charge, percent: fee.value, property: 0, sold: 0 };
    const property = toMinor(fee.value, CURRENCY);
    return { charge, percent: null, property, sold: toSellingCurrency(property, terms) };
  });

/**
 * A net night: whole minor units of the property's currency and the factor still to apply to them
 * (the rate plan's), multiplied with the occupancy's and rounded once (money.ts `scaleMinor`).
 */
export type NetNight = { minor: number; factor: number };

/**
 * One room's rate for the stay, night by night in whole minor units: the net night times its and the
 * occupancy's factor (rounded once), sold (markup, exchange; selling-price.ts); each percentage tax on that sold
 * base (the selling price, after markup), each fixed fee per room and night as scheduled. Every
 * amount is also kept in the property's currency as the property prices it (a percentage of the
 * marked-up base in it), so a rate paid there is the property's figures whatever the selling currency.
 */
export const roomLines = (
  nightly: readonly NetNight[],
  factor: number,
  dates: string[],
  terms: SellingTerms,
  fees: FeePlan,
): RateLines => {
  const lines = emptyLines(terms.currency, CURRENCY, dates, terms.exchange);
  for (let n = 0; n < nightly.length; n++) {
    const net = nightly[n]!;
    const base = sellMinor(scaleMinor(net.minor, net.factor * factor), terms);
    lines.base[n] = base.sold;
    lines.property.base[n] = base.property;
    for (const fee of fees) {
      if (fee.percent === null) addCharge(lines, n, fee.charge, fee.sold, fee.property);
      else if (fee.charge.included) {
        // Charged at booking: a percentage of the sold base, as the partner is charged it.
        const sold = percentOfMinor(base.sold, fee.percent);
        addCharge(
          lines,
          n,
          fee.charge,
          sold,
          base.property === base.sold ? sold : percentOfMinor(base.property, fee.percent),
        );
      } else {
        const property = percentOfMinor(base.property, fee.percent);
        addCharge(lines, n, fee.charge, toSellingCurrency(property, terms), property);
      }
    }
  }
  return lines;
};
