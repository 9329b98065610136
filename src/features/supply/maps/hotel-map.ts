import { z } from "@hono/zod-openapi";
import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../../platform/db/client";
import { isUniqueViolation } from "../../../platform/db/constraint";
import { ApiError } from "../../../platform/http/api-error";
import type { UploadEntry } from "../../../platform/http/row-upload";
import { accommodationsByCodes } from "../accommodations";
import { supplierHotelMap, supplierRoomMap } from "../tables";
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

export const hotelMapRow = z
  .object({ supplierHotelCode: supplierItemCode, accommodationCode: edgestayCode })
  .strict()
  .openapi("HotelMapRow", { example: { supplierHotelCode: "H-88213", accommodationCode: "US000001" } });
export type HotelMapRow = z.infer<typeof hotelMapRow>;

/** The accommodations among `codes` that Edgestay's content has, with their star rating (their rooms follow from it). */
export const knownAccommodations = async (db: Db, codes: string[]) => {
  const known = new Map<string, number>();
  for (const chunk of chunked([...new Set(codes)])) {
    for (const accommodation of await accommodationsByCodes(db, chunk))
      known.set(accommodation.code, accommodation.starRating);
  }
  return known;
};

/** `(select value from json_each(?))`: any number of values as one bound parameter. */
export const jsonList = (values: string[]) => sql`(select value from json_each(${JSON.stringify(values)}))`;

/** The current mappings of a supplier touching these hotel codes or these accommodations. */
const mappingsTouching = async (db: Db, supplierCode: string, hotelCodes: string[], accommodationCodes: string[]) => {
  const byHotel = new Map<string, string>();
  const byAccommodation = new Map<string, string>();
  const reads = [
    ...chunked(hotelCodes).map((chunk) => sql`${supplierHotelMap.supplierHotelCode} in ${jsonList(chunk)}`),
    ...chunked(accommodationCodes).map((chunk) => sql`${supplierHotelMap.accommodationCode} in ${jsonList(chunk)}`),
  ];
  for (const where of reads) {
    const rows = await db
      .select({ hotel: supplierHotelMap.supplierHotelCode, accommodation: supplierHotelMap.accommodationCode })
      .from(supplierHotelMap)
      .where(and(eq(supplierHotelMap.supplierCode, supplierCode), where));
    for (const { hotel, accommodation } of rows) {
      byHotel.set(hotel, accommodation);
      byAccommodation.set(accommodation, hotel);
    }
  }
  return { byHotel, byAccommodation };
};

/**
 * Upserts a supplier's hotel map from an upload: each row applied, unchanged or rejected with its
 * number and reason. Judged against the map as it was before the upload (to move an accommodation
 * to another supplier hotel, delete the old mapping first), then written in one D1 batch (all or
 * nothing); a parallel upload that mapped the same accommodation first makes it a 409.
 */
