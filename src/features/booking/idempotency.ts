import { sha256Hex } from "../../platform/crypto/digest";
import { ApiError } from "../../platform/http/api-error";

export type StoredResponse = { status: number; body: unknown };

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on book and cancel: a successful response is stored per partner, operation
 * and key, and replayed for the same key and request; the same key with another request is 409.
 * Failures are not stored, so a retry after an error runs again.
 */
export const withIdempotency = async (
  d1: D1Database,
  scope: { partnerId: string; operation: "book" | "cancel"; key: string | undefined; request: unknown },
  run: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> => {
  if (scope.key === undefined) return { ...(await run()), replayed: false };
  if (!KEY_PATTERN.test(scope.key)) throw new ApiError(400, "Idempotency-Key must be 1 to 255 visible ASCII characters", "invalid_idempotency_key");
  const requestHash = await sha256Hex(JSON.stringify(scope.request));
  const found = await d1
    .prepare("SELECT request_hash, status, body FROM idempotency_records WHERE partner_id = ? AND operation = ? AND key = ?")
    .bind(scope.partnerId, scope.operation, scope.key)
    .first<{ request_hash: string; status: number; body: string }>();
  if (found) {
    if (found.request_hash !== requestHash) throw new ApiError(409, "Idempotency-Key was already used with a different request", "idempotency_key_reused");
    return { status: found.status, body: JSON.parse(found.body), replayed: true };
  }
  const response = await run();
  await d1
    .prepare("INSERT INTO idempotency_records (partner_id, operation, key, request_hash, status, body) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
    .bind(scope.partnerId, scope.operation, scope.key, requestHash, response.status, JSON.stringify(response.body))
    .run();
  return { ...response, replayed: false };
};
