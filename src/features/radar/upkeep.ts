import { deleteInBatches, type UpkeepTask } from "../../platform/upkeep";

/**
 * Browser signals past their 24-hour life. Signal posts also prune on write; this catches a
 * partner whose traffic stopped, so the rows (IP hash, user agent) do not outlive their purpose.
 */
export const expiredRadarSignals: UpkeepTask = {
  name: "expired_radar_signals",
  run: (env, now) => deleteInBatches(env.DB, "radar_signals", "expires_at_ms < ?", [now.getTime()]),
};
