// Raw SQL: allotment is taken and given back by upserts the CHECK and the caller's guard decide, in the booking batch.
import type { WriteGuard } from "./inventory-supplier";
import type { BookedStay } from "./supplier";

/** Rooms of one type to take for every night of a stay, and the type's allotment for nights not yet stored. */
export type RoomsToTake = { roomCode: string; count: number; defaultAllotment: number };

/**
 * One upsert per room type and night. A night that would sell past its allotment, or is stopped,
 * breaks the CHECK (sold <= allotment) and rolls back the whole batch the statements run in.
 */
export const allotmentTakes = (
  d1: D1Database,
  accommodationCode: string,
  rooms: RoomsToTake[],
  nights: string[],
): D1PreparedStatement[] => {
  const take = d1.prepare(
    `INSERT INTO room_nights (accommodation_code, room_code, night, allotment, sold) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (accommodation_code, room_code, night) DO UPDATE SET
       sold = CASE WHEN room_nights.stop_sell = 1 THEN room_nights.allotment + 1 ELSE room_nights.sold + excluded.sold END`,
  );
  return rooms.flatMap((room) =>
    nights.map((night) => take.bind(accommodationCode, room.roomCode, night, room.defaultAllotment, room.count)),
  );
};

/**
 * Every night of the stay in one statement per room type (book wrote a row for each night), each
 * applied only while `guard` holds; the guard's `?`s number on from ?6.
 */
export const allotmentGiveBacks = (
  d1: D1Database,
  stay: Pick<BookedStay, "accommodationCode" | "checkIn" | "checkOut">,
  roomsByType: Map<string, number>,
  guard: WriteGuard,
): D1PreparedStatement[] =>
  [...roomsByType].map(([roomCode, count]) =>
    d1
      .prepare(
        `UPDATE room_nights SET sold = sold - ?5 WHERE accommodation_code = ?1 AND room_code = ?2 AND night >= ?3 AND night < ?4 AND (${guard.sql})`,
      )
      .bind(stay.accommodationCode, roomCode, stay.checkIn, stay.checkOut, count, ...guard.params),
  );
