import type { z } from "@hono/zod-openapi";
import { apiRoute } from "../../platform/http/api-route";
import { bearerAuth, bearerSecurity, requireAdmin } from "../../platform/auth/bearer";
import { isLocal } from "../../platform/environment";
import { success } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import { listDeliveries, redeliver } from "./deliveries";
import { createWebhook, deleteWebhook, listWebhooks, rotateWebhookSecret } from "./endpoints";
import type { EventCatalogue } from "./catalogue";
import { eventRoutes } from "./event-routes";
import type { WebhookMessage } from "./events";
import {
  type CatalogueSchemas,
  catalogueSchemas,
  deliveriesQuerySchema,
  deliveryParamsSchema,
  webhookIdParamSchema,
} from "./schemas";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });
// Every webhook route is for the partner's admins: endpoints carry where booking data goes.
const admin = { tags: ["Webhooks"], security: bearerSecurity, middleware: [bearerAuth()] };

/** The partner admins' routes, mounted at /api/partner/webhooks. */
const webhookRoutes = ({
  createWebhookSchema,
  createdWebhookResponseSchema,
  webhookListResponseSchema,
  webhookResponseSchema,
  deliveryListResponseSchema,
  deliveryResponseSchema,
}: CatalogueSchemas) => {
  const create = apiRoute({
    operationId: "createWebhook",
    method: "post",
    path: "/",
    ...admin,
    summary: "Register a webhook endpoint (partner admin); the signing secret is shown once",
    description: "Events of the listed types are POSTed to url, signed with the secret (see webhooks).",
    request: { body: { required: true, ...json(createWebhookSchema) } },
    errors: ["admin_required", "invalid_webhook_url", "webhook_limit_reached"],
    responses: {
      201: { description: "Created endpoint with its secret", ...json(createdWebhookResponseSchema) },
    },
  });
  const list = apiRoute({
    operationId: "listWebhooks",
    method: "get",
    path: "/",
    ...admin,
    summary: "The partner's webhook endpoints, without secrets (partner admin)",
    description: "An id here is the {id} of delete and deliveries.",
    errors: ["admin_required"],
    responses: { 200: { description: "Endpoints", ...json(webhookListResponseSchema) } },
  });
  const remove = apiRoute({
    operationId: "deleteWebhook",
    method: "delete",
    path: "/{id}",
    ...admin,
    summary: "Delete a webhook endpoint and its delivery records (partner admin)",
    description: "id: from GET /api/partner/webhooks.",
    request: { params: webhookIdParamSchema },
    errors: ["admin_required", "webhook_not_found"],
    responses: {
      200: { description: "Deleted endpoint", ...json(webhookResponseSchema) },
    },
  });
  const deliveries = apiRoute({
    operationId: "listWebhookDeliveries",
    method: "get",
    path: "/{id}/deliveries",
    ...admin,
    summary: "The endpoint's events: attempts, last status code and next try, newest first (partner admin)",
    description: "id: from GET /api/partner/webhooks.",
    request: { params: webhookIdParamSchema, query: deliveriesQuerySchema },
    errors: ["admin_required", "webhook_not_found", "invalid_cursor"],
    responses: {
      200: { description: "A page of deliveries", ...json(deliveryListResponseSchema) },
    },
  });
  const rotate = apiRoute({
    operationId: "rotateWebhookSecret",
    method: "post",
    path: "/{id}/secret",
    ...admin,
    summary: "Replace the endpoint's signing secret (partner admin); the new one is shown once",
    description:
      "id: from GET /api/partner/webhooks. Every delivery from now on, retries of earlier events included, is signed with the new secret; the old one stops at once.",
    request: { params: webhookIdParamSchema },
    errors: ["admin_required", "webhook_not_found"],
    responses: {
      200: { description: "The endpoint with its new secret", ...json(createdWebhookResponseSchema) },
    },
  });
  const resend = apiRoute({
    operationId: "redeliverWebhookEvent",
    method: "post",
    path: "/{id}/deliveries/{eventId}/redeliver",
    ...admin,
    summary: "Send one event to the endpoint again (partner admin)",
    description: "eventId: from the endpoint's deliveries.",
    request: { params: deliveryParamsSchema },
    errors: ["admin_required", "webhook_not_found", "webhook_event_not_found"],
    responses: {
      202: { description: "Queued again", ...json(deliveryResponseSchema) },
    },
  });

  return featureRouter()
    .openapi(create, async (c) => {
      requireAdmin(c.get("user"));
      const keys = { secretKey: c.env.WEBHOOK_SECRET_KEY, local: isLocal(c.env) };
      return c.json(success(await createWebhook(c.get("db"), keys, c.get("user").partnerId, c.req.valid("json"))), 201);
    })
    .openapi(list, async (c) => {
      requireAdmin(c.get("user"));
      return c.json(success(await listWebhooks(c.get("db"), c.get("user").partnerId)), 200);
    })
    .openapi(remove, async (c) => {
      requireAdmin(c.get("user"));
      return c.json(success(await deleteWebhook(c.get("db"), c.get("user").partnerId, c.req.valid("param").id)), 200);
    })
    .openapi(deliveries, async (c) => {
      requireAdmin(c.get("user"));
      return c.json(
        success(
          await listDeliveries(c.get("db"), c.get("user").partnerId, c.req.valid("param").id, c.req.valid("query")),
        ),
        200,
      );
    })
    .openapi(rotate, async (c) => {
      requireAdmin(c.get("user"));
      const keys = { secretKey: c.env.WEBHOOK_SECRET_KEY };
      return c.json(
        success(await rotateWebhookSecret(c.get("db"), keys, c.get("user").partnerId, c.req.valid("param").id)),
        200,
      );
    })
    .openapi(resend, async (c) => {
      requireAdmin(c.get("user"));
      const { id, eventId } = c.req.valid("param");
      const queue = c.env.WEBHOOK_QUEUE as Queue<WebhookMessage>;
      return c.json(success(await redeliver(c.get("db"), queue, c.get("user").partnerId, id, eventId)), 202);
    });
};

/**
 * Webhooks and the event log for the events of `catalogue` (app.ts gives booking's): the admins'
 * routes (mount at /api/partner/webhooks), GET /api/events (mount at /), and the document's
 * `webhooks`, one per event type.
 */
export const webhooksOf = (catalogue: EventCatalogue) => {
  const schemas = catalogueSchemas(catalogue);
  return { webhookRoutes: webhookRoutes(schemas), eventRoutes: eventRoutes(schemas), webhooks: schemas.webhooks };
};
