import { asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { isForeignKeyViolation, isUniqueViolation } from "../../platform/db/constraint";
import { partners } from "../../platform/db/schema";
import { connections } from "./tables";
import { ApiError } from "../../platform/http/api-error";
import { connectionNotFound, connectionView, type ConnectionView } from "./partner-connections";

export type ConnectionFields = {
  partnerId: string;
  apiType: "public" | "b2b" | "cug" | "mobile";
  connectionType: "direct" | "tgx" | "metasearch";
  rateLimit: number;
  rateLimitWindowMs: number;
  netMarkups: number;
  rateName?: string | null;
  notificationEmail?: string | null;
  currentInUse?: boolean;
  /** The selling currency (ISO 4217): every answer is in it unless the request names another. */
  currency?: string;
};

export type Page<T> = { items: T[]; pagination: { page: number; size: number; total: number; totalPages: number } };

/** What a connection sells in when the operator names no currency. */
export const DEFAULT_SELLING_CURRENCY = "USD";

/** Codes start above the demo range's first block and grow by one. */
const FIRST_CODE = 1001;
const CODE_ATTEMPTS = 5;

const inUseConflict = () =>
  new ApiError(
    "connection_in_use_conflict",
    "Another connection is already currentInUse for this partner/apiType/connectionType",
  );

/** The partial unique index connections_one_in_use is the judge; its failure becomes the spec's 409. */
const mapWriteError = (err: unknown) => (isUniqueViolation(err, "connections.partner_id") ? inUseConflict() : err);

const requirePartner = async (db: Db, partnerId: string) => {
  const [row] = await db.select({ id: partners.id }).from(partners).where(eq(partners.id, partnerId)).limit(1);
  if (!row) throw new ApiError("partner_not_found", "Partner not found");
};

/**
 * The code is max(code)+1 computed inside the INSERT itself (one statement, so D1's single writer
 * serialises it); a unique clash on code from any other writer is retried with the next value.
 */
export const createConnection = async (db: Db, fields: ConnectionFields): Promise<ConnectionView> => {
  await requirePartner(db, fields.partnerId);
  for (let attempt = 1; ; attempt++) {
    try {
      const [row] = await db
        .insert(connections)
        .values({
          id: `con_${crypto.randomUUID().replaceAll("-", "")}`,
          code: sql`(select coalesce(max(${connections.code}) + 1, ${FIRST_CODE}) from ${connections})`,
          partnerId: fields.partnerId,
          apiType: fields.apiType,
          connectionType: fields.connectionType,
          rateLimit: fields.rateLimit,
          rateLimitWindowMs: fields.rateLimitWindowMs,
          netMarkups: fields.netMarkups,
          rateName: fields.rateName ?? null,
          notificationEmail: fields.notificationEmail ?? null,
          currentInUse: fields.currentInUse ?? false,
          currency: fields.currency ?? DEFAULT_SELLING_CURRENCY,
        })
        .returning();
      return connectionView(row!);
    } catch (err) {
      if (isUniqueViolation(err, "connections.code") && attempt < CODE_ATTEMPTS) continue;
      throw mapWriteError(err);
    }
  }
};

export const listConnections = async (
  db: Db,
  query: { page: number; size: number; partnerId?: string },
): Promise<Page<ConnectionView>> => {
  const where = query.partnerId ? eq(connections.partnerId, query.partnerId) : undefined;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(connections)
      .where(where)
      .orderBy(asc(connections.code))
      .limit(query.size)
      .offset((query.page - 1) * query.size),
    db.select({ n: count() }).from(connections).where(where),
  ]);
  const n = total?.n ?? 0;
  return {
    items: rows.map(connectionView),
    pagination: { page: query.page, size: query.size, total: n, totalPages: Math.ceil(n / query.size) },
  };
};

export const getConnection = async (db: Db, id: string): Promise<ConnectionView> => {
  const [row] = await db.select().from(connections).where(eq(connections.id, id)).limit(1);
  if (!row) throw connectionNotFound();
  return connectionView(row);
};

export const updateConnection = async (
  db: Db,
  id: string,
  patch: Partial<ConnectionFields>,
): Promise<ConnectionView> => {
  if (patch.partnerId !== undefined) await requirePartner(db, patch.partnerId);
  const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  try {
    const [row] = await db
      .update(connections)
      .set({ ...changes, updatedAt: new Date().toISOString() })
      .where(eq(connections.id, id))
      .returning();
    if (!row) throw connectionNotFound();
    return connectionView(row);
  } catch (err) {
    throw mapWriteError(err);
  }
};

export const setConnectionInUse = (db: Db, id: string, currentInUse: boolean) =>
  updateConnection(db, id, { currentInUse });

export const deleteConnection = async (db: Db, id: string): Promise<ConnectionView> => {
  try {
    const [row] = await db.delete(connections).where(eq(connections.id, id)).returning();
    if (!row) throw connectionNotFound();
    return connectionView(row);
  } catch (err) {
    // Bookings keep their connection for audit and cancellation; such a connection is disabled, not deleted.
    if (isForeignKeyViolation(err)) {
      throw new ApiError(
        "connection_has_bookings",
        "Connection has bookings and cannot be deleted; disable it instead",
      );
    }
    throw err;
  }
};
