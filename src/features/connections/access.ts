import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { AppEnv } from "../../platform/app-env";
import { apiKeyAuth, type KeyHeaders } from "../../platform/auth/api-key";
import { apiKeyOrBearer } from "../../platform/auth/partner-credential";
import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { type Connection, connectionSuppliers, connections } from "./tables";
import { suppliersOf } from "./connection-suppliers";

/**
 * A connection as the booking services use it, whoever reads it. `suppliers` (the codes it sells,
 * in order of preference) is read in the same statement, so a connection served by the embedded
 * inventory alone costs no extra round trip.
 */
export type CoreConnection = Pick<
  Connection,
  | "id"
  | "code"
  | "partnerId"
  | "apiType"
  | "connectionType"
  | "rateLimit"
  | "rateLimitWindowMs"
  | "netMarkups"
  | "currency"
> & { suppliers: string[] };

type ConnectionRecord = CoreConnection & { currentInUse: boolean };

const recordColumns = {
  id: connections.id,
  code: connections.code,
  partnerId: connections.partnerId,
  apiType: connections.apiType,
  connectionType: connections.connectionType,
  rateLimit: connections.rateLimit,
  rateLimitWindowMs: connections.rateLimitWindowMs,
  netMarkups: connections.netMarkups,
  currentInUse: connections.currentInUse,
  currency: connections.currency,
  suppliers: sql<
    string[]
  >`(SELECT json_group_array(${connectionSuppliers.supplierCode}) FROM (SELECT ${connectionSuppliers.supplierCode} FROM ${connectionSuppliers} WHERE ${connectionSuppliers.connectionId} = ${connections.id} ORDER BY ${connectionSuppliers.position}))`.mapWith(
    suppliersOf,
  ),
};

const recordByCode = (db: Db, code: number) =>
  db.select(recordColumns).from(connections).where(eq(connections.code, code)).limit(1);

const coreOf = ({ currentInUse: _, ...connection }: ConnectionRecord): CoreConnection => connection;

/**
 * `settings.access.code` as sent, parsed once: the spec types it as a number, and a numeric string
 * is the same code. What is not a code is judged by the route (each has the contract's messages).
 */
export type ConnectionAccess = { code: "missing" | "malformed" } | { code: number; found: ConnectionRecord | null };

const accessCodeOf = (code: unknown): number | "missing" | "malformed" => {
  if (code === undefined || code === null) return "missing";
  const value = typeof code === "string" && /^\d{1,15}$/.test(code.trim()) ? Number(code) : code;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) return "malformed";
  return value;
};

export type AccessEnv = AppEnv & { Variables: { access: ConnectionAccess } };

/**
 * Core routes: the API key and the connection named by the body's `settings.access.code` are read
 * in one D1 round trip. The connection is judged later, after the body is validated, so the order
 * of errors stays key, body, connection.
 */
export const coreAccess = (accepted: KeyHeaders = "api-key") =>
  apiKeyAuth<AccessEnv>(
    {
      async queries(c) {
        const body: unknown = await c.req.json();
        const code = accessCodeOf(
          (body as { settings?: { access?: { code?: unknown } } } | null)?.settings?.access?.code,
        );
        if (typeof code !== "number") {
          c.set("access", { code });
          return [];
        }
        c.set("access", { code, found: null });
        return [recordByCode(c.get("db"), code)];
      },
      keep(c, results) {
        const access = c.var.access;
        if (typeof access.code === "number")
          c.set("access", { code: access.code, found: (results[0] as ConnectionRecord[])[0] ?? null });
      },
    },
    accepted,
  );

/**
 * A core route the console calls too: with the API key, `coreAccess` (the body's connection read in
 * the key's batch); with a partner user's login token, no connection is read here: the handler takes
 * the booking's own (`readAccessById`).
 */
export const coreAccessOrBearer = () => apiKeyOrBearer<AccessEnv>(coreAccess());

/** Reads a connection by id as a code would name it (a booking's own connection), judged like any other. */
export const readAccessById = async (db: Db, id: string): Promise<ConnectionAccess> => {
  const [found] = await db.select(recordColumns).from(connections).where(eq(connections.id, id)).limit(1);
  return found ? { code: found.code, found } : { code: "missing" };
};

/** Reads the connection a code names, outside a route's API-key batch (chat, tests). */
export const readAccess = async (db: Db, code: unknown): Promise<ConnectionAccess> => {
  const parsed = accessCodeOf(code);
  if (typeof parsed !== "number") return { code: parsed };
  return { code: parsed, found: (await recordByCode(db, parsed))[0] ?? null };
};

type Verdict = "missing" | "malformed" | "unknown" | "denied" | { connection: CoreConnection };

const verdictOf = (access: ConnectionAccess, partnerId: string): Verdict => {
  if (typeof access.code !== "number") return access.code;
  if (!("found" in access) || !access.found) return "unknown";
  if (access.found.partnerId !== partnerId || !access.found.currentInUse) return "denied";
  return { connection: coreOf(access.found) };
};

/** Search: the four connection messages of section 7 (see docs/api-decisions.md for which is which). */
export const searchConnection = (access: ConnectionAccess, partnerId: string): CoreConnection => {
  const verdict = verdictOf(access, partnerId);
  switch (verdict) {
    case "missing":
      throw new ApiError("no_connection", "No connection");
    case "malformed":
      throw new ApiError("malformed_connection_code", "Invalid connection code");
    case "unknown":
      throw new ApiError("unknown_connection", "Connection not found");
    case "denied":
      throw new ApiError("connection_access_denied", "Connection access denied");
    default:
      return verdict.connection;
  }
};

/** Quote, book and cancel: one 403 for every connection code that is not the caller's in-use connection. */
export const coreConnection = (access: ConnectionAccess, partnerId: string): CoreConnection => {
  const verdict = verdictOf(access, partnerId);
  if (typeof verdict === "string") throw new ApiError("invalid_connection_code", "Invalid connection code.");
  return verdict.connection;
};

/**
 * Every connection of the partner a Hotel-X search without an access runs on (issue 40): its in-use
 * `tgx` connections, lowest code first, as Hotel-X runs every access configured for the client.
 */
export const tgxConnections = async (db: Db, partnerId: string): Promise<CoreConnection[]> => {
  const found = await db
    .select(recordColumns)
    .from(connections)
    .where(
      and(
        eq(connections.partnerId, partnerId),
        eq(connections.currentInUse, true),
        eq(connections.connectionType, "tgx"),
      ),
    )
    .orderBy(asc(connections.code));
  return found.map(coreOf);
};

/**
 * The connection chat works through: the partner's in-use connection, b2b and direct preferred,
 * then the lowest code. Its rate is also the chat rate (chat-auth.ts).
 */
export const chatConnection = async (db: Db, partnerId: string): Promise<CoreConnection | null> => {
  const [found] = await db
    .select(recordColumns)
    .from(connections)
    .where(and(eq(connections.partnerId, partnerId), eq(connections.currentInUse, true)))
    .orderBy(
      desc(sql`${connections.apiType} = 'b2b'`),
      desc(sql`${connections.connectionType} = 'direct'`),
      asc(connections.code),
    )
    .limit(1);
  return found ? coreOf(found) : null;
};
