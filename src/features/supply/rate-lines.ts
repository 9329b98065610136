/**
 * A rate while it is computed: every amount in whole minor units, per night and per charge, so that
 * the published rate (`rateOfLines`) adds up to the minor unit by construction: nights sum to the
 * base and the included charges, an offer is the sum of its rooms (`addLines`).
 */
import { convertMinor, splitMinor, sumMinor, toMajor, toMinor } from "../../platform/money";
import { stayNights } from "../../platform/time/zoned-time";
import type { ChargeType, Rate } from "./supplier";

/** A charge of one kind over the stay: `amount` in the rate's currency; `propertyAmount` (due ones) in the property's. */
type ChargeLine = {
  type: ChargeType;
  code: string;
  description: string;
  included: boolean;
  amount: number;
  propertyAmount: number;
};

export type RateLines = {
  currency: string;
  /** The property's (hotel's) currency: what is due at the property is in it. */
  propertyCurrency: string;
  exchange?: { currency: string; rate: number };
  dates: string[];
  /** Per night: the base and the included charges, in minor units of `currency`. */
  base: number[];
  taxes: number[];
  /** By code, in the order first charged. */
  charges: Map<string, ChargeLine>;
};

export const emptyLines = (
  currency: string,
  propertyCurrency: string,
  dates: string[],
  exchange?: { currency: string; rate: number },
): RateLines => ({
  currency,
  propertyCurrency,
  ...(exchange ? { exchange } : {}),
  dates,
  base: dates.map(() => 0),
  taxes: dates.map(() => 0),
  charges: new Map(),
});

export type ChargeOf = { type: ChargeType; code: string; description: string; included: boolean };

/**
 * Adds a charge of night `night`: `amount` in the rate's currency; for a charge due at the property
 * also `propertyAmount`, in the property's currency. An included charge adds to the night's taxes.
 */
export const addCharge = (lines: RateLines, night: number, charge: ChargeOf, amount: number, propertyAmount = 0) => {
  let line = lines.charges.get(charge.code);
  if (!line) lines.charges.set(charge.code, (line = { ...charge, amount: 0, propertyAmount: 0 }));
  line.amount += amount;
  if (charge.included) lines.taxes[night]! += amount;
  else line.propertyAmount += propertyAmount;
};

/** The sum of rates over the same nights (an offer of several rooms): charges merged by code. */
export const addLines = (parts: RateLines[]): RateLines => {
  const first = parts[0]!;
  const total = emptyLines(first.currency, first.propertyCurrency, first.dates, first.exchange);
  for (const part of parts) {
    for (let n = 0; n < total.dates.length; n++) {
      total.base[n]! += part.base[n]!;
      total.taxes[n]! += part.taxes[n]!;
    }
    for (const line of part.charges.values()) {
      const sum = total.charges.get(line.code);
      if (sum) {
        sum.amount += line.amount;
        sum.propertyAmount += line.propertyAmount;
      } else total.charges.set(line.code, { ...line });
    }
  }
  return total;
};

const ROOM_CHARGE = { type: "ROOM", code: "ROOM", description: "Room rate", included: false } as const;

/**
 * The same rate sold `PayAtProperty` (docs/api-decisions.md, "Issue 27: payment types"): nothing is
 * charged at booking, so the base and every included charge move to what is due at the property (a
 * `ROOM` charge for the base, each tax and fee under its own code) and the nights carry 0. In the
 * rate's currency every amount is kept as it was, so `totalStayPrice` is the MerchantPay twin's to
 * the minor unit; in the property's currency a moved amount is converted back at the inverse rate
 * (rounded once per charge, within one minor unit of the property's own figure). `property.rate`
 * converts one unit of the property's currency into the rate's: the exchange's by default, for the
 * property's currency is the hotel's; an upstream's fees due in another currency give that one's.
 */
export const payAtPropertyLines = (
  lines: RateLines,
  property: { rate: number } = { rate: lines.exchange?.rate ?? 1 },
): RateLines => {
  const toProperty = (amount: number) =>
    lines.propertyCurrency === lines.currency
      ? amount
      : convertMinor(amount, lines.currency, lines.propertyCurrency, 1 / property.rate);
  const base = sumMinor(lines.base);
  const charges = new Map<string, ChargeLine>();
  if (base !== 0) charges.set(ROOM_CHARGE.code, { ...ROOM_CHARGE, amount: base, propertyAmount: toProperty(base) });
  for (const line of lines.charges.values()) {
    charges.set(
      line.code,
      line.included ? { ...line, included: false, propertyAmount: toProperty(line.amount) } : { ...line },
    );
  }
  return { ...lines, base: lines.dates.map(() => 0), taxes: lines.dates.map(() => 0), charges };
};

