/**
 * How a Hotel-X option's price becomes our rate, in whole minor units: surcharges split into
 * included charges and what is due at the property, any upstream currency converted with the
 * operator's rates, payment types, penalties on what is charged. Pure (no I/O), so its properties
 * are checked under Node (hotelx-price.unit.test.ts).
 */
import { ApiError } from "../../../platform/http/api-error";
import { isIsoDatetime } from "../../../platform/http/iso-time";
import { convertMinor, percentOfMinor, sumMinor, splitMinor, toMinor } from "../../../platform/money";
import { stayNights } from "../../../platform/time/zoned-time";
import { exchangeFor, type ExchangeTable } from "../exchange-rates";
import { addCharge, addLines, emptyLines, payAtPropertyLines, rateOfLines } from "../rate-lines";
import { sellMinor, type SellingTerms, toSellingCurrency } from "../selling-price";
import type { CancelPolicy, PaymentType, Rate, Stay } from "../supplier";
import type { HotelxAmount, HotelxCancelPolicy, HotelxSurcharge } from "./wire";

/** An amount an upstream priced in a currency the operator has no exchange rate for into the selling one. */
export class NotConvertible extends Error {
  constructor(readonly currency: string) {
    super(`no exchange rate from ${currency}`);
  }
}

/**
 * Hotel-X's `PaymentType` as ours (docs/api-decisions.md, "Issue 27: payment types"): `DIRECT` and
 * `CARD_CHECK_IN` are paid by the guest at the hotel; `MERCHANT`, `CARD_BOOKING` (the card is charged
 * at booking) and `PAYX` (paid through a payment service at booking) are charged at booking, as is
 * a type we do not know (and a quote answer without one).
 */
export const paymentTypeOf = (paymentType: string | null | undefined): PaymentType =>
  paymentType === "DIRECT" || paymentType === "CARD_CHECK_IN" ? "PayAtProperty" : "MerchantPay";

/**
 * The selling terms of an amount in any currency: the search's markup and selling currency, and
 * the operator's exchange from that currency (the search's own terms for the supplier's
 * currency). Throws NotConvertible when the operator has no rate for it.
 */
export type TermsFrom = {
  (currency: string): SellingTerms;
  /**
   * The rate from one upstream currency into another, straight from the operator's table (never
   * through the selling currency: what the property collects cannot depend on it).
   */
  between(from: string, to: string): number;
};
export const termsFromTable = (terms: SellingTerms, table: ExchangeTable | null): TermsFrom => {
  const rateOf = (from: string, to: string) => {
    try {
      return exchangeFor(table ?? new Map(), from, to);
    } catch (error) {
      if (error instanceof ApiError) throw new NotConvertible([from, to].find((c) => !table?.has(c)) ?? from);
      throw error;
    }
  };
  // Asked for every option and surcharge of an answer, in a currency or two: each made once.
  const byCurrency = new Map<string, SellingTerms>([[terms.exchange.currency, terms]]);
  const termsFrom = (currency: string): SellingTerms => {
    let found = byCurrency.get(currency);
    if (!found) byCurrency.set(currency, (found = { ...terms, exchange: rateOf(currency, terms.currency) }));
    return found;
  };
  return Object.assign(termsFrom, { between: (from: string, to: string) => rateOf(from, to).rate });
};

/** Every currency an option states an amount in: its price, its surcharges', its penalties'. */
export const currenciesOf = (
  price: HotelxAmount,
  surcharges: HotelxSurcharge[],
  policy: HotelxCancelPolicy | null | undefined,
) => [
  price.currency,
  ...surcharges.map((s) => s.price.currency),
  ...(policy?.cancelPenalties ?? []).map((p) => p.currency),
];

/** Equal weights of each length asked (rooms, nights): a search splits thousands of amounts by a few lengths. */
const equalWeights: number[][] = [];
const equally = (length: number): number[] => (equalWeights[length] ??= Array.from({ length }, () => 1));

