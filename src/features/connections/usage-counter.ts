import { DurableObject } from "cloudflare:workers";
import { lt } from "drizzle-orm";
import { and, eq, sql } from "drizzle-orm";
import { database } from "../../platform/db/client";
import { isUniqueViolation } from "../../platform/db/constraint";
import { connectionUsage, connectionUsageRollups } from "./tables";

/** The billable operations a partner's usage counts. */
export const USAGE_OPERATIONS = ["search", "quote", "book", "cancel"] as const;
export type UsageOperation = (typeof USAGE_OPERATIONS)[number];

/** One billable call: its UTC day, operation, outcome (`success` or the error code) and whether a supplier timed out. */
export type UsageIncrement = {
  partnerId: string;
  connectionId: string;
  date: string;
  operation: UsageOperation;
  outcome: string;
  supplierTimeout: boolean;
};

/** Counts of one day, operation and outcome, not in D1 yet. */
export type UsageCount = {
  date: string;
  operation: UsageOperation;
  outcome: string;
  count: number;
  supplierTimeouts: number;
};

/** What a connection counted and D1 may not have yet: the roll-up under way (its sequence) and what came after. */
export type PendingUsage = { rolling: { seq: number; counts: UsageCount[] } | null; counts: UsageCount[] };

type Owner = { partnerId: string; connectionId: string };
type Rolling = Owner & { seq: number; counts: UsageCount[] };

/** How often at most a connection's counts go to D1. */
export const ROLLUP_INTERVAL_MS = 60_000;
/** Roll-up marks kept per connection: enough to recognise a retried batch, a bounded table. */
const MARKS_KEPT = 16;

const COUNT_PREFIX = "count:";
const keyOf = (c: Pick<UsageCount, "date" | "operation" | "outcome">) =>
  `${COUNT_PREFIX}${c.date}|${c.operation}|${c.outcome}`;

/**
 * One per connection (named by its id): every billable call of the connection is one increment in
 * this object's SQLite storage, durable before `count` returns, so a Worker restart loses nothing
 * and parallel calls are exact (the object is single-threaded). Its alarm, at most once a minute,
 * moves the counts into D1 (`connection_usage`): they become the "rolling" snapshot first, and the
 * batch that adds them also inserts the snapshot's sequence number into `connection_usage_rollups`,
 * so a batch retried after it committed adds nothing twice.
 */
export class ConnectionUsage extends DurableObject<Env> {
  async count(increment: UsageIncrement): Promise<void> {
    const kv = this.ctx.storage.kv;
    kv.put<Owner>("owner", { partnerId: increment.partnerId, connectionId: increment.connectionId });
    const key = keyOf(increment);
    const current = kv.get<UsageCount>(key);
    kv.put<UsageCount>(key, {
      date: increment.date,
      operation: increment.operation,
      outcome: increment.outcome,
      count: (current?.count ?? 0) + 1,
      supplierTimeouts: (current?.supplierTimeouts ?? 0) + (increment.supplierTimeout ? 1 : 0),
    });
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + ROLLUP_INTERVAL_MS);
  }

  /** What D1 does not hold yet; the usage read adds it to D1's rows. */
  async pending(): Promise<PendingUsage> {
    const rolling = this.ctx.storage.kv.get<Rolling>("rolling");
    return { rolling: rolling ? { seq: rolling.seq, counts: rolling.counts } : null, counts: this.counts() };
  }

  /** Rolls up now (the alarm's work; tests and the local demo call it to skip the minute). */
  async rollUp(): Promise<void> {
    const kv = this.ctx.storage.kv;
    let rolling = kv.get<Rolling>("rolling");
    if (!rolling) {
      const owner = kv.get<Owner>("owner");
      const counts = this.counts();
      if (!owner || counts.length === 0) return;
      const seq = (kv.get<number>("seq") ?? 0) + 1;
      // One synchronous block: the counts move into the snapshot atomically.
      rolling = { ...owner, seq, counts };
      kv.put("seq", seq);
      kv.put("rolling", rolling);
      for (const count of counts) kv.delete(keyOf(count));
    }
    await applyRollup(this.env.DB, rolling);
    kv.delete("rolling");
    // Counted while this ran: their turn comes a minute later.
    if (this.counts().length) await this.ctx.storage.setAlarm(Date.now() + ROLLUP_INTERVAL_MS);
  }

  // A failed D1 batch throws: the platform runs the alarm again, the snapshot kept as it was.
  async alarm(): Promise<void> {
    await this.rollUp();
  }

  private counts(): UsageCount[] {
    return [...this.ctx.storage.kv.list<UsageCount>({ prefix: COUNT_PREFIX })].map(([, count]) => count);
  }
}

/** Adds a snapshot to D1 once: its mark's primary key refuses a second application of the same sequence. */
const applyRollup = async (d1: D1Database, rolling: Rolling) => {
  const db = database(d1);
  try {
    await db.batch([
      db.insert(connectionUsageRollups).values({ connectionId: rolling.connectionId, seq: rolling.seq }),
      db
        .delete(connectionUsageRollups)
        .where(
          and(
            eq(connectionUsageRollups.connectionId, rolling.connectionId),
            lt(connectionUsageRollups.seq, rolling.seq - MARKS_KEPT),
          ),
        ),
      ...rolling.counts.map((count) =>
        db
          .insert(connectionUsage)
          .values({ connectionId: rolling.connectionId, partnerId: rolling.partnerId, ...count })
          .onConflictDoUpdate({
            target: [
              connectionUsage.connectionId,
              connectionUsage.date,
              connectionUsage.operation,
              connectionUsage.outcome,
            ],
            set: {
              count: sql`${connectionUsage.count} + excluded.count`,
              supplierTimeouts: sql`${connectionUsage.supplierTimeouts} + excluded.supplier_timeouts`,
            },
          }),
      ),
    ]);
  } catch (error) {
    // Applied already (the batch committed, then this object failed before forgetting the snapshot).
    if (isUniqueViolation(error, "connection_usage_rollups")) return;
    throw error;
  }
};
