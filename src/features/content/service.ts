import { and, asc, eq, gt, inArray, type SQL } from "drizzle-orm";
import type { Keyring } from "../../platform/crypto/keyring";
import type { Db } from "../../platform/db/client";
import { accommodations } from "../../platform/db/schema";
import { ApiError } from "../../platform/http/api-error";
import { issuePageToken, PAGE_TOKEN_LIFETIME_MS, readPageToken } from "./page-token";
import { ACCOMMODATION_TYPES, DEFAULT_PAGE_SIZE, SUPPORTED_COUNTRIES } from "./schemas";

export type ContentQuery = {
  partnerId: string;
  type?: string;
  countries?: string[];
  size?: number;
  pageToken?: string;
};

export type ContentPage = {
  type: string | null;
  countries: string[];
  size: number;
  hasMore: boolean;
  nextPageToken: string | null;
  /** Each accommodation's section 4.1 document as stored: JSON text, served without re-encoding. */
  documents: string[];
};

const normaliseType = (type: string | undefined): string | null => {
  if (type === undefined) return null;
  const lower = type.toLowerCase();
  if (!(ACCOMMODATION_TYPES as readonly string[]).includes(lower)) throw new ApiError(400, "Unsupported type", "unsupported_type");
  return lower;
};

const normaliseCountries = (countries: string[] | undefined): string[] => {
  if (!countries || countries.length === 0) return [...SUPPORTED_COUNTRIES];
  const upper = [...new Set(countries.map((c) => c.toUpperCase()))];
  const unsupported = upper.find((c) => !(SUPPORTED_COUNTRIES as readonly string[]).includes(c));
  if (unsupported !== undefined) {
    throw new ApiError(400, `Unsupported country: ${unsupported}. Currently only US is supported`, "unsupported_country");
  }
  return upper.sort();
};

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** Keyset query for one page: `code > after` on an index, never an OFFSET scan. */
export const contentPageQuery = (db: Db, bound: { type: string | null; countries: string[] }, after: string | null, size: number) => {
  const where: SQL[] = [inArray(accommodations.country, bound.countries)];
  if (bound.type) where.push(eq(accommodations.type, bound.type));
  if (after !== null) where.push(gt(accommodations.code, after));
  return db
    .select({ code: accommodations.code, content: accommodations.content })
    .from(accommodations)
    .where(and(...where))
    .orderBy(asc(accommodations.code))
    .limit(size + 1);
};

/**
 * One page of accommodation content in code order. Keyset pagination: the token carries
 * the last code served, so a page deep in the list costs what the first one costs.
 */
export const listAccommodationContent = async (
  db: Db,
  keys: Keyring,
  query: ContentQuery,
  now = Date.now(),
): Promise<ContentPage> => {
  const type = normaliseType(query.type);
  const countries = normaliseCountries(query.countries);
  let size = query.size ?? DEFAULT_PAGE_SIZE;
  let bound = { type, countries };
  let after: string | null = null;

  if (query.pageToken !== undefined) {
    const cursor = await readPageToken(keys, query.pageToken, query.partnerId, now);
    if (query.type !== undefined && type !== cursor.type) {
      throw new ApiError(400, "type in query must match type in pageToken", "page_token_mismatch");
    }
    if (query.countries !== undefined && !sameList(countries, cursor.countries)) {
      throw new ApiError(400, "countries in query must match countries in pageToken", "page_token_mismatch");
    }
    if (query.size !== undefined && query.size !== cursor.size) {
      throw new ApiError(400, "size in query must match size in pageToken", "page_token_mismatch");
    }
    bound = { type: cursor.type, countries: cursor.countries };
    size = cursor.size;
    after = cursor.after;
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
        expiresAt: now + PAGE_TOKEN_LIFETIME_MS,
      })
    : null;

  return {
    ...bound,
    size,
    hasMore,
    nextPageToken,
    documents: page.map((row) => row.content),
  };
};
