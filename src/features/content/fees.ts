import { z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { isForeignKeyViolation } from "../../platform/db/constraint";
import { ApiError } from "../../platform/http/api-error";
import {
  FEE_SCHEDULE_CURRENCY,
  FEE_TYPES,
  feeScheduleOf,
  type FeeSchedule,
  type FeeSubject,
  type StoredFees,
} from "./fee-schedule";
import { accommodationFees, accommodations } from "./tables";

const MAX_FEES = 20;
/** More decimals than these would be rounded away by pricing (money.ts): refused rather than altered. */
const decimalsAtMost = (value: number, decimals: number) =>
  Math.abs(value * 10 ** decimals - Math.round(value * 10 ** decimals)) < 1e-6;

const feeFields = {
  type: z.enum(FEE_TYPES),
  code: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,39}$/, "1 to 40 of A-Z, 0-9 and _, starting with a letter")
    .openapi({ example: "RESORT_FEE" }),
  description: z.string().trim().min(1).max(200),
  basis: z.enum(["PERCENT_OF_BASE", "PER_ROOM_PER_NIGHT"]).openapi({
    description: `PERCENT_OF_BASE: value % of each night's sold base (after markup); PER_ROOM_PER_NIGHT: value in ${FEE_SCHEDULE_CURRENCY} per room and night`,
  }),
  value: z.number().min(0),
};

type FeeInput = { basis: "PERCENT_OF_BASE" | "PER_ROOM_PER_NIGHT"; value: number };
const valueRule = (fee: FeeInput, ctx: z.RefinementCtx) => {
  const percent = fee.basis === "PERCENT_OF_BASE";
  const max = percent ? 100 : 10_000;
  const decimals = percent ? 4 : 2;
  if (fee.value > max || !decimalsAtMost(fee.value, decimals))
    ctx.addIssue({
      code: "custom",
      path: ["value"],
      message: percent
        ? "a percentage from 0 to 100 with at most 4 decimals"
        : `an amount from 0 to 10000 ${FEE_SCHEDULE_CURRENCY} with at most 2 decimals`,
    });
};

const mandatoryFee = z
  .object({
    ...feeFields,
    included: z.boolean().openapi({ description: "true: charged at booking; false: payable at the property" }),
  })
  .strict()
  .superRefine(valueRule)
  .openapi("MandatoryFee");
const optionalFee = z.object(feeFields).strict().superRefine(valueRule).openapi("OptionalFee", {
  description: "Paid only for a service the guest takes (parking, say): shown, never priced",
});

const FEE_SCHEDULE_EXAMPLE = {
  mandatory: [
    {
      type: "TAX",
      code: "CITY_OCCUPANCY_TAX",
      description: "City occupancy tax",
      basis: "PERCENT_OF_BASE",
      value: 7.5,
      included: true,
    },
    {
      type: "FEE",
      code: "RESORT_FEE",
      description: "Resort fee per room and night, payable at the property",
      basis: "PER_ROOM_PER_NIGHT",
      value: 25,
      included: false,
    },
  ],
  optional: [
    { type: "FEE", code: "PARKING", description: "Parking per night", basis: "PER_ROOM_PER_NIGHT", value: 30 },
  ],
};

export const feeScheduleInputSchema = z
  .object({
    mandatory: z.array(mandatoryFee).max(MAX_FEES),
    optional: z.array(optionalFee).max(MAX_FEES).default([]),
  })
  .strict()
  .superRefine((input, ctx) => {
    const codes = [...input.mandatory, ...input.optional].map((fee) => fee.code);
    const repeated = codes.find((code, i) => codes.indexOf(code) !== i);
    if (repeated) ctx.addIssue({ code: "custom", path: ["mandatory"], message: `fee code ${repeated} appears twice` });
  })
  .openapi("FeeScheduleChange", { example: FEE_SCHEDULE_EXAMPLE });

