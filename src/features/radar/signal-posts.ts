// Raw SQL: the insert itself checks the cap on live posts per session (INSERT ... SELECT ... WHERE count < cap).
import { sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { radarSignals } from "./tables";

/**
 * Stores one post of signals unless its (partner, session) already has `cap` live posts at `now`:
 * one statement, so the cap holds under concurrent posts.
 */
export const insertSignalPostWithinCap = async (
  db: Db,
  post: typeof radarSignals.$inferInsert,
  now: number,
  cap: number,
): Promise<void> => {
  const s = radarSignals;
  await db.run(sql`insert into ${s} (${sql.identifier(s.partnerId.name)}, ${sql.identifier(s.sessionId.name)}, ${sql.identifier(s.signals.name)}, ${sql.identifier(s.ipCountry.name)}, ${sql.identifier(s.ipHash.name)}, ${sql.identifier(s.receivedAt.name)}, ${sql.identifier(s.expiresAtMs.name)})
      select ${post.partnerId}, ${post.sessionId}, ${post.signals}, ${post.ipCountry ?? null}, ${post.ipHash ?? null}, ${post.receivedAt}, ${post.expiresAtMs}
      where (select count(*) from ${s} where ${s.partnerId} = ${post.partnerId} and ${s.sessionId} = ${post.sessionId} and ${s.expiresAtMs} > ${now}) < ${cap}`);
};
