import { z } from "@hono/zod-openapi";
import { envelopeSchema } from "../../platform/http/envelope";
import { calendarDate, emailSchema, isoDate, timestamp } from "../../platform/http/fields";

export const API_TYPES = ["public", "b2b", "cug", "mobile"] as const;
export const CONNECTION_TYPES = ["direct", "tgx", "metasearch"] as const;

/** The connection record of spec 2.4, as partners (4.10) and operators (4.11) read it. */
export const connectionSchema = z
  .object({
    id: z.string(),
    code: z.number().int(),
    apiType: z.enum(API_TYPES),
    connectionType: z.enum(CONNECTION_TYPES),
    rateName: z.string().nullable(),
    rateLimit: z.number().int(),
    rateLimitWindowMs: z.number().int(),
    netMarkups: z.number(),
    currentInUse: z.boolean(),
    notificationEmail: z.string().nullable(),
    partnerId: z.string(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi("Connection", {
    example: {
      id: "con_3k9d2w",
      code: 1001,
      apiType: "b2b",
      connectionType: "direct",
      rateName: "Demo B2B",
      rateLimit: 100,
      rateLimitWindowMs: 60000,
      netMarkups: 0.1,
      currentInUse: true,
      notificationEmail: "ops@demo.test",
      partnerId: "demo",
      createdAt: "2026-11-02T09:15:00.000Z",
      updatedAt: "2026-11-02T09:15:00.000Z",
    },
  });

export const partnerConnectionParamsSchema = z.object({
  partnerId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "partnerId", in: "path" }, example: "demo" }),
});
export const partnerConnectionIdParamsSchema = partnerConnectionParamsSchema.extend({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "con_3k9d2w" }),
});

export const notificationEmailSchema = z
  .object({ notificationEmail: emailSchema.nullable().optional().openapi({ description: "Absent or null clears it" }) })
  .openapi("NotificationEmailRequest", { example: { notificationEmail: "ops@demo.test" } });

export const connectionResponseSchema = envelopeSchema(connectionSchema).openapi("ConnectionResponse");
export const connectionListResponseSchema = envelopeSchema(z.array(connectionSchema)).openapi("ConnectionListResponse");

// ---- GET /api/partner/usage

export const usageQuerySchema = z.object({
  from: isoDate.openapi({ description: "First UTC day counted (included)", example: "2027-03-01" }),
  to: isoDate.openapi({
    description: "Last UTC day counted (included); at most 92 days after from",
    example: "2027-03-30",
  }),
});

const usageTotalsShape = {
  searches: z.number().int().openapi({ description: "Search calls (any face: REST, Hotel-X REST or GraphQL, chat)" }),
  quotes: z.number().int(),
  books: z.number().int(),
  cancels: z.number().int(),
  outcomes: z.record(z.string(), z.number().int()).openapi({
    description: "Calls per outcome: success, or the error code they were answered with",
    example: { success: 40, invalid_dates: 2, rate_limit_exceeded: 1 },
  }),
  supplierTimeouts: z.number().int().openapi({ description: "Searches in which a supplier did not answer in time" }),
};

export const usageSchema = z
  .object({
    days: z.array(z.object({ date: calendarDate, ...usageTotalsShape })).openapi({
      description: "Every UTC day of the range, in order, zeros included",
    }),
    totals: z.object(usageTotalsShape),
    lookToBook: z.number().nullable().openapi({
      description: "Searches per booking over the range (2 decimals); null when nothing was booked",
      example: 42.5,
    }),
  })
  .openapi("PartnerUsage", {
    example: {
      days: [
        {
          date: "2027-03-01",
          searches: 120,
          quotes: 9,
          books: 3,
          cancels: 1,
          outcomes: { success: 129, invalid_dates: 2, rate_limit_exceeded: 2 },
          supplierTimeouts: 1,
        },
      ],
      totals: {
        searches: 120,
        quotes: 9,
        books: 3,
        cancels: 1,
        outcomes: { success: 129, invalid_dates: 2, rate_limit_exceeded: 2 },
        supplierTimeouts: 1,
      },
      lookToBook: 40,
    },
  });
export const usageResponseSchema = envelopeSchema(usageSchema).openapi("PartnerUsageResponse");
