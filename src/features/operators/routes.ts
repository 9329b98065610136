import { apiRoute, json, jsonRequestBody } from "../../platform/http/api-route";
import { operatorAuth, operatorSecurity } from "../../platform/auth/operator";
import { success } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import {
  createConnection,
  deleteConnection,
  getConnection,
  listConnections,
  setConnectionInUse,
  updateConnection,
} from "../connections";
import { purgeLoginFailures } from "../partners";
import { getUpstream, removeUpstream, setUpstream } from "../supply";
import { radarSettingsRequestSchema, radarSettingsResponseSchema, setAllowedOrigins } from "../radar";
import { eraseDataSubject } from "./data-subjects";
import { isLocal } from "../../platform/environment";
import { listPartners, onboardPartner } from "./onboarding";
import {
  connectionIdParamsSchema,
  connectionPageResponseSchema,
  createConnectionSchema,
  createPartnerSchema,
  listConnectionsQuerySchema,
  listPartnersQuerySchema,
  onboardedPartnerResponseSchema,
  operatorConnectionResponseSchema,
  eraseDataSubjectSchema,
  erasureResponseSchema,
  partnerIdParamsSchema,
  partnerPageResponseSchema,
  purgeLoginFailuresSchema,
  purgeResultResponseSchema,
  updateConnectionSchema,
  upstreamRequestSchema,
  upstreamResponseSchema,
} from "./schemas";

const operator = { security: operatorSecurity, middleware: [operatorAuth()] };
const one = { description: "Connection", ...json(operatorConnectionResponseSchema) };

const create = apiRoute({
  operationId: "createConnection",
  method: "post",
  path: "/api/connections",
  tags: ["Operator: connections"],
  summary: "Create a connection; the code is assigned",
  description: "partnerId: from GET /api/partners; the code is the partner's settings.access.code.",
  ...operator,
  request: jsonRequestBody(createConnectionSchema),
  errors: ["partner_not_found", "connection_in_use_conflict"],
  responses: { 201: one },
});
const list = apiRoute({
  operationId: "listConnections",
  method: "get",
  path: "/api/connections",
  tags: ["Operator: connections"],
  summary: "List connections, paged, optionally for one partner",
  description: "An id here is the {id} of the routes below.",
  ...operator,
  request: { query: listConnectionsQuerySchema },
  errors: [],
  responses: {
    200: { description: "One page", ...json(connectionPageResponseSchema) },
  },
});
const read = apiRoute({
  operationId: "getConnection",
  method: "get",
  path: "/api/connections/{id}",
  tags: ["Operator: connections"],
  summary: "Read one connection",
  description: "id: from GET /api/connections.",
  ...operator,
  request: { params: connectionIdParamsSchema },
  errors: ["connection_not_found"],
  responses: { 200: one },
});
const update = apiRoute({
  operationId: "updateConnection",
  method: "patch",
  path: "/api/connections/{id}",
  tags: ["Operator: connections"],
  summary: "Update any of the create fields",
  description: "id: from GET /api/connections; fields left out stay.",
  ...operator,
  request: { params: connectionIdParamsSchema, ...jsonRequestBody(updateConnectionSchema) },
  errors: ["connection_not_found", "partner_not_found", "connection_in_use_conflict"],
  responses: { 200: one },
});
const remove = apiRoute({
  operationId: "deleteConnection",
  method: "delete",
  path: "/api/connections/{id}",
  tags: ["Operator: connections"],
  summary: "Delete a connection; returns what was deleted",
  description: "id: from GET /api/connections.",
  ...operator,
  request: { params: connectionIdParamsSchema },
  errors: ["connection_not_found", "connection_has_bookings"],
  responses: { 200: one },
});
const enable = apiRoute({
  operationId: "enableConnection",
  method: "put",
  path: "/api/connections/{id}/enable",
  tags: ["Operator: connections"],
  summary: "Set currentInUse (one per partner, apiType, connectionType)",
  description: "id: from GET /api/connections; 409 while another of its kind is in use.",
  ...operator,
  request: { params: connectionIdParamsSchema },
  errors: ["connection_not_found", "connection_in_use_conflict"],
  responses: { 200: one },
});
const disable = apiRoute({
  operationId: "disableConnection",
  method: "put",
  path: "/api/connections/{id}/disable",
  tags: ["Operator: connections"],
  summary: "Clear currentInUse",
  description: "id: from GET /api/connections.",
  ...operator,
  request: { params: connectionIdParamsSchema },
  errors: ["connection_not_found"],
  responses: { 200: one },
});
const upstreamOk = { description: "The connection's upstream, credentials masked", ...json(upstreamResponseSchema) };
const putUpstream = apiRoute({
  operationId: "putConnectionUpstream",
  method: "put",
  path: "/api/connections/{id}/upstream",
  tags: ["Operator: connections"],
  summary: "Point a connection at an upstream supplier (Hotel-X); credentials are stored encrypted, never returned",
  description: "id: from GET /api/connections.",
  ...operator,
  request: { params: connectionIdParamsSchema, ...jsonRequestBody(upstreamRequestSchema) },
  errors: ["connection_not_found", "invalid_upstream_url"],
  responses: { 200: upstreamOk },
});
const readUpstream = apiRoute({
  operationId: "getConnectionUpstream",
  method: "get",
  path: "/api/connections/{id}/upstream",
  tags: ["Operator: connections"],
  summary: "Read a connection's upstream, credentials masked",
  description: "id: from GET /api/connections.",
  ...operator,
  request: { params: connectionIdParamsSchema },
  errors: ["connection_not_found", "upstream_not_found"],
  responses: { 200: upstreamOk },
});
const deleteUpstream = apiRoute({
  operationId: "deleteConnectionUpstream",
  method: "delete",
  path: "/api/connections/{id}/upstream",
  tags: ["Operator: connections"],
  summary: "Return the connection to the embedded inventory; answers what was removed",
  description: "id: from GET /api/connections.",
  ...operator,
  request: { params: connectionIdParamsSchema },
  errors: ["connection_not_found", "upstream_not_found"],
  responses: { 200: upstreamOk },
});
const createPartner = apiRoute({
  operationId: "createPartner",
  method: "post",
  path: "/api/partners",
  tags: ["Operator: partners"],
  summary: "Onboard a partner with its first admin, API key and collector key",
  description: "Its admin logs in with POST /api/auth/login.",
  ...operator,
  request: jsonRequestBody(createPartnerSchema),
  errors: ["partner_exists", "conflict"],
  responses: {
    201: { description: "The partner and its keys, shown once", ...json(onboardedPartnerResponseSchema) },
  },
});
const partnerList = apiRoute({
  operationId: "listPartners",
  method: "get",
  path: "/api/partners",
  tags: ["Operator: partners"],
  summary: "List partners, paged",
  description: "An id here is the partnerId of connections and radar settings.",
  ...operator,
  request: { query: listPartnersQuerySchema },
  errors: [],
  responses: { 200: { description: "One page", ...json(partnerPageResponseSchema) } },
});

