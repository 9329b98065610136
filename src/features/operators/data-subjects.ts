import { database } from "../../platform/db/client";
import { eraseChatBookingHolders } from "../booking/bookings";
import { chatSessionsOf, eraseChatSessions } from "../chat/personal-data";
import { eraseRadarSubject } from "../radar/personal-data";

export type ErasureCounts = { radarChecks: number; chatSessions: number; bookings: number };

/**
 * Erases one person (by e-mail) everywhere the Worker keeps them: radar checks of every partner,
 * the chat sessions linked to them and the bookings those sessions made. Names become [erased],
 * contact data is removed; references and amounts stay. Safe to repeat (counts what it touched).
 */
export const eraseDataSubject = async (env: Env, email: string, now = Date.now()): Promise<ErasureCounts> => {
  const db = database(env.DB);
  const radar = await eraseRadarSubject(db, env.PII_HASH_SECRET, email, now);
  const sessionIds = await chatSessionsOf(db, email, radar.partnerUserIds);
  const chatSessions = await eraseChatSessions(env.CHAT_SESSION, env.DB, sessionIds);
  const bookings = await eraseChatBookingHolders(env.DB, sessionIds);
  return { radarChecks: radar.checks, chatSessions, bookings };
};
