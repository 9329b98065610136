import { randomToken, sha256Hex } from "../crypto/digest";
import { ApiError } from "../http/api-error";
import { retryAfterHeader } from "../ratelimit/rate-headers";
import { canonicalJson } from "./canonical-json";

/** An answer as the route sends it: status and JSON body. */
export type IdempotentAnswer = { status: number; body: unknown };

export type IdempotencyScope = {
  /** The operation, e.g. "book"; chat adds the session ("chat_event:<sessionId>"). */
  scope: string;
  partnerId: string;
  /** The caller's key; without one the work simply runs. */
  key: string | undefined | null;
  /** What must be the same for a replay: hashed as canonical JSON. */
  request: unknown;
  /** How the caller spells the key in messages ("Idempotency-Key", "idempotencyKey"). */
  keyName?: string;
  now?: number;
};

/** Records (and their answers) are kept this long, then a key may be used afresh. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/** A reservation older than this whose owner never answered is presumed dead: the same request may take it over. */
export const IDEMPOTENCY_LEASE_MS = 60_000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

type StoredError = { message: string; code: string; details?: Record<string, unknown> };
type Row = { request_hash: string; state: "running" | "done"; status: number | null; answer: string | null };

const REPLAYED = { "Idempotent-Replayed": "true" };
/** Answers kept for replay: everything below 500 except 429, which says "not now" rather than "no". */
const isFinal = (status: number) => status < 500 && status !== 429;

// One statement reserves: a fresh key inserts; an expired record, or a dead reservation of the same
// request, is taken over; anything else leaves the row alone and returns nothing.
const RESERVE = `INSERT INTO idempotency_keys (scope, partner_id, key, request_hash, state, token, locked_until_ms, status, answer, expires_at_ms)
  VALUES (?1, ?2, ?3, ?4, 'running', ?5, ?6, NULL, NULL, ?7)
  ON CONFLICT (scope, partner_id, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'running', token = excluded.token,
    locked_until_ms = excluded.locked_until_ms, status = NULL, answer = NULL, expires_at_ms = excluded.expires_at_ms
  WHERE idempotency_keys.expires_at_ms <= ?8
    OR (idempotency_keys.state = 'running' AND idempotency_keys.locked_until_ms <= ?8 AND idempotency_keys.request_hash = excluded.request_hash)
  RETURNING token`;

const replayOf = (row: Row): IdempotentAnswer & { replayed: true } => {
  const stored = JSON.parse(row.answer!) as { body?: unknown; error?: StoredError };
  if (stored.error) {
    const { message, code, details } = stored.error;
    throw ApiError.revived({ status: row.status!, code, message, details, headers: REPLAYED });
  }
  return { status: row.status!, body: stored.body, replayed: true };
};

/**
 * Runs `work` once per (scope, partner, key). The key is reserved in D1 before the work starts, so of
 * many parallel requests with one key one does the work; the others replay its stored answer when it
 * is ready, or get 409 `idempotency_key_in_use` (Retry-After: 1) while it runs. The same key with a
 * different request is 409 `idempotency_key_reused`. Answers below 500, errors included, are stored
 * and replayed (a 4xx is the answer to that request); a 429, a 5xx or a throw releases the key for a retry.
 */
export const withIdempotency = async (
  d1: D1Database,
  scope: IdempotencyScope,
  work: () => Promise<IdempotentAnswer>,
): Promise<IdempotentAnswer & { replayed: boolean }> => {
  const { key } = scope;
  if (key === undefined || key === null) return { ...(await work()), replayed: false };
  const keyName = scope.keyName ?? "Idempotency-Key";
  if (!IDEMPOTENCY_KEY_PATTERN.test(key))
    throw new ApiError("invalid_idempotency_key", `${keyName} must be 1 to 255 visible ASCII characters`);
  const requestHash = await sha256Hex(canonicalJson(scope.request));
  const now = scope.now ?? Date.now();
  const token = randomToken(16);
  const where = [scope.scope, scope.partnerId, key] as const;

  let reserved = false;
  // A record released between our insert and our read is gone: try again, a few times at most.
  for (let attempt = 0; attempt < 3 && !reserved; attempt++) {
    const won = await d1
      .prepare(RESERVE)
      .bind(...where, requestHash, token, now + IDEMPOTENCY_LEASE_MS, now + IDEMPOTENCY_TTL_MS, now)
      .first<{ token: string }>();
    if (won?.token === token) {
      reserved = true;
      continue;
    }
    const row = await d1
      .prepare(
        "SELECT request_hash, state, status, answer FROM idempotency_keys WHERE scope = ?1 AND partner_id = ?2 AND key = ?3",
      )
      .bind(...where)
      .first<Row>();
    if (!row) continue;
    if (row.request_hash !== requestHash)
      throw new ApiError("idempotency_key_reused", `${keyName} was already used with a different request`);
    if (row.state === "done") return replayOf(row);
    throw new ApiError(
      "idempotency_key_in_use",
      `A request with this ${keyName} is still being processed; retry shortly`,
      undefined,
      retryAfterHeader(1),
    );
  }
  if (!reserved)
    throw new ApiError(
      "idempotency_key_in_use",
      `A request with this ${keyName} is still being processed; retry shortly`,
      undefined,
      retryAfterHeader(1),
    );

  const finish = (status: number, answer: { body: unknown } | { error: StoredError }) =>
    d1
      .prepare(
        "UPDATE idempotency_keys SET state = 'done', status = ?4, answer = ?5 WHERE scope = ?1 AND partner_id = ?2 AND key = ?3 AND token = ?6",
      )
      .bind(...where, status, JSON.stringify(answer), token)
      .run();
  const release = () =>
    d1
      .prepare("DELETE FROM idempotency_keys WHERE scope = ?1 AND partner_id = ?2 AND key = ?3 AND token = ?4")
      .bind(...where, token)
      .run();
  // Storing or releasing must not hide the work's own outcome; an unstored record runs out its lease.
  const quietly = async (write: () => Promise<unknown>) => {
    try {
      await write();
    } catch (error) {
      console.error(
        JSON.stringify({
          level: "error",
          event: "idempotency_write_failed",
          scope: scope.scope,
          error: error instanceof Error ? error.message : String(error),
        }),
      );
    }
  };

  let answer: IdempotentAnswer;
  try {
    answer = await work();
  } catch (error) {
    if (error instanceof ApiError && isFinal(error.status)) {
      await quietly(() =>
        finish(error.status, {
          error: { message: error.message, code: error.code, ...(error.details ? { details: error.details } : {}) },
        }),
      );
    } else {
      await quietly(release);
    }
    throw error;
  }
  await quietly(() => (isFinal(answer.status) ? finish(answer.status, { body: answer.body }) : release()));
  return { ...answer, replayed: false };
};

/** Upkeep: deletes records past their 24 hours (a running one only once its lease has also run out). */
export const expiredIdempotency = {
  name: "expired-idempotency",
  run: async (env: Env, now: Date): Promise<number> => {
    const at = now.getTime();
    const result = await env.DB.prepare(
      "DELETE FROM idempotency_keys WHERE expires_at_ms <= ?1 AND (state = 'done' OR locked_until_ms <= ?1)",
    )
      .bind(at)
      .run();
    return result.meta.changes;
  },
};
