import { z } from "@hono/zod-openapi";
import { isoDate } from "../../platform/http/fields";
import { and, desc, eq, gte, lte, type SQL, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/sqlite-core";
import type { Db } from "../../platform/db/client";
import type { Keyring } from "../../platform/crypto/keyring";
import { openToken, signToken } from "../../platform/crypto/signed-token";
import { ApiError } from "../../platform/http/api-error";
import { envelopeSchema } from "../../platform/http/envelope";
import { isIsoDate, isIsoDatetime } from "../../platform/http/iso-time";
import { bookingView } from "./bookings";
import { bookingRecord } from "./record";
import { bookingExample, bookingViewSchema } from "./schemas";
import { bookings } from "./tables";

/** Reconciliation list: GET /api/bookings without partnerReference. */
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 200;
const BOOKING_STATUSES = ["success", "cancelled"] as const;

const dateParam = isoDate.optional();
const instantParam = (description: string) =>
  z
    .string()
    .refine((v) => isIsoDate(v) || isIsoDatetime(v), "expected a date YYYY-MM-DD or an ISO 8601 datetime with a zone")
    .optional()
    .openapi({ description, example: "2026-11-01T00:00:00Z" });

/** The query of GET /api/bookings: either `partnerReference` (one booking, as before) or the list parameters. */
export const bookingsQuerySchema = z.object({
  partnerReference: z.string().min(1).max(100).optional().openapi({
    description: "Find one booking by your reference; cannot be combined with the list parameters",
    example: "PARTNER-REF-1001",
  }),
  createdFrom: instantParam("Created at or after: a UTC date (from its start) or a datetime (inclusive)"),
  createdTo: instantParam("Created at or before: a UTC date (to its end) or a datetime (inclusive)"),
  checkInFrom: dateParam.openapi({ description: "Check-in on or after this date" }),
  checkInTo: dateParam.openapi({ description: "Check-in on or before this date" }),
  status: z.enum(BOOKING_STATUSES).optional().openapi({ example: "success" }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIST_LIMIT)
    .optional()
    .openapi({ type: "integer", description: `1 to ${MAX_LIST_LIMIT}, default ${DEFAULT_LIST_LIMIT}`, example: 50 }),
  cursor: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .openapi({ description: "nextCursor of the previous page", example: "eyJjIjoiMjAyNi0xMS0wMSJ9.c2ln" }),
});

export type BookingsQuery = z.infer<typeof bookingsQuerySchema>;

export const bookingListSchema = z
  .object({
    bookings: z
      .array(bookingViewSchema)
      .openapi({ description: "Newest first (createdAt, then bookingReference, descending)" }),
    nextCursor: z.string().nullable().openapi({ description: "Null on the last page" }),
  })
  .openapi("BookingList", { example: { bookings: [bookingExample], nextCursor: null } });

export const bookingListResponseSchema = envelopeSchema(bookingListSchema).openapi("BookingListResponse");

/** The filters in force, normalised so that equal filters compare equal. Instants are UTC ISO with milliseconds, as stored. */
export type ListFilters = {
  createdFrom: string | null;
  createdTo: string | null;
  checkInFrom: string | null;
  checkInTo: string | null;
  status: string | null;
};

const FILTER_NAMES = ["createdFrom", "createdTo", "checkInFrom", "checkInTo", "status"] as const;

const DAY_MS = 24 * 60 * 60 * 1000;
const lowerInstant = (v: string) => new Date(isIsoDate(v) ? `${v}T00:00:00Z` : v).toISOString();
// A date as an upper bound covers its whole UTC day.
const upperInstant = (v: string) =>
  isIsoDate(v) ? new Date(Date.parse(`${v}T00:00:00Z`) + DAY_MS - 1).toISOString() : new Date(v).toISOString();

const filtersOf = (q: BookingsQuery): ListFilters => ({
  createdFrom: q.createdFrom === undefined ? null : lowerInstant(q.createdFrom),
  createdTo: q.createdTo === undefined ? null : upperInstant(q.createdTo),
  checkInFrom: q.checkInFrom ?? null,
  checkInTo: q.checkInTo ?? null,
  status: q.status ?? null,
});

const cursorPayload = z
  .object({
    v: z.literal(1),
    p: z.string(), // partner
    f: z
      .object({
        createdFrom: z.string().nullable(),
        createdTo: z.string().nullable(),
        checkInFrom: z.string().nullable(),
        checkInTo: z.string().nullable(),
        status: z.string().nullable(),
      })
      .strict(),
    c: z.string(), // createdAt of the last booking served
    r: z.string(), // its reference: the tiebreaker
  })
  .strict();

const INVALID_CURSOR = () => new ApiError("invalid_cursor", "Invalid cursor");

const readCursor = async (keys: Keyring, token: string, partnerId: string) => {
  // A cursor does not expire: it only names a position in the partner's own list.
  const opened = await openToken(keys, "booking-list-cursor", token, Date.now());
  if (opened.kind !== "ok") throw INVALID_CURSOR();
  const parsed = cursorPayload.safeParse(opened.payload);
  if (!parsed.success) throw INVALID_CURSOR();
  if (parsed.data.p !== partnerId)
    throw new ApiError("cursor_partner", "cursor does not belong to the current partner");
  return parsed.data;
};

type After = { createdAt: string; reference: string } | null;

/** One page: the partner's bookings matching the filters, after the keyset cursor, newest first. */
const pageOf = (partnerId: string, filters: ListFilters, after: After) => {
  const where: SQL[] = [eq(bookings.partnerId, partnerId)];
  if (filters.createdFrom) where.push(gte(bookings.createdAt, filters.createdFrom));
  if (filters.createdTo) where.push(lte(bookings.createdAt, filters.createdTo));
  if (filters.checkInFrom) where.push(gte(bookings.checkIn, filters.checkInFrom));
  if (filters.checkInTo) where.push(lte(bookings.checkIn, filters.checkInTo));
  if (filters.status) where.push(sql`${bookings.status} = ${filters.status}`);
  if (after) where.push(sql`(${bookings.createdAt}, ${bookings.reference}) < (${after.createdAt}, ${after.reference})`);
  return { where: and(...where), order: [desc(bookings.createdAt), desc(bookings.reference)] };
};

/** The SQL of one page (as listBookings runs it), for reading its query plan. */
export const bookingPageQuery = (partnerId: string, filters: ListFilters, after: After, rows: number) => {
  const page = pageOf(partnerId, filters, after);
  return new QueryBuilder()
    .select()
    .from(bookings)
    .where(page.where)
    .orderBy(...page.order)
    .limit(rows)
    .toSQL();
};

/**
 * One page of the partner's bookings, newest first. Keyset pagination on (created_at, reference)
 * through the index bookings_partner_created: a deep page costs what the first one costs, and a
 * booking made while paging never shifts the pages already served.
 */
export const listBookings = async (db: Db, keys: Keyring, partnerId: string, query: BookingsQuery) => {
  const limit = query.limit ?? DEFAULT_LIST_LIMIT;
  let filters = filtersOf(query);
  let after: After = null;

  if (query.cursor !== undefined) {
    const cursor = await readCursor(keys, query.cursor, partnerId);
    // A filter left out is taken from the cursor; one sent must equal the cursor's (as content pageToken does).
    const changed = FILTER_NAMES.find((name) => query[name] !== undefined && filters[name] !== cursor.f[name]);
    if (changed) throw new ApiError("cursor_mismatch", `${changed} in query must match ${changed} in cursor`);
    filters = cursor.f;
    after = { createdAt: cursor.c, reference: cursor.r };
  }

  const page = pageOf(partnerId, filters, after);
  const results = await db
    .select()
    .from(bookings)
    .where(page.where)
    .orderBy(...page.order)
    .limit(limit + 1);

  const served = results.slice(0, limit);
  const last = served[served.length - 1];
  const nextCursor =
    results.length > limit && last
      ? await signToken(
          keys,
          "booking-list-cursor",
          { v: 1, p: partnerId, f: filters, c: last.createdAt, r: last.reference },
          null,
        )
      : null;
  return { bookings: served.map((row) => bookingView(bookingRecord(row))), nextCursor };
};
