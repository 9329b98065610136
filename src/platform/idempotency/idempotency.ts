import { and, eq, lte, or } from "drizzle-orm";
import { randomToken, sha256Hex } from "../crypto/digest";
import { database, type Db } from "../db/client";
import { idempotencyKeys } from "../db/schema";
import { ApiError } from "../http/api-error";
import type { ErrorCode } from "../http/errors";
import { retryAfterHeader } from "../ratelimit/rate-headers";
import { canonicalJson } from "./canonical-json";
import { loggableError } from "../observability/loggable-error";

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

const REPLAYED = { "Idempotent-Replayed": "true" };
/** The headers a handler answers with: `Idempotent-Replayed: true` when the answer is a stored one. */
export const replayHeaders = (answer: { replayed: boolean }): Record<string, string> =>
  answer.replayed ? REPLAYED : {};
/** A stored error answer replayed (not one made now): a caller that can tell more today may answer instead. */
export const isReplayedError = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.headers?.["Idempotent-Replayed"] === REPLAYED["Idempotent-Replayed"];
/** Answers kept for replay: everything below 500 except 429, which says "not now" rather than "no". */
const isFinal = (status: number) => status < 500 && status !== 429;

const replayOf = (
  row: Pick<typeof idempotencyKeys.$inferSelect, "status" | "answer">,
): IdempotentAnswer & { replayed: true } => {
  const stored = JSON.parse(row.answer!) as { body?: unknown; error?: StoredError };
  if (stored.error) {
    const { message, code, details } = stored.error;
    throw ApiError.revived({ status: row.status!, code, message, details, headers: REPLAYED });
  }
  return { status: row.status!, body: stored.body, replayed: true };
};

/** The codes `withIdempotency` answers: a route that takes it lists them in its `errors`. */
export const idempotencyErrors = [
  "idempotency_key_reused",
  "idempotency_key_in_use",
  "invalid_idempotency_key",
] as const satisfies readonly ErrorCode[];

/**
 * Runs `work` once per (scope, partner, key). The key is reserved in D1 before the work starts, so of
 * many parallel requests with one key one does the work; the others replay its stored answer when it
 * is ready, or get 409 `idempotency_key_in_use` (Retry-After: 1) while it runs. The same key with a
 * different request is 409 `idempotency_key_reused`. Answers below 500, errors included, are stored
 * and replayed (a 4xx is the answer to that request); a 429, a 5xx or a throw releases the key for a retry.
 */
export const withIdempotency = async (
  db: Db,
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
  const k = idempotencyKeys;
  const record = and(eq(k.scope, scope.scope), eq(k.partnerId, scope.partnerId), eq(k.key, key));
  const reservation = {
    requestHash,
    state: "running" as const,
    token,
    lockedUntilMs: now + IDEMPOTENCY_LEASE_MS,
    status: null,
    answer: null,
    expiresAtMs: now + IDEMPOTENCY_TTL_MS,
  };

  let reserved = false;
  // A record released between our insert and our read is gone: try again, a few times at most.
  for (let attempt = 0; attempt < 3 && !reserved; attempt++) {
    // One statement reserves: a fresh key inserts; an expired record, or a dead reservation of the same
    // request, is taken over; anything else leaves the row alone and returns nothing.
    const [won] = await db
      .insert(k)
      .values({ scope: scope.scope, partnerId: scope.partnerId, key, ...reservation })
      .onConflictDoUpdate({
        target: [k.scope, k.partnerId, k.key],
        set: reservation,
        setWhere: or(
          lte(k.expiresAtMs, now),
          and(eq(k.state, "running"), lte(k.lockedUntilMs, now), eq(k.requestHash, requestHash)),
        ),
      })
      .returning({ token: k.token });
    if (won?.token === token) {
      reserved = true;
      continue;
    }
    const [row] = await db
      .select({ requestHash: k.requestHash, state: k.state, status: k.status, answer: k.answer })
      .from(k)
      .where(record);
    if (!row) continue;
    if (row.requestHash !== requestHash)
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
    db
      .update(k)
      .set({ state: "done", status, answer: JSON.stringify(answer) })
      .where(and(record, eq(k.token, token)));
  const release = () => db.delete(k).where(and(record, eq(k.token, token)));
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
          error: loggableError(error, { stack: false }),
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
    const k = idempotencyKeys;
    const result = await database(env.DB)
      .delete(k)
      .where(and(lte(k.expiresAtMs, at), or(eq(k.state, "done"), lte(k.lockedUntilMs, at))));
    return result.meta.changes;
  },
};
