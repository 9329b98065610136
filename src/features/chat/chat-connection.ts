import { CONNECTION_COLUMNS, type ConnectionRow } from "../booking/connection-access";

/**
 * The connection chat works through: the partner's in-use connection, b2b and direct preferred,
 * then the lowest code. Its rate is also the chat rate (chat-auth.ts); the whole row is read so
 * that a turn needs no second look-up to book through it.
 */
export const chatConnectionRow = (d1: D1Database, partnerId: string) =>
  d1
    .prepare(
      `SELECT ${CONNECTION_COLUMNS} FROM connections WHERE partner_id = ? AND current_in_use = 1
       ORDER BY (api_type = 'b2b') DESC, (connection_type = 'direct') DESC, code LIMIT 1`,
    )
    .bind(partnerId)
    .first<ConnectionRow>();
