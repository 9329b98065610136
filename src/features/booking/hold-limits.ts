import { and, eq, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../platform/db/client";
import { isCheckViolation } from "../../platform/db/constraint";
import { ApiError } from "../../platform/http/api-error";
import { addDays, localDate } from "../../platform/time/zoned-time";
import { holdLimits, partnerHolds } from "./tables";

/**
 * What holds may take (docs/api-decisions.md, "Issue 37: fair holds"): per partner, live holds and
 * their room-nights; per partner, room type and night, a share of the night's allotment; and how
 * far ahead a stay may be held, and for how long.
 */
export type HoldLimits = {
  maxHoldsPerPartner: number;
  maxHeldRoomNightsPerPartner: number;
  maxSharePercent: number;
  shortHoldAfterDays: number;
  shortHoldMaxMinutes: number;
  noHoldAfterDays: number;
};

/** In force until the operator sets others (PUT /api/operator/hold-limits). */
export const DEFAULT_HOLD_LIMITS: HoldLimits = {
  maxHoldsPerPartner: 20,
  maxHeldRoomNightsPerPartner: 200,
  maxSharePercent: 50,
  shortHoldAfterDays: 60,
  shortHoldMaxMinutes: 10,
  noHoldAfterDays: 180,
};

export const readHoldLimits = async (db: Db): Promise<HoldLimits & { updatedAt: string | null }> => {
  const row = await db.select().from(holdLimits).where(eq(holdLimits.id, 1)).get();
  if (!row) return { ...DEFAULT_HOLD_LIMITS, updatedAt: null };
  const { id: _, ...limits } = row;
  return limits;
};

/** The operator's limits, all of them at once; they apply to the holds made from now on. */
export const replaceHoldLimits = async (db: Db, limits: HoldLimits, now = Date.now()) => {
  const row = { ...limits, updatedAt: new Date(now).toISOString() };
  await db
    .insert(holdLimits)
    .values({ id: 1, ...row })
    .onConflictDoUpdate({ target: holdLimits.id, set: row })
    .run();
  return row;
};

/**
 * How long a hold of a stay starting `checkIn` may last (asked `minutes`): a stay more than
 * `noHoldAfterDays` ahead (on the hotel's calendar) is not held at all (409 `hold_too_far_ahead`),
 * one more than `shortHoldAfterDays` ahead at most `shortHoldMaxMinutes`.
 */
export const holdMinutesFor = (
  limits: HoldLimits,
  stay: { checkIn: string; timezone: string },
  minutes: number,
  now: number,
): number => {
  const today = localDate(now, stay.timezone);
  if (stay.checkIn > addDays(today, limits.noHoldAfterDays))
    throw new ApiError(
      "hold_too_far_ahead",
      `A stay more than ${limits.noHoldAfterDays} days ahead cannot be held: book it without bookCriteria.hold (nothing was booked)`,
      { noHoldAfterDays: limits.noHoldAfterDays },
    );
  if (stay.checkIn > addDays(today, limits.shortHoldAfterDays)) return Math.min(minutes, limits.shortHoldMaxMinutes);
  return minutes;
};

/**
 * A hold counted for its partner, in the hold's own batch (after its booking row): one more live
 * hold and `roomNights` more held room-nights. Past a limit the counter gets -1, which breaks its
 * CHECK and rolls the batch back, so parallel holds never pass the limit together.
 */
export const partnerHoldTakes = (
  db: Db,
  partnerId: string,
  roomNights: number,
  limits: HoldLimits,
): BatchItem<"sqlite">[] => {
  const p = partnerHolds;
  return [
    db.insert(p).values({ partnerId }).onConflictDoNothing(),
    db
      .update(p)
      .set({
        holds: sql`CASE WHEN ${p.holds} + 1 > ${limits.maxHoldsPerPartner} THEN -1 ELSE ${p.holds} + 1 END`,
        roomNights: sql`CASE WHEN ${p.roomNights} + ${roomNights} > ${limits.maxHeldRoomNightsPerPartner} THEN -1 ELSE ${p.roomNights} + ${roomNights} END`,
        placed: sql`${p.placed} + 1`,
      })
      .where(eq(p.partnerId, partnerId)),
  ];
};

/**
 * A hold's rooms given back from its partner's count (`roomNights`), and the hold itself when it
 * ends (`ended`: committed or not). Applied only while `guard` holds; never below 0 (a hold made
 * before migration 0030 was never counted).
 */
export const partnerHoldGiveBacks = (
  db: Db,
  partnerId: string,
  change: { roomNights: number; ended: "committed" | "released" | null },
  guard: SQL,
): BatchItem<"sqlite">[] => {
  const p = partnerHolds;
  return [
    db
      .update(p)
      .set({
        ...(change.ended ? { holds: sql`MAX(${p.holds} - 1, 0)` } : {}),
        roomNights: sql`MAX(${p.roomNights} - ${change.roomNights}, 0)`,
        ...(change.ended === "committed" ? { committed: sql`${p.committed} + 1` } : {}),
      })
      .where(and(eq(p.partnerId, partnerId), guard)),
  ];
};

/** The error a hold's batch answers when it broke one of the limits' CHECKs; null for another failure. */
export const holdLimitRefusal = (error: unknown, limits: HoldLimits): ApiError | null => {
  if (isCheckViolation(error, "partner_holds_count_within_limit"))
    return new ApiError(
      "hold_limit_reached",
      `This partner has reached its limit of ${limits.maxHoldsPerPartner} live holds: commit or cancel one first (nothing was held)`,
      { limit: "maxHoldsPerPartner", value: limits.maxHoldsPerPartner },
    );
  if (isCheckViolation(error, "partner_holds_room_nights_within_limit"))
    return new ApiError(
      "hold_limit_reached",
      `This hold would take this partner's live holds past ${limits.maxHeldRoomNightsPerPartner} room-nights, the most allowed: commit or cancel a hold first (nothing was held)`,
      { limit: "maxHeldRoomNightsPerPartner", value: limits.maxHeldRoomNightsPerPartner },
    );
  if (isCheckViolation(error, "room_night_holds_within_share"))
    return new ApiError(
      "hold_share_exceeded",
      `This hold would give this partner more than ${limits.maxSharePercent}% of a night's rooms of this type on hold: hold fewer rooms, or book them (nothing was held)`,
      { limit: "maxSharePercent", value: limits.maxSharePercent },
    );
  return null;
};

/**
 * One log line per hold that ends (committed, released by a cancel, or expired), with its
 * partner's counts so far: the hold-to-commit ratio is `committed / placed`.
 */
export const logHoldOutcome = async (
  db: Db,
  partnerId: string,
  reference: string,
  outcome: "committed" | "released" | "expired",
) => {
  const counts = await db
    .select({ placed: partnerHolds.placed, committed: partnerHolds.committed, live: partnerHolds.holds })
    .from(partnerHolds)
    .where(eq(partnerHolds.partnerId, partnerId))
    .get();
  console.log(
    JSON.stringify({
      level: "info",
      event: "hold_outcome",
      outcome,
      partnerId,
      reference,
      ...(counts
        ? {
            ...counts,
            commitRatio: counts.placed > 0 ? Math.round((counts.committed / counts.placed) * 1000) / 1000 : null,
          }
        : {}),
    }),
  );
};
