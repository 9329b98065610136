import { deleteInBatches, type UpkeepTask } from "../../platform/upkeep";

/** Card-setup tokens past their expiry (spent or not): attach refuses them already. */
export const expiredCardSetupTokens: UpkeepTask = {
  name: "expired_card_setup_tokens",
  run: (env, now) => deleteInBatches(env.DB, "payment_setup_tokens", "expires_at <= ?", [now.getTime()]),
};
