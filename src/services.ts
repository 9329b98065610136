import { bookingDeps } from "./features/booking";
import type { AfterAnswer, Services } from "./platform/app-env";
import { signingKeys } from "./platform/config/secrets";

/** Every feature's per-request services, each made on first use. */
export const requestServices = (env: Env, afterAnswer?: AfterAnswer): Services => {
  let pageKeys: Services["pageKeys"] | undefined;
  let jwtKeys: Services["jwtKeys"] | undefined;
  let booking: Services["booking"] | undefined;
  return {
    get pageKeys() {
      pageKeys ??= signingKeys(env, "PAGE_TOKEN_SECRET");
      return pageKeys;
    },
    get jwtKeys() {
      jwtKeys ??= signingKeys(env, "JWT_SECRET");
      return jwtKeys;
    },
    get booking() {
      booking ??= bookingDeps(env, afterAnswer);
      return booking;
    },
  };
};
