import { z } from "@hono/zod-openapi";
import { envelopeSchema } from "../../platform/http/envelope";

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

export const contentPageSchema = z.object({
  type: z.string().nullable().openapi({ description: "The type filter in force, null for all types" }),
  countries: z.array(z.string()),
  size: z.number(),
  hasMore: z.boolean(),
  nextPageToken: z.string().nullable().openapi({ description: "Null on the last page" }),
  accommodations: z.array(accommodationContentSchema),
});

export const contentResponseSchema = envelopeSchema(contentPageSchema).openapi("ContentResponse");
