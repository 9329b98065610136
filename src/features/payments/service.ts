import { and, count, desc, eq, gt, isNull, lt } from "drizzle-orm";
import { randomToken, sha256Hex } from "../../platform/crypto/digest";
import type { Keyring } from "../../platform/crypto/keyring";
import { openToken, signToken } from "../../platform/crypto/signed-token";
import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { paymentMethods, paymentSetupTokens } from "./tables";

/** A setup URL works once and for this long. */
export const SETUP_TOKEN_TTL_MS = 30 * 60 * 1000;

export type SavedCard = Pick<
  typeof paymentMethods.$inferSelect,
  "paymentMethodId" | "brand" | "last4" | "expMonth" | "expYear"
>;

const savedCard = {
  paymentMethodId: paymentMethods.paymentMethodId,
  brand: paymentMethods.brand,
  last4: paymentMethods.last4,
  expMonth: paymentMethods.expMonth,
  expYear: paymentMethods.expYear,
};

/** Whether a card's expiry month has not yet ended at `now` (UTC). */
export const cardUsableAt = (card: Pick<SavedCard, "expMonth" | "expYear">, now: number): boolean => {
  const d = new Date(now);
  const current = d.getUTCFullYear() * 12 + d.getUTCMonth() + 1;
  return card.expYear * 12 + card.expMonth >= current;
};

const SETUP_TOKEN_PREFIX = "pst_";

/**
 * Issues a one-time setup token bound to the partner, the actor and the chat session. It is signed
 * (the one signed-token helper, purpose `card-setup`) so a forged or altered link is refused before
 * any D1 read; the D1 row, keyed by its SHA-256, is what makes it one-time.
 */
export const issueSetupToken = async (
  db: Db,
  keys: Keyring,
  owner: { partnerId: string; actorId: string; sessionId: string },
  now = Date.now(),
) => {
  const token = `${SETUP_TOKEN_PREFIX}${await signToken(keys, "card-setup", randomToken(32), now + SETUP_TOKEN_TTL_MS)}`;
  const t = paymentSetupTokens;
  await db.batch([
    // Only the newest link of an actor works; older unused ones say they were replaced.
    db
      .update(t)
      .set({ replacedAt: now })
      .where(
        and(eq(t.partnerId, owner.partnerId), eq(t.actorId, owner.actorId), isNull(t.usedAt), isNull(t.replacedAt)),
      ),
    db.insert(t).values({
      tokenHash: await sha256Hex(token),
      partnerId: owner.partnerId,
      actorId: owner.actorId,
      sessionId: owner.sessionId,
      expiresAt: now + SETUP_TOKEN_TTL_MS,
    }),
  ]);
  // Expired tokens are of no use to anyone: drop them as new ones are made.
  await db.delete(t).where(lt(t.expiresAt, now - SETUP_TOKEN_TTL_MS));
  return { token, expiresAt: now + SETUP_TOKEN_TTL_MS };
};

/** The actor's default card (else the newest) that has not expired, or null. */
export const usableCard = async (
  db: Db,
  partnerId: string,
  actorId: string,
  now = Date.now(),
): Promise<SavedCard | null> => {
  const cards = await db
    .select(savedCard)
    .from(paymentMethods)
    .where(and(eq(paymentMethods.partnerId, partnerId), eq(paymentMethods.actorId, actorId)))
    .orderBy(desc(paymentMethods.isDefault), desc(paymentMethods.createdAt));
  return cards.find((c) => cardUsableAt(c, now)) ?? null;
};

export const cardById = async (
  db: Db,
  partnerId: string,
  actorId: string,
  paymentMethodId: string,
): Promise<SavedCard | null> => {
  const [card] = await db
    .select(savedCard)
    .from(paymentMethods)
    .where(
      and(
        eq(paymentMethods.partnerId, partnerId),
        eq(paymentMethods.actorId, actorId),
        eq(paymentMethods.paymentMethodId, paymentMethodId),
      ),
    );
  return card ?? null;
};

