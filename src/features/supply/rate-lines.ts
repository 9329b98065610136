/**
 * A rate while it is computed: every amount in whole minor units, per night and per charge, so that
 * the published rate (`rateOfLines`) adds up to the minor unit by construction: an offer is the sum
 * of its rooms (`addLines`); the nights of a rate charged at booking sum to its base and included
 * charges, those of a rate paid at the property to what is due there.
 */
import { splitMinor, sumMinor } from "../../platform/money";
import { stayNights } from "../../platform/time/zoned-time";
import type { CancelPolicy, ChargeType, DueAtProperty, Rate, RateCharge } from "./supplier";

/**
 * A charge of one kind over the stay: `amount` in the rate's currency; `propertyAmount` in the
 * property's, as the property prices it (an included one too: what it is if the property collects it).
 */
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
  /**
   * Per night, in minor units of `propertyCurrency` as the property prices them (never converted
   * back from `currency`): the base and every charge, included or not.
   */
  property: { base: number[]; charges: number[] };
  /** Paid at the property (`payAtPropertyLines`): nothing is charged at booking; the nights are the property's. */
  atProperty: boolean;
  /** By code, in the order first charged. */
  charges: Map<string, ChargeLine>;
};

/** Lines with nothing charged yet, or with the base already split over the nights (`base`, `propertyBase`). */
export const emptyLines = (
  currency: string,
  propertyCurrency: string,
  dates: string[],
  exchange?: { currency: string; rate: number },
  base: number[] = dates.map(() => 0),
  propertyBase: number[] = dates.map(() => 0),
): RateLines => ({
  currency,
  propertyCurrency,
  // Always the key (undefined when none): lines of one search keep one shape.
  exchange,
  dates,
  base,
  taxes: dates.map(() => 0),
  property: { base: propertyBase, charges: dates.map(() => 0) },
  atProperty: false,
  charges: new Map(),
});

export type ChargeOf = { type: ChargeType; code: string; description: string; included: boolean };

/**
 * Adds a charge of night `night`: `amount` in the rate's currency, `propertyAmount` in the
 * property's (as the property prices it). An included charge adds to the night's taxes.
 */
export const addCharge = (
  lines: RateLines,
  night: number,
  charge: ChargeOf,
  amount: number,
  propertyAmount: number,
) => {
  let line = lines.charges.get(charge.code);
  if (!line) lines.charges.set(charge.code, (line = { ...charge, amount: 0, propertyAmount: 0 }));
  line.amount += amount;
  line.propertyAmount += propertyAmount;
  lines.property.charges[night]! += propertyAmount;
  if (charge.included) lines.taxes[night]! += amount;
};

/**
 * The sum of rates over the same nights (an offer of several rooms): charges merged by code. One
 * part is its own sum (the same lines, not a copy: lines are not changed once a rate is made of them).
 */
