// Raw SQL: the connection is read in the API key's D1 batch (apiKeyAuth batches prepared statements)
import type { connections } from "../../platform/db/schema";
import type { SqlRow } from "../../platform/db/sql-row";

/**
 * A connection as its columns name it (`current_in_use` is 0 or 1); `has_upstream` (0 or 1) is
 * computed in the same statement.
 */
export type ConnectionRow = Pick<
  SqlRow<typeof connections>,
  | "id"
  | "code"
  | "partner_id"
  | "api_type"
  | "connection_type"
  | "rate_limit"
  | "rate_limit_window_ms"
  | "net_markups"
  | "current_in_use"
> & { has_upstream?: number };

const CONNECTION_COLUMNS =
  "id, code, partner_id, api_type, connection_type, rate_limit, rate_limit_window_ms, net_markups, current_in_use, EXISTS (SELECT 1 FROM connection_upstreams u WHERE u.connection_id = connections.id) AS has_upstream";

/** The connection with this code, as a statement the API key's batch can carry. */
export const connectionByCode = (d1: D1Database, code: number) =>
  d1.prepare(`SELECT ${CONNECTION_COLUMNS} FROM connections WHERE code = ?`).bind(code);
