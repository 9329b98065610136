// Raw SQL: the Durable Object's own SQLite storage (ctx.storage.sql, written synchronously in transactionSync)
import { signingKeys } from "../../platform/config/secrets";
import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { database, isBookmark, sessionDatabase } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { bookingDeps } from "../booking";
import { actorMismatch, sessionErased, sessionNotFound } from "./errors";
import { chatSessionActors } from "./tables";
import {
  newConversation,
  takeTurn,
  type ChatEvent,
  type ChatResult,
  type ChatStatus,
  type ConversationState,
} from "./conversation";

export const ERASED_NAME = "[erased]";

/** A session idle this long is deleted by its alarm, with its event log. */
export const SESSION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export type SessionRecord = {
  sessionId: string;
  tenantId: string;
  channel: { type: "partner_api"; workspaceId?: string };
  conversation: { id?: string; channelId?: string; threadTs?: string };
  actor: { actorId: string; timezoneOffsetMinutes: number };
  createdAt: string;
  updatedAt: string;
};

export type HistoryEntry = { eventId: string; kind: string; resultStatus: ChatStatus; recordedAt: string };

export type EventRequest = {
  tenantId: string;
  actorId?: string;
  event: ChatEvent;
  origin: string;
  requestId: string;
  /** The calling request's D1 bookmark: the event continues that session (see process). */
  d1Bookmark?: string | null;
};

export type EventResponse = {
  sessionId: string;
  event: { id: string; kind: string };
  result: ChatResult & { traceId: string };
};

/** RPC results carry errors as data: an ApiError does not survive the RPC boundary as its class. */
export type Outcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      status: number;
      message: string;
      code: string;
      details?: Record<string, unknown>;
      headers?: Record<string, string>;
    };

export const unwrap = <T>(outcome: Outcome<T>): T => {
  if (outcome.ok) return outcome.value;
  throw ApiError.revived(outcome);
};

const asOutcome = async <T>(run: () => Promise<T>): Promise<Outcome<T>> => {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof ApiError) {
      const { status, message, code, details, headers } = error;
      return { ok: false, status, message, code, ...(details ? { details } : {}), ...(headers ? { headers } : {}) };
    }
    throw error;
  }
};

/**
 * One instance per chat session (binding CHAT_SESSION, addressed by the session id). It holds the
 * session record, the conversation state and the event log in its own SQLite storage, and runs
 * every event itself, one at a time, so two events of a session never race on its state.
 */
export class ChatSession extends DurableObject<Env> {
  private sql = this.ctx.storage.sql;
  /** The tail of the event queue: each event starts when the previous one has finished. */
  private queue: Promise<unknown> = Promise.resolve();

