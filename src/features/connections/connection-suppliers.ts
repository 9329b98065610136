import { asc, eq } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { connectionSuppliers, connections } from "./tables";
import { connectionNotFound } from "./partner-connections";

/** The built-in supplier: what a connection sells when the operator chose none (no connection_suppliers row). */
export const EMBEDDED_SUPPLIER = "embedded";

/** The codes a JSON array of codes names, in order; none is the default, the embedded inventory alone. */
export const suppliersOf = (value: unknown): string[] => {
  const codes = typeof value === "string" ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(codes) && codes.length > 0 ? codes.map(String) : [EMBEDDED_SUPPLIER];
};

const requireConnection = async (db: Db, connectionId: string) => {
  const [row] = await db
    .select({ id: connections.id, code: connections.code, currency: connections.currency })
    .from(connections)
    .where(eq(connections.id, connectionId))
    .limit(1);
  if (!row) throw connectionNotFound();
  return row;
};

/** The supplier codes a connection sells, in order of preference (404 for an unknown connection). */
export const connectionSupplierCodes = async (db: Db, connectionId: string): Promise<string[]> => {
  await requireConnection(db, connectionId);
  const rows = await db
    .select({ code: connectionSuppliers.supplierCode })
    .from(connectionSuppliers)
    .where(eq(connectionSuppliers.connectionId, connectionId))
    .orderBy(asc(connectionSuppliers.position));
  return suppliersOf(rows.map((r) => r.code));
};

/**
 * Replaces the suppliers a connection sells (codes already checked by supply, in order of
 * preference; `[embedded]` is stored as no row, the default), and its selling currency when given,
 * in one batch.
 */
export const replaceConnectionSuppliers = async (
  db: Db,
  connectionId: string,
  codes: string[],
  currency?: string,
): Promise<{ code: number; suppliers: string[]; currency: string }> => {
  const connection = await requireConnection(db, connectionId);
  const rows =
    codes.length === 1 && codes[0] === EMBEDDED_SUPPLIER
      ? []
      : codes.map((supplierCode, position) => ({ connectionId, supplierCode, position }));
  await db.batch([
    db.delete(connectionSuppliers).where(eq(connectionSuppliers.connectionId, connectionId)),
    ...(rows.length ? [db.insert(connectionSuppliers).values(rows)] : []),
    ...(currency ? [db.update(connections).set({ currency }).where(eq(connections.id, connectionId))] : []),
  ]);
  return { code: connection.code, suppliers: suppliersOf(codes), currency: currency ?? connection.currency };
};

/** The ids of the connections that sell a supplier (a supplier sold cannot be deleted). */
export const connectionsSelling = async (db: Db, supplierCode: string): Promise<string[]> => {
  const rows = await db
    .select({ id: connectionSuppliers.connectionId })
    .from(connectionSuppliers)
    .where(eq(connectionSuppliers.supplierCode, supplierCode));
  return rows.map((r) => r.id);
};

/** A connection's code and selling currency (404 for an unknown one). */
export const connectionBasics = (db: Db, connectionId: string) => requireConnection(db, connectionId);
