import { z } from "zod";
import { and, eq, gt, lte } from "drizzle-orm";
import { randomToken } from "../../platform/crypto/digest";
import { database, type Db } from "../../platform/db/client";
import { PAYMENT_TYPES } from "../supply";
import { bookingJson, bookingJsonV1, DamagedRecord, decodeStored } from "./record";
import { quotes } from "./tables";

/** Quotes live 30 minutes (spec 3.2), kept in KV with expirationTtl and in D1 with expires_at. */
export const QUOTE_TTL_SECONDS = 1800;

/** What book takes of a quote: its rate (the snapshot the booking charges), payment type, board, policy and rooms. */
const quotedTerms = (json: typeof bookingJson | typeof bookingJsonV1) =>
  z.object({
    id: z.string(),
    // Absent: book refuses it (missing_rate_snapshot).
    rate: json.fullRate.optional(),
    // A quote stored before payment types (issue 27) was MerchantPay.
    paymentType: z.enum(PAYMENT_TYPES).optional(),
    boardCode: z.string(),
    cancelPolicy: json.cancelPolicy.nullable().optional(),
    rooms: json.rooms.optional(),
  });

/**
 * A quote as kept for book, version 2 (issue 38): what book takes of it, amounts in minor units as
 * the booking record holds them. Read back it is decoded with zod, as a booking's record is
 * (record.ts); version 1 (the whole public quote, major units), written before, is read alongside
 * into the same form until it expires.
 */
const storedQuoteV2 = z.object({
  v: z.literal(2),
  partnerId: z.string(),
  connectionId: z.string(),
  /** Supplier metadata: which supplier and product to book (absent: book refuses it, missing_supplier_metadata). */
  supplier: z
    .object({
      name: z.string(),
      roomCode: z.string(),
      ratePlanCode: z.string(),
      upstreamOptionId: z.string().optional(),
      upstreamAccessCode: z.string().optional(),
      /** The supplier's own hotel code, when it is not ours (the booking keeps it). */
      supplierHotelCode: z.string().optional(),
    })
    .optional(),
  stay: z.object({ checkIn: z.string(), checkOut: z.string(), rooms: z.array(z.array(z.number())) }),
  /** The partner's occupancy id per room (absent in quotes stored before they existed: positions). */
  occupancyRefIds: z.array(z.number()).optional(),
  accommodationCode: z.string(),
  expiresAt: z.number(),
  quote: quotedTerms(bookingJson),
});
/** Version 1: of the public quote as returned (major units), what book takes, read into minor units. */
const storedQuoteV1 = storedQuoteV2.extend({ v: z.literal(1), quote: quotedTerms(bookingJsonV1) });
const QUOTE_FORMATS = { 1: storedQuoteV1, 2: storedQuoteV2 };

/** A quote as kept for book, and as read back (whatever version it was stored in). */
export type StoredQuote = z.infer<typeof storedQuoteV2>;

const key = (quoteId: string) => `quote:${quoteId}`;

/** An unguessable id: 24 random bytes. */
export const newQuoteId = () => `qt_${randomToken(24)}`;

/**
 * A stored quote that decodes and is not past its own clock, else null. One that does not decode is
 * logged (its id and what is wrong) and read as absent: the partner quotes again, nothing is booked on it.
 */
const usable = (quoteId: string, json: string | null, now: number): StoredQuote | null => {
  if (json === null) return null;
  try {
    const quote = decodeStored<StoredQuote | z.infer<typeof storedQuoteV1>>(
      `stored quote ${quoteId}`,
      json,
      QUOTE_FORMATS,
    );
    return now < quote.expiresAt ? { ...quote, v: 2 } : null;
  } catch (error) {
    if (!(error instanceof DamagedRecord)) throw error;
    console.error(JSON.stringify({ level: "error", event: "stored_quote_damaged", error: error.message }));
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
    const cached = usable(quoteId, await kv.get(key(quoteId)).catch(() => null), now);
    if (cached) return cached;
    const row = await db
      .select({ body: quotes.body })
      .from(quotes)
      .where(and(eq(quotes.id, quoteId), gt(quotes.expiresAt, now)))
      .get();
    return usable(quoteId, row?.body ?? null, now);
  },
});

/**
 * The stored quote a quote id names, or null (absent, expired, unreadable): the one read of the
 * store that another room needs (the Hotel-X face books or routes by a quote id).
 */
export const storedQuote = (stores: { quotes: KVNamespace; db: Db }, quoteId: string, now: number) =>
  quoteStore(stores.quotes, stores.db).get(quoteId, now);

/** Upkeep: deletes quote rows past their expiry (KV expires its copies by itself). */
export const expiredQuotes = {
  name: "expired-quotes",
  run: async (env: Env, now: Date): Promise<number> => {
    const result = await database(env.DB).delete(quotes).where(lte(quotes.expiresAt, now.getTime())).run();
    return result.meta.changes;
  },
};
