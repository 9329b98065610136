/**
 * The taxes and fees of an accommodation, as data its content owns: deterministic defaults derived
 * from its code, country and type (like the embedded room catalogue), or the operator's schedule
 * (`accommodation_fees`, PUT /api/inventory/{code}/fees) when one is stored. Supply prices with it
 * (percentages of the sold base, amounts per room and night); the content export shows it.
 */
import { seededRandom } from "../../platform/seeded-random";

/** The kinds of tax and fee a schedule holds: declared here once (supply adds `ROOM` for its rates' charges). */
export const FEE_TYPES = ["TAX", "FEE"] as const;
export type FeeType = (typeof FEE_TYPES)[number];
/** `PERCENT_OF_BASE`: `value` % of each night's sold base (after markup); `PER_ROOM_PER_NIGHT`: `value` in the schedule's currency. */
export type FeeBasis = "PERCENT_OF_BASE" | "PER_ROOM_PER_NIGHT";
/** A tax or fee every guest pays: `included` ones are charged at booking, the others at the property. */
export type MandatoryFee = {
  type: FeeType;
  code: string;
  description: string;
  basis: FeeBasis;
  value: number;
  included: boolean;
};
/** A fee the guest pays only if they take the service (parking, say): shown, never priced. */
export type OptionalFee = { type: FeeType; code: string; description: string; basis: FeeBasis; value: number };

/**
 * Every amount of a schedule is in this currency: the embedded inventory prices every
 * accommodation in US dollars (its nets, and so its fees, are the property's prices).
 */
export const FEE_SCHEDULE_CURRENCY = "USD";

export type FeeSchedule = {
  currency: string;
  mandatory: MandatoryFee[];
  optional: OptionalFee[];
  /** `default`: derived from the accommodation; `operator`: set by PUT /api/inventory/{code}/fees. */
  source: "default" | "operator";
};

/** What the defaults are derived from. */
export type FeeSubject = { code: string; country: string; type: string };

const pick = <T>(random: () => number, values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

const SALES_TAX_PERCENTS = [4, 4.5, 5, 6, 6.25, 7, 8.875] as const;
const OCCUPANCY_TAX_PERCENTS = [3, 5, 6, 7.5, 10, 11.75] as const;
const CITY_FEES = [1.5, 2, 3.75, 5] as const;
const RESORT_FEES = [15, 25, 35.5, 45] as const;

const cache = new Map<string, FeeSchedule>();

/**
 * The derived schedule: a state sales tax and a city occupancy tax (percent of the base, charged
 * at booking); for one accommodation in three a city fee per room and night (charged at booking);
 * for a resort a resort fee per room and night, due at the property.
 */
export const defaultFeeSchedule = (subject: FeeSubject): FeeSchedule => {
  const key = `${subject.code}|${subject.country}|${subject.type}`;
  const cached = cache.get(key);
  if (cached) return cached;
  // Its own seed: the room catalogue's draws stay as they were.
  const random = seededRandom(`fees:${subject.code}`);
  const salesTax = pick(random, SALES_TAX_PERCENTS);
  const occupancyTax = pick(random, OCCUPANCY_TAX_PERCENTS);
  const cityFee = random() < 1 / 3 ? pick(random, CITY_FEES) : null;
  const resortFee = pick(random, RESORT_FEES);
  const mandatory: MandatoryFee[] = [
    {
      type: "TAX",
      code: "STATE_SALES_TAX",
      description: "State sales tax",
      basis: "PERCENT_OF_BASE",
      value: salesTax,
      included: true,
    },
    {
      type: "TAX",
      code: "CITY_OCCUPANCY_TAX",
      description: "City occupancy tax",
      basis: "PERCENT_OF_BASE",
      value: occupancyTax,
      included: true,
    },
  ];
  if (cityFee !== null)
    mandatory.push({
      type: "FEE",
      code: "CITY_FEE",
      description: "City fee per room and night",
      basis: "PER_ROOM_PER_NIGHT",
      value: cityFee,
      included: true,
    });
  if (subject.type === "resort")
    mandatory.push({
      type: "FEE",
      code: "RESORT_FEE",
      description: "Resort fee per room and night, payable at the property",
      basis: "PER_ROOM_PER_NIGHT",
      value: resortFee,
      included: false,
    });
  const schedule: FeeSchedule = { currency: FEE_SCHEDULE_CURRENCY, mandatory, optional: [], source: "default" };
  if (cache.size > 5_000) cache.clear();
  cache.set(key, schedule);
  return schedule;
};

/** What an operator stores for an accommodation (the `schedule` column of `accommodation_fees`). */
export type StoredFees = { mandatory: MandatoryFee[]; optional: OptionalFee[] };

const parsedStored = (json: string | null | undefined): StoredFees | null => {
  if (!json) return null;
  try {
    const value = JSON.parse(json) as StoredFees;
    return Array.isArray(value?.mandatory) && Array.isArray(value?.optional) ? value : null;
  } catch {
    return null;
  }
};

/** The schedule in force: the operator's stored one (JSON as stored) when there is one, else the defaults. */
export const feeScheduleOf = (subject: FeeSubject, stored?: string | null): FeeSchedule => {
  const operator = parsedStored(stored);
  return operator
    ? {
        currency: FEE_SCHEDULE_CURRENCY,
        mandatory: operator.mandatory,
        optional: operator.optional,
        source: "operator",
      }
    : defaultFeeSchedule(subject);
};

/** The fees an accommodation's served content shows: its schedule without where it came from. */
export const servedFees = (schedule: FeeSchedule) => ({
  currency: schedule.currency,
  mandatory: schedule.mandatory,
  optional: schedule.optional,
});
