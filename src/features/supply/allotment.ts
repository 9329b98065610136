import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { alias } from "drizzle-orm/sqlite-core";
import { database, type Db } from "../../platform/db/client";
import { addDays } from "../../platform/time/zoned-time";
import type { BookedStay } from "./supplier";
import { roomNightHolds, roomNights } from "./tables";

/** Rooms of one type to take for every night of a stay, and the type's allotment for nights not yet stored. */
export type RoomsToTake = { roomCode: string; count: number; defaultAllotment: number };

/** A write the caller runs in its own D1 batch (one transaction) with its own writes. */
export type AllotmentWrite = BatchItem<"sqlite">;

/**
 * One upsert per room type and night. A night that would sell past its allotment, or is stopped,
 * breaks the CHECK (sold <= allotment) and rolls back the whole batch the statements run in.
 */
export const allotmentTakes = (
  db: Db,
  accommodationCode: string,
  rooms: RoomsToTake[],
  nights: string[],
): AllotmentWrite[] =>
  rooms.flatMap((room) =>
    nights.map((night) =>
      db
        .insert(roomNights)
        .values({
          accommodationCode,
          roomCode: room.roomCode,
          night,
          allotment: room.defaultAllotment,
          sold: room.count,
        })
        .onConflictDoUpdate({
          target: [roomNights.accommodationCode, roomNights.roomCode, roomNights.night],
          set: {
            sold: sql`CASE WHEN ${roomNights.stopSell} = 1 THEN ${roomNights.allotment} + 1 ELSE ${roomNights.sold} + excluded.sold END`,
          },
        }),
    ),
  );

/**
 * The takes of `allotmentTakes`, each applied only while `guard` (a condition over the caller's own
 * tables) holds: first every night's row is made if missing (sold 0 at the type's allotment, what a
 * missing row already means, so harmless whatever the guard), then one guarded update per room type.
 * The CHECK (sold <= allotment; a stopped night counts as full) still refuses the last room twice.
 */
export const guardedAllotmentTakes = (
  db: Db,
  accommodationCode: string,
  rooms: RoomsToTake[],
  nights: string[],
  guard: SQL,
): AllotmentWrite[] => [
  ...rooms.flatMap((room) =>
    nights.map((night) =>
      db
        .insert(roomNights)
        .values({ accommodationCode, roomCode: room.roomCode, night, allotment: room.defaultAllotment, sold: 0 })
        .onConflictDoNothing(),
    ),
  ),
  ...rooms.map((room) =>
    db
      .update(roomNights)
      .set({
        sold: sql`CASE WHEN ${roomNights.stopSell} = 1 THEN ${roomNights.allotment} + 1 ELSE ${roomNights.sold} + ${room.count} END`,
      })
      .where(
        and(
          eq(roomNights.accommodationCode, accommodationCode),
          eq(roomNights.roomCode, room.roomCode),
          gte(roomNights.night, nights[0]!),
          lt(roomNights.night, addDays(nights[nights.length - 1]!, 1)),
          guard,
        ),
      ),
  ),
];

/**
 * Every night of the stay in one statement per room type (book wrote a row for each night), each
 * applied only while `guard` (a condition over the caller's own tables) holds.
 */
export const allotmentGiveBacks = (
  db: Db,
  stay: Pick<BookedStay, "accommodationCode" | "checkIn" | "checkOut">,
  roomsByType: Map<string, number>,
  guard?: SQL,
): AllotmentWrite[] =>
  [...roomsByType].map(([roomCode, count]) =>
    db
      .update(roomNights)
      .set({ sold: sql`${roomNights.sold} - ${count}` })
      .where(
        and(
          eq(roomNights.accommodationCode, stay.accommodationCode),
          eq(roomNights.roomCode, roomCode),
          gte(roomNights.night, stay.checkIn),
          lt(roomNights.night, stay.checkOut),
          guard,
        ),
      ),
  );

/** Whose hold takes the rooms, and the share of a night's allotment (percent) one partner may hold. */
export type HoldTaker = { partnerId: string; maxSharePercent: number };

