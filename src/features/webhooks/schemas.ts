import { z } from "@hono/zod-openapi";
import { timestamp } from "../../platform/http/fields";
import { envelopeSchema } from "../../platform/http/envelope";
import type { RouteConfig } from "@hono/zod-openapi";
import { EVENT_RETENTION_DAYS } from "./event-log";
import { EVENT_ID_HEADER, SIGNATURE_HEADER } from "./signature";
import { type EventCatalogue, type EventDeclaration, eventTypesOf } from "./catalogue";

export const MAX_DELIVERY_PAGE = 100;

const webhookId = z.string().min(1).max(100).openapi({ example: "wh_6f1c0a9e2b7d4c3a8e5f0b1d2c3a4e5f" });
export const webhookIdParamSchema = z.object({ id: webhookId });
export const deliveryParamsSchema = z.object({
  id: webhookId,
  eventId: z.string().min(1).max(100).openapi({ example: "evt_0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f" }),
});

export const deliveriesQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_DELIVERY_PAGE)
    .default(20)
    .openapi({ description: "1 to 100, default 20", example: 20 }),
  cursor: z.string().min(1).max(500).optional().openapi({
    description: "nextCursor of the previous page",
    example: "WyIyMDI2LTExLTAyVDA5OjE1OjAwLjAwMFoiLCJldnRfMGMxZDJlM2Y0YTViNmM3ZDhlOWYwYTFiMmMzZDRlNWYiXQ",
  }),
});

export const MAX_EVENT_PAGE = 500;
export const DEFAULT_EVENT_PAGE = 100;

const eventExample = {
  id: "evt_0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f",
  sequence: 42,
  type: "booking.cancelled",
  createdAt: "2026-11-02T09:15:00.000Z",
  bookingReference: "BKQ7W2E9R4T6Y1U3",
  partnerReference: "PARTNER-REF-1001",
  data: {
    bookingReference: "BKQ7W2E9R4T6Y1U3",
    partnerReference: "PARTNER-REF-1001",
    status: "cancelled",
    chargeTotal: 240.5,
    currency: "USD",
    accommodationCode: "US000001",
    checkIn: "2026-12-01",
    checkOut: "2026-12-03",
    rate: { currency: "USD", chargeTotal: 240.5 },
    cancelPrice: 0,
  },
} as const;

const deliveryHeaders = z.object({
  [SIGNATURE_HEADER]: z.string().openapi({
    description: 't=<unix seconds>,v1=<hex HMAC-SHA-256 of "<t>.<raw body>"> keyed with your secret; refuse an old t',
    example: "t=1793610900,v1=5d3c0f2a9b8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a392817069f5e",
  }),
  [EVENT_ID_HEADER]: z
    .string()
    .openapi({ description: "The event's id: a retry repeats it", example: eventExample.id }),
});

/**
 * A webhook of the document (OpenAPI 3.1 `webhooks`): what delivery.ts POSTs to an endpoint subscribed
 * to `type`, the event with the `data` its catalogue entry declares.
 */
const webhookOf = (eventSchema: z.ZodObject, type: string, declared: EventDeclaration): RouteConfig => ({
  method: "post",
  path: type,
  operationId: type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase()),
  tags: ["Webhooks"],
  summary: `${type} to your endpoint`,
  description: declared.description,
  security: [],
  request: {
    headers: deliveryHeaders,
    body: {
      required: true,
      content: {
        "application/json": {
          // Its own example: the extension would show the Event's, whose data is abbreviated.
          schema: eventSchema.extend({ type: z.literal(type), data: declared.payload }).openapi({
            example: { ...eventExample, ...declared.example, type, data: declared.example },
          }),
        },
      },
    },
  },
  responses: {
    "2XX": { description: "Delivered" },
    "4XX": { description: "Refused: sent again later, as on any answer but 2XX" },
  },
});

/**
 * The schemas whose event types come from the catalogue `app.ts` gives webhooks: subscriptions, the
 * deliveries and the event log list and filter its names, and the document's `webhooks` show each
 * entry. Built once, at start-up (`webhooksOf`).
 */