export type AttachInput = {
  portalToken: string;
  paymentMethodId: string;
  cardBrand: string;
  cardLast4: string;
  expMonth: number;
  expYear: number;
  setAsDefault?: boolean;
};

/** Whether we signed this token (expired or not: the D1 row says which state it is in). */
const signedByUs = async (keys: Keyring, token: string, now: number) => {
  if (!token.startsWith(SETUP_TOKEN_PREFIX)) return false;
  const opened = await openToken(keys, "card-setup", token.slice(SETUP_TOKEN_PREFIX.length), now);
  return opened.kind === "ok" || opened.kind === "expired";
};

const INVALID_TOKEN = () => new ApiError("invalid_portal_token", "portalToken is invalid, expired or already used");

/**
 * POST /v1/hotel-ea/payment-methods/attach. The token is spent in the same statement that checks
 * it, so two concurrent attaches with one token cannot both succeed.
 */
export const attachPaymentMethod = async (db: Db, keys: Keyring, input: AttachInput, now = Date.now()) => {
  if (!cardUsableAt(input, now)) throw new ApiError("card_expired", "The card has expired");
  if (!(await signedByUs(keys, input.portalToken, now))) throw INVALID_TOKEN();
  const t = paymentSetupTokens;
  const [spent] = await db
    .update(t)
    .set({ usedAt: now })
    .where(
      and(
        eq(t.tokenHash, await sha256Hex(input.portalToken)),
        isNull(t.usedAt),
        isNull(t.replacedAt),
        gt(t.expiresAt, now),
      ),
    )
    .returning({ partnerId: t.partnerId, actorId: t.actorId });
  if (!spent) throw INVALID_TOKEN();
  const actorCards = and(eq(paymentMethods.partnerId, spent.partnerId), eq(paymentMethods.actorId, spent.actorId));
  const [cards] = await db.select({ n: count() }).from(paymentMethods).where(actorCards);
  // The first card is the default whatever the flag says; later ones only when asked.
  const makeDefault = cards!.n === 0 || input.setAsDefault === true;
  const card = { brand: input.cardBrand, last4: input.cardLast4, expMonth: input.expMonth, expYear: input.expYear };
  const save = db
    .insert(paymentMethods)
    .values({
      partnerId: spent.partnerId,
      actorId: spent.actorId,
      paymentMethodId: input.paymentMethodId,
      ...card,
      isDefault: makeDefault,
      createdAt: new Date(now).toISOString(),
    })
    .onConflictDoUpdate({
      target: [paymentMethods.partnerId, paymentMethods.actorId, paymentMethods.paymentMethodId],
      // A card saved again stays the default it was; it becomes the default only when this attach makes it one.
      set: makeDefault ? { ...card, isDefault: true } : card,
    });
  if (makeDefault) await db.batch([db.update(paymentMethods).set({ isDefault: false }).where(actorCards), save]);
  else await save;
  return {
    status: "ATTACHED" as const,
    paymentMethod: {
      paymentMethodId: input.paymentMethodId,
      brand: input.cardBrand,
      last4: input.cardLast4,
      expMonth: input.expMonth,
      expYear: input.expYear,
    },
  };
};

export type SetupLinkState = "ready" | "used" | "replaced" | "expired" | "unknown";

/** What a card-setup link is worth right now, so the page can say so before showing the form. */
export const setupLinkState = async (
  db: Db,
  keys: Keyring,
  token: string,
  now = Date.now(),
): Promise<SetupLinkState> => {
  if (!(await signedByUs(keys, token, now))) return "unknown";
  const t = paymentSetupTokens;
  const [row] = await db
    .select({ usedAt: t.usedAt, replacedAt: t.replacedAt, expiresAt: t.expiresAt })
    .from(t)
    .where(eq(t.tokenHash, await sha256Hex(token)));
  if (!row) return "unknown";
  if (row.usedAt !== null) return "used";
  if (row.replacedAt !== null) return "replaced";
  return row.expiresAt > now ? "ready" : "expired";
};
