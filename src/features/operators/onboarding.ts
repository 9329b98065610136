import { asc, count } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { isUniqueViolation } from "../../platform/db/constraint";
import { apiKeys, partners, users, type Partner } from "../../platform/db/schema";
import { randomToken, sha256Hex } from "../../platform/crypto/digest";
import { ApiError } from "../../platform/http/api-error";
import {
  maskedApiKey,
  newApiKey,
  type ApiKeyRecord,
  emailConflict,
  newUserRow,
  userProfile,
  type NewUser,
  type UserProfile,
} from "../partners";
import type { Page } from "../connections";

export type PartnerView = { id: string; name: string; isActive: boolean; createdAt: string; updatedAt: string };
export type NewPartner = { id?: string; name: string; admin: Omit<NewUser, "role">; apiKeyName?: string };
export type OnboardedPartner = { partner: PartnerView; admin: UserProfile; apiKey: ApiKeyRecord; collectorKey: string };

/** Radar collector keys: `esc_` + 32 URL-safe characters; only the SHA-256 is stored. */
export const COLLECTOR_KEY_PREFIX = "esc_";

const partnerView = (row: Partner): PartnerView => ({
  id: row.id,
  name: row.name,
  isActive: row.isActive,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/**
 * A partner with its first admin, first API key and radar collector key, written in one D1 batch
 * (all or nothing). The keys are returned here once and never again.
 */
export const onboardPartner = async (db: Db, input: NewPartner): Promise<OnboardedPartner> => {
  const partnerId = input.id ?? `ptn_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const collectorKey = `${COLLECTOR_KEY_PREFIX}${randomToken(24)}`;
  const adminRow = await newUserRow(partnerId, { ...input.admin, role: "admin" });
  const { key, row: keyRow } = await newApiKey(partnerId, input.apiKeyName ?? "Initial key");
  try {
    const [[partner], [admin], [apiKey]] = await db.batch([
      db
        .insert(partners)
        .values({ id: partnerId, name: input.name, collectorKeyHash: await sha256Hex(collectorKey) })
        .returning(),
      db.insert(users).values(adminRow).returning(),
      db.insert(apiKeys).values(keyRow).returning(),
    ]);
    return {
      partner: partnerView(partner!),
      admin: userProfile(admin!),
      apiKey: { ...maskedApiKey(apiKey!), apiKey: key },
      collectorKey,
    };
  } catch (err) {
    if (isUniqueViolation(err, "partners.id"))
      throw new ApiError("partner_exists", "Partner already exists", { field: "id" });
    throw emailConflict(err);
  }
};

export const listPartners = async (db: Db, query: { page: number; size: number }): Promise<Page<PartnerView>> => {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(partners)
      .orderBy(asc(partners.createdAt), asc(partners.id))
      .limit(query.size)
      .offset((query.page - 1) * query.size),
    db.select({ n: count() }).from(partners),
  ]);
  const n = total?.n ?? 0;
  return {
    items: rows.map(partnerView),
    pagination: { page: query.page, size: query.size, total: n, totalPages: Math.ceil(n / query.size) },
  };
};
