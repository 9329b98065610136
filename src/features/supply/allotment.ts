import { and, eq, gte, lt, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../platform/db/client";
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
