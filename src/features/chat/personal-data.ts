import { eq, sql } from "drizzle-orm";
import { randomToken } from "../../platform/crypto/digest";
import type { Db } from "../../platform/db/client";
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

/** The actor id an erased person's session gets: random, so it names no one and links no sessions. */
const erasedActorId = () => `erased:${randomToken(12)}`;

/**
 * Erases the person (`email`) in each session's Durable Object (actor id replaced, names and e-mail
 * [erased], no more events), drops the stored answers of its idempotent events (they may repeat
 * the names), then gives the session index the new actor ids: last, so a retry of an erasure cut
 * short still finds a session whose actor id is the e-mail. Returns how many sessions existed.
 */
export const eraseChatSessions = async (
  sessions: DurableObjectNamespace<ChatSession>,
  db: Db,
  sessionIds: string[],
  email: string,
): Promise<number> => {
  const actorIds = await Promise.all(
    sessionIds.map((id) => sessions.getByName(id).erase({ email, erasedActorId: erasedActorId() })),
  );
  await db
    .delete(idempotencyKeys)
    .where(
      sql`${idempotencyKeys.scope} IN (SELECT value FROM json_each(${JSON.stringify(sessionIds.map(chatEventScope))}))`,
    )
    .run();
  const renamed = sessionIds.flatMap((sessionId, i) => {
    const actorId = actorIds[i];
    return actorId
      ? [db.update(chatSessionActors).set({ actorId }).where(eq(chatSessionActors.sessionId, sessionId))]
      : [];
  });
  const [first, ...rest] = renamed;
  if (first) await db.batch([first, ...rest]);
  return actorIds.filter(Boolean).length;
};
