import { apiRoute, json, jsonRequestBody } from "../../platform/http/api-route";
import { bearerRoute, requireAdmin } from "../../platform/auth/bearer";
import { success } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import { createApiKey, listApiKeys, revokeApiKey } from "./api-keys";
import { clientIp, login } from "./login";
import {
  activeStatusSchema,
  apiKeyListResponseSchema,
  apiKeyResponseSchema,
  createApiKeySchema,
  createdApiKeyResponseSchema,
  createUserSchema,
  emptyResponseSchema,
  apiKeyIdParamSchema,
  userIdParamSchema,
  loginRequestSchema,
  loginResponseSchema,
  userListResponseSchema,
  userResponseSchema,
} from "./schemas";
import { createPartnerUser, deletePartnerUser, getOwnProfile, listPartnerUsers, setUserActiveStatus } from "./users";

const bearer = bearerRoute();

// ---- login

const loginRoute = apiRoute({
  operationId: "login",
  security: [],
  method: "post",
  path: "/api/auth/login",
  tags: ["Auth"],
  summary: "Exchange e-mail and MD5 password for a bearer token (1 hour)",
  description: "The Bearer token of the partner-admin routes; booking takes the api-key.",
  request: jsonRequestBody(loginRequestSchema),
  errors: ["invalid_credentials", "unsupported_account_type", "user_inactive", "login_locked", "login_slowed"],
  responses: {
    200: { description: "Access token", ...json(loginResponseSchema) },
  },
});

// ---- users

const me = apiRoute({
  operationId: "getOwnProfile",
  method: "get",
  path: "/api/users/me",
  tags: ["Users"],
  summary: "The caller's profile",
  description: "Whom the bearer token names.",
  ...bearer,
  errors: ["user_not_found"],
  responses: { 200: { description: "Profile", ...json(userResponseSchema) } },
});
const listUsers = apiRoute({
  operationId: "listUsers",
  method: "get",
  path: "/api/users",
  tags: ["Users"],
  summary: "All users of the caller's partner",
  description: "An id here is the {id} of delete and active-status.",
  ...bearer,
  errors: [],
  responses: { 200: { description: "Users", ...json(userListResponseSchema) } },
});
const createUser = apiRoute({
  operationId: "createUser",
  method: "post",
  path: "/api/users",
  tags: ["Users"],
  summary: "Create a user (partner admin)",
  description: "The user logs in with POST /api/auth/login.",
  ...bearer,
  request: jsonRequestBody(createUserSchema),
  errors: ["admin_required", "conflict"],
  responses: {
    201: { description: "Created user", ...json(userResponseSchema) },
  },
});
const deleteUser = apiRoute({
  operationId: "deleteUser",
  method: "delete",
  path: "/api/users/{id}",
  tags: ["Users"],
  summary: "Delete a user of the caller's partner, admins included (partner admin)",
  description: "id: from GET /api/users. Never oneself, never the partner's last active admin (409 last_admin).",
  ...bearer,
  request: { params: userIdParamSchema },
  errors: ["admin_required", "user_not_found", "other_partner", "cannot_delete_self", "last_admin"],
  responses: { 200: { description: "Deleted", ...json(emptyResponseSchema) } },
});
const activeStatus = apiRoute({
  operationId: "setUserActiveStatus",
  method: "post",
  path: "/api/users/{id}/active-status",
  tags: ["Users"],
  summary: "Activate or deactivate a user of role user (partner admin)",
  description: "id: from GET /api/users; an inactive user's tokens stop at once.",
  ...bearer,
  request: { params: userIdParamSchema, ...jsonRequestBody(activeStatusSchema) },
  errors: ["admin_required", "user_not_found", "other_partner", "target_is_admin"],
  responses: {
    200: { description: "Updated user", ...json(userResponseSchema) },
  },
});

// ---- API keys

const listKeys = apiRoute({
  operationId: "listApiKeys",
  method: "get",
  path: "/api/partner/api-keys",
  tags: ["API keys"],
  summary: "The partner's API keys, masked",
  description: "An id here is the {id} to revoke.",
  ...bearer,
  errors: [],
  responses: { 200: { description: "Keys", ...json(apiKeyListResponseSchema) } },
});
const createKey = apiRoute({
  operationId: "createApiKey",
  method: "post",
  path: "/api/partner/api-keys",
  tags: ["API keys"],
  summary: "Create an API key (partner admin); the full key is shown once",
  description: "A key for the api-key header of the booking API.",
  ...bearer,
  request: jsonRequestBody(createApiKeySchema),
  errors: ["admin_required"],
  responses: {
    201: { description: "Created key", ...json(createdApiKeyResponseSchema) },
  },
});
const revokeKey = apiRoute({
  operationId: "revokeApiKey",
  method: "delete",
  path: "/api/partner/api-keys/{id}",
  tags: ["API keys"],
  summary: "Revoke an API key (partner admin)",
  description: "id: from GET /api/partner/api-keys.",
  ...bearer,
  request: { params: apiKeyIdParamSchema },
  errors: ["admin_required", "api_key_not_found"],
  responses: { 200: { description: "Revoked key", ...json(apiKeyResponseSchema) } },
});

export const partnerRoutes = featureRouter()
  .openapi(loginRoute, async (c) => {
    const token = await login(c.get("db"), c.get("services").jwtKeys, c.req.valid("json"), clientIp(c.req.raw));
    return c.json(success({ token }), 200);
  })
  .openapi(me, async (c) => c.json(success(await getOwnProfile(c.get("db"), c.get("user"))), 200))
  .openapi(listUsers, async (c) => c.json(success(await listPartnerUsers(c.get("db"), c.get("user").partnerId)), 200))
  .openapi(createUser, async (c) =>
    c.json(success(await createPartnerUser(c.get("db"), c.get("user"), c.req.valid("json"))), 201),
  )
  .openapi(deleteUser, async (c) => {
    await deletePartnerUser(c.get("db"), c.get("user"), c.req.valid("param").id);
    return c.json(success({}), 200);
  })
  .openapi(activeStatus, async (c) => {
    const profile = await setUserActiveStatus(
      c.get("db"),
      c.get("user"),
      c.req.valid("param").id,
      c.req.valid("json").isActive,
    );
    return c.json(success(profile), 200);
  })
  .openapi(listKeys, async (c) => c.json(success(await listApiKeys(c.get("db"), c.get("user").partnerId)), 200))
  .openapi(createKey, async (c) => {
    requireAdmin(c.get("user"));
    const key = await createApiKey(c.get("db"), c.get("user").partnerId, c.req.valid("json").name ?? null);
    return c.json(success(key), 201);
  })
  .openapi(revokeKey, async (c) => {
    requireAdmin(c.get("user"));
    return c.json(success(await revokeApiKey(c.get("db"), c.get("user").partnerId, c.req.valid("param").id)), 200);
  });
