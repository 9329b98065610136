import { randomToken } from "../../platform/crypto/digest";
import type { OfferRef, Stay } from "../supply/supplier";

/** Quotes live 30 minutes (spec 3.2), kept in KV with expirationTtl. */
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
  quote: Record<string, unknown> & { rate?: { currency: string; chargeTotal: number; baseRate: number; taxesAndFees: number; exchange?: { currency: string; rate: number } } };
};

const key = (quoteId: string) => `quote:${quoteId}`;

/** An unguessable id: 24 random bytes. */
export const newQuoteId = () => `qt_${randomToken(24)}`;

export const quoteStore = (kv: KVNamespace) => ({
  put: (quoteId: string, quote: StoredQuote) => kv.put(key(quoteId), JSON.stringify(quote), { expirationTtl: QUOTE_TTL_SECONDS }),
  /** The stored quote, or null when absent, expired (also by its own clock) or unreadable. */
  async get(quoteId: string, now: number): Promise<StoredQuote | null> {
    if (!/^qt_[A-Za-z0-9_-]{32}$/.test(quoteId)) return null;
    const stored = await kv.get<StoredQuote>(key(quoteId), "json").catch(() => null);
    if (!stored || typeof stored !== "object" || stored.v !== 1 || typeof stored.expiresAt !== "number" || now >= stored.expiresAt) return null;
    return stored;
  },
});
