import { database } from "../../platform/db/client";
import { eraseChatBookingHolders } from "../booking";
import { chatSessionsOf, eraseChatSessions } from "../chat";
import { eraseRadarSubject } from "../radar";

export type ErasureCounts = { radarChecks: number; chatSessions: number; bookings: number };

/**
 * Erases one person (by e-mail) everywhere the Worker keeps them: radar checks of every partner,
 * the chat sessions linked to them and the bookings those sessions made. Names become [erased],
 * contact data is removed, a session's actor id becomes `erased:<random>`; references and amounts
 * stay. Safe to repeat (counts what it still finds).
 */
export const eraseDataSubject = async (env: Env, email: string, now = Date.now()): Promise<ErasureCounts> => {
  const db = database(env.DB);
  const radar = await eraseRadarSubject(db, env.PII_HASH_SECRET, email, now);
  const sessionIds = await chatSessionsOf(db, email, radar.partnerUserIds);
  // Bookings first: the sessions' index forgets the e-mail last, so a retry after a failure still finds them.
  const bookings = await eraseChatBookingHolders(db, sessionIds);
  const chatSessions = await eraseChatSessions(env.CHAT_SESSION, db, sessionIds, email);
  return { radarChecks: radar.checks, chatSessions, bookings };
};
