import { DurableObject } from "cloudflare:workers";

/**
 * One instance per chat session (binding CHAT_SESSION). The class is declared now so the
 * binding and its SQLite migration exist from the start; the conversation state machine
 * and event log are the chat feature's work and are not built yet.
 */
export class ChatSession extends DurableObject<Env> {}
