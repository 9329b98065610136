import type { z } from "@hono/zod-openapi";
import { hotelxCapabilities, hotelxSupplier } from "../../hotelx/hotelx-supplier";
import type { SupplierKind } from "../kind";
import { checkHotelxSettings, hotelxCredentials, hotelxSettings, type HotelxSettings } from "./settings";

/** A Hotel-X GraphQL supplier (TravelgateX or the sandbox). */
export const hotelxKind: SupplierKind<HotelxSettings, z.infer<typeof hotelxCredentials>> = {
  kind: "hotelx",
  description: "A Hotel-X GraphQL supplier",
  settings: hotelxSettings,
  credentials: hotelxCredentials,
  check: checkHotelxSettings,
  capabilities: (value) => hotelxCapabilities(value.twoStepBooking),
  create(env, db, stored) {
    if (!stored.credentials) throw new Error(`supplier ${stored.code} has no credentials`);
    return hotelxSupplier(env, db, stored.code, {
      url: stored.settings.url,
      client: stored.settings.client,
      context: stored.settings.context,
      apiKey: stored.credentials.apiKey,
      twoStepBooking: stored.settings.twoStepBooking,
      currency: stored.settings.currency,
      hotelCodes: stored.settings.hotelCodes,
      ...(stored.settings.timeout ? { timeoutMs: stored.settings.timeout } : {}),
    });
  },
};
