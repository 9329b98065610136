import { and, asc, desc, eq, sql } from "drizzle-orm";
import { database } from "../../platform/db/client";
import { connections } from "../../platform/db/schema";
import type { ConnectionRow } from "../booking/connection-read";
import { connectionUpstreams } from "../operators/tables";

/**
 * The connection chat works through: the partner's in-use connection, b2b and direct preferred,
 * then the lowest code. Its rate is also the chat rate (chat-auth.ts); the whole row is read so
 * that a turn needs no second look-up to book through it. Keyed by column name (ConnectionRow), as
 * the booking routes read it in the API key's batch, so connectionOf serves both.
 */
export const chatConnectionRow = async (d1: D1Database, partnerId: string): Promise<ConnectionRow | null> => {
  const row = await database(d1)
    .select({
      id: connections.id,
      code: connections.code,
      partner_id: connections.partnerId,
      api_type: connections.apiType,
      connection_type: connections.connectionType,
      rate_limit: connections.rateLimit,
      rate_limit_window_ms: connections.rateLimitWindowMs,
      net_markups: connections.netMarkups,
      // As the raw read returns it (0 or 1), so that both give the same row.
      current_in_use: sql<0 | 1>`${connections.currentInUse}`,
      has_upstream: sql<number>`EXISTS (SELECT 1 FROM ${connectionUpstreams} WHERE ${connectionUpstreams.connectionId} = ${connections.id})`,
    })
    .from(connections)
    .where(and(eq(connections.partnerId, partnerId), eq(connections.currentInUse, true)))
    .orderBy(
      desc(sql`${connections.apiType} = 'b2b'`),
      desc(sql`${connections.connectionType} = 'direct'`),
      asc(connections.code),
    )
    .limit(1)
    .get();
  return row ?? null;
};
