import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../platform/db/client";
import { addDays } from "../../platform/time/zoned-time";
import type { BookedStay } from "./supplier";
import { roomNights } from "./tables";

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
