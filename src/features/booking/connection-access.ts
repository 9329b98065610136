import type { Connection } from "../../platform/db/schema";
import { ApiError } from "../../platform/http/api-error";

type ConnectionRow = { id: string; code: number; partner_id: string; api_type: string; connection_type: string; rate_limit: number; rate_limit_window_ms: number; current_in_use: number };

export type CoreConnection = Pick<Connection, "id" | "code" | "partnerId" | "apiType" | "connectionType" | "rateLimit" | "rateLimitWindowMs">;

type Lookup =
  | { kind: "missing" } // no settings.access.code
  | { kind: "malformed" } // present but not a connection code
  | { kind: "unknown" } // no connection has this code
  | { kind: "denied" } // another partner's, or not in use
  | { kind: "ok"; connection: CoreConnection };

const lookUp = async (d1: D1Database, partnerId: string, code: unknown): Promise<Lookup> => {
  if (code === undefined || code === null) return { kind: "missing" };
  // The spec types the code as a number; a numeric string is accepted as the same code.
  const value = typeof code === "string" && /^\d{1,15}$/.test(code.trim()) ? Number(code) : code;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) return { kind: "malformed" };
  const row = await d1
    .prepare("SELECT id, code, partner_id, api_type, connection_type, rate_limit, rate_limit_window_ms, current_in_use FROM connections WHERE code = ?")
    .bind(value)
    .first<ConnectionRow>();
  if (!row) return { kind: "unknown" };
  if (row.partner_id !== partnerId || !row.current_in_use) return { kind: "denied" };
  return {
    kind: "ok",
    connection: {
      id: row.id,
      code: row.code,
      partnerId: row.partner_id,
      apiType: row.api_type as CoreConnection["apiType"],
      connectionType: row.connection_type as CoreConnection["connectionType"],
      rateLimit: row.rate_limit,
      rateLimitWindowMs: row.rate_limit_window_ms,
    },
  };
};

/** Search: the four connection messages of section 7 (see docs/api-decisions.md for which is which). */
export const searchConnection = async (d1: D1Database, partnerId: string, code: unknown): Promise<CoreConnection> => {
  const found = await lookUp(d1, partnerId, code);
  switch (found.kind) {
    case "missing":
      throw new ApiError(400, "No connection", "no_connection");
    case "malformed":
      throw new ApiError(400, "Invalid connection code", "invalid_connection_code");
    case "unknown":
      throw new ApiError(401, "Connection not found", "connection_not_found");
    case "denied":
      throw new ApiError(401, "Connection access denied", "connection_access_denied");
    case "ok":
      return found.connection;
  }
};

/** Quote, book and cancel: one 403 for every connection code that is not the caller's in-use connection. */
export const coreConnection = async (d1: D1Database, partnerId: string, code: unknown): Promise<CoreConnection> => {
  const found = await lookUp(d1, partnerId, code);
  if (found.kind !== "ok") throw new ApiError(403, "Invalid connection code.", "invalid_connection_code");
  return found.connection;
};