/** The published rate: major-unit numbers from the minor-unit lines (each a single exact division). */
export const rateOfLines = (lines: RateLines): Rate => {
  const { currency, propertyCurrency } = lines;
  const major = (minor: number) => toMajor(minor, currency);
  const base = sumMinor(lines.base);
  const taxes = sumMinor(lines.taxes);
  const charges = [...lines.charges.values()];
  const due = charges.filter((c) => !c.included);
  const dueInRate = sumMinor(due.map((c) => c.amount));
  const dueInProperty = sumMinor(due.map((c) => c.propertyAmount));
  const converted = propertyCurrency !== currency;
  return {
    currency,
    baseRate: major(base),
    taxesAndFees: major(taxes),
    chargeTotal: major(base + taxes),
    charges: charges.map((c) => ({
      type: c.type,
      code: c.code,
      description: c.description,
      amount: major(c.amount),
      included: c.included,
    })),
    dueAtProperty: {
      amount: toMajor(dueInProperty, propertyCurrency),
      currency: propertyCurrency,
      ...(converted ? { amountInRateCurrency: major(dueInRate) } : {}),
      charges: due.map((c) => ({
        type: c.type,
        code: c.code,
        description: c.description,
        amount: toMajor(c.propertyAmount, propertyCurrency),
        currency: propertyCurrency,
      })),
    },
    totalStayPrice: major(base + taxes + (converted ? dueInRate : dueInProperty)),
    nights: lines.dates.map((date, n) => ({
      date,
      baseRate: major(lines.base[n]!),
      taxesAndFees: major(lines.taxes[n]!),
    })),
    ...(lines.exchange ? { exchange: lines.exchange } : {}),
  };
};

/** A rate as stored before issue 27: the four totals (and the exchange) only. */
export type RateTotals = Pick<Rate, "currency" | "baseRate" | "taxesAndFees" | "chargeTotal"> & Partial<Rate>;

/**
 * A stored rate with its whole breakdown: as it is when it has one; a rate stored before rates were
 * itemized (issue 27) gets one derived from its totals: its taxes and fees as one included charge,
 * nothing due at the property, base and taxes split over the nights by largest remainder.
 */
export const itemizedRate = (stored: RateTotals, checkIn: string, checkOut: string): Rate => {
  if (Array.isArray(stored.charges) && Array.isArray(stored.nights) && stored.dueAtProperty) return stored as Rate;
  const { currency } = stored;
  const propertyCurrency = stored.exchange?.currency ?? currency;
  const dates = stayNights(checkIn, checkOut);
  const lines = emptyLines(currency, propertyCurrency, dates, stored.exchange);
  const even = dates.map(() => 1);
  lines.base = splitMinor(toMinor(stored.baseRate, currency), even);
  const taxes = toMinor(stored.taxesAndFees, currency);
  if (taxes !== 0) {
    const charge = { type: "TAX" as const, code: "TAXES_AND_FEES", description: "Taxes and fees", included: true };
    const perNight = splitMinor(taxes, even);
    for (let n = 0; n < perNight.length; n++) addCharge(lines, n, charge, perNight[n]!);
  }
  return rateOfLines(lines);
};

/**
 * A published rate back as minor-unit lines (rateOfLines' inverse: each amount is an exact number
 * of minor units already). What is due at the property comes back per charge by its code.
 */
export const linesOfRate = (rate: Rate): RateLines => {
  const { currency } = rate;
  const propertyCurrency = rate.dueAtProperty.currency;
  const lines = emptyLines(
    currency,
    propertyCurrency,
    rate.nights.map((n) => n.date),
    rate.exchange,
  );
  lines.base = rate.nights.map((n) => toMinor(n.baseRate, currency));
  lines.taxes = rate.nights.map((n) => toMinor(n.taxesAndFees, currency));
  const due = new Map(rate.dueAtProperty.charges.map((c) => [c.code, c.amount]));
  for (const c of rate.charges)
    lines.charges.set(c.code, {
      type: c.type,
      code: c.code,
      description: c.description,
      included: c.included,
      amount: toMinor(c.amount, currency),
      propertyAmount: c.included ? 0 : toMinor(due.get(c.code) ?? 0, propertyCurrency),
    });
  return lines;
};

/** The sum of rates over the same nights (the rooms left of a booking), exact to the minor unit. */
export const sumRates = (rates: readonly Rate[]): Rate => rateOfLines(addLines(rates.map(linesOfRate)));
