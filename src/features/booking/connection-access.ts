import type { AppEnv } from "../../platform/app-env";
import { apiKeyAuth } from "../../platform/auth/api-key";
import type { Connection } from "../../platform/db/schema";
import { ApiError } from "../../platform/http/api-error";
import { connectionByCode, type ConnectionRow } from "./connection-read";

/**
 * `hasUpstream`: read with the connection (same statement), so that a connection served by the
 * embedded inventory alone costs no extra D1 round trip to learn that. Unknown (absent) means ask.
 */
export type CoreConnection = Pick<
  Connection,
  "id" | "code" | "partnerId" | "apiType" | "connectionType" | "rateLimit" | "rateLimitWindowMs" | "netMarkups"
> & { hasUpstream?: boolean };

/** The connection row read with the API key, for the code the body named. */
export type PrefetchedConnection = { code: number; row: ConnectionRow | null };

export type BookingEnv = AppEnv & { Variables: { connection?: PrefetchedConnection } };

type Lookup =
  | { kind: "missing" } // no settings.access.code
  | { kind: "malformed" } // present but not a connection code
  | { kind: "unknown" } // no connection has this code
  | { kind: "denied" } // another partner's, or not in use
  | { kind: "ok"; connection: CoreConnection };

/** `settings.access.code` as a connection code; the spec types it as a number, and a numeric string is the same code. */
const connectionCode = (code: unknown): number | "missing" | "malformed" => {
  if (code === undefined || code === null) return "missing";
  const value = typeof code === "string" && /^\d{1,15}$/.test(code.trim()) ? Number(code) : code;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) return "malformed";
  return value;
};

/** A connection row as the booking services use it. */
export const connectionOf = (row: ConnectionRow): CoreConnection => ({
  id: row.id,
  code: row.code,
  partnerId: row.partner_id,
  apiType: row.api_type,
  connectionType: row.connection_type,
  rateLimit: row.rate_limit,
  rateLimitWindowMs: row.rate_limit_window_ms,
  netMarkups: row.net_markups,
  ...(row.has_upstream === undefined ? {} : { hasUpstream: row.has_upstream === 1 }),
});

const lookUp = async (
  d1: D1Database,
  partnerId: string,
  raw: unknown,
  prefetched?: PrefetchedConnection,
): Promise<Lookup> => {
  const code = connectionCode(raw);
  if (code === "missing" || code === "malformed") return { kind: code };
  const row = prefetched?.code === code ? prefetched.row : await connectionByCode(d1, code).first<ConnectionRow>();
  if (!row) return { kind: "unknown" };
  if (row.partner_id !== partnerId || !row.current_in_use) return { kind: "denied" };
  return { kind: "ok", connection: connectionOf(row) };
};

/**
 * Core routes: the API key and the connection named by the body's `settings.access.code` are
 * read in one D1 round trip. The connection is judged later, after the body is validated, so the order of errors stays key,
 * body, connection.
 */
export const coreAccess = () =>
  apiKeyAuth<BookingEnv>({
    async statements(c) {
      const body: unknown = await c.req.json();
      const code = connectionCode(
        (body as { settings?: { access?: { code?: unknown } } } | null)?.settings?.access?.code,
      );
      if (typeof code !== "number") return [];
      c.set("connection", { code, row: null });
      return [connectionByCode(c.env.DB, code)];
    },
    keep(c, results) {
      const prefetched = c.var.connection;
      if (prefetched)
        c.set("connection", {
          code: prefetched.code,
          row: (results[0]!.results[0] as ConnectionRow | undefined) ?? null,
        });
    },
  });

/** Search: the four connection messages of section 7 (see docs/api-decisions.md for which is which). */
export const searchConnection = async (
  d1: D1Database,
  partnerId: string,
  code: unknown,
  prefetched?: PrefetchedConnection,
): Promise<CoreConnection> => {
  const found = await lookUp(d1, partnerId, code, prefetched);
  switch (found.kind) {
    case "missing":
      throw new ApiError("no_connection", "No connection");
    case "malformed":
      throw new ApiError("malformed_connection_code", "Invalid connection code");
    case "unknown":
      throw new ApiError("unknown_connection", "Connection not found");
    case "denied":
      throw new ApiError("connection_access_denied", "Connection access denied");
    case "ok":
      return found.connection;
  }
};

/** Quote, book and cancel: one 403 for every connection code that is not the caller's in-use connection. */
export const coreConnection = async (
  d1: D1Database,
  partnerId: string,
  code: unknown,
  prefetched?: PrefetchedConnection,
): Promise<CoreConnection> => {
  const found = await lookUp(d1, partnerId, code, prefetched);
  if (found.kind !== "ok") throw new ApiError("invalid_connection_code", "Invalid connection code.");
  return found.connection;
};
