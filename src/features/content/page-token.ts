import { z } from "@hono/zod-openapi";
import type { Keyring } from "../../platform/crypto/keyring";
import { openToken, signToken } from "../../platform/crypto/signed-token";
import { ApiError } from "../../platform/http/api-error";

/** How long a content page token stays valid: long enough to walk 100,000 accommodations slowly. */
export const PAGE_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;

const payloadSchema = z
  .object({
    v: z.literal(1),
    p: z.string(), // partner
    t: z.string().nullable(), // type filter
    c: z.array(z.string()), // countries
    s: z.number().int(), // size
    a: z.string(), // last code served: the keyset cursor
    d: z.string().optional(), // changedSince filter (deltas only)
    u: z.string().optional(), // updatedAt of the last document served (deltas only: the keyset is updatedAt, code)
  })
  .strict();

export type PageCursor = {
  partnerId: string;
  type: string | null;
  countries: string[];
  size: number;
  after: string;
  expiresAt: number;
  /** Deltas: the changedSince filter and the updatedAt of the last document served. */
  changedSince?: string | null;
  afterUpdatedAt?: string | null;
};

export const issuePageToken = (keys: Keyring, cursor: PageCursor): Promise<string> =>
  signToken(
    keys,
    "content-page",
    {
      v: 1,
      p: cursor.partnerId,
      t: cursor.type,
      c: cursor.countries,
      s: cursor.size,
      a: cursor.after,
      ...(cursor.changedSince ? { d: cursor.changedSince, u: cursor.afterUpdatedAt ?? undefined } : {}),
    },
    cursor.expiresAt,
  );

/** Opens a token with the spec's errors, in order: format, signature, owner, expiry. */
export const readPageToken = async (
  keys: Keyring,
  token: string,
  partnerId: string,
  now: number,
): Promise<PageCursor> => {
  const opened = await openToken(keys, "content-page", token, now);
  if (opened.kind === "malformed") throw new ApiError("invalid_page_token", "Invalid pageToken format");
  if (opened.kind === "bad_signature") throw new ApiError("page_token_signature", "Invalid pageToken signature");
  const parsed = payloadSchema.safeParse(opened.payload);
  if (!parsed.success) throw new ApiError("invalid_page_token", "Invalid pageToken format");
  const { p, t, c, s, a, d, u } = parsed.data;
  // A delta token carries both its filter and the updatedAt half of its keyset.
  if ((d === undefined) !== (u === undefined)) throw new ApiError("invalid_page_token", "Invalid pageToken format");
  if (p !== partnerId) throw new ApiError("page_token_partner", "pageToken does not belong to the current partner");
  if (opened.kind === "expired" || opened.expiresAt === null)
    throw new ApiError("page_token_expired", "pageToken expired");
  return {
    partnerId: p,
    type: t,
    countries: c,
    size: s,
    after: a,
    expiresAt: opened.expiresAt,
    changedSince: d ?? null,
    afterUpdatedAt: u ?? null,
  };
};