  /** Tables are made by create() only, so a request for an unknown session id writes nothing. */
  private makeTables() {
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS session (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL, state TEXT NOT NULL, touched_at INTEGER NOT NULL)`,
    );
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, result_status TEXT NOT NULL,
        recorded_at TEXT NOT NULL)`,
    );
  }

  private hasSession(): boolean {
    return this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session'").toArray().length > 0;
  }

  private load(): { record: SessionRecord; state: ConversationState } | null {
    if (!this.hasSession()) return null;
    const row = this.sql
      .exec<{ record: string; state: string }>("SELECT record, state FROM session WHERE id = 1")
      .toArray()[0];
    return row ? { record: JSON.parse(row.record), state: JSON.parse(row.state) } : null;
  }

  private async touch(now: number) {
    await this.ctx.storage.setAlarm(now + SESSION_RETENTION_MS);
  }

  async create(record: SessionRecord): Promise<SessionRecord> {
    if (this.load()) throw new Error("session id collision");
    this.makeTables();
    const now = Date.now();
    this.sql.exec(
      "INSERT INTO session (id, record, state, touched_at) VALUES (1, ?, ?, ?)",
      JSON.stringify(record),
      JSON.stringify(newConversation()),
      now,
    );
    await this.touch(now);
    return record;
  }

  /** The session with its history, or null when it does not exist or belongs to another partner. */
  async read(
    tenantId: string,
  ): Promise<(SessionRecord & { status: ChatStatus | "new"; events: HistoryEntry[] }) | null> {
    const loaded = this.load();
    if (!loaded || loaded.record.tenantId !== tenantId) return null;
    const events = this.sql
      .exec<{ event_id: string; kind: string; result_status: string; recorded_at: string }>(
        "SELECT event_id, kind, result_status, recorded_at FROM events ORDER BY seq",
      )
      .toArray()
      // Written from a ChatResult's status (record below): always one of CHAT_STATUSES.
      .map((e) => ({
        eventId: e.event_id,
        kind: e.kind,
        resultStatus: e.result_status as ChatStatus,
        recordedAt: e.recorded_at,
      }));
    return { ...loaded.record, status: loaded.state.status, events };
  }

  async handle(request: EventRequest): Promise<Outcome<EventResponse & { d1Bookmark: string | null }>> {
    const run = this.queue.then(() => asOutcome(() => this.process(request)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async process(request: EventRequest): Promise<EventResponse & { d1Bookmark: string | null }> {
    const loaded = this.load();
    if (!loaded || loaded.record.tenantId !== request.tenantId) throw sessionNotFound();
    const { record, state } = loaded;
    // An erased session stays readable but takes no more events: nothing new about the person enters it.
    if (state.erasedAt) throw sessionErased();
    if (request.actorId !== undefined && request.actorId !== record.actor.actorId) {
      throw actorMismatch();
    }
    const now = Date.now();
    // The event continues the calling request's D1 session (which started at the primary), so
    // what it books is in the bookmark the request answers with.
    const d1 = sessionDatabase(this.env.DB, isBookmark(request.d1Bookmark) ? request.d1Bookmark : "first-primary");
    const result = await takeTurn(
      {
        deps: bookingDeps({ ...this.env, DB: d1 }),
        partnerId: record.tenantId,
        actorId: record.actor.actorId,
        sessionId: record.sessionId,
        timezoneOffsetMinutes: record.actor.timezoneOffsetMinutes,
        origin: request.origin,
        pageKeys: signingKeys(this.env, "PAGE_TOKEN_SECRET"),
        requestId: request.requestId,
        now,
      },
      state,
      request.event,
    );
    const eventId = `ev_${crypto.randomUUID()}`;
    const response: EventResponse = {
      sessionId: record.sessionId,
      event: { id: eventId, kind: request.event.kind },
      result: { traceId: request.requestId, ...result },
    };
    const recordedAt = new Date(now).toISOString();
    const updated = { ...record, updatedAt: recordedAt };
    // State and history are written together (one implicit transaction); idempotency-key replays are the route's.
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(
        "UPDATE session SET record = ?, state = ?, touched_at = ? WHERE id = 1",
        JSON.stringify(updated),
        JSON.stringify(state),
        now,
      );
      this.sql.exec(
        "INSERT INTO events (event_id, kind, result_status, recorded_at) VALUES (?, ?, ?, ?)",
        eventId,
        request.event.kind,
        result.status,
        recordedAt,
      );
    });
    await this.touch(now);
    return { ...response, d1Bookmark: d1.bookmark() };
  }

  /**
   * Data-subject erasure of the person behind this session (found by `email`): the actor id becomes
   * `erasedActorId`; the guest's names, the e-mail (any case) and a channel or conversation label
   * equal to the old actor id become [erased] in the session record and conversation state (stored answers of
   * idempotent events live in D1's idempotency_keys and are erased there). The session stays
   * readable and takes no more events. Returns the actor id the session now has (an erased session
   * keeps its first replacement), or null when the session does not exist.
   */
  async erase(subject: { email: string; erasedActorId: string }): Promise<string | null> {
    const loaded = this.load();
    if (!loaded) return null;
    const { record, state } = loaded;
    if (state.erasedAt) return record.actor.actorId;
    const names = [state.guest?.firstName, state.guest?.lastName].filter(
      (n): n is string => Boolean(n) && n !== ERASED_NAME,
    );
    const email = new RegExp(subject.email.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi");
    // Every string of a value with the e-mail and the names erased; in the record (labels the partner
    // sent), also any label that is the old actor id itself.
    const scrubbed = <T>(value: T, actorId?: string): T =>
      JSON.parse(JSON.stringify(value), (_key, inner: unknown) => {
        if (typeof inner !== "string") return inner;
        if (inner === actorId) return ERASED_NAME;
        return names.reduce((out, name) => out.split(name).join(ERASED_NAME), inner.replace(email, ERASED_NAME));
      });
    const erasedRecord: SessionRecord = {
      ...scrubbed(record),
      channel: scrubbed(record.channel, record.actor.actorId),
      conversation: scrubbed(record.conversation, record.actor.actorId),
      actor: { ...record.actor, actorId: subject.erasedActorId },
    };
    const erasedState = { ...scrubbed(state), erasedAt: new Date().toISOString() };
    if (erasedState.guest) erasedState.guest = { firstName: ERASED_NAME, lastName: ERASED_NAME };
    this.sql.exec(
      "UPDATE session SET record = ?, state = ? WHERE id = 1",
      JSON.stringify(erasedRecord),
      JSON.stringify(erasedState),
    );
    return subject.erasedActorId;
  }

  /** Retention: an idle session is deleted; one used since the alarm was set is kept for another period. */
  async alarm(): Promise<void> {
    const row = this.hasSession()
      ? this.sql.exec<{ touched_at: number }>("SELECT touched_at FROM session WHERE id = 1").toArray()[0]
      : undefined;
    if (row && row.touched_at + SESSION_RETENTION_MS > Date.now()) {
      await this.ctx.storage.setAlarm(row.touched_at + SESSION_RETENTION_MS);
      return;
    }
    const sessionId = this.load()?.record.sessionId;
    await this.ctx.storage.deleteAll();
    if (sessionId)
      await database(this.env.DB).delete(chatSessionActors).where(eq(chatSessionActors.sessionId, sessionId)).run();
  }
}
