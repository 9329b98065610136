import { z } from "@hono/zod-openapi";
import { envelopeSchema } from "../../platform/http/envelope";
import { currencyCode, emailSchema, timestamp } from "../../platform/http/fields";
import { API_TYPES, CONNECTION_TYPES, connectionSchema } from "../connections";
import { createdApiKeySchema, md5Schema, userProfileSchema } from "../partners";

const MAX_INT = 2_147_483_647;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

const partnerIdField = z.string().trim().min(1).max(64).openapi({ example: "demo" });

/** Spec 2.4 and 4.11: every field validated (enums, numbers >= 0, e-mail). */
export const createConnectionSchema = z
  .object({
    partnerId: partnerIdField,
    apiType: z.enum(API_TYPES),
    connectionType: z.enum(CONNECTION_TYPES),
    rateLimit: z.number().int().min(0).max(MAX_INT).openapi({ example: 600 }),
    rateLimitWindowMs: z.number().int().min(0).max(MAX_INT).openapi({ example: 60000 }),
    netMarkups: z.number().min(0).max(1_000_000).openapi({ example: 0 }),
    rateName: z.string().trim().min(1).max(100).nullable().optional(),
    notificationEmail: emailSchema.nullable().optional(),
    currentInUse: z.boolean().optional(),
    currency: currencyCode.optional().openapi({
      description: "The selling currency: every answer is in it unless the request names another (default USD)",
    }),
  })
  .openapi("CreateConnectionRequest", {
    example: {
      partnerId: "demo",
      apiType: "b2b",
      connectionType: "direct",
      rateLimit: 600,
      rateLimitWindowMs: 60000,
      netMarkups: 0,
      rateName: "Demo B2B",
      notificationEmail: "ops@demo.test",
    },
  });

/** PATCH takes any of the create fields; null clears rateName or notificationEmail. */
export const updateConnectionSchema = createConnectionSchema
  .partial()
  .openapi("UpdateConnectionRequest", { example: { rateLimit: 1200, notificationEmail: null } });

const pageQuery = {
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(1)
    .openapi({ param: { name: "page", in: "query" }, example: 1 }),
  size: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(DEFAULT_PAGE_SIZE)
    .openapi({ param: { name: "size", in: "query" }, example: 20 }),
};

export const listConnectionsQuerySchema = z.object({
  ...pageQuery,
  partnerId: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ param: { name: "partnerId", in: "query" }, example: "demo" }),
});
export const listPartnersQuerySchema = z.object(pageQuery);

export const partnerIdParamsSchema = z.object({
  partnerId: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "partnerId", in: "path" }, example: "demo" }),
});
export const connectionIdParamsSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "con_3k9d2w" }),
});

const paginationSchema = z
  .object({ page: z.number(), size: z.number(), total: z.number(), totalPages: z.number() })
  .openapi("Pagination", { example: { page: 1, size: 20, total: 1, totalPages: 1 } });

export const connectionPageResponseSchema = envelopeSchema(
  z.object({ items: z.array(connectionSchema), pagination: paginationSchema }),
).openapi("ConnectionPageResponse");
export const operatorConnectionResponseSchema = envelopeSchema(connectionSchema).openapi("OperatorConnectionResponse");

// ---- partners (onboarding)

export const partnerSchema = z
  .object({ id: z.string(), name: z.string(), isActive: z.boolean(), createdAt: timestamp, updatedAt: timestamp })
  .openapi("Partner", {
    example: {
      id: "acme-travel",
      name: "Acme Travel",
      isActive: true,
      createdAt: "2026-11-02T09:15:00.000Z",
      updatedAt: "2026-11-02T09:15:00.000Z",
    },
  });

export const createPartnerSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "must be 2 to 63 lower-case letters, digits or hyphens")
      .optional()
      .openapi({ description: "Chosen partner id; generated when absent", example: "acme-travel" }),
    name: z.string().trim().min(1).max(200).openapi({ example: "Acme Travel" }),
    admin: z.object({
      email: emailSchema,
      password: md5Schema,
      firstName: z.string().trim().min(1).max(100).optional(),
      lastName: z.string().trim().min(1).max(100).optional(),
      phoneNumber: z
        .string()
        .trim()
        .regex(/^\+?[0-9 ()-]{4,32}$/, "must be a phone number")
        .optional(),
    }),
    apiKeyName: z.string().trim().min(1).max(100).optional(),
  })
  .openapi("CreatePartnerRequest", {
    example: {
      id: "acme-travel",
      name: "Acme Travel",
      admin: { email: "admin@acme.example", password: "4b4d9529148d8d9440d7e20c78287f69", firstName: "Ada" },
      apiKeyName: "booking server",
    },
  });

