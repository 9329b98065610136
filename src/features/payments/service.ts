import { randomToken, sha256Hex } from "../../platform/crypto/digest";
import type { Keyring } from "../../platform/crypto/keyring";
import { openToken, signToken } from "../../platform/crypto/signed-token";
import { ApiError } from "../../platform/http/api-error";

/** A setup URL works once and for this long. */
export const SETUP_TOKEN_TTL_MS = 30 * 60 * 1000;

export type SavedCard = { paymentMethodId: string; brand: string; last4: string; expMonth: number; expYear: number };

type CardRow = { payment_method_id: string; brand: string; last4: string; exp_month: number; exp_year: number };
const toCard = (r: CardRow): SavedCard => ({
  paymentMethodId: r.payment_method_id,
  brand: r.brand,
  last4: r.last4,
  expMonth: r.exp_month,
  expYear: r.exp_year,
});

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
  d1: D1Database,
  keys: Keyring,
  owner: { partnerId: string; actorId: string; sessionId: string },
  now = Date.now(),
) => {
  const token = `${SETUP_TOKEN_PREFIX}${await signToken(keys, "card-setup", randomToken(32), now + SETUP_TOKEN_TTL_MS)}`;
  await d1.batch([
    // Only the newest link of an actor works; older unused ones say they were replaced.
    d1
      .prepare(
        "UPDATE payment_setup_tokens SET replaced_at = ? WHERE partner_id = ? AND actor_id = ? AND used_at IS NULL AND replaced_at IS NULL",
      )
      .bind(now, owner.partnerId, owner.actorId),
    d1
      .prepare(
        "INSERT INTO payment_setup_tokens (token_hash, partner_id, actor_id, session_id, expires_at) VALUES (?, ?, ?, ?, ?)",
      )
      .bind(await sha256Hex(token), owner.partnerId, owner.actorId, owner.sessionId, now + SETUP_TOKEN_TTL_MS),
  ]);
  // Expired tokens are of no use to anyone: drop them as new ones are made.
  await d1
    .prepare("DELETE FROM payment_setup_tokens WHERE expires_at < ?")
    .bind(now - SETUP_TOKEN_TTL_MS)
    .run();
  return { token, expiresAt: now + SETUP_TOKEN_TTL_MS };
};

/** The actor's default card (else the newest) that has not expired, or null. */
export const usableCard = async (
  d1: D1Database,
  partnerId: string,
  actorId: string,
  now = Date.now(),
): Promise<SavedCard | null> => {
  const { results } = await d1
    .prepare(
      "SELECT payment_method_id, brand, last4, exp_month, exp_year FROM payment_methods WHERE partner_id = ? AND actor_id = ? ORDER BY is_default DESC, created_at DESC",
    )
    .bind(partnerId, actorId)
    .all<CardRow>();
  return results.map(toCard).find((c) => cardUsableAt(c, now)) ?? null;
};

export const cardById = async (
  d1: D1Database,
  partnerId: string,
  actorId: string,
  paymentMethodId: string,
): Promise<SavedCard | null> => {
  const row = await d1
    .prepare(
      "SELECT payment_method_id, brand, last4, exp_month, exp_year FROM payment_methods WHERE partner_id = ? AND actor_id = ? AND payment_method_id = ?",
    )
    .bind(partnerId, actorId, paymentMethodId)
    .first<CardRow>();
  return row ? toCard(row) : null;
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
export const attachPaymentMethod = async (d1: D1Database, keys: Keyring, input: AttachInput, now = Date.now()) => {
  if (!cardUsableAt(input, now)) throw new ApiError("card_expired", "The card has expired");
  if (!(await signedByUs(keys, input.portalToken, now))) throw INVALID_TOKEN();
  const spent = await d1
    .prepare(
      "UPDATE payment_setup_tokens SET used_at = ?1 WHERE token_hash = ?2 AND used_at IS NULL AND replaced_at IS NULL AND expires_at > ?1 RETURNING partner_id, actor_id",
    )
    .bind(now, await sha256Hex(input.portalToken))
    .first<{ partner_id: string; actor_id: string }>();
  if (!spent) throw INVALID_TOKEN();
  const { count } = (await d1
    .prepare("SELECT count(*) AS count FROM payment_methods WHERE partner_id = ? AND actor_id = ?")
    .bind(spent.partner_id, spent.actor_id)
    .first<{ count: number }>())!;
  // The first card is the default whatever the flag says; later ones only when asked.
  const makeDefault = count === 0 || input.setAsDefault === true;
  const statements = [];
  if (makeDefault)
    statements.push(
      d1
        .prepare("UPDATE payment_methods SET is_default = 0 WHERE partner_id = ? AND actor_id = ?")
        .bind(spent.partner_id, spent.actor_id),
    );
  statements.push(
    d1
      .prepare(
        `INSERT INTO payment_methods (partner_id, actor_id, payment_method_id, brand, last4, exp_month, exp_year, is_default, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
         ON CONFLICT (partner_id, actor_id, payment_method_id) DO UPDATE SET brand = ?4, last4 = ?5, exp_month = ?6, exp_year = ?7, is_default = max(is_default, ?8)`,
      )
      .bind(
        spent.partner_id,
        spent.actor_id,
        input.paymentMethodId,
        input.cardBrand,
        input.cardLast4,
        input.expMonth,
        input.expYear,
        makeDefault ? 1 : 0,
        new Date(now).toISOString(),
      ),
  );
  await d1.batch(statements);
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
  d1: D1Database,
  keys: Keyring,
  token: string,
  now = Date.now(),
): Promise<SetupLinkState> => {
  if (!(await signedByUs(keys, token, now))) return "unknown";
  const row = await d1
    .prepare("SELECT used_at, replaced_at, expires_at FROM payment_setup_tokens WHERE token_hash = ?")
    .bind(await sha256Hex(token))
    .first<{ used_at: number | null; replaced_at: number | null; expires_at: number }>();
  if (!row) return "unknown";
  if (row.used_at !== null) return "used";
  if (row.replaced_at !== null) return "replaced";
  return row.expires_at > now ? "ready" : "expired";
};
