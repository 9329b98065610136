import { z } from "@hono/zod-openapi";
import { envelopeSchema } from "../../platform/http/envelope";
import { isoDatetime, timestamp } from "../../platform/http/fields";
import { servedFeesSchema } from "./fees";

const FEES_EXAMPLE = {
  currency: "USD",
  mandatory: [
    {
      type: "TAX" as const,
      code: "STATE_SALES_TAX",
      description: "State sales tax",
      basis: "PERCENT_OF_BASE" as const,
      value: 5,
      included: true,
    },
    {
      type: "TAX" as const,
      code: "CITY_OCCUPANCY_TAX",
      description: "City occupancy tax",
      basis: "PERCENT_OF_BASE" as const,
      value: 5,
      included: true,
    },
  ],
  optional: [],
};

/** Accommodation types the content filter accepts (lower case, as `type` is served). */
export const ACCOMMODATION_TYPES = ["hotel", "resort", "motel", "apartment", "hostel", "guesthouse"] as const;
export const SUPPORTED_COUNTRIES = ["US"] as const;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 100;

export const contentRequestSchema = z
  .object({
    type: z
      .string()
      .optional()
      .openapi({ description: `One of ${ACCOMMODATION_TYPES.join(", ")} (case-insensitive)`, example: "hotel" }),
    countries: z
      .array(z.string())
      .optional()
      .openapi({ description: "Only US is supported", example: ["US"] }),
    size: z
      .number()
      .int()
      .min(1)
      .max(MAX_PAGE_SIZE)
      .optional()
      .openapi({ description: `Page size, default ${DEFAULT_PAGE_SIZE}`, example: 100 }),
    changedSince: isoDatetime.optional().openapi({
      description:
        "Only documents updated after this moment, in the order they changed (updatedAt, then code). Use the last updatedAt you received as the next changedSince.",
      example: "2026-11-01T00:00:00Z",
    }),
    pageToken: z.string().optional().openapi({ description: "nextPageToken of the previous page" }),
  })
  .openapi("ContentRequest");

/** One accommodation's content document, from the demo data (one entry per list), for the reference. */
export const accommodationContentExample = {
  code: "US000001",
  location: [-76.245643, 36.836137] as [number, number],
  images: [
    {
      priority: 1,
      thumbnail: "https://images.example.com/accommodations/US000001/1-thumb.jpg",
      url: "https://images.example.com/accommodations/US000001/1.jpg",
    },
  ],
  contact: { phone: "(416) 574-5574", fax: "(854) 331-7192", email: "reservations@midtown-norfolk-suites.example.com" },
  address: { address: "24702 Cloyd Alley", city: "Norfolk", state: "VA", country: "US", postalCode: "24328" },
  localizedName: [{ language: "en", region: "US", locale: "en-US", content: "Midtown Norfolk Suites" }],
  localizedDescription: [
    {
      language: "en",
      region: "US",
      locale: "en-US",
      content: [
        {
          type: "GENERAL" as const,
          content: "<p>Midtown Norfolk Suites is a 4-star hotel in Norfolk, VA, with 504 rooms over 21 floors.</p>",
        },
      ],
    },
  ],
  type: "hotel" as const,
  amenities: ["Parking"],
  timezone: "America/New_York",
  checkInPolicy: {
    checkInFrom: "16:00",
    checkInUntil: "23:59",
    checkOutFrom: "06:00",
    checkOutUntil: "11:00",
    minAge: 21,
    checkinInstructions: [
      { language: "en", region: "US", locale: "en-US", content: "<p>Check in at the front desk from 16:00.</p>" },
    ],
    checkinSpecialInstructions: [
      { language: "en", content: "Late arrivals after 23:00 should contact the property in advance." },
    ],
    checkoutSpecialInstructions: [{ language: "en", content: "Please return keys at the front desk by 11:00." }],
  },
  starRating: 4,
};

const localizedText = z.object({ language: z.string(), region: z.string(), locale: z.string(), content: z.string() });
const languageText = z.object({ language: z.string(), content: z.string() });

export const accommodationContentSchema = z
  .object({
    code: z.string(),
    // Exactly two numbers: a tuple alone is prefixItems (JSON Schema 2020-12), which lets extra
    // items through and which draft-7 validators (Prism) ignore; the bounds and items say it to both.
    location: z
      .tuple([z.number(), z.number()])
      .openapi({ description: "longitude, latitude", minItems: 2, maxItems: 2, items: { type: "number" } }),
    images: z.array(z.object({ priority: z.number(), thumbnail: z.string(), url: z.string() })),
    contact: z.object({ phone: z.string(), fax: z.string(), email: z.string() }),
    address: z.object({
      address: z.string(),
      city: z.string(),
      state: z.string(),
      country: z.string(),
      postalCode: z.string(),
    }),
    localizedName: z.array(localizedText),
    localizedDescription: z.array(
      z.object({
        language: z.string(),
        region: z.string(),
        locale: z.string(),
        content: z.array(
          z.object({ type: z.enum(["ADDITIONAL", "GENERAL", "LOCATION", "RESTAURANT", "ROOM"]), content: z.string() }),
        ),
      }),
    ),
    type: z.enum(ACCOMMODATION_TYPES),
    amenities: z.array(z.string()),
    timezone: z.string(),
    checkInPolicy: z.object({
      checkInFrom: z.string(),
      checkInUntil: z.string(),
      checkOutFrom: z.string(),
      checkOutUntil: z.string(),
      minAge: z.number(),
      checkinInstructions: z.array(localizedText),
      checkinSpecialInstructions: z.array(languageText),
      checkoutSpecialInstructions: z.array(languageText),
    }),
    starRating: z.number(),
  })
  .openapi("AccommodationContent", { example: accommodationContentExample });

export type AccommodationContent = z.infer<typeof accommodationContentSchema>;

/** A document as served: the stored section 4.1 document plus when it last changed. */
export const servedAccommodationSchema = accommodationContentSchema
  .extend({
    fees: servedFeesSchema,
    updatedAt: timestamp.openapi({
      description: "When this document last changed (UTC); content deltas compare changedSince with it",
    }),
  })
  .openapi("ServedAccommodationContent", {
    example: { ...accommodationContentExample, fees: FEES_EXAMPLE, updatedAt: "2026-11-02T09:15:00.000Z" },
  });

export const contentPageSchema = z
  .object({
    type: z.string().nullable().openapi({ description: "The type filter in force, null for all types" }),
    countries: z.array(z.string()),
    size: z.number(),
    changedSince: timestamp
      .nullable()
      .openapi({ description: "The changedSince filter in force (UTC), null for the full list" }),
    hasMore: z.boolean(),
    nextPageToken: z.string().nullable().openapi({ description: "Null on the last page" }),
    accommodations: z.array(servedAccommodationSchema),
  })
  .openapi({
    example: {
      type: null,
      countries: ["US"],
      size: 1,
      changedSince: null,
      hasMore: true,
      nextPageToken:
        "eyJ2IjoxLCJwIjoiZGVtbyIsInQiOm51bGwsImMiOlsiVVMiXSwicyI6MSwiYSI6IlVTMDAwMDAxIn0.o1h0dYJ2VRfo6dHnmbWFMfXqnUtGswz1anmSp8Mg31c",
      accommodations: [{ ...accommodationContentExample, fees: FEES_EXAMPLE, updatedAt: "2026-11-02T09:15:00.000Z" }],
    },
  });

export const contentResponseSchema = envelopeSchema(contentPageSchema).openapi("ContentResponse");
