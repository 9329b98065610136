import { createRoute, type z } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import { apiKeyAuth, apiKeySecurity } from "../../platform/auth/api-key";
import { signingKeys } from "../../platform/config/secrets";
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
  const page = await listAccommodationContent(c.get("db"), signingKeys(c.env, "PAGE_TOKEN_SECRET"), {
    partnerId: c.get("caller").partnerId,
    ...body,
  });
  // Documents are stored as JSON text; splicing them in saves a parse and a re-encode of ~300 KB.
  const { documents, ...meta } = page;
  const head = JSON.stringify(success(meta)).replace(/},"message":"success"}$/, "");
  return c.body(`${head},"accommodations":[${documents.join(",")}]},"message":"success"}`, 200, {
    "content-type": "application/json",
  }) as unknown as TypedResponse<z.infer<typeof contentResponseSchema>, 200, "json">;
});
