/**
 * The connection chat works through: the partner's in-use connection, b2b and direct preferred,
 * then the lowest code. Its rate is also the chat rate (chat-auth.ts).
 */
export const chatConnectionRow = (d1: D1Database, partnerId: string) =>
  d1
    .prepare(
      `SELECT code, rate_limit, rate_limit_window_ms FROM connections WHERE partner_id = ? AND current_in_use = 1
       ORDER BY (api_type = 'b2b') DESC, (connection_type = 'direct') DESC, code LIMIT 1`,
    )
    .bind(partnerId)
    .first<{ code: number; rate_limit: number; rate_limit_window_ms: number }>();
