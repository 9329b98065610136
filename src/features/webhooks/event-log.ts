// Raw SQL: an event takes its partner's next sequence and builds its JSON body inside its own INSERT ... SELECT, appended only when the statement before it changed a row (SQLite's changes()); drizzle's builders cannot say that select.
import { and, asc, eq, exists, gt, inArray, lt, max, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { database, type Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { deleteInBatches } from "../../platform/upkeep";
import { type EventCatalogue, checkEventData, type EventData } from "./catalogue";
import { partnerEventSequences, webhookDeliveries, webhookEndpoints, webhookEvents } from "./tables";

/** Events are kept this long (upkeep `expired-events`); a cursor stays good at least as long. */
export const EVENT_RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

/** One event of a partner's (today: a state change of one of its bookings), before it is logged (it has no sequence yet). */
export type PartnerEvent = {
  id: string;
  /** A name of the event catalogue. */
  type: string;
  partnerId: string;
  /** The booking the event is about; null for an event about none. */
  bookingReference: string | null;
  partnerReference: string;
  createdAt: string;
  /** The announcing feature's payload, logged and delivered as given. */
  data: Record<string, unknown>;
};

/** An event as `GET /api/events` lists it and a webhook endpoint receives it. */
export type LoggedEvent = Omit<PartnerEvent, "partnerId"> & { sequence: number };

/**
 * A new event of `type`, its `data` typed and checked by the emitting feature's `catalogue` (a
 * payload off its declared schema throws: `checkEventData`).
 */
export const newEvent = <C extends EventCatalogue, T extends keyof C & string>(
  catalogue: C,
  event: Omit<PartnerEvent, "id" | "createdAt" | "type" | "data"> & { type: T; data: EventData<C, T> },
  now: number,
): PartnerEvent => {
  checkEventData(catalogue, event.type, event.data);
  return {
    id: `evt_${crypto.randomUUID().replaceAll("-", "")}`,
    createdAt: new Date(now).toISOString(),
    ...event,
  };
};

/**
 * The statements that append `event` to its partner's log, with one delivery per endpoint subscribed
 * to its type. They go into the batch (one transaction) of the change they record, directly after the
 * statement that makes it: the event is appended only if that statement changed a row, so a guarded
 * update that found the booking already changed by a concurrent request logs nothing
 * (`ifChanged: false` appends whatever ran before). D1 runs one write at a time, so the sequence
 * taken from the partner's counter is the next one, and a rolled-back batch gives its number back:
 * the log has no gaps, and a reader who has seen number n has seen every number below it.
 */
export const eventWrites = (db: Db, event: PartnerEvent, { ifChanged = true } = {}): BatchItem<"sqlite">[] => {
  const { id, partnerId, type, bookingReference, partnerReference, createdAt } = event;
  const guard: SQL = ifChanged ? sql`changes() > 0` : sql`1`;
  const logged = exists(db.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.id, id)));
  return [
    // The columns in the table's order (drizzle names them from the schema).
    db.insert(webhookEvents).select(sql`
      SELECT ${id}, ${partnerId}, next.sequence, ${type}, ${bookingReference}, ${partnerReference},
        json_object('id', ${id}, 'sequence', next.sequence, 'type', ${type}, 'createdAt', ${createdAt},
          'bookingReference', ${bookingReference}, 'partnerReference', ${partnerReference},
          'data', json(${JSON.stringify(event.data)})),
        ${createdAt}
      FROM (SELECT coalesce((SELECT last_sequence FROM partner_event_sequences WHERE partner_id = ${partnerId}), 0) + 1
        AS sequence) AS next
      WHERE ${guard}`),
    db
      .insert(partnerEventSequences)
      .select(sql`SELECT partner_id, sequence FROM webhook_events WHERE id = ${id}`)
      .onConflictDoUpdate({
        target: partnerEventSequences.partnerId,
        set: { lastSequence: sql`excluded.last_sequence` },
      }),
    db.insert(webhookDeliveries).select((qb) =>
      qb
        .select({
          endpointId: webhookEndpoints.id,
          eventId: sql`${id}`.as("event_id"),
          status: sql`'pending'`.as("status"),
          attempts: sql`0`.as("attempts"),
          lastStatusCode: sql`null`.as("last_status_code"),
          lastError: sql`null`.as("last_error"),
          lastAttemptAt: sql`null`.as("last_attempt_at"),
          nextAttemptAt: sql`${createdAt}`.as("next_attempt_at"),
          enqueuedAt: sql`null`.as("enqueued_at"),
          deliveredAt: sql`null`.as("delivered_at"),
          createdAt: sql`${createdAt}`.as("created_at"),
        })
        .from(webhookEndpoints)
        .where(
          and(
            eq(webhookEndpoints.partnerId, partnerId),
            sql`EXISTS (SELECT 1 FROM json_each(${webhookEndpoints.events}) WHERE value = ${type})`,
            logged,
          ),
        ),
    ),
  ];
};

