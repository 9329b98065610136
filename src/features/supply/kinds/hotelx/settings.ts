import { z } from "@hono/zod-openapi";
import { ApiError } from "../../../../platform/http/api-error";
import { currencyCode } from "../../../../platform/http/fields";
import { checkEndpointUrl } from "../../../../platform/http/public-https-url";
import { MAX_SUPPLIER_TIMEOUT_MS } from "../../supplier-deadline";

/** The currency a Hotel-X supplier prices in unless its settings say otherwise. */
export const HOTELX_CURRENCY = "EUR";

/** A Hotel-X supplier's settings (no secrets), apart from its factory so the upstream alias reads them without the client. */
export const hotelxSettings = z.object({
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
export type HotelxSettings = z.infer<typeof hotelxSettings>;
export const hotelxCredentials = z.object({ apiKey: z.string().min(1).max(512) });

/** The URL must be public https (http://127.0.0.1:<port> only in local development). */
export const checkHotelxSettings = (value: HotelxSettings, local: boolean): HotelxSettings => {
  const verdict = checkEndpointUrl(value.url, local);
  if (!verdict.ok) throw new ApiError("invalid_upstream_url", verdict.reason);
  return { ...value, url: verdict.url };
};
