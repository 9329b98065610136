import { bearerRoute } from "../../platform/auth/bearer";
import { apiRoute, json, jsonRequestBody } from "../../platform/http/api-route";
import { success } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import {
  connectionView,
  getPartnerConnection,
  listPartnerConnections,
  updateNotificationEmail,
} from "./partner-connections";
import {
  connectionListResponseSchema,
  connectionResponseSchema,
  notificationEmailSchema,
  partnerConnectionIdParamsSchema,
  partnerConnectionParamsSchema,
  usageQuerySchema,
  usageResponseSchema,
} from "./schemas";
import { readPartnerUsage } from "./usage";

const bearer = bearerRoute();

// ---- a partner's own connections (4.10; bearer token)

const listConnections = apiRoute({
  operationId: "listPartnerConnections",
  method: "get",
  path: "/api/partners/{partnerId}/connections",
  tags: ["Partner connections"],
  summary: "The partner's connections",
  description: "partnerId: yours (GET /api/users/me); a code is the settings.access.code of booking calls.",
  ...bearer,
  request: { params: partnerConnectionParamsSchema },
  errors: ["other_partner"],
  responses: {
    200: { description: "Connections", ...json(connectionListResponseSchema) },
  },
});
const getConnection = apiRoute({
  operationId: "getPartnerConnection",
  method: "get",
  path: "/api/partners/{partnerId}/connections/{id}",
  tags: ["Partner connections"],
  summary: "One connection",
  description: "partnerId: your own; id: from the connections list.",
  ...bearer,
  request: { params: partnerConnectionIdParamsSchema },
  errors: ["other_partner", "connection_not_found", "connection_of_other_partner"],
  responses: {
    200: { description: "Connection", ...json(connectionResponseSchema) },
  },
});
const setNotificationEmail = apiRoute({
  operationId: "setConnectionNotificationEmail",
  method: "put",
  path: "/api/partners/{partnerId}/connections/{id}/notification-email",
  tags: ["Partner connections"],
  summary: "Set or clear the connection's notification e-mail (partner admin)",
  description: "partnerId: your own; id: from the connections list.",
  ...bearer,
  request: { params: partnerConnectionIdParamsSchema, ...jsonRequestBody(notificationEmailSchema) },
  errors: ["admin_required", "other_partner", "connection_not_found", "connection_of_other_partner"],
  responses: {
    200: { description: "Updated connection", ...json(connectionResponseSchema) },
  },
});

// ---- the partner's usage (bearer token; any role reads it)

const usage = apiRoute({
  operationId: "getPartnerUsage",
  method: "get",
  path: "/api/partner/usage",
  tags: ["Partner connections"],
  summary: "Your searches, quotes, bookings and cancellations per UTC day, by outcome",
  description:
    "from, to: UTC days, both included, at most 92 days. Counts every call of every connection of yours, whichever face it came through (REST, Hotel-X REST or GraphQL, chat); exact, including the last minute's calls.",
  ...bearer,
  request: { query: usageQuerySchema },
  errors: ["invalid_dates"],
  responses: {
    200: { description: "Usage per day, totals and look-to-book", ...json(usageResponseSchema) },
  },
});

export const partnerConnectionRoutes = featureRouter()
  .openapi(listConnections, async (c) => {
    const list = await listPartnerConnections(c.get("db"), c.get("user").partnerId, c.req.valid("param").partnerId);
    return c.json(success(list), 200);
  })
  .openapi(getConnection, async (c) => {
    const { partnerId, id } = c.req.valid("param");
    return c.json(
      success(connectionView(await getPartnerConnection(c.get("db"), c.get("user").partnerId, partnerId, id))),
      200,
    );
  })
  .openapi(setNotificationEmail, async (c) => {
    const { partnerId, id } = c.req.valid("param");
    const email = c.req.valid("json").notificationEmail ?? null;
    return c.json(success(await updateNotificationEmail(c.get("db"), c.get("user"), partnerId, id, email)), 200);
  })
  .openapi(usage, async (c) => {
    const { from, to } = c.req.valid("query");
    return c.json(success(await readPartnerUsage(c.get("db"), c.env, c.get("user").partnerId, from, to)), 200);
  });
