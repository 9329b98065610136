import { sql } from "drizzle-orm";
import { database, type Db } from "../../platform/db/client";
import { idempotencyKeys } from "../../platform/db/schema";
import type { ChatSession } from "./chat-session";
import { chatSessionActors } from "./tables";

/**
 * The chat sessions of one person: those whose actor id is the e-mail itself (any partner), and
 * those of the partner's own user ids for that person (from its radar checks).
 */
export const chatSessionsOf = async (
  db: Db,
  email: string,
  partnerUserIds: Array<{ partnerId: string; userId: string }>,
): Promise<string[]> => {
  const pairs = JSON.stringify(partnerUserIds.map((p) => `${p.partnerId}\n${p.userId}`));
  const rows = await db
    .select({ sessionId: chatSessionActors.sessionId })
    .from(chatSessionActors)
    .where(
      sql`lower(${chatSessionActors.actorId}) = ${email.trim().toLowerCase()}
        or (${chatSessionActors.partnerId} || char(10) || ${chatSessionActors.actorId}) in (select value from json_each(${pairs}))`,
    );
  return rows.map((r) => r.sessionId);
};

/** The idempotency scope of a session's events (keys are per session). */
export const chatEventScope = (sessionId: string) => `chat_event:${sessionId}`;

/**
 * Erases the guest's names in each session's Durable Object, and drops the stored answers of its
 * idempotent events (they may repeat the names); returns how many sessions existed.
 */
export const eraseChatSessions = async (
  sessions: DurableObjectNamespace<ChatSession>,
  d1: D1Database,
  sessionIds: string[],
): Promise<number> => {
  const erased = await Promise.all(sessionIds.map((id) => sessions.getByName(id).erase()));
  await database(d1)
    .delete(idempotencyKeys)
    .where(
      sql`${idempotencyKeys.scope} IN (SELECT value FROM json_each(${JSON.stringify(sessionIds.map(chatEventScope))}))`,
    )
    .run();
  return erased.filter(Boolean).length;
};