/** Whole minor units split equally over the rooms, then each room's share equally over the nights. */
const spread = (total: number, rooms: number, nights: number): number[][] =>
  rooms === 1
    ? [splitMinor(total, equally(nights))]
    : splitMinor(total, equally(rooms)).map((room) => splitMinor(room, equally(nights)));

/** The nights of the stay last priced: a search prices every option of one stay (read, never written). */
let lastNights: { checkIn: string; checkOut: string; nights: string[] } | null = null;
const nightsOf = ({ checkIn, checkOut }: Stay): string[] => {
  if (lastNights?.checkIn !== checkIn || lastNights.checkOut !== checkOut)
    lastNights = { checkIn, checkOut, nights: stayNights(checkIn, checkOut) };
  return lastNights.nights;
};

/**
 * An upstream option (the whole stay, every room) as we sell it, in whole minor units. `INCLUDE`
 * surcharges are inside the upstream net: they are taken out as included charges (converted,
 * never marked up) and the rest is the base (the connection's markup, converted); mandatory
 * `EXCLUDE` surcharges are due at the property, in their currency, and in the rate's. Base and
 * charges are split equally over the rooms, each room's share over the nights, by largest
 * remainder, so that rooms and nights add up to the minor unit.
 */
export const ratesOf = (
  price: HotelxAmount,
  surcharges: HotelxSurcharge[],
  termsFrom: TermsFrom,
  stay: Stay,
  rooms: number,
  paymentType: PaymentType,
) => {
  const dates = nightsOf(stay);
  const hotelCurrency = price.currency;
  const optionTerms = termsFrom(hotelCurrency);
  const exchange =
    optionTerms.exchange.rate === 1 && optionTerms.exchange.currency === optionTerms.currency
      ? undefined
      : optionTerms.exchange;
  const charged = surcharges.filter((s) => s.chargeType === "INCLUDE" || s.mandatory);
  const due = charged.filter((s) => s.chargeType === "EXCLUDE");
  // What is due at the property is in the surcharges' own currency when they share one, else the hotel's.
  const dueCurrencies = [...new Set(due.map((s) => s.price.currency))];
  const propertyCurrency = dueCurrencies.length === 1 ? dueCurrencies[0]! : hotelCurrency;
  // From one upstream currency into another, at the operator's rate between them.
  const into = (minor: number, from: string, to: string) =>
    from === to ? minor : convertMinor(minor, from, to, termsFrom.between(from, to));
  const items = charged.map((s, i) => {
    const own = toMinor(s.price.net, s.price.currency);
    const included = s.chargeType === "INCLUDE";
    const code = s.code || `SURCHARGE_${i + 1}`;
    return {
      charge: { type: "FEE" as const, code, description: s.description || code, included },
      // An included one, as the upstream net holds it (the hotel's currency).
      net: included ? into(own, s.price.currency, hotelCurrency) : 0,
      // As the property collects it (a rate paid there), in its currency.
      property: into(own, s.price.currency, propertyCurrency),
      sold: toSellingCurrency(own, termsFrom(s.price.currency)),
    };
  });
  const netMinor = toMinor(price.net, hotelCurrency);
  const includedNet = sumMinor(items.map((i) => i.net));
  // Included surcharges above the net itself cannot be inside it: the whole net is then the base.
  const itemized = includedNet <= netMinor ? items : items.filter((i) => !i.charge.included);
  const baseNet = netMinor - sumMinor(itemized.filter((i) => i.charge.included).map((i) => i.net));
  const base = sellMinor(baseNet, optionTerms);
  const propertyBase = spread(into(base.property, hotelCurrency, propertyCurrency), rooms, dates.length);
  const roomLines = spread(base.sold, rooms, dates.length).map((sold, r) =>
    emptyLines(optionTerms.currency, propertyCurrency, dates, exchange, sold, propertyBase[r]!),
  );
  for (const item of itemized) {
    const sold = spread(item.sold, rooms, dates.length);
    const property = spread(item.property, rooms, dates.length);
    roomLines.forEach((lines, r) => {
      for (let n = 0; n < dates.length; n++) addCharge(lines, n, item.charge, sold[r]![n]!, property[r]![n]!);
    });
  }
  // Paid at the hotel: the same lines, all due at the property, at the upstream's own amounts in the
  // property's currency; `stay` is the rate as charged otherwise.
  const sold = paymentType === "PayAtProperty" ? roomLines.map(payAtPropertyLines) : roomLines;
  const rate = rateOfLines(addLines(sold));
  // The same sums computed once (a search prices every option so; rates are never changed after):
  // one room's rate is the option's, and a rate charged at booking is the stay's.
  const stayRate = sold === roomLines ? rate : rateOfLines(addLines(roomLines));
  return { rate, rooms: sold.length === 1 ? [rate] : sold.map(rateOfLines), stay: stayRate };
};

