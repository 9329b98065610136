// Raw SQL: deleteInBatches takes any table by its name, which drizzle's typed builders cannot.
import { loggableError } from "./observability/loggable-error";

/** One kind of periodic clean-up; `run` returns how many rows it removed. */
export type UpkeepTask = { name: string; run: (env: Env, now: Date) => Promise<number> };

export type UpkeepOutcome = { task: string; removed: number } | { task: string; failed: string };

/**
 * Runs every task in turn against the same `now`. A failing task is logged and the others still
 * run; each task writes one JSON line (what it removed, or its error with the stack).
 */
export const runUpkeep = async (tasks: readonly UpkeepTask[], env: Env, now: Date): Promise<UpkeepOutcome[]> => {
  const outcomes: UpkeepOutcome[] = [];
  for (const task of tasks) {
    const started = Date.now();
    try {
      const removed = await task.run(env, now);
      outcomes.push({ task: task.name, removed });
      console.log(
        JSON.stringify({ level: "info", event: "upkeep", task: task.name, removed, durationMs: Date.now() - started }),
      );
    } catch (error) {
      const failed = loggableError(error, { stack: false });
      outcomes.push({ task: task.name, failed });
      console.error(
        JSON.stringify({
          level: "error",
          event: "upkeep_failed",
          task: task.name,
          error: loggableError(error),
          durationMs: Date.now() - started,
        }),
      );
    }
  }
  return outcomes;
};

/**
 * Deletes the rows `where` selects, at most `batch` per statement, so a large backlog never becomes
 * one long write that blocks D1's single writer, and at most `maxBatches` statements per run, so a
 * run stays well inside the 1,000 D1 queries one invocation may make; the rest goes next run.
 * Returns how many rows went.
 */
export const deleteInBatches = async (
  d1: D1Database,
  table: string,
  where: string,
  params: unknown[],
  { batch = 1_000, maxBatches = 100 }: { batch?: number; maxBatches?: number } = {},
): Promise<number> => {
  let removed = 0;
  for (let round = 0; round < maxBatches; round++) {
    const result = await d1
      .prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE ${where} LIMIT ${batch})`)
      .bind(...params)
      .run();
    removed += result.meta.changes;
    if (result.meta.changes < batch) break;
  }
  return removed;
};
