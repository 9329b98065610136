// Raw SQL: the key lookup runs on every request, in one D1 batch with a route's raw companion reads.

// Read on every call, so a revoked key or a deactivated partner fails on its next call.
const CALLER_SQL =
  "SELECT k.partner_id AS partnerId, k.id AS apiKeyId FROM api_keys k JOIN partners p ON p.id = k.partner_id WHERE k.key_hash = ?1 AND k.revoked_at IS NULL AND p.is_active = 1 LIMIT 1";

/** The caller (`{ partnerId, apiKeyId }`) of an active key, by the SHA-256 hex of the key. */
export const callerStatement = (d1: D1Database, keyHash: string) => d1.prepare(CALLER_SQL).bind(keyHash);
