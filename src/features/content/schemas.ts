import { z } from "@hono/zod-openapi";
import { envelopeSchema } from "../../platform/http/envelope";
import { isIsoDatetime } from "../../platform/http/iso-time";

/** Accommodation types the content filter accepts (lower case, as `type` is served). */
export const ACCOMMODATION_TYPES = ["hotel", "resort", "motel", "apartment", "hostel", "guesthouse"] as const;
export const SUPPORTED_COUNTRIES = ["US"] as const;
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 100;

export const contentRequestSchema = z
  .object({
    type: z.string().optional().openapi({ description: `One of ${ACCOMMODATION_TYPES.join(", ")} (case-insensitive)`, example: "hotel" }),
    countries: z.array(z.string()).optional().openapi({ description: "Only US is supported", example: ["US"] }),
    size: z.number().int().min(1).max(MAX_PAGE_SIZE).optional().openapi({ description: `Page size, default ${DEFAULT_PAGE_SIZE}`, example: 100 }),
    changedSince: z
      .string()
      .refine(isIsoDatetime, "expected an ISO 8601 datetime with a zone")
      .optional()
      .openapi({ description: "Only documents updated after this moment, in the order they changed (updatedAt, then code). Use the last updatedAt you received as the next changedSince.", example: "2026-11-01T00:00:00Z" }),
    pageToken: z.string().optional().openapi({ description: "nextPageToken of the previous page" }),
  })
  .openapi("ContentRequest");

const localizedText = z.object({ language: z.string(), region: z.string(), locale: z.string(), content: z.string() });
const languageText = z.object({ language: z.string(), content: z.string() });

export const accommodationContentSchema = z
  .object({
    code: z.string(),
    location: z.tuple([z.number(), z.number()]).openapi({ description: "longitude, latitude" }),
    images: z.array(z.object({ priority: z.number(), thumbnail: z.string(), url: z.string() })),
    contact: z.object({ phone: z.string(), fax: z.string(), email: z.string() }),
    address: z.object({ address: z.string(), city: z.string(), state: z.string(), country: z.string(), postalCode: z.string() }),
    localizedName: z.array(localizedText),
    localizedDescription: z.array(
      z.object({
        language: z.string(),
        region: z.string(),
        locale: z.string(),
        content: z.array(z.object({ type: z.enum(["ADDITIONAL", "GENERAL", "LOCATION", "RESTAURANT", "ROOM"]), content: z.string() })),
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
  .openapi("AccommodationContent");

export type AccommodationContent = z.infer<typeof accommodationContentSchema>;

/** A document as served: the stored section 4.1 document plus when it last changed. */
export const servedAccommodationSchema = accommodationContentSchema
  .extend({ updatedAt: z.string().openapi({ description: "When this document last changed (UTC); content deltas compare changedSince with it" }) })
  .openapi("ServedAccommodationContent");

export const contentPageSchema = z.object({
  type: z.string().nullable().openapi({ description: "The type filter in force, null for all types" }),
  countries: z.array(z.string()),
  size: z.number(),
  changedSince: z.string().nullable().openapi({ description: "The changedSince filter in force (UTC), null for the full list" }),
  hasMore: z.boolean(),
  nextPageToken: z.string().nullable().openapi({ description: "Null on the last page" }),
  accommodations: z.array(servedAccommodationSchema),
});

export const contentResponseSchema = envelopeSchema(contentPageSchema).openapi("ContentResponse");
