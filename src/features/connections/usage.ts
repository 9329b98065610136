import { and, between, eq, inArray } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { connections, connectionUsage, connectionUsageRollups } from "./tables";
import type { UsageCount, UsageIncrement, UsageOperation } from "./usage-counter";

/** The longest range one usage read covers, in days (both ends included). */
export const USAGE_MAX_DAYS = 92;

const DAY_MS = 86_400_000;
const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);

/** A billable call, as the faces (REST, Hotel-X REST and GraphQL, chat) report it. */
export type BilledCall = {
  connection: { id: string; partnerId: string };
  operation: UsageOperation;
  /** `success`, or the error code the call was answered with. */
  outcome: string;
  supplierTimeout?: boolean;
  at?: number;
};

/**
 * Keeps one billable call in its connection's `ConnectionUsage` object. The answer does not wait
 * for it (the caller hands the promise to `waitUntil`); the object's write is durable once this
 * resolves. One retry covers a dropped call to the object; a second failure is logged with the
 * whole increment, so it can be added by hand (docs/api-decisions.md, "Partner usage").
 */
export const countCall = async (env: Pick<Env, "CONNECTION_USAGE">, call: BilledCall): Promise<void> => {
  const increment: UsageIncrement = {
    partnerId: call.connection.partnerId,
    connectionId: call.connection.id,
    date: utcDay(call.at ?? Date.now()),
    operation: call.operation,
    outcome: call.outcome,
    supplierTimeout: call.supplierTimeout ?? false,
  };
  const send = () => env.CONNECTION_USAGE.getByName(call.connection.id).count(increment);
  try {
    await send();
  } catch {
    try {
      await send();
    } catch (error) {
      console.error(JSON.stringify({ level: "error", event: "usage_count_lost", increment, error: String(error) }));
    }
  }
};

type Totals = {
  searches: number;
  quotes: number;
  books: number;
  cancels: number;
  outcomes: Record<string, number>;
  supplierTimeouts: number;
};
export type UsageDay = { date: string } & Totals;
export type PartnerUsage = { days: UsageDay[]; totals: Totals; lookToBook: number | null };

const FIELD: Record<UsageOperation, "searches" | "quotes" | "books" | "cancels"> = {
  search: "searches",
  quote: "quotes",
  book: "books",
  cancel: "cancels",
};

const emptyTotals = (): Totals => ({ searches: 0, quotes: 0, books: 0, cancels: 0, outcomes: {}, supplierTimeouts: 0 });
const add = (totals: Totals, count: Omit<UsageCount, "date">) => {
  totals[FIELD[count.operation]] += count.count;
  totals.outcomes[count.outcome] = (totals.outcomes[count.outcome] ?? 0) + count.count;
  totals.supplierTimeouts += count.supplierTimeouts;
};

/** The days from `from` to `to` (UTC, both included); a reversed or too long range is a 400. */
export const usageDays = (from: string, to: string): string[] => {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (end < start) throw new ApiError("invalid_dates", "to must not be before from");
  const days = (end - start) / DAY_MS + 1;
  if (days > USAGE_MAX_DAYS)
    throw new ApiError("invalid_dates", `A usage range is at most ${USAGE_MAX_DAYS} days (from and to included)`);
  return Array.from({ length: days }, (_, i) => utcDay(start + i * DAY_MS));
};

/**
 * A partner's usage per UTC day: D1's rolled-up rows of all its connections, plus what each of its
 * connections' usage objects has not rolled up yet (a snapshot under way counts only while D1 has
 * no mark for it). Every day of the range is answered, zeros included. `lookToBook` is searches per
 * booking, null when nothing was booked (no ratio exists; 0 or the searches would read as one).
 */
export const readPartnerUsage = async (
  db: Db,
  env: Pick<Env, "CONNECTION_USAGE">,
  partnerId: string,
  from: string,
  to: string,
): Promise<PartnerUsage> => {
  const dates = usageDays(from, to);
  const [rows, owned] = await db.batch([
    db
      .select()
      .from(connectionUsage)
      .where(and(eq(connectionUsage.partnerId, partnerId), between(connectionUsage.date, from, to))),
    db.select({ id: connections.id }).from(connections).where(eq(connections.partnerId, partnerId)),
  ]);
  const pending = await Promise.all(owned.map(({ id }) => env.CONNECTION_USAGE.getByName(id).pending()));
  const rolling = owned.flatMap(({ id }, i) => {
    const snapshot = pending[i]!.rolling;
    return snapshot ? [{ connectionId: id, seq: snapshot.seq, counts: snapshot.counts }] : [];
  });
  // A snapshot whose batch committed but which its object has not forgotten yet is in D1 already.
  const applied = rolling.length
    ? await db
        .select()
        .from(connectionUsageRollups)
        .where(
          inArray(
            connectionUsageRollups.connectionId,
            rolling.map((r) => r.connectionId),
          ),
        )
    : [];
  const isApplied = (r: (typeof rolling)[number]) =>
    applied.some((a) => a.connectionId === r.connectionId && a.seq === r.seq);
  const counts: UsageCount[] = [
    ...rows,
    ...pending.flatMap((p) => p.counts),
    ...rolling.filter((r) => !isApplied(r)).flatMap((r) => r.counts),
  ] as UsageCount[];

  const byDay = new Map(dates.map((date) => [date, emptyTotals()]));
  const totals = emptyTotals();
  for (const count of counts) {
    const day = byDay.get(count.date);
    if (!day) continue;
    add(day, count);
    add(totals, count);
  }
  return {
    days: dates.map((date) => ({ date, ...byDay.get(date)! })),
    totals,
    lookToBook: totals.books ? Math.round((totals.searches / totals.books) * 100) / 100 : null,
  };
};