export const onboardedPartnerResponseSchema = envelopeSchema(
  z.object({
    partner: partnerSchema,
    admin: userProfileSchema,
    apiKey: createdApiKeySchema,
    collectorKey: z.string().openapi({
      description: "Radar collector key, shown only in this response",
      example: "rck_9Hq2Lm5Np8Rs1Tv4Wx7Yz0Ab3Cd6Ef",
    }),
  }),
).openapi("OnboardedPartnerResponse");

export const partnerPageResponseSchema = envelopeSchema(
  z.object({ items: z.array(partnerSchema), pagination: paginationSchema }),
).openapi("PartnerPageResponse");

export const purgeLoginFailuresSchema = z
  .object({
    email: emailSchema
      .optional()
      .openapi({ description: "Unlock this account now; without it, purge expired counters" }),
  })
  .openapi("PurgeLoginFailuresRequest", { example: { email: "jane@demo.test" } });

export const purgeResultResponseSchema = envelopeSchema(
  z.object({ deleted: z.number().openapi({ example: 1 }) }),
).openapi("PurgeResultResponse");

export const eraseDataSubjectSchema = z
  .object({ email: emailSchema })
  .openapi("EraseDataSubjectRequest", { example: { email: "jane@demo.test" } });

export const erasureResponseSchema = envelopeSchema(
  z.object({
    erased: z
      .object({
        radarChecks: z
          .number()
          .int()
          .openapi({ description: "Radar checks whose names, e-mail, phone, IP and street address were erased" }),
        chatSessions: z.number().int().openapi({ description: "Chat sessions whose guest names were erased" }),
        bookings: z
          .number()
          .int()
          .openapi({ description: "Bookings (made through those chat sessions) whose holder names were erased" }),
      })
      .openapi({ example: { radarChecks: 2, chatSessions: 1, bookings: 1 } }),
  }),
).openapi("Erasure");

// ---- connection upstreams (issue 18)

export const UPSTREAM_KINDS = ["hotelx"] as const;

export const upstreamRequestSchema = z
  .object({
    kind: z.enum(UPSTREAM_KINDS),
    url: z.string().min(1).max(2048).openapi({ example: "https://api.travelgatex.com" }),
    client: z.string().trim().min(1).max(100).openapi({ example: "edgestay" }),
    context: z.string().trim().min(1).max(100).openapi({ example: "HOTELX" }),
    credentials: z.object({ apiKey: z.string().min(1).max(512) }),
    withEmbedded: z.boolean().optional().openapi({ description: "Sell the embedded inventory beside the upstream" }),
    twoStepBooking: z.boolean().optional().openapi({
      description:
        "The supplier behind the access books in two steps (Hotel-X settings.commitRequired, then commit): bookCriteria.hold is sold on this connection, otherwise refused with 409 hold_not_supported (default false)",
    }),
  })
  .openapi("ConnectionUpstreamRequest", {
    example: {
      kind: "hotelx",
      url: "https://api.travelgatex.com",
      client: "edgestay",
      context: "HOTELX",
      credentials: { apiKey: "supplier-api-key" },
      withEmbedded: false,
      twoStepBooking: true,
    },
  });

export const upstreamSchema = z
  .object({
    connectionId: z.string(),
    kind: z.enum(UPSTREAM_KINDS),
    url: z.string(),
    client: z.string(),
    context: z.string(),
    credentials: z.object({ apiKey: z.string().openapi({ description: "Always masked", example: "********" }) }),
    withEmbedded: z.boolean(),
    twoStepBooking: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi("ConnectionUpstream", {
    example: {
      connectionId: "con_demo_hotelx",
      kind: "hotelx",
      url: "https://api.travelgatex.com",
      client: "edgestay",
      context: "HOTELX",
      credentials: { apiKey: "********" },
      withEmbedded: false,
      twoStepBooking: true,
      createdAt: "2026-11-24T09:00:00.000Z",
      updatedAt: "2026-11-24T09:00:00.000Z",
    },
  });
export const upstreamResponseSchema = envelopeSchema(upstreamSchema).openapi("ConnectionUpstreamResponse");
