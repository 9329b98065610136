import { asc, eq } from "drizzle-orm";
import type { BearerUser } from "../../platform/app-env";
import type { Db } from "../../platform/db/client";
import { connections, type Connection } from "./tables";
import { ApiError } from "../../platform/http/api-error";
import { requireAdmin } from "../../platform/auth/bearer";

// Same fields as the row today; a separate name so the API shape is a decision, not an accident.
export type ConnectionView = Connection;

/** The connection record of spec 2.4, as both partners and operators read it. */
export const connectionView = (row: Connection): ConnectionView => ({
  id: row.id,
  code: row.code,
  apiType: row.apiType,
  connectionType: row.connectionType,
  rateName: row.rateName,
  rateLimit: row.rateLimit,
  rateLimitWindowMs: row.rateLimitWindowMs,
  netMarkups: row.netMarkups,
  currentInUse: row.currentInUse,
  notificationEmail: row.notificationEmail,
  currency: row.currency,
  partnerId: row.partnerId,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

export const connectionNotFound = () => new ApiError("connection_not_found", "Connection not found");

const ownPartnerOnly = (callerPartnerId: string, pathPartnerId: string) => {
  if (callerPartnerId !== pathPartnerId) {
    throw new ApiError("other_partner", "You can only access connections for your own partner");
  }
};

export const listPartnerConnections = async (
  db: Db,
  callerPartnerId: string,
  pathPartnerId: string,
): Promise<ConnectionView[]> => {
  ownPartnerOnly(callerPartnerId, pathPartnerId);
  const rows = await db
    .select()
    .from(connections)
    .where(eq(connections.partnerId, callerPartnerId))
    .orderBy(asc(connections.code));
  return rows.map(connectionView);
};

export const getPartnerConnection = async (db: Db, callerPartnerId: string, pathPartnerId: string, id: string) => {
  ownPartnerOnly(callerPartnerId, pathPartnerId);
  const [row] = await db.select().from(connections).where(eq(connections.id, id)).limit(1);
  if (!row) throw connectionNotFound();
  if (row.partnerId !== callerPartnerId) {
    throw new ApiError("connection_of_other_partner", "This connection does not belong to your partner");
  }
  return row;
};

/** Sets or (null/absent) clears where the partner wants connection notices sent. */
/** A partner write like any other: admins only (403 before any lookup). */
export const updateNotificationEmail = async (
  db: Db,
  caller: BearerUser,
  pathPartnerId: string,
  id: string,
  notificationEmail: string | null,
): Promise<ConnectionView> => {
  requireAdmin(caller);
  const row = await getPartnerConnection(db, caller.partnerId, pathPartnerId, id);
  const [updated] = await db
    .update(connections)
    .set({ notificationEmail, updatedAt: new Date().toISOString() })
    .where(eq(connections.id, row.id))
    .returning();
  if (!updated) throw connectionNotFound();
  return connectionView(updated);
};
