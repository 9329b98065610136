/**
 * What the bench and compare-answers.ts check in a search answer since issue 38: the default
 * (listed) form against the whole breakdown (`settings.includePriceBreakdown: true`), or against
 * the answer of a ref from before it. Written apart from `booking/search.ts` on purpose: a second
 * statement of what the default form must be.
 */
import { toMinor } from "../../src/platform/money";

type Json = any;

/** The same search asking for the whole breakdown. */
export const withPriceBreakdown = (body: Json) => ({
  ...body,
  settings: { ...body.settings, includePriceBreakdown: true },
});

const totalsOf = (rate: Json) => {
  const minor = (amount: number) => toMinor(amount, rate.currency);
  const due = rate.dueAtProperty;
  return [
    rate.currency,
    minor(rate.baseRate),
    minor(rate.taxesAndFees),
    minor(rate.chargeTotal),
    toMinor(due.amount, due.currency),
    due.currency,
    due.amountInRateCurrency === undefined ? null : minor(due.amountInRateCurrency),
    minor(rate.totalStayPrice),
  ].join(" ");
};

/** Per option, in order: its product and the totals (minor units) of the option and of each room. */
export const optionTotals = (answer: Json): string[] =>
  (answer.data?.accommodations ?? []).flatMap((h: Json) =>
    h.options.map((o: Json) =>
      [
        h.accommodationCode,
        o.id.split("~").slice(1, 4).join("~"),
        totalsOf(o.rate),
        ...o.rooms.map((r: Json) => totalsOf(r.rate)),
      ].join(" | "),
    ),
  );

/** How many options differ in a total between two answers (or are missing in one). */
export const totalsDiffer = (a: Json, b: Json): number => {
  const [x, y] = [optionTotals(a), optionTotals(b)];
  let differ = Math.abs(x.length - y.length);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) differ++;
  return differ;
};

/**
 * A whole-breakdown answer as the default form must give it: no nights, the option's charges
 * charged at booking only (those due at the property are in dueAtProperty.charges), rooms with
 * their totals only.
 */
export const listedForm = (answer: Json): Json => ({
  ...answer,
  data: answer.data && {
    ...answer.data,
    accommodations: answer.data.accommodations?.map((h: Json) => ({
      ...h,
      options: h.options.map((o: Json) => {
        const { nights: _nights, ...rate } = o.rate;
        return {
          ...o,
          rate: { ...rate, charges: rate.charges.filter((c: Json) => c.included) },
          rooms: o.rooms.map((r: Json) => {
            const { amount, currency, amountInRateCurrency } = r.rate.dueAtProperty;
            return {
              occupancyRefId: r.occupancyRefId,
              code: r.code,
              description: r.description,
              rate: {
                currency: r.rate.currency,
                baseRate: r.rate.baseRate,
                taxesAndFees: r.rate.taxesAndFees,
                chargeTotal: r.rate.chargeTotal,
                dueAtProperty: {
                  amount,
                  currency,
                  ...(amountInRateCurrency === undefined ? {} : { amountInRateCurrency }),
                },
                totalStayPrice: r.rate.totalStayPrice,
              },
            };
          }),
        };
      }),
    })),
  },
});

/** JSON with every object's keys sorted: equal answers whatever order their fields were written in. */
export const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
