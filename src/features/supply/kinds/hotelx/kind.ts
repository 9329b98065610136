import { z } from "@hono/zod-openapi";
import { ApiError } from "../../../../platform/http/api-error";
import { currencyCode } from "../../../../platform/http/fields";
import { checkEndpointUrl } from "../../../../platform/http/public-https-url";
import { HOTELX_CURRENCY, hotelxSupplier } from "../../hotelx/hotelx-supplier";
import { MAX_SUPPLIER_TIMEOUT_MS } from "../../supplier-deadline";
import type { SupplierKind } from "../kind";

const settings = z.object({
  url: z.string().min(1).max(2048).openapi({ example: "https://api.travelgatex.com" }),
  client: z.string().trim().min(1).max(100).openapi({ example: "edgestay" }),
  context: z.string().trim().min(1).max(100).openapi({ example: "HOTELX" }),
  timeout: z.number().int().min(100).max(MAX_SUPPLIER_TIMEOUT_MS).optional().openapi({
    description:
      "Milliseconds to wait for it when the request names no `settings.timeout` (the deploy's default when absent)",
    example: 4000,
  }),
  currency: currencyCode.default(HOTELX_CURRENCY).openapi({ description: "The currency it prices in (default EUR)" }),
  hotelCodes: z.enum(["identity", "mapped"]).default("mapped").openapi({
    description:
      "`identity`: it is asked for Edgestay's accommodation codes; `mapped` (default): for its own, through the supplier's hotel map",
  }),
  twoStepBooking: z.boolean().default(false).openapi({
    description:
      "It books in two steps (Hotel-X settings.commitRequired, then commit): bookCriteria.hold is sold through it (default false)",
  }),
});
type HotelxSettings = z.infer<typeof settings>;
const credentials = z.object({ apiKey: z.string().min(1).max(512) });

/** A Hotel-X GraphQL supplier (TravelgateX or the sandbox). */
export const hotelxKind: SupplierKind<HotelxSettings, z.infer<typeof credentials>> = {
  kind: "hotelx",
  description: "A Hotel-X GraphQL supplier",
  settings,
  credentials,
  check(value, local) {
    const verdict = checkEndpointUrl(value.url, local);
    if (!verdict.ok) throw new ApiError("invalid_upstream_url", verdict.reason);
    return { ...value, url: verdict.url };
  },
  capabilities: (value) => ({ localWrites: false, twoStepBooking: value.twoStepBooking, modifications: false }),
  create(env, db, stored) {
    if (!stored.credentials) throw new Error(`supplier ${stored.code} has no credentials`);
    return hotelxSupplier(env, db, stored.code, {
      url: stored.settings.url,
      client: stored.settings.client,
      context: stored.settings.context,
      apiKey: stored.credentials.apiKey,
      twoStepBooking: stored.settings.twoStepBooking,
      currency: stored.settings.currency,
      ...(stored.settings.timeout ? { timeoutMs: stored.settings.timeout } : {}),
    });
  },
};