export const addLines = (parts: RateLines[]): RateLines => {
  const first = parts[0]!;
  if (parts.length === 1) return first;
  const total = emptyLines(first.currency, first.propertyCurrency, first.dates, first.exchange);
  total.atProperty = first.atProperty;
  for (const part of parts) {
    for (let n = 0; n < total.dates.length; n++) {
      total.base[n]! += part.base[n]!;
      total.taxes[n]! += part.taxes[n]!;
      total.property.base[n]! += part.property.base[n]!;
      total.property.charges[n]! += part.property.charges[n]!;
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
 * The same rate sold `PayAtProperty` (docs/api-decisions.md, "Issue 27: payment types" and "Issue
 * 38: what is due at the property"): nothing is charged at booking, so the base and every included
 * charge move to what is due at the property (a `ROOM` charge for the base, each tax and fee under
 * its own code). In the rate's currency every amount is kept as it was, so `totalStayPrice` is the
 * MerchantPay twin's to the minor unit; in the property's currency every amount is the property's
 * own (`property`, never converted back), so what it collects is the same whatever the selling
 * currency. The nights become the property's: its base and charges per night, in its currency.
 */
export const payAtPropertyLines = (lines: RateLines): RateLines => {
  // Always its first charge, even at 0: whether a line shows cannot hang on a selling currency's rounding.
  const charges = new Map<string, ChargeLine>([
    [ROOM_CHARGE.code, { ...ROOM_CHARGE, amount: sumMinor(lines.base), propertyAmount: sumMinor(lines.property.base) }],
  ]);
  for (const line of lines.charges.values()) charges.set(line.code, { ...line, included: false });
  return {
    ...lines,
    base: lines.dates.map(() => 0),
    taxes: lines.dates.map(() => 0),
    atProperty: true,
    charges,
  };
};

/** The published rate: its totals, charges and nights summed from the lines (whole minor units, as they are). */
export const rateOfLines = (lines: RateLines): Rate => {
  const { currency, propertyCurrency } = lines;
  const base = sumMinor(lines.base);
  const taxes = sumMinor(lines.taxes);
  const charges = [...lines.charges.values()];
  const due = charges.filter((c) => !c.included);
  const dueInRate = sumMinor(due.map((c) => c.amount));
  const dueInProperty = sumMinor(due.map((c) => c.propertyAmount));
  const converted = propertyCurrency !== currency;
  return {
    currency,
    baseRate: base,
    taxesAndFees: taxes,
    chargeTotal: base + taxes,
    charges: charges.map((c) => ({
      type: c.type,
      code: c.code,
      description: c.description,
      amount: c.amount,
      included: c.included,
    })),
    dueAtProperty: {
      amount: dueInProperty,
      currency: propertyCurrency,
      ...(converted ? { amountInRateCurrency: dueInRate } : {}),
      charges: due.map((c) => ({
        type: c.type,
        code: c.code,
        description: c.description,
        amount: c.propertyAmount,
        currency: propertyCurrency,
      })),
    },
    totalStayPrice: base + taxes + (converted ? dueInRate : dueInProperty),
    // Paid at the property: each night as the property collects it, in its currency (base, then every charge).
    nights: lines.atProperty
      ? lines.dates.map((date, n) => ({
          date,
          baseRate: lines.property.base[n]!,
          taxesAndFees: lines.property.charges[n]!,
          currency: propertyCurrency,
        }))
      : lines.dates.map((date, n) => ({
          date,
          baseRate: lines.base[n]!,
          taxesAndFees: lines.taxes[n]!,
        })),
    ...(lines.exchange ? { exchange: lines.exchange } : {}),
  };
};

/** A rate as stored before issue 27: the four totals (and the exchange) only. */
export type RateTotals = Pick<Rate, "currency" | "baseRate" | "taxesAndFees" | "chargeTotal"> & Partial<Rate>;

/** How an amount changes form (major <-> minor units), given the currency it is in. */
export type AmountConversion = (amount: number, currency: string) => number;

/**
 * A charge with its amount converted. A literal in the contract's key order, not a spread: a search
 * writes one per charge of thousands of options.
 */
export const convertCharge = (c: RateCharge, currency: string, convert: AmountConversion): RateCharge => ({
  type: c.type,
  code: c.code,
  description: c.description,
  amount: convert(c.amount, currency),
  included: c.included,
});

/** What is due at the property with each amount converted in its own currency (`amountInRateCurrency` in the rate's). */
export const convertDueAtProperty = (
  due: DueAtProperty,
  rateCurrency: string,
  convert: AmountConversion,
): DueAtProperty => {
  const amount = convert(due.amount, due.currency);
  const charges = due.charges.map((c) => ({
    type: c.type,
    code: c.code,
    description: c.description,
    amount: convert(c.amount, c.currency),
    currency: c.currency,
  }));
  return due.amountInRateCurrency === undefined
    ? { amount, currency: due.currency, charges }
    : {
        amount,
        currency: due.currency,
        amountInRateCurrency: convert(due.amountInRateCurrency, rateCurrency),
        charges,
      };
};

/**
 * Every amount of a rate converted, each in its own currency (a night paid at the property in its
 * `currency`); the parts a rate stored before issue 27 lacks stay absent, the keys keep their order.
 * The one walk over a rate's amounts: the wire writes major units with it, the record reads old ones.
 */
export const convertRate = <R extends RateTotals>(rate: R, convert: AmountConversion): R => {
  const { currency } = rate;
  const due = rate.dueAtProperty;
  return {
    ...rate,
    baseRate: convert(rate.baseRate, currency),
    taxesAndFees: convert(rate.taxesAndFees, currency),
    chargeTotal: convert(rate.chargeTotal, currency),
    ...(rate.charges ? { charges: rate.charges.map((c) => convertCharge(c, currency, convert)) } : {}),
    ...(due ? { dueAtProperty: convertDueAtProperty(due, currency, convert) } : {}),
    ...(rate.totalStayPrice === undefined ? {} : { totalStayPrice: convert(rate.totalStayPrice, currency) }),
    ...(rate.nights
      ? {
          nights: rate.nights.map((n) => ({
            ...n,
            baseRate: convert(n.baseRate, n.currency ?? currency),
            taxesAndFees: convert(n.taxesAndFees, n.currency ?? currency),
          })),
        }
      : {}),
  };
};

/** A cancellation policy with each penalty's `value` converted (`supplierPenalty` is the upstream's statement, as given). */
export const convertPolicy = <P extends CancelPolicy>(policy: P, convert: AmountConversion): P => ({
  ...policy,
  cancelPenalties: policy.cancelPenalties.map((p) => ({ ...p, value: convert(p.value, p.currency) })),
});

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
  lines.base = splitMinor(stored.baseRate, even);
  const taxes = stored.taxesAndFees;
  if (taxes !== 0) {
    const charge = { type: "TAX" as const, code: "TAXES_AND_FEES", description: "Taxes and fees", included: true };
    const perNight = splitMinor(taxes, even);
    // Stored before itemization, charged at booking: what the property would price it at was never kept.
    for (let n = 0; n < perNight.length; n++) addCharge(lines, n, charge, perNight[n]!, 0);
  }
  return rateOfLines(lines);
};

/**
 * A published rate back as its lines (rateOfLines' inverse: every amount is whole minor units already). What is due at the property comes back per charge by its code; nights
 * in the property's currency (a rate paid there) come back as the property's nights.
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
  lines.atProperty = rate.nights.some((n) => n.currency !== undefined);
  if (lines.atProperty)
    lines.property = {
      base: rate.nights.map((n) => n.baseRate),
      charges: rate.nights.map((n) => n.taxesAndFees),
    };
  else {
    lines.base = rate.nights.map((n) => n.baseRate);
    lines.taxes = rate.nights.map((n) => n.taxesAndFees);
  }
  const due = new Map(rate.dueAtProperty.charges.map((c) => [c.code, c.amount]));
  for (const c of rate.charges)
    lines.charges.set(c.code, {
      type: c.type,
      code: c.code,
      description: c.description,
      included: c.included,
      amount: c.amount,
      propertyAmount: c.included ? 0 : (due.get(c.code) ?? 0),
    });
  return lines;
};

/** The sum of rates over the same nights (the rooms left of a booking), exact to the minor unit. */
export const sumRates = (rates: readonly Rate[]): Rate => rateOfLines(addLines(rates.map(linesOfRate)));
