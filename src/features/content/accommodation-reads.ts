import { z } from "zod";
import { count, eq, inArray, min, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import type { SqlRow } from "../../platform/db/sql-row";
import { accommodations } from "./tables";

/**
 * What other rooms read of an accommodation, through content's door: they never hold the table.
 * Supply's raw search SQL names the table's columns by `AccommodationColumns` (its row type).
 */
export type AccommodationColumns = SqlRow<typeof accommodations>;

/** The facts supply prices and books with (code, name, place, stars, timezone), or null. */
export const accommodationFacts = async (db: Db, code: string) => {
  const { name, type, country, latitude, longitude, starRating, timezone } = accommodations;
  const found = await db
    .select({ code: accommodations.code, name, type, country, latitude, longitude, starRating, timezone })
    .from(accommodations)
    .where(eq(accommodations.code, code))
    .get();
  return found ?? null;
};

/** What a public page shows of the stored section 4.1 document (every part optional, as a page can do without it). */
const pageDocument = z.object({
  address: z
    .object({ address: z.string(), city: z.string(), state: z.string(), postalCode: z.string() })
    .partial()
    .optional(),
  localizedDescription: z
    .array(z.object({ content: z.array(z.object({ type: z.string(), content: z.string() })).optional() }))
    .optional(),
  amenities: z.array(z.string()).optional(),
  checkInPolicy: z.object({ checkInFrom: z.string(), checkOutUntil: z.string() }).partial().optional(),
});

/**
 * An accommodation's page facts and the parts of its document a page shows, decoded here (the
 * stored JSON stays content's), or null. A stored document that does not decode is a server fault
 * that names the accommodation.
 */
export const accommodationDocument = async (db: Db, code: string) => {
  const row = await db
    .select({
      name: accommodations.name,
      type: accommodations.type,
      city: accommodations.city,
      state: accommodations.state,
      starRating: accommodations.starRating,
      content: accommodations.content,
    })
    .from(accommodations)
    .where(eq(accommodations.code, code))
    .get();
  if (!row) return null;
  const { content, ...facts } = row;
  const document = pageDocument.safeParse(JSON.parse(content));
  if (!document.success) throw new Error(`accommodation ${code}: content does not decode: ${document.error.message}`);
  return { ...facts, document: document.data };
};

/** A city in the content: the centre of its hotels (case-insensitive exact city name), or null. */
export const cityCentre = async (db: Db, phrase: string) => {
  const row = await db
    .select({
      city: min(accommodations.city),
      // drizzle's avg() reads back a string; the mean is a number.
      lat: sql<number | null>`avg(${accommodations.latitude})`,
      lng: sql<number | null>`avg(${accommodations.longitude})`,
      n: count(),
    })
    .from(accommodations)
    .where(sql`${accommodations.city} = ${phrase.trim()} COLLATE NOCASE`)
    .get();
  return row && row.n > 0 && row.city ? { city: row.city, lat: row.lat!, lng: row.lng! } : null;
};

/**
 * What hotel mapping compares a supplier's hotel with, for any number of codes in one statement
 * (the codes as one JSON parameter): name, place, position, and the street address and postal code
 * read from the stored document.
 */
export const accommodationsToMatch = async (db: Db, codes: string[]) =>
  codes.length === 0
    ? []
    : db
        .select({
          code: accommodations.code,
          name: accommodations.name,
          country: accommodations.country,
          state: accommodations.state,
          city: accommodations.city,
          latitude: accommodations.latitude,
          longitude: accommodations.longitude,
          address: sql<string | null>`${accommodations.content} ->> '$.address.address'`,
          postalCode: sql<string | null>`${accommodations.content} ->> '$.address.postalCode'`,
        })
        .from(accommodations)
        .where(
          inArray(accommodations.code, sql`(SELECT value FROM json_each(${JSON.stringify([...new Set(codes)])}))`),
        );
