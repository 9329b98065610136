import { z } from "@hono/zod-openapi";
import { replicaReadsAllowed } from "../../platform/db/replica-reads";
import { timestamp } from "../../platform/http/fields";
import { apiRoute } from "../../platform/http/api-route";
import type { TypedResponse } from "hono";
import { apiKeyAuth, apiKeySecurity } from "../../platform/auth/api-key";
import { operatorAuth, operatorSecurity } from "../../platform/auth/operator";
import { featureRouter } from "../../platform/http/router";
import { envelopeSchema, success } from "../../platform/http/envelope";
import { replaceAccommodationContent } from "./content-edit";
import {
  accommodationContentExample,
  accommodationContentSchema,
  contentRequestSchema,
  contentResponseSchema,
  servedAccommodationSchema,
} from "./schemas";
import { listAccommodationContent } from "./service";

const listAccommodations = apiRoute({
  operationId: "listAccommodationContent",
  method: "post",
  path: "/api/v1/content/accommodations",
  tags: ["Content"],
  summary: "Page through accommodation content",
  description: "Pass nextPageToken as pageToken to read on; changedSince for deltas.",
  security: apiKeySecurity,
  middleware: [replicaReadsAllowed, apiKeyAuth()] as const,
  request: { body: { required: true, content: { "application/json": { schema: contentRequestSchema } } } },
  errors: [
    "unsupported_type",
    "unsupported_country",
    "invalid_page_token",
    "page_token_signature",
    "page_token_partner",
    "page_token_expired",
    "page_token_mismatch",
  ],
  responses: {
    200: { description: "One page of content", content: { "application/json": { schema: contentResponseSchema } } },
  },
});

const replaceContent = apiRoute({
  operationId: "replaceAccommodationContent",
  method: "put",
  path: "/api/operator/accommodations/{accommodationCode}",
  tags: ["Content (operator)"],
  summary: "Replace an accommodation's content document; a real change bumps its updatedAt (content deltas)",
  description: "accommodationCode: from search or the content export.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: {
    params: z.object({ accommodationCode: z.string().min(1).max(64).openapi({ example: "US000001" }) }),
    body: {
      required: true,
      content: {
        "application/json": {
          // A served document may be sent back as it is: its updatedAt is ignored (the database stamps it),
          // and so are its fees (PUT /api/inventory/{code}/fees sets them).
          schema: accommodationContentSchema
            .extend({ updatedAt: timestamp.optional(), fees: z.unknown().optional() })
            .strict()
            .openapi("AccommodationContentEdit", { example: accommodationContentExample }),
        },
      },
    },
  },
  errors: ["accommodation_not_found", "unsupported_country"],
  responses: {
    200: {
      description: "The document as now served",
      content: { "application/json": { schema: envelopeSchema(servedAccommodationSchema) } },
    },
  },
});

export const contentRoutes = featureRouter()
  .openapi(replaceContent, async (c) => {
    const { updatedAt: _ignored, fees: _set, ...doc } = c.req.valid("json");
    return c.json(
      success(await replaceAccommodationContent(c.get("db"), c.req.valid("param").accommodationCode, doc)),
      200,
    );
  })
  .openapi(listAccommodations, async (c) => {
    const body = c.req.valid("json");
    const page = await listAccommodationContent(c.get("db"), c.get("services").pageKeys, {
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