const purgeFailures = apiRoute({
  operationId: "purgeLoginFailures",
  method: "post",
  path: "/api/operator/login-failures/purge",
  tags: ["Operator: housekeeping"],
  summary: "Delete expired login-failure counters, or unlock one account",
  description: "With email: unlocks that account now.",
  ...operator,
  request: jsonRequestBody(purgeLoginFailuresSchema),
  errors: [],
  responses: {
    200: { description: "How many counters were deleted", ...json(purgeResultResponseSchema) },
  },
});

const radarSettings = apiRoute({
  operationId: "setRadarSettings",
  method: "put",
  path: "/api/partners/{partnerId}/radar-settings",
  tags: ["Operator: partners"],
  summary: "Limit the partner's collector key to listed origins ([] or absent = any origin)",
  description: "partnerId: from GET /api/partners.",
  ...operator,
  request: { params: partnerIdParamsSchema, ...jsonRequestBody(radarSettingsRequestSchema) },
  errors: ["partner_not_found"],
  responses: {
    200: { description: "The partner's radar settings", ...json(radarSettingsResponseSchema) },
  },
});

const eraseSubject = apiRoute({
  operationId: "eraseDataSubject",
  method: "post",
  path: "/api/operator/data-subjects/erase",
  tags: ["Operator: housekeeping"],
  summary: "Erase one person (by e-mail) from radar checks, chat sessions and the bookings they made",
  description: "Answers what was erased, per kind.",
  ...operator,
  request: jsonRequestBody(eraseDataSubjectSchema),
  errors: [],
  responses: {
    200: { description: "What was erased, per kind", ...json(erasureResponseSchema) },
  },
});

export const operatorRoutes = featureRouter()
  .openapi(create, async (c) => c.json(success(await createConnection(c.get("db"), c.req.valid("json"))), 201))
  .openapi(list, async (c) => c.json(success(await listConnections(c.get("db"), c.req.valid("query"))), 200))
  .openapi(read, async (c) => c.json(success(await getConnection(c.get("db"), c.req.valid("param").id)), 200))
  .openapi(update, async (c) =>
    c.json(success(await updateConnection(c.get("db"), c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(remove, async (c) => c.json(success(await deleteConnection(c.get("db"), c.req.valid("param").id)), 200))
  .openapi(enable, async (c) =>
    c.json(success(await setConnectionInUse(c.get("db"), c.req.valid("param").id, true)), 200),
  )
  .openapi(disable, async (c) =>
    c.json(success(await setConnectionInUse(c.get("db"), c.req.valid("param").id, false)), 200),
  )
  .openapi(putUpstream, async (c) => {
    const keys = { credentialsKey: c.env.UPSTREAM_CREDENTIALS_KEY, local: isLocal(c.env) };
    return c.json(success(await setUpstream(c.get("db"), keys, c.req.valid("param").id, c.req.valid("json"))), 200);
  })
  .openapi(readUpstream, async (c) => c.json(success(await getUpstream(c.get("db"), c.req.valid("param").id)), 200))
  .openapi(deleteUpstream, async (c) =>
    c.json(success(await removeUpstream(c.get("db"), c.req.valid("param").id)), 200),
  )
  .openapi(createPartner, async (c) => c.json(success(await onboardPartner(c.get("db"), c.req.valid("json"))), 201))
  .openapi(partnerList, async (c) => c.json(success(await listPartners(c.get("db"), c.req.valid("query"))), 200))
  .openapi(purgeFailures, async (c) => c.json(success(await purgeLoginFailures(c.get("db"), c.req.valid("json"))), 200))
  .openapi(eraseSubject, async (c) =>
    c.json(success({ erased: await eraseDataSubject(c.env, c.req.valid("json").email) }), 200),
  )
  .openapi(radarSettings, async (c) =>
    c.json(
      success(
        await setAllowedOrigins(c.get("db"), c.req.valid("param").partnerId, c.req.valid("json").allowedOrigins ?? []),
      ),
      200,
    ),
  );