export const importHotelMap = async (
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
    hotelMapRow,
    [
      { name: "supplierHotelCode", of: (r) => r.supplierHotelCode },
      { name: "accommodationCode", of: (r) => r.accommodationCode },
    ],
    rejected,
  );
  const known = await knownAccommodations(
    db,
    rows.map((r) => r.accommodationCode),
  );
  const current = await mappingsTouching(
    db,
    supplierCode,
    rows.map((r) => r.supplierHotelCode),
    rows.map((r) => r.accommodationCode),
  );
  const writes: HotelMapRow[] = [];
  const remapped: string[] = [];
  let inserted = 0;
  let updated = 0;
  let unchanged = 0;
  for (const row of rows) {
    const { supplierHotelCode, accommodationCode } = row;
    if (!known.has(accommodationCode)) {
      rejected.push({
        row: row.row,
        reason: "unknown_accommodation",
        message: `No accommodation ${accommodationCode}`,
      });
      continue;
    }
    const owner = current.byAccommodation.get(accommodationCode);
    if (owner !== undefined && owner !== supplierHotelCode) {
      rejected.push({
        row: row.row,
        reason: "already_mapped_elsewhere",
        message: `${accommodationCode} is already mapped to supplier hotel ${owner}`,
      });
      continue;
    }
    const was = current.byHotel.get(supplierHotelCode);
    if (was === accommodationCode) {
      unchanged++;
      continue;
    }
    if (was === undefined) inserted++;
    else {
      updated++;
      remapped.push(supplierHotelCode);
    }
    writes.push({ supplierHotelCode, accommodationCode });
  }
  const statements: BatchItem<"sqlite">[] = [
    // A hotel mapped to another accommodation loses its room map: those were the other one's rooms.
    ...chunked(remapped).map((chunk) =>
      db
        .delete(supplierRoomMap)
        .where(
          and(
            eq(supplierRoomMap.supplierCode, supplierCode),
            sql`${supplierRoomMap.supplierHotelCode} in ${jsonList(chunk)}`,
          ),
        ),
    ),
    ...chunked(writes).map((chunk) =>
      db
        .insert(supplierHotelMap)
        .select(
          sql`select ${supplierCode}, value ->> 0, value ->> 1 from json_each(${JSON.stringify(
            chunk.map((w) => [w.supplierHotelCode, w.accommodationCode]),
          )}) where true`,
        )
        .onConflictDoUpdate({
          target: [supplierHotelMap.supplierCode, supplierHotelMap.supplierHotelCode],
          set: { accommodationCode: sql`excluded.accommodation_code` },
        }),
    ),
  ];
  await writeUpload(db, statements, (err) => isUniqueViolation(err, "accommodation_code"));
  rejected.sort((a, b) => a.row - b.row);
  return { inserted, updated, unchanged, rejected };
};

export const hotelMapQuery = z.object({
  ...mapPageQuery({ max: 200, example: "WyJILTg4MjEzIl0" }),
  supplierHotelCode: supplierItemCode
    .optional()
    .openapi({ description: "Only this supplier hotel's mapping", example: "H-88213" }),
  accommodationCode: edgestayCode
    .optional()
    .openapi({ description: "Only the mapping of this accommodation", example: "US000001" }),
});
export const DEFAULT_PAGE = 100;

export const invalidCursor = () => new ApiError("invalid_cursor", "cursor: Invalid cursor");

/** A page of a supplier's hotel map in supplier hotel code order. */
export const listHotelMap = async (db: Db, supplierCode: string, query: z.infer<typeof hotelMapQuery>) => {
  await requireSupplier(db, supplierCode);
  const limit = query.limit ?? DEFAULT_PAGE;
  const after = query.cursor === undefined ? null : keyOfCursor(query.cursor, 1);
  if (query.cursor !== undefined && after === null) throw invalidCursor();
  const rows = await db
    .select({
      supplierHotelCode: supplierHotelMap.supplierHotelCode,
      accommodationCode: supplierHotelMap.accommodationCode,
    })
    .from(supplierHotelMap)
    .where(
      and(
        eq(supplierHotelMap.supplierCode, supplierCode),
        query.supplierHotelCode === undefined
          ? undefined
          : eq(supplierHotelMap.supplierHotelCode, query.supplierHotelCode),
        query.accommodationCode === undefined
          ? undefined
          : eq(supplierHotelMap.accommodationCode, query.accommodationCode),
        after === null ? undefined : gt(supplierHotelMap.supplierHotelCode, after[0]!),
      ),
    )
    .orderBy(asc(supplierHotelMap.supplierHotelCode))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? cursorOf([page.at(-1)!.supplierHotelCode]) : null;
  return { rows: page, nextCursor };
};

/** Deletes one mapping (and its room map, by the foreign key); 404 when the supplier has no such hotel mapped. */
export const deleteHotelMapping = async (db: Db, supplierCode: string, supplierHotelCode: string) => {
  await requireSupplier(db, supplierCode);
  const deleted = await db
    .delete(supplierHotelMap)
    .where(
      and(eq(supplierHotelMap.supplierCode, supplierCode), eq(supplierHotelMap.supplierHotelCode, supplierHotelCode)),
    )
    .returning({ supplierHotelCode: supplierHotelMap.supplierHotelCode });
  if (deleted.length === 0) {
    throw new ApiError(
      "hotel_mapping_not_found",
      `Supplier ${supplierCode} has no mapping of hotel ${supplierHotelCode}`,
    );
  }
};