/**
 * The rooms a hold takes, counted for its partner per room type and night, in the same batch as
 * (and before) `allotmentTakes`, so a hold past its share is refused as such even on a full night.
 * A night where the partner would hold more than floor(allotment × share / 100) rooms (at least
 * one) gets -1, breaking the CHECK `room_night_holds_within_share` and rolling the whole batch
 * back: parallel holds cannot pass it.
 */
export const heldNightTakes = (
  db: Db,
  taker: HoldTaker,
  accommodationCode: string,
  rooms: RoomsToTake[],
  nights: string[],
): AllotmentWrite[] => {
  const h = roomNightHolds;
  // The night's allotment of the row being updated (the type's default while no night is stored),
  // times the share, rounded down, and at least one room (a share of 0: none): a hotel's one suite
  // can be held.
  const nightOf = alias(roomNights, "night_of");
  const share = (room: RoomsToTake) =>
    sql`MAX(${taker.maxSharePercent > 0 ? 1 : 0}, CAST(COALESCE((${db
      .select({ allotment: nightOf.allotment })
      .from(nightOf)
      .where(
        and(
          eq(nightOf.accommodationCode, accommodationCode),
          eq(nightOf.roomCode, room.roomCode),
          eq(nightOf.night, h.night),
        ),
      )}), ${room.defaultAllotment}) * ${taker.maxSharePercent} / 100 AS INTEGER))`;
  return [
    ...rooms.flatMap((room) =>
      nights.map((night) =>
        db
          .insert(h)
          .values({ partnerId: taker.partnerId, accommodationCode, roomCode: room.roomCode, night, held: 0 })
          .onConflictDoNothing(),
      ),
    ),
    ...rooms.map((room) =>
      db
        .update(h)
        .set({
          held: sql`CASE WHEN ${h.held} + ${room.count} > ${share(room)} THEN -1 ELSE ${h.held} + ${room.count} END`,
        })
        .where(
          and(
            eq(h.partnerId, taker.partnerId),
            eq(h.accommodationCode, accommodationCode),
            eq(h.roomCode, room.roomCode),
            gte(h.night, nights[0]!),
            lt(h.night, addDays(nights[nights.length - 1]!, 1)),
          ),
        ),
    ),
  ];
};

/**
 * A hold's rooms no longer counted as held by its partner (committed, released or expired), each
 * write applied only while `guard` holds. Never below 0: a hold made before the count existed
 * (migration 0030) had nothing counted.
 */
export const heldNightGiveBacks = (
  db: Db,
  partnerId: string,
  stay: Pick<BookedStay, "accommodationCode" | "checkIn" | "checkOut">,
  roomsByType: Map<string, number>,
  guard: SQL,
): AllotmentWrite[] =>
  [...roomsByType].map(([roomCode, count]) =>
    db
      .update(roomNightHolds)
      .set({ held: sql`MAX(${roomNightHolds.held} - ${count}, 0)` })
      .where(
        and(
          eq(roomNightHolds.partnerId, partnerId),
          eq(roomNightHolds.accommodationCode, stay.accommodationCode),
          eq(roomNightHolds.roomCode, roomCode),
          gte(roomNightHolds.night, stay.checkIn),
          lt(roomNightHolds.night, stay.checkOut),
          guard,
        ),
      ),
  );

/**
 * Upkeep: a partner's held-room counters of nights two days past (UTC, so past on every hotel's
 * calendar) that hold nothing. Holds end within minutes and give their rooms back, so such rows are
 * left at 0; one still above 0 is kept for the hold that ends it.
 */
export const pastNightHolds = {
  name: "past-night-holds",
  run: async (env: Env, now: Date): Promise<number> => {
    const before = addDays(now.toISOString().slice(0, 10), -2);
    const result = await database(env.DB)
      .delete(roomNightHolds)
      .where(and(lt(roomNightHolds.night, before), eq(roomNightHolds.held, 0)))
      .run();
    return result.meta.changes;
  },
};