/**
 * `hoursBefore` check-in (00:00 UTC) as an ISO 8601 moment, kept per check-in: every option of a
 * search states its penalties in a few such hours, and writing a date costs more than the rest of a penalty.
 */
let deadlines: { checkIn: string; byHours: Map<number, string> } | null = null;
const deadlineBefore = (checkIn: string, hoursBefore: number): string => {
  if (deadlines?.checkIn !== checkIn) deadlines = { checkIn, byHours: new Map() };
  let deadline = deadlines.byHours.get(hoursBefore);
  if (deadline === undefined) {
    deadline = new Date(Date.parse(`${checkIn}T00:00:00Z`) - hoursBefore * 3_600_000).toISOString();
    deadlines.byHours.set(hoursBefore, deadline);
  }
  return deadline;
};

/**
 * Each penalty as an amount in the selling currency, computed in minor units on what is charged
 * (`chargeTotal`, markup included): `PERCENT` that percentage of it, `NIGHTS` that many of its
 * nights (a fraction of the next one), `IMPORT` the supplier's amount sold like its price (markup,
 * converted from its own currency); never above `chargeTotal`. `penaltyType` is `IMPORT` (the value
 * is an amount, as every penalty of the contract) and `supplierPenalty` keeps what the supplier
 * stated. The deadline is `hoursBefore` check-in (00:00 UTC) when none (or no ISO 8601 moment) is given.
 */
export const cancelPolicyOf = (
  policy: HotelxCancelPolicy | null | undefined,
  refundable: boolean,
  rate: Rate,
  stay: Stay,
  termsFrom: TermsFrom,
): CancelPolicy => {
  const { currency } = rate;
  const chargeTotal = rate.chargeTotal;
  const nights = rate.nights.map((n) => n.baseRate + n.taxesAndFees);
  const amountOf = (p: HotelxCancelPolicy["cancelPenalties"][number]): number => {
    switch (p.penaltyType) {
      case "PERCENT":
        return percentOfMinor(chargeTotal, p.value);
      case "NIGHTS": {
        const whole = Math.min(Math.max(0, Math.floor(p.value)), nights.length);
        const part = whole < nights.length ? percentOfMinor(nights[whole]!, (p.value - whole) * 100) : 0;
        return sumMinor(nights.slice(0, whole)) + part;
      }
      default:
        return sellMinor(toMinor(p.value, p.currency), termsFrom(p.currency)).sold;
    }
  };
  const penalties = (policy?.cancelPenalties ?? []).map((p) => {
    // A stated deadline that is no ISO 8601 moment with a zone is as if not stated: hoursBefore stands
    // (every deadline answered is a date-time, docs/api-decisions.md issue 37).
    const stated = p.deadline && isIsoDatetime(p.deadline) ? p.deadline : undefined;
    return {
      penaltyType: "IMPORT",
      currency,
      deadline: stated ?? deadlineBefore(stay.checkIn, p.hoursBefore),
      value: Math.min(Math.max(0, amountOf(p)), chargeTotal),
      supplierPenalty: {
        penaltyType: p.penaltyType,
        value: p.value,
        currency: p.currency,
        hoursBefore: p.hoursBefore,
        ...(stated ? { deadline: stated } : {}),
      },
    };
  });
  return { refundable: policy?.refundable ?? refundable, cancelPenalties: penalties };
};
