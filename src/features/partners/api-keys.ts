import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { apiKeys, type ApiKey } from "../../platform/db/schema";
import { randomToken, sha256Hex } from "../../platform/crypto/digest";
import { ApiError } from "../../platform/http/api-error";

/** `esk_` + 32 URL-safe characters (24 random bytes). The first 12 characters are kept for masking. */
export const API_KEY_PREFIX = "esk_";
const SHOWN_CHARACTERS = 12;

export type ApiKeyRecord = {
  id: string;
  name: string | null;
  apiKey: string;
  createdAt: string;
  revokedAt: string | null;
};

export const maskedApiKey = (row: ApiKey): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  apiKey: `${row.keyPrefix}…`,
  createdAt: row.createdAt,
  revokedAt: row.revokedAt,
});

/** A fresh key and the row that stores only its SHA-256. */
export const newApiKey = async (partnerId: string, name: string | null) => {
  const key = `${API_KEY_PREFIX}${randomToken(24)}`;
  const row = {
    id: `key_${crypto.randomUUID().replaceAll("-", "")}`,
    partnerId,
    keyHash: await sha256Hex(key),
    keyPrefix: key.slice(0, SHOWN_CHARACTERS),
    name,
  };
  return { key, row };
};

export const listApiKeys = async (db: Db, partnerId: string): Promise<ApiKeyRecord[]> =>
  (
    await db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.partnerId, partnerId))
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id))
  ).map(maskedApiKey);

/** The full key is in this one response only. */
export const createApiKey = async (db: Db, partnerId: string, name: string | null): Promise<ApiKeyRecord> => {
  const { key, row } = await newApiKey(partnerId, name);
  const [stored] = await db.insert(apiKeys).values(row).returning();
  return { ...maskedApiKey(stored!), apiKey: key };
};

/** Revoking twice keeps the first revocation time. Another partner's key is "not found". */
export const revokeApiKey = async (db: Db, partnerId: string, id: string): Promise<ApiKeyRecord> => {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, strftime('%Y-%m-%dT%H:%M:%fZ','now'))` })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.partnerId, partnerId)))
    .returning();
  if (!row) throw new ApiError("api_key_not_found", "API key not found");
  return maskedApiKey(row);
};