export const catalogueSchemas = (catalogue: EventCatalogue) => {
  const types = eventTypesOf(catalogue);
  // Every event of today's catalogue is about a booking; one declared withoutBooking makes it nullable.
  const bookingReference = Object.values(catalogue).some((declared) => declared.withoutBooking)
    ? z.string().nullable()
    : z.string();

  const createWebhookSchema = z
    .object({
      url: z.string().min(1).max(2048).openapi({ example: "https://partner.example/edgestay/webhooks" }),
      events: z
        .array(z.enum(types))
        .min(1)
        .max(types.length)
        .refine((list) => new Set(list).size === list.length, "must not repeat an event type")
        .openapi({ example: ["booking.confirmed", "booking.cancelled"] }),
    })
    .openapi("CreateWebhookRequest", {
      example: { url: "https://partner.example/edgestay/webhooks", events: ["booking.confirmed", "booking.cancelled"] },
    });

  const webhookSchema = z
    .object({
      id: z.string().openapi({ example: "wh_6f1c0a9e2b7d4c3a8e5f0b1d2c3a4e5f" }),
      url: z.string(),
      events: z.array(z.enum(types)),
      createdAt: timestamp,
    })
    .openapi("Webhook", {
      example: {
        id: "wh_6f1c0a9e2b7d4c3a8e5f0b1d2c3a4e5f",
        url: "https://partner.example/edgestay/webhooks",
        events: ["booking.confirmed", "booking.cancelled"],
        createdAt: "2026-11-02T09:15:00.000Z",
      },
    });

  const createdWebhookSchema = webhookSchema
    .extend({
      secret: z.string().openapi({ description: "Signing secret, shown in this response only", example: "whsec_Zx3…" }),
    })
    .openapi("CreatedWebhook", {
      example: {
        id: "wh_6f1c0a9e2b7d4c3a8e5f0b1d2c3a4e5f",
        url: "https://partner.example/edgestay/webhooks",
        events: ["booking.confirmed", "booking.cancelled"],
        createdAt: "2026-11-02T09:15:00.000Z",
        secret: "whsec_Zx3kP9qR2sT5vW8yA1bC4dE7fG0hJ3kL",
      },
    });

  const deliverySchema = z
    .object({
      eventId: z.string().openapi({ example: "evt_0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f" }),
      type: z.enum(types),
      bookingReference,
      status: z
        .enum(["pending", "delivered", "failed"])
        .openapi({ description: "failed: retries exhausted, parked in the dead-letter queue" }),
      attempts: z.number().int(),
      lastStatusCode: z
        .number()
        .int()
        .nullable()
        .openapi({ description: "HTTP status of the last attempt; null before any answer (or on timeout)" }),
      lastError: z.string().nullable(),
      lastAttemptAt: timestamp.nullable(),
      nextAttemptAt: timestamp
        .nullable()
        .openapi({ description: "When the next attempt is due; null once delivered or failed" }),
      deliveredAt: timestamp.nullable(),
      createdAt: timestamp,
    })
    .openapi("WebhookDelivery", {
      example: {
        eventId: "evt_0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f",
        type: "booking.confirmed",
        bookingReference: "BKQ7W2E9R4T6Y1U3",
        status: "delivered",
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        lastAttemptAt: "2026-11-02T09:15:01.000Z",
        nextAttemptAt: null,
        deliveredAt: "2026-11-02T09:15:01.000Z",
        createdAt: "2026-11-02T09:15:00.000Z",
      },
    });

  const webhookResponseSchema = envelopeSchema(webhookSchema);
  const createdWebhookResponseSchema = envelopeSchema(createdWebhookSchema);
  const webhookListResponseSchema = envelopeSchema(z.array(webhookSchema));
  const deliveryListResponseSchema = envelopeSchema(
    z.object({ deliveries: z.array(deliverySchema), nextCursor: z.string().nullable().openapi({ example: null }) }),
  );
  const deliveryResponseSchema = envelopeSchema(deliverySchema);

  const eventSchema = z
    .object({
      id: z.string().openapi({ description: "Unique; also the Edgestay-Event-Id header of its webhook deliveries" }),
      sequence: z.number().int().positive().openapi({
        description:
          "Strictly increasing per partner with no gaps: a reader who has seen n has seen every event below n",
      }),
      type: z.enum(types),
      createdAt: timestamp,
      bookingReference,
      partnerReference: z.string(),
      data: z.record(z.string(), z.unknown()).openapi({
        description: "The booking after the change: its type's webhook shows it",
      }),
    })
    .openapi("Event", { example: eventExample });

  const typesParam = z
    .string()
    .min(1)
    .max(500)
    .refine(
      (value) => value.split(",").every((type) => (types as readonly string[]).includes(type.trim())),
      `expected a comma-separated list of ${types.join(", ")}`,
    )
    .optional()
    .openapi({
      description: "Only these types (comma-separated); absent: every type",
      example: "booking.confirmed,booking.cancelled",
    });

  const eventsQuerySchema = z.object({
    after: z
      .string()
      .regex(/^(0|[1-9][0-9]{0,14})$/, "expected a cursor: the nextCursor of a page read, or 0 for the first event")
      .optional()
      .openapi({
        description: `Lists events after this one: the nextCursor of a page read (the sequence of its last event), or 0 for the first event ever; absent: from the oldest event kept (${EVENT_RETENTION_DAYS} days)`,
        example: "41",
      }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_EVENT_PAGE)
      .default(DEFAULT_EVENT_PAGE)
      .openapi({ type: "integer", description: `1 to ${MAX_EVENT_PAGE}, default ${DEFAULT_EVENT_PAGE}`, example: 100 }),
    types: typesParam,
    bookingReference: z.string().min(1).max(100).optional().openapi({
      description: "Only this booking's events (its bookingReference); the cursor and sequences stay the log's",
      example: "BKFGEOEIKMQZYK4POB5HFF",
    }),
  });

  const eventPageSchema = z
    .object({
      events: z.array(eventSchema).openapi({ description: "Oldest first (by sequence)" }),
      nextCursor: z.string().openapi({
        description:
          "Pass as after to read on: the sequence of the last event listed, or the after sent when none was; never null, so a reader polls with it",
      }),
      hasMore: z
        .boolean()
        .openapi({ description: "More events follow already; false: this is the end of the log for now" }),
    })
    .openapi("EventPage", { example: { events: [eventExample], nextCursor: "42", hasMore: false } });

  const eventPageResponseSchema = envelopeSchema(eventPageSchema).openapi("EventPageResponse");

  return {
    createWebhookSchema,
    webhookResponseSchema,
    createdWebhookResponseSchema,
    webhookListResponseSchema,
    deliverySchema,
    deliveryListResponseSchema,
    deliveryResponseSchema,
    eventsQuerySchema,
    eventPageResponseSchema,
    webhooks: Object.entries(catalogue).map(([type, declared]) => webhookOf(eventSchema, type, declared)),
  };
};

export type CatalogueSchemas = ReturnType<typeof catalogueSchemas>;
export type CreateWebhook = z.infer<CatalogueSchemas["createWebhookSchema"]>;
export type WebhookDelivery = z.infer<CatalogueSchemas["deliverySchema"]>;
