import { expiredQuotes } from "../booking/quote-store";
import { settlePendingBookingsTask } from "../booking/settle-pending";
import { staleLoginFailures } from "../partners/upkeep";
import { expiredCardSetupTokens } from "../payments/upkeep";
import { radarPiiRetention } from "../radar/personal-data";
import { expiredRadarSignals } from "../radar/upkeep";
import { webhookReenqueue } from "../webhooks/events";
import { expiredIdempotency } from "../../platform/idempotency/idempotency";
import type { UpkeepTask } from "../../platform/upkeep";

/** Every periodic clean-up, run by the Cron Trigger in wrangler.toml. Features export their task; add it here. */
export const upkeepTasks: readonly UpkeepTask[] = [
  expiredQuotes,
  staleLoginFailures,
  expiredCardSetupTokens,
  expiredRadarSignals,
  radarPiiRetention,
  webhookReenqueue,
  expiredIdempotency,
  settlePendingBookingsTask,
];