export const feeScheduleSchema = z
  .object({
    accommodationCode: z.string(),
    currency: z.string().openapi({ description: "The currency of every PER_ROOM_PER_NIGHT amount" }),
    mandatory: z.array(mandatoryFee),
    optional: z.array(optionalFee),
    source: z.enum(["default", "operator"]).openapi({
      description: "default: derived from the accommodation; operator: set by PUT /api/inventory/{code}/fees",
    }),
  })
  .openapi("FeeSchedule", {
    example: { accommodationCode: "US000010", currency: "USD", ...FEE_SCHEDULE_EXAMPLE, source: "operator" },
  });

export const servedFeesSchema = z
  .object({
    currency: z.string().openapi({ description: "The currency of every PER_ROOM_PER_NIGHT amount" }),
    mandatory: z.array(mandatoryFee).openapi({
      description: "Every guest pays these: included ones at booking (rate.charges), the others at the property",
    }),
    optional: z.array(optionalFee),
  })
  .openapi("AccommodationFees", {
    description: "The taxes and fees in force, shown before any search (docs/api-decisions.md, issue 27)",
    example: {
      currency: "USD",
      mandatory: [
        {
          type: "TAX",
          code: "STATE_SALES_TAX",
          description: "State sales tax",
          basis: "PERCENT_OF_BASE",
          value: 4.5,
          included: true,
        },
        {
          type: "FEE",
          code: "RESORT_FEE",
          description: "Resort fee per room and night, payable at the property",
          basis: "PER_ROOM_PER_NIGHT",
          value: 25,
          included: false,
        },
      ],
      optional: [],
    },
  });

/**
 * The schedules in force of many accommodations in one statement (one bound parameter, the codes
 * as JSON, whatever their number): the operator's where stored, the defaults elsewhere.
 */
export const feeSchedulesOf = async (db: Db, subjects: FeeSubject[]): Promise<Map<string, FeeSchedule>> => {
  const codes = JSON.stringify([...new Set(subjects.map((s) => s.code))]);
  const rows = subjects.length
    ? await db
        .select({ code: accommodationFees.accommodationCode, schedule: accommodationFees.schedule })
        .from(accommodationFees)
        .where(sql`${accommodationFees.accommodationCode} IN (SELECT value FROM json_each(${codes}))`)
    : [];
  const stored = new Map(rows.map((r) => [r.code, r.schedule]));
  return new Map(subjects.map((s) => [s.code, feeScheduleOf(s, stored.get(s.code))]));
};

/**
 * The stored schedules as an SQL fragment for a statement that reads more at once (supply's search
 * reads them with its selection and nights, one round trip): one row per accommodation whose code
 * `codes` (an SQL subquery) yields and that has a stored schedule: `lead` (leading columns, each
 * followed by a comma), its code, its schedule JSON (read it with feeScheduleOf), `padding` NULLs.
 */
export const storedFeeSchedulesSql = (codes: string, lead: string, padding: number) =>
  `SELECT ${lead}accommodation_code, schedule${", NULL".repeat(padding)} FROM accommodation_fees WHERE accommodation_code IN (${codes})`;

/**
 * Operator: replaces an accommodation's taxes and fees (the defaults no longer apply); the next
 * search prices with them (nothing on the pricing path caches an operator's schedule: only the
 * derived defaults are memoized, and they never change).
 */
export const replaceFeeSchedule = async (db: Db, code: string, input: StoredFees, now = new Date()) => {
  const schedule = JSON.stringify({ mandatory: input.mandatory, optional: input.optional });
  const row = { schedule, updatedAt: now.toISOString() };
  try {
    // One transaction: the schedule, and the accommodation's updatedAt on D1's clock, so that content
    // deltas (changedSince) serve the document again with its new fees.
    await db.batch([
      db
        .insert(accommodationFees)
        .values({ accommodationCode: code, ...row })
        .onConflictDoUpdate({ target: accommodationFees.accommodationCode, set: row }),
      db
        .update(accommodations)
        .set({ updatedAt: sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')` })
        .where(eq(accommodations.code, code)),
    ]);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new ApiError("accommodation_not_found", "Accommodation not found");
    throw error;
  }
  return {
    accommodationCode: code,
    currency: FEE_SCHEDULE_CURRENCY,
    mandatory: input.mandatory,
    optional: input.optional,
    source: "operator" as const,
  };
};
