import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Which chat sessions (Durable Objects, addressed only by id) belong to which partner's actor, so a
 * data-subject erasure can find them. Written when a session is created, deleted with the session.
 */
export const chatSessionActors = sqliteTable(
  "chat_session_actors",
  {
    sessionId: text("session_id").primaryKey(),
    partnerId: text("partner_id").notNull(),
    actorId: text("actor_id").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("chat_session_actors_actor").on(t.partnerId, t.actorId)],
);
