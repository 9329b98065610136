import {
  expiredHoldsTask,
  expiredModificationPreviews,
  expiredQuotes,
  settlePendingBookingsTask,
} from "./features/booking";
import { staleLoginFailures } from "./features/partners";
import { expiredCardSetupTokens } from "./features/payments";
import { radarPiiRetention, expiredRadarSignals } from "./features/radar";
import { pastNightHolds } from "./features/supply";
import { expiredEvents, webhookReenqueue } from "./features/webhooks";
import { expiredIdempotency } from "./platform/idempotency/idempotency";
import { runUpkeep, type UpkeepTask } from "./platform/upkeep";

/** Every periodic clean-up, run by the Cron Trigger in wrangler.toml. Features export their task; add it here. */
export const upkeepTasks: readonly UpkeepTask[] = [
  expiredQuotes,
  staleLoginFailures,
  expiredCardSetupTokens,
  expiredRadarSignals,
  radarPiiRetention,
  webhookReenqueue,
  expiredEvents,
  expiredIdempotency,
  settlePendingBookingsTask,
  expiredHoldsTask,
  expiredModificationPreviews,
  pastNightHolds,
];

/** The Cron Trigger's handler: every upkeep task, against the time the run was scheduled for. */
export const scheduled: ExportedHandlerScheduledHandler<Env> = async (controller, env) => {
  await runUpkeep(upkeepTasks, env, new Date(controller.scheduledTime));
};
