/**
 * What the bench and compare-answers.ts check in a search answer since issue 38: the default
 * (listed) form against the whole breakdown (`settings.includePriceBreakdown: true`), or against
 * the answer of a ref from before it. Written apart from `booking/search.ts` on purpose: a second
 * statement of what the default form must be.
 */
import { toMajor, toMinor } from "../../src/platform/money";
import { addDays } from "../../src/platform/time/zoned-time";

type Json = any;

/** The same search asking for the whole breakdown. */
export const withPriceBreakdown = (body: Json) => ({
  ...body,
  settings: { ...body.settings, includePriceBreakdown: true },
});

/** A rate's totals in minor units; a room's are in its option's currencies (`of`). */
const totalsOf = (rate: Json, of: Json = rate) => {
  const minor = (amount: number) => toMinor(amount, of.currency);
  const due = rate.dueAtProperty;
  return [
    of.currency,
    minor(rate.baseRate),
    minor(rate.taxesAndFees),
    minor(rate.chargeTotal),
    toMinor(due.amount, of.dueAtProperty.currency),
    of.dueAtProperty.currency,
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
        ...o.rooms.map((r: Json) => totalsOf(r.rate, o.rate)),
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
            const { amount, amountInRateCurrency } = r.rate.dueAtProperty;
            return {
              occupancyRefId: r.occupancyRefId,
              code: r.code,
              description: r.description,
              // Totals only, in the option's currencies.
              rate: {
                baseRate: r.rate.baseRate,
                taxesAndFees: r.rate.taxesAndFees,
                chargeTotal: r.rate.chargeTotal,
                dueAtProperty: { amount, ...(amountInRateCurrency === undefined ? {} : { amountInRateCurrency }) },
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

/**
 * How long an option id of today was before issue 38 (version 4, option-token.ts): base64url of the
 * JSON envelope `signToken` writes, "." and a 43-character HMAC, then the product and the total in
 * major units. The whole-breakdown answer is the answer before issue 38 byte for byte but for its
 * ids (compare-answers.ts checks that against a ref), so with this the bench knows the size before.
 */
export const idLengthBefore38 = (id: string, currency: string): number => {
  const [signed, hotel, room, plan, total, ...supplier] = id.split("~");
  const fields = signed!.split(".");
  const [, checkIn, nights, rooms, stayCurrency, refIds, access] = fields as string[];
  const partner = fields.slice(7, -2).join(".");
  const expiresAt = Number.parseInt(fields.at(-2)!, 36) * 1000;
  const payload = [
    4,
    partner,
    checkIn,
    addDays(checkIn!, Number(nights)),
    rooms!.replaceAll("-", "."),
    stayCurrency,
    refIds!.replaceAll("-", "."),
    ...(access ? [access.replaceAll("-", ".").replace("+", "|")] : []),
  ];
  const body = Buffer.from(JSON.stringify({ d: payload, e: expiresAt })).toString("base64url");
  return [`${body}.${"x".repeat(43)}`, hotel, room, plan, toMajor(Number(total), currency), ...supplier].join("~")
    .length;
};

/** The bytes of a whole-breakdown answer as it was before issue 38: the same with version 4 ids. */
export const bytesBefore38 = (wholeBytes: number, whole: Json): number =>
  wholeBytes +
  (whole.data?.accommodations ?? [])
    .flatMap((h: Json) => h.options)
    .reduce((sum: number, o: Json) => sum + idLengthBefore38(o.id, o.rate.currency) - o.id.length, 0);