export type EventPage = { events: LoggedEvent[]; nextCursor: string; hasMore: boolean };

/**
 * One page of the partner's log, oldest first, after the cursor `after` (the sequence of the last
 * event read; absent: from the oldest event kept). The page and the log's bounds are read in one
 * batch (one snapshot). A cursor past the last event is 400; one whose following events were deleted
 * by retention is 410, never a page that silently skips them.
 */
export const readEvents = async (
  db: Db,
  partnerId: string,
  query: { after?: number; limit: number; types?: readonly string[]; bookingReference?: string },
): Promise<EventPage> => {
  const [rows, [bounds]] = await db.batch([
    db
      .select({ body: webhookEvents.body })
      .from(webhookEvents)
      .where(
        and(
          eq(webhookEvents.partnerId, partnerId),
          query.after === undefined ? undefined : gt(webhookEvents.sequence, query.after),
          query.types ? inArray(webhookEvents.type, [...query.types]) : undefined,
          query.bookingReference === undefined ? undefined : eq(webhookEvents.bookingReference, query.bookingReference),
        ),
      )
      .orderBy(asc(webhookEvents.sequence))
      .limit(query.limit + 1),
    // No row before the partner's first event.
    db
      .select({
        first: sql<number | null>`(SELECT min(sequence) FROM webhook_events WHERE partner_id = ${partnerId})`,
        last: partnerEventSequences.lastSequence,
      })
      .from(partnerEventSequences)
      .where(eq(partnerEventSequences.partnerId, partnerId)),
  ]);
  const last = bounds?.last ?? 0;
  const first = bounds?.first ?? last + 1;
  if (query.after !== undefined && query.after > last)
    throw new ApiError("invalid_cursor", "after: no event has this sequence yet; pass the nextCursor of a page read");
  if (query.after !== undefined && query.after < first - 1)
    throw new ApiError(
      "cursor_expired",
      `after: the events following this cursor are past the ${EVENT_RETENTION_DAYS} days the log keeps; read again without after`,
    );
  const events = rows.slice(0, query.limit).map((row) => JSON.parse(row.body) as LoggedEvent);
  const position = events.at(-1)?.sequence ?? query.after ?? first - 1;
  return { events, nextCursor: String(position), hasMore: rows.length > query.limit };
};

/**
 * Upkeep: deletes each partner's events older than the retention, as a prefix of its log (every
 * event up to the newest expired one), so what is kept is always one unbroken run of sequences
 * even where two events' clocks and sequences disagree by a moment. Their deliveries go with them.
 */
export const expiredEvents = {
  name: "expired-events",
  run: async (env: Env, now: Date): Promise<number> => {
    const cutoff = new Date(now.getTime() - EVENT_RETENTION_DAYS * DAY_MS).toISOString();
    const prefixes = await database(env.DB)
      .select({ partnerId: webhookEvents.partnerId, upTo: max(webhookEvents.sequence) })
      .from(webhookEvents)
      .where(lt(webhookEvents.createdAt, cutoff))
      .groupBy(webhookEvents.partnerId);
    let removed = 0;
    for (const { partnerId, upTo } of prefixes)
      removed += await deleteInBatches(env.DB, "webhook_events", "partner_id = ? AND sequence <= ?", [partnerId, upTo]);
    return removed;
  },
};
