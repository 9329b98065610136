/** The calls a partner is billed for: blob1 of every USAGE data point. */
export type BillableOperation = "search" | "quote" | "book" | "cancel" | "radar_check";

export type UsagePoint = {
  partnerId: string;
  operation: BillableOperation;
  connectionCode?: number;
  requestId: string;
};

/** The one method of an Analytics Engine dataset this Worker uses. */
export type UsageSink = { writeDataPoint(point: AnalyticsEngineDataPoint): void };

const dropUsage: UsageSink = { writeDataPoint: () => {} };

/** The `USAGE` dataset when the runtime binds one; otherwise a sink that drops the points. */
export const usageSink = (env: Env): UsageSink => (env as { USAGE?: UsageSink }).USAGE ?? dropUsage;

/**
 * One data point per billable call (docs/operations.md has the SQL): index1 the partner id
 * (Analytics Engine samples per index, so a busy partner never thins another's counts), blob1 the
 * operation, blob2 the connection code ("" for radar), blob3 the request id; double1 is 1.
 * `writeDataPoint` does not wait on I/O, so this costs the hot path next to nothing.
 */
export const recordUsage = (env: Env, point: UsagePoint): void =>
  usageSink(env).writeDataPoint({
    indexes: [point.partnerId],
    blobs: [point.operation, point.connectionCode === undefined ? "" : String(point.connectionCode), point.requestId],
    doubles: [1],
  });
