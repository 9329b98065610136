import { runUpkeep } from "../../platform/upkeep";
import { upkeepTasks } from "./tasks";

/** The Cron Trigger's handler: every upkeep task, against the time the run was scheduled for. */
export const scheduled: ExportedHandlerScheduledHandler<Env> = async (controller, env) => {
  await runUpkeep(upkeepTasks, env, new Date(controller.scheduledTime));
};
