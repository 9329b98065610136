import { z } from "@hono/zod-openapi";

/** Success envelope of the core, content and management APIs: `{ data, message: "success" }`. */
export const success = <T>(data: T) => ({ data, message: "success" as const });

export const envelopeSchema = <T extends z.ZodType>(data: T) => z.object({ data, message: z.literal("success") });

export const errorBodySchema = z
  .object({
    message: z.string().openapi({ example: "Invalid API key" }),
    code: z.string().openapi({ example: "invalid_api_key" }),
    requestId: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("Error");

/** OpenAPI response entries for the listed error statuses. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      status,
      { description: "Error", content: { "application/json": { schema: errorBodySchema } } },
    ]),
  );
