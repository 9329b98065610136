/**
 * The one place where amounts become the contract's major units (docs/api-decisions.md, "Issue 38:
 * minor units inside"): inside the Worker a rate, a charge, a night, a penalty and a booking's money
 * are integer minor units of their currency; a partner answer, an event payload, a Hotel-X answer or
 * chat's words show them through these functions, on supply's one walk over a rate's amounts
 * (`convertRate`), which keeps the keys and their order, so the JSON written is the same as before.
 */
import { toMajor } from "../../platform/money";
import {
  convertCharge,
  convertDueAtProperty,
  convertPolicy,
  convertRate,
  type CancelPolicy,
  type DueAtProperty,
  type Rate,
  type RateCharge,
  type RateTotals,
} from "../supply";

/** Whole minor units of `currency` as the major-unit number the JSON carries (44211 USD -> 442.11). */
export const amountJson = (minor: number, currency: string): number => toMajor(minor, currency);

/** A charge as the contract writes it, its amount in major units. */
export const chargeJson = (c: RateCharge, currency: string): RateCharge => convertCharge(c, currency, toMajor);

/** What is due at the property as the contract writes it: its amounts in its currency, `amountInRateCurrency` in the rate's. */
export const dueAtPropertyJson = (due: DueAtProperty, rateCurrency: string): DueAtProperty =>
  convertDueAtProperty(due, rateCurrency, toMajor);

/** A rate as the contract writes it (`RateSchema`): every amount in major units of its own currency. */
export const rateJson = <R extends RateTotals>(rate: R): R => convertRate(rate, toMajor);

/** A cancellation policy as the contract writes it: each penalty's `value` in major units (`supplierPenalty` is the upstream's, as given). */
export const policyJson = (policy: CancelPolicy): CancelPolicy => convertPolicy(policy, toMajor);

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
