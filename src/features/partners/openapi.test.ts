import { describe, expect, it } from "vitest";
import { call } from "../../../test/support/api";

describe("OpenAPI document for partner and operator routes", () => {
  it("describes every route with its security scheme, generated from the validating schemas", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    expect(doc.components.securitySchemes.Bearer).toEqual({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    const bearerRoutes = [
      ["get", "/api/users/me"],
      ["get", "/api/users"],
      ["post", "/api/users"],
      ["delete", "/api/users/{id}"],
      ["post", "/api/users/{id}/active-status"],
      ["get", "/api/partner/api-keys"],
      ["post", "/api/partner/api-keys"],
      ["delete", "/api/partner/api-keys/{id}"],
      ["get", "/api/partners/{partnerId}/connections"],
      ["get", "/api/partners/{partnerId}/connections/{id}"],
      ["put", "/api/partners/{partnerId}/connections/{id}/notification-email"],
    ];
    const operatorRoutes = [
      ["post", "/api/connections"],
      ["get", "/api/connections"],
      ["get", "/api/connections/{id}"],
      ["patch", "/api/connections/{id}"],
      ["delete", "/api/connections/{id}"],
      ["put", "/api/connections/{id}/enable"],
      ["put", "/api/connections/{id}/disable"],
      ["post", "/api/partners"],
      ["get", "/api/partners"],
      ["post", "/api/operator/login-failures/purge"],
    ];
    for (const [method, path] of bearerRoutes)
      expect(doc.paths[path!]?.[method!]?.security, `${method} ${path}`).toEqual([{ Bearer: [] }]);
    for (const [method, path] of operatorRoutes)
      expect(doc.paths[path!]?.[method!]?.security, `${method} ${path}`).toEqual([{ OperatorToken: [] }]);
    const login = doc.paths["/api/auth/login"].post;
    // Public: an explicit empty security statement, not an omission.
    expect(login.security).toEqual([]);
    expect(login.requestBody.required).toBe(true);
    const createUser = doc.components.schemas.CreateUserRequest;
    expect(createUser.required).toEqual(expect.arrayContaining(["email", "password", "role"]));
    expect(createUser.properties.role.enum).toEqual(["admin", "user"]);
    expect(doc.components.schemas.CreateConnectionRequest.properties.rateLimit.minimum).toBe(0);
  });
});
