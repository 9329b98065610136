/**
 * The one place where amounts become the contract's major units (docs/api-decisions.md, "Issue 38:
 * minor units inside"): inside the Worker a rate, a charge, a night, a penalty and a booking's money
 * are integer minor units of their currency; a partner answer, an event payload, a Hotel-X answer or
 * chat's words show them through these functions. Each keeps the keys and their order as they are
 * (a spread, then the amounts in place), so the JSON written is the same as before.
 */
import { toMajor } from "../../platform/money";
import type { CancelPolicy, DueAtProperty, Rate, RateCharge, RateTotals } from "../supply";

/** Whole minor units of `currency` as the major-unit number the JSON carries (44211 USD -> 442.11). */
export const amountJson = (minor: number, currency: string): number => toMajor(minor, currency);

/**
 * A charge as the contract writes it, its amount in major units. Written as a literal in the
 * contract's key order, not as a spread: a search writes one per charge of thousands of options.
 */
export const chargeJson = (c: RateCharge, currency: string): RateCharge => ({
  type: c.type,
  code: c.code,
  description: c.description,
  amount: toMajor(c.amount, currency),
  included: c.included,
});

/** What is due at the property as the contract writes it: its amounts in its currency, `amountInRateCurrency` in the rate's (literals, as `chargeJson`). */
export const dueAtPropertyJson = (due: DueAtProperty, rateCurrency: string): DueAtProperty => {
  const amount = toMajor(due.amount, due.currency);
  const charges = due.charges.map((c) => ({
    type: c.type,
    code: c.code,
    description: c.description,
    amount: toMajor(c.amount, c.currency),
    currency: c.currency,
  }));
  return due.amountInRateCurrency === undefined
    ? { amount, currency: due.currency, charges }
    : {
        amount,
        currency: due.currency,
        amountInRateCurrency: toMajor(due.amountInRateCurrency, rateCurrency),
        charges,
      };
};

/** A rate as the contract writes it (`RateSchema`): every amount in major units of its own currency. */
export const rateJson = <R extends RateTotals>(rate: R): R => {
  const { currency } = rate;
  const due = rate.dueAtProperty;
  // A rate stored before issue 27 has its totals only: the parts it has are written.
  return {
    ...rate,
    baseRate: toMajor(rate.baseRate, currency),
    taxesAndFees: toMajor(rate.taxesAndFees, currency),
    chargeTotal: toMajor(rate.chargeTotal, currency),
    ...(rate.charges ? { charges: rate.charges.map((c) => chargeJson(c, currency)) } : {}),
    ...(due ? { dueAtProperty: dueAtPropertyJson(due, currency) } : {}),
    ...(rate.totalStayPrice === undefined ? {} : { totalStayPrice: toMajor(rate.totalStayPrice, currency) }),
    // A night paid at the property is in the property's currency (its own `currency`).
    ...(rate.nights
      ? {
          nights: rate.nights.map((n) => ({
            ...n,
            baseRate: toMajor(n.baseRate, n.currency ?? currency),
            taxesAndFees: toMajor(n.taxesAndFees, n.currency ?? currency),
          })),
        }
      : {}),
  };
};

/** A cancellation policy as the contract writes it: each penalty's `value` in major units (`supplierPenalty` is the upstream's, as given). */
export const policyJson = (policy: CancelPolicy): CancelPolicy => ({
  ...policy,
  cancelPenalties: policy.cancelPenalties.map((p) => ({ ...p, value: toMajor(p.value, p.currency) })),
});

/** Rooms with their own rate (an offer's, a booking's): each rate as the contract writes it. */
export const roomsJson = <Room extends { rate: Rate }>(rooms: readonly Room[]): Room[] =>
  rooms.map((room) => ({ ...room, rate: rateJson(room.rate) }));

/** A booking's rooms as its record keeps them (a cancelled one's `cancelPrice` in its rate's currency), as the contract writes them. */
export const storedRoomsJson = <Room extends { rate: RateTotals; cancelPrice?: number }>(
  rooms: readonly Room[],
): Room[] =>
  rooms.map((room) => ({
    ...room,
    rate: rateJson(room.rate),
    ...(room.cancelPrice === undefined ? {} : { cancelPrice: toMajor(room.cancelPrice, room.rate.currency) }),
  }));

/** An amount with its currency (`{ currency, amount }`), the amount in major units; null stays null. */
export const moneyJson = <M extends { currency: string; amount: number } | null>(money: M): M =>
  money === null ? money : { ...money, amount: toMajor(money.amount, money.currency) };

/** A booking's rooms as read (booked-rate.ts `bookedRooms`): each rate and penalty as the contract writes them. */
export const bookedRoomsJson = <Room extends { rate: Rate; cancelPrice: { currency: string; amount: number } | null }>(
  rooms: readonly Room[],
): Room[] => rooms.map((room) => ({ ...room, rate: rateJson(room.rate), cancelPrice: moneyJson(room.cancelPrice) }));
