// Raw SQL: the insert itself checks the endpoint cap (INSERT ... SELECT ... WHERE count < cap); drizzle cannot say it.
import { sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import type { SqlRow } from "../../platform/db/sql-row";
import type { webhookEndpoints } from "./tables";

type NewEndpoint = Pick<typeof webhookEndpoints.$inferInsert, "id" | "partnerId" | "url" | "events" | "sealedSecret">;

/**
 * Inserts the endpoint unless its partner already has `cap` of them, in one statement, so parallel
 * requests cannot exceed the cap. Returns the stored `created_at`, or null when the cap was reached.
 */
export const insertEndpointWithinCap = async (db: Db, endpoint: NewEndpoint, cap: number): Promise<string | null> => {
  const { id, partnerId, url, events, sealedSecret } = endpoint;
  const inserted = await db.all<Pick<SqlRow<typeof webhookEndpoints>, "created_at">>(sql`
    INSERT INTO webhook_endpoints (id, partner_id, url, events, sealed_secret)
    SELECT ${id}, ${partnerId}, ${url}, ${events}, ${sealedSecret}
    WHERE (SELECT count(*) FROM webhook_endpoints WHERE partner_id = ${partnerId}) < ${cap}
    RETURNING created_at`);
  return inserted[0]?.created_at ?? null;
};
