// Raw SQL: the maps a search needs are built with drizzle and read as rows of values (no object per row)
import { type AnyColumn, and, eq, sql } from "drizzle-orm";
import type { Db } from "../../../platform/db/client";
import { supplierBoardMap, supplierHotelMap, supplierRoomMap } from "../tables";
import type { MappedBoard } from "./board-map";
import { jsonList } from "./hotel-map";

/** What one supplier's maps say about the accommodations of a search. */
export type SupplierMap = {
  /** Accommodation code -> the supplier's hotel code, for the accommodations it maps. */
  hotelCodes: Map<string, string>;
  /** The supplier's hotel code -> accommodation code (its answers mapped back). */
  accommodations: Map<string, string>;
  /** The supplier's hotel code -> its room code -> Edgestay's room code. */
  rooms: Map<string, Map<string, string>>;
  /** The supplier's board code -> Edgestay's board code (the whole board map). */
  boards: Map<string, MappedBoard>;
};

const emptyMap = (): SupplierMap => ({
  hotelCodes: new Map(),
  accommodations: new Map(),
  rooms: new Map(),
  boards: new Map(),
});

/**
 * Every map a search needs, for these suppliers and these accommodations, in ONE statement (the
 * three maps as one UNION ALL, each list one JSON parameter, so any number of codes binds two
 * parameters): each supplier's hotel codes of the accommodations, those hotels' room maps and
 * its board map. A supplier with no row is there, empty.
 */
export const supplierMapsOf = async (
  db: Db,
  supplierCodes: string[],
  accommodationCodes: string[],
): Promise<Map<string, SupplierMap>> => {
  const maps = new Map(supplierCodes.map((code) => [code, emptyMap()]));
  if (supplierCodes.length === 0 || accommodationCodes.length === 0) return maps;
  // Read as rows of values in the statement's column order: a merged search reads a thousand map
  // rows before it asks any supplier, and drizzle's mapping of each into an object showed in its profile.
  const { sql: text, params } = supplierMapsQuery(db, supplierCodes, accommodationCodes).toSQL();
  const rows = await db.$client
    .prepare(text)
    .bind(...params)
    .raw<MapRowValues>();
  for (const [kind, supplierCode, hotel, theirs, ours] of rows) {
    const map = maps.get(supplierCode);
    if (!map) continue;
    if (kind === "hotel") {
      map.hotelCodes.set(ours, theirs);
      map.accommodations.set(theirs, ours);
    } else if (kind === "room") {
      const rooms = map.rooms.get(hotel!) ?? new Map<string, string>();
      rooms.set(theirs, ours);
      map.rooms.set(hotel!, rooms);
    } else map.boards.set(theirs, ours as MappedBoard);
  }
  return maps;
};

/** A row of the maps statement as values, in its columns' order (the types are drizzle's, of the statement). */
type MapRow = Awaited<ReturnType<typeof supplierMapsQuery>>[number];
type MapRowValues = [MapRow["kind"], MapRow["supplierCode"], MapRow["hotel"], MapRow["theirs"], MapRow["ours"]];

/** The one statement of `supplierMapsOf` (exported for its query plan's test). */
export const supplierMapsQuery = (db: Db, supplierCodes: string[], accommodationCodes: string[]) => {
  const ofSuppliers = (column: AnyColumn) => sql`${column} in ${jsonList(supplierCodes)}`;
  const ofAccommodations = sql`${supplierHotelMap.accommodationCode} in ${jsonList(accommodationCodes)}`;
  const hotels = db
    .select({
      kind: sql<"hotel" | "room" | "board">`'hotel'`.as("kind"),
      supplierCode: supplierHotelMap.supplierCode,
      hotel: sql<string | null>`${supplierHotelMap.supplierHotelCode}`.as("hotel"),
      theirs: sql<string>`${supplierHotelMap.supplierHotelCode}`.as("theirs"),
      ours: sql<string>`${supplierHotelMap.accommodationCode}`.as("ours"),
    })
    .from(supplierHotelMap)
    .where(and(ofSuppliers(supplierHotelMap.supplierCode), ofAccommodations));
  const rooms = db
    .select({
      kind: sql<"hotel" | "room" | "board">`'room'`.as("kind"),
      supplierCode: supplierRoomMap.supplierCode,
      hotel: sql<string | null>`${supplierRoomMap.supplierHotelCode}`.as("hotel"),
      theirs: sql<string>`${supplierRoomMap.supplierRoomCode}`.as("theirs"),
      ours: sql<string>`${supplierRoomMap.roomCode}`.as("ours"),
    })
    .from(supplierRoomMap)
    .innerJoin(
      supplierHotelMap,
      and(
        eq(supplierHotelMap.supplierCode, supplierRoomMap.supplierCode),
        eq(supplierHotelMap.supplierHotelCode, supplierRoomMap.supplierHotelCode),
      ),
    )
    .where(and(ofSuppliers(supplierHotelMap.supplierCode), ofAccommodations));
  const boards = db
    .select({
      kind: sql<"hotel" | "room" | "board">`'board'`.as("kind"),
      supplierCode: supplierBoardMap.supplierCode,
      hotel: sql<string | null>`null`.as("hotel"),
      theirs: sql<string>`${supplierBoardMap.supplierBoardCode}`.as("theirs"),
      ours: sql<string>`${supplierBoardMap.boardCode}`.as("ours"),
    })
    .from(supplierBoardMap)
    .where(ofSuppliers(supplierBoardMap.supplierCode));
  return hotels.unionAll(rooms).unionAll(boards);
};
