import { createRoute } from "@hono/zod-openapi";
import { apiKeyAuth, apiKeySecurity } from "../../platform/auth/api-key";
import { featureRouter } from "../../platform/http/router";
import { errorResponses, success } from "../../platform/http/envelope";
import { contentRequestSchema, contentResponseSchema } from "./schemas";
import { listAccommodationContent } from "./service";

const listAccommodations = createRoute({
  method: "post",
  path: "/api/v1/content/accommodations",
  tags: ["Content"],
  summary: "Page through accommodation content",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: { body: { required: true, content: { "application/json": { schema: contentRequestSchema } } } },
  responses: {
    200: { description: "One page of content", content: { "application/json": { schema: contentResponseSchema } } },
    ...errorResponses(400, 401, 413),
  },
});

export const contentRoutes = featureRouter().openapi(listAccommodations, async (c) => {
  const body = c.req.valid("json");
  const page = await listAccommodationContent(c.get("db"), c.env.PAGE_TOKEN_SECRET, {
    partnerId: c.get("caller").partnerId,
    ...body,
  });
  return c.json(success(page), 200);
});
