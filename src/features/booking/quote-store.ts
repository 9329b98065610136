import { and, eq, gt, lte } from "drizzle-orm";
import { randomToken } from "../../platform/crypto/digest";
import { database, type Db } from "../../platform/db/client";
import type { OfferRef, Stay } from "../supply";
import type { QuoteView } from "./schemas";
import { quotes } from "./tables";

/** Quotes live 30 minutes (spec 3.2), kept in KV with expirationTtl and in D1 with expires_at. */
export const QUOTE_TTL_SECONDS = 1800;

export type StoredQuote = {
  v: 1;
  partnerId: string;
  connectionId: string;
  /** Supplier metadata: which supplier and product to book. */
  supplier?: { name: string } & OfferRef;
  stay: Stay;
  /** The partner's occupancy id per room (absent in quotes stored before they existed: positions). */
  occupancyRefIds?: number[];
  accommodationCode: string;
  expiresAt: number;
  /** The public quote as returned (its rate is the rate snapshot the booking charges). */
  quote: QuoteView;
};

const key = (quoteId: string) => `quote:${quoteId}`;

/** An unguessable id: 24 random bytes. */
export const newQuoteId = () => `qt_${randomToken(24)}`;

/** A stored quote that is well formed and not past its own clock, else null. */
const usable = (stored: unknown, now: number): StoredQuote | null => {
  const quote = stored as StoredQuote | null;
  if (
    !quote ||
    typeof quote !== "object" ||
    quote.v !== 1 ||
    typeof quote.expiresAt !== "number" ||
    now >= quote.expiresAt
  )
    return null;
  return quote;
};

const parsed = (json: string | null) => {
  try {
    return json === null ? null : (JSON.parse(json) as unknown);
  } catch {
    return null;
  }
};

/**
 * KV is the fast path; D1 keeps the same quote so that a KV miss (another location that has not
 * seen the write yet) does not lose it. Both copies expire with the quote.
 */
export const quoteStore = (kv: KVNamespace, db: Db) => ({
  async put(quoteId: string, quote: StoredQuote) {
    const body = JSON.stringify(quote);
    const row = { partnerId: quote.partnerId, expiresAt: quote.expiresAt, body };
    await Promise.all([
      db
        .insert(quotes)
        .values({ id: quoteId, ...row })
        .onConflictDoUpdate({ target: quotes.id, set: row })
        .run(),
      kv.put(key(quoteId), body, { expirationTtl: QUOTE_TTL_SECONDS }),
    ]);
  },
  /** The stored quote, or null when absent, expired (also by its own clock) or unreadable. */
  async get(quoteId: string, now: number): Promise<StoredQuote | null> {
    if (!/^qt_[A-Za-z0-9_-]{32}$/.test(quoteId)) return null;
    const cached = usable(await kv.get(key(quoteId), "json").catch(() => null), now);
    if (cached) return cached;
    const row = await db
      .select({ body: quotes.body })
      .from(quotes)
      .where(and(eq(quotes.id, quoteId), gt(quotes.expiresAt, now)))
      .get();
    return usable(parsed(row?.body ?? null), now);
  },
});

/** Upkeep: deletes quote rows past their expiry (KV expires its copies by itself). */
export const expiredQuotes = {
  name: "expired-quotes",
  run: async (env: Env, now: Date): Promise<number> => {
    const result = await database(env.DB).delete(quotes).where(lte(quotes.expiresAt, now.getTime())).run();
    return result.meta.changes;
  },
};
