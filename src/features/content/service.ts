import { and, asc, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import type { Keyring } from "../../platform/crypto/keyring";
import type { Db } from "../../platform/db/client";
import { feeScheduleOf, servedFees } from "./fee-schedule";
import { accommodationFees, accommodations } from "./tables";
import { ApiError } from "../../platform/http/api-error";
import { issuePageToken, PAGE_TOKEN_LIFETIME_MS, readPageToken } from "./page-token";
import { ACCOMMODATION_TYPES, DEFAULT_PAGE_SIZE, SUPPORTED_COUNTRIES } from "./schemas";

export type ContentQuery = {
  partnerId: string;
  type?: string;
  countries?: string[];
  size?: number;
  /** ISO datetime (validated by the route): only documents updated after it. */
  changedSince?: string;
  pageToken?: string;
};

export type ContentPage = {
  type: string | null;
  countries: string[];
  size: number;
  changedSince: string | null;
  hasMore: boolean;
  nextPageToken: string | null;
  /** Each accommodation's section 4.1 document as stored plus its updatedAt: JSON text, served without re-encoding. */
  documents: string[];
};

const normaliseType = (type: string | undefined): string | null => {
  if (type === undefined) return null;
  const lower = type.toLowerCase();
  if (!(ACCOMMODATION_TYPES as readonly string[]).includes(lower))
    throw new ApiError("unsupported_type", "Unsupported type");
  return lower;
};

const normaliseCountries = (countries: string[] | undefined): string[] => {
  if (!countries || countries.length === 0) return [...SUPPORTED_COUNTRIES];
  const upper = [...new Set(countries.map((c) => c.toUpperCase()))];
  const unsupported = upper.find((c) => !(SUPPORTED_COUNTRIES as readonly string[]).includes(c));
  if (unsupported !== undefined) {
    throw new ApiError("unsupported_country", `Unsupported country: ${unsupported}. Currently only US is supported`);
  }
  return upper.sort();
};

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

type Bound = { type: string | null; countries: string[]; changedSince: string | null };
type After = { code: string; updatedAt: string | null };

/**
 * Keyset query for one page, never an OFFSET scan. The full list goes in code order (`code > after`);
 * a delta (changedSince) goes in change order, (updated_at, code), on accommodations_updated, so a
 * document edited during a walk comes again later in it and the last updatedAt served is the next
 * changedSince.
 */
export const contentPageQuery = (db: Db, bound: Bound, after: After | null, size: number) => {
  const where: SQL[] = [inArray(accommodations.country, bound.countries)];
  if (bound.type) where.push(eq(accommodations.type, bound.type));
  const columns = {
    code: accommodations.code,
    content: accommodations.content,
    updatedAt: accommodations.updatedAt,
    type: accommodations.type,
    country: accommodations.country,
    fees: accommodationFees.schedule,
  };
  // An operator's fee schedule rides along (a primary-key seek per row served); the others are derived.
  const from = () =>
    db
      .select(columns)
      .from(accommodations)
      .leftJoin(accommodationFees, eq(accommodationFees.accommodationCode, accommodations.code));
  if (bound.changedSince === null) {
    if (after !== null) where.push(gt(accommodations.code, after.code));
    return from()
      .where(and(...where))
      .orderBy(asc(accommodations.code))
      .limit(size + 1);
  }
  // Unary + keeps the planner off the country and type indexes: with no statistics it takes an
  // equality for the narrower filter, but one country matches every row; the change-order index narrows.
  where[0] = inArray(sql`+${accommodations.country}`, bound.countries);
  if (bound.type) where[1] = sql`+${accommodations.type} = ${bound.type}`;
  where.push(gt(accommodations.updatedAt, bound.changedSince));
  if (after !== null)
    where.push(sql`(${accommodations.updatedAt}, ${accommodations.code}) > (${after.updatedAt}, ${after.code})`);
  return from()
    .where(and(...where))
    .orderBy(asc(accommodations.updatedAt), asc(accommodations.code))
    .limit(size + 1);
};

type PageRow = Awaited<ReturnType<typeof contentPageQuery>>[number];

/**
 * The stored document with its fees and updatedAt appended: a string splice, no parse of the
 * document. `fees`: the taxes and fees in force (fee-schedule.ts), mandatory and optional.
 */
const servedDocument = (row: PageRow) => {
  const fees = servedFees(feeScheduleOf(row, row.fees));
  return `${row.content.slice(0, -1)},"fees":${JSON.stringify(fees)},"updatedAt":${JSON.stringify(row.updatedAt)}}`;
};

/**
 * One page of accommodation content: in code order, or for a delta (changedSince) in change order.
 * Keyset pagination: the token carries the last key served, so a page deep in the list costs what
 * the first one costs.
 */
export const listAccommodationContent = async (
  db: Db,
  keys: Keyring,
  query: ContentQuery,
  now = Date.now(),
): Promise<ContentPage> => {
  const type = normaliseType(query.type);
  const countries = normaliseCountries(query.countries);
  const changedSince = query.changedSince === undefined ? null : new Date(query.changedSince).toISOString();
  let size = query.size ?? DEFAULT_PAGE_SIZE;
  let bound: Bound = { type, countries, changedSince };
  let after: After | null = null;

  if (query.pageToken !== undefined) {
    const cursor = await readPageToken(keys, query.pageToken, query.partnerId, now);
    if (query.type !== undefined && type !== cursor.type) {
      throw new ApiError("page_token_mismatch", "type in query must match type in pageToken");
    }
    if (query.countries !== undefined && !sameList(countries, cursor.countries)) {
      throw new ApiError("page_token_mismatch", "countries in query must match countries in pageToken");
    }
    if (query.size !== undefined && query.size !== cursor.size) {
      throw new ApiError("page_token_mismatch", "size in query must match size in pageToken");
    }
    if (query.changedSince !== undefined && changedSince !== cursor.changedSince) {
      throw new ApiError("page_token_mismatch", "changedSince in query must match changedSince in pageToken");
    }
    bound = { type: cursor.type, countries: cursor.countries, changedSince: cursor.changedSince ?? null };
    size = cursor.size;
    after = { code: cursor.after, updatedAt: cursor.afterUpdatedAt ?? null };
  }

  const rows = await contentPageQuery(db, bound, after, size);

  const hasMore = rows.length > size;
  const page = hasMore ? rows.slice(0, size) : rows;
  const nextPageToken = hasMore
    ? await issuePageToken(keys, {
        partnerId: query.partnerId,
        ...bound,
        size,
        after: page[page.length - 1]!.code,
        afterUpdatedAt: bound.changedSince === null ? null : page[page.length - 1]!.updatedAt,
        expiresAt: now + PAGE_TOKEN_LIFETIME_MS,
      })
    : null;

  return {
    ...bound,
    size,
    hasMore,
    nextPageToken,
    documents: page.map(servedDocument),
  };
};
