import { z } from "@hono/zod-openapi";
import { and, asc, eq, gt, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../../platform/db/client";
import { isForeignKeyViolation } from "../../../platform/db/constraint";
import type { UploadEntry } from "../../../platform/http/row-upload";
import { catalogueFor } from "../catalogue";
import { supplierHotelMap, supplierRoomMap } from "../tables";
import { DEFAULT_PAGE, invalidCursor, jsonList, knownAccommodations } from "./hotel-map";
import { requireSupplier } from "./supplier-check";
import {
  chunked,
  cursorOf,
  edgestayCode,
  type ImportAnswer,
  keyOfCursor,
  type Rejection,
  readRows,
  mapPageQuery,
  supplierItemCode,
  writeUpload,
} from "./upload";

export const roomMapRow = z
  .object({ supplierHotelCode: supplierItemCode, supplierRoomCode: supplierItemCode, roomCode: edgestayCode })
  .strict()
  .openapi("RoomMapRow", { example: { supplierHotelCode: "H-88213", supplierRoomCode: "DBL-ST", roomCode: "STD" } });
type RoomMapRow = z.infer<typeof roomMapRow>;

/** The hotel map of these supplier hotel codes: supplier hotel -> accommodation. */
const hotelsOf = async (db: Db, supplierCode: string, hotelCodes: string[]) => {
  const mapped = new Map<string, string>();
  for (const chunk of chunked([...new Set(hotelCodes)])) {
    const rows = await db
      .select({ hotel: supplierHotelMap.supplierHotelCode, accommodation: supplierHotelMap.accommodationCode })
      .from(supplierHotelMap)
      .where(
        and(
          eq(supplierHotelMap.supplierCode, supplierCode),
          sql`${supplierHotelMap.supplierHotelCode} in ${jsonList(chunk)}`,
        ),
      );
    for (const { hotel, accommodation } of rows) mapped.set(hotel, accommodation);
  }
  return mapped;
};

const roomKey = (hotel: string, room: string) => `${hotel}\n${room}`;

/** The current room map of these supplier hotels, by hotel and supplier room code. */
const roomsOf = async (db: Db, supplierCode: string, hotelCodes: string[]) => {
  const current = new Map<string, string>();
  for (const chunk of chunked([...new Set(hotelCodes)])) {
    const rows = await db
      .select()
      .from(supplierRoomMap)
      .where(
        and(
          eq(supplierRoomMap.supplierCode, supplierCode),
          sql`${supplierRoomMap.supplierHotelCode} in ${jsonList(chunk)}`,
        ),
      );
    for (const row of rows) current.set(roomKey(row.supplierHotelCode, row.supplierRoomCode), row.roomCode);
  }
  return current;
};

/**
 * Upserts a supplier's room map from an upload, as the hotel map's import does: a row's hotel must
 * be in the supplier's hotel map and its `roomCode` a room of the accommodation that hotel is
 * mapped to. Several supplier rooms may be one of ours. One D1 batch; a hotel unmapped meanwhile makes it a 409.
 */
export const importRoomMap = async (
  db: Db,
  supplierCode: string,
  upload: () => Promise<UploadEntry[]>,
): Promise<ImportAnswer> => {
  await requireSupplier(db, supplierCode);
  // Read only once the supplier is known: an upload to no supplier is not read at all.
  const uploaded = await upload();
  const rejected: Rejection[] = [];
  const rows = readRows(
    uploaded,
    roomMapRow,
    [{ name: "supplierHotelCode and supplierRoomCode", of: (r) => `${r.supplierHotelCode} ${r.supplierRoomCode}` }],
    rejected,
  );
  const hotelCodes = rows.map((r) => r.supplierHotelCode);
  const hotels = await hotelsOf(db, supplierCode, hotelCodes);
  const stars = await knownAccommodations(db, [...hotels.values()]);
  const current = await roomsOf(db, supplierCode, hotelCodes);
  const writes: RoomMapRow[] = [];
  let inserted = 0;
  let updated = 0;
  let unchanged = 0;
  for (const row of rows) {
    const accommodation = hotels.get(row.supplierHotelCode);
    if (accommodation === undefined) {
      rejected.push({
        row: row.row,
        reason: "hotel_not_mapped",
        message: `Supplier hotel ${row.supplierHotelCode} is not in this supplier's hotel map`,
      });
      continue;
    }
    const starRating = stars.get(accommodation);
    const rooms = starRating === undefined ? [] : catalogueFor(accommodation, starRating).rooms.map((r) => r.code);
    if (!rooms.includes(row.roomCode)) {
      rejected.push({
        row: row.row,
        reason: "unknown_room",
        message: `${accommodation} has no room ${row.roomCode} (its rooms: ${rooms.join(", ")})`,
      });
      continue;
    }
    const was = current.get(roomKey(row.supplierHotelCode, row.supplierRoomCode));
    if (was === row.roomCode) {
      unchanged++;
      continue;
    }
    if (was === undefined) inserted++;
    else updated++;
    writes.push({
      supplierHotelCode: row.supplierHotelCode,
      supplierRoomCode: row.supplierRoomCode,
      roomCode: row.roomCode,
    });
  }
  const statements: BatchItem<"sqlite">[] = chunked(writes).map((chunk) =>
    db
      .insert(supplierRoomMap)
      .select(
        sql`select ${supplierCode}, value ->> 0, value ->> 1, value ->> 2 from json_each(${JSON.stringify(
          chunk.map((w) => [w.supplierHotelCode, w.supplierRoomCode, w.roomCode]),
        )}) where true`,
      )
      .onConflictDoUpdate({
        target: [supplierRoomMap.supplierCode, supplierRoomMap.supplierHotelCode, supplierRoomMap.supplierRoomCode],
        set: { roomCode: sql`excluded.room_code` },
      }),
  );
  // A hotel's mapping deleted by a parallel call: its room rows' foreign key fails.
  await writeUpload(db, statements, isForeignKeyViolation);
  rejected.sort((a, b) => a.row - b.row);
  return { inserted, updated, unchanged, rejected };
};

export const roomMapQuery = z.object({
  ...mapPageQuery({ max: 400, example: "WyJILTg4MjEzIiwiREJMLVNUIl0" }),
  supplierHotelCode: supplierItemCode
    .optional()
    .openapi({ description: "Only this supplier hotel's rooms", example: "H-88213" }),
});

/** A page of a supplier's room map in (supplier hotel, supplier room) order. */
export const listRoomMap = async (db: Db, supplierCode: string, query: z.infer<typeof roomMapQuery>) => {
  await requireSupplier(db, supplierCode);
  const limit = query.limit ?? DEFAULT_PAGE;
  const after = query.cursor === undefined ? null : keyOfCursor(query.cursor, 2);
  if (query.cursor !== undefined && after === null) throw invalidCursor();
  const rows = await db
    .select({
      supplierHotelCode: supplierRoomMap.supplierHotelCode,
      supplierRoomCode: supplierRoomMap.supplierRoomCode,
      roomCode: supplierRoomMap.roomCode,
    })
    .from(supplierRoomMap)
    .where(
      and(
        eq(supplierRoomMap.supplierCode, supplierCode),
        query.supplierHotelCode === undefined
          ? undefined
          : eq(supplierRoomMap.supplierHotelCode, query.supplierHotelCode),
        after === null
          ? undefined
          : or(
              gt(supplierRoomMap.supplierHotelCode, after[0]!),
              and(eq(supplierRoomMap.supplierHotelCode, after[0]!), gt(supplierRoomMap.supplierRoomCode, after[1]!)),
            ),
      ),
    )
    .orderBy(asc(supplierRoomMap.supplierHotelCode), asc(supplierRoomMap.supplierRoomCode))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rows.length > limit && last ? cursorOf([last.supplierHotelCode, last.supplierRoomCode]) : null;
  return { rows: page, nextCursor };
};
