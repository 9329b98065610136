import { database } from "../../platform/db/client";
import type { UpkeepTask } from "../../platform/upkeep";
import { purgeLoginFailures } from "./login";

/** Login failure counters whose window and lock have both run out: they no longer affect any login. */
export const staleLoginFailures: UpkeepTask = {
  name: "stale_login_failures",
  run: async (env, now) => (await purgeLoginFailures(database(env.DB), {}, now.getTime())).deleted,
};
