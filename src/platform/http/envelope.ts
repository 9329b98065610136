import { z } from "@hono/zod-openapi";
import { type ErrorCode, errorStatus } from "./errors";

/** Success envelope of the core, content and management APIs: `{ data, message: "success" }`. */
export const success = <T>(data: T) => ({ data, message: "success" as const });

export const envelopeSchema = <T extends z.ZodType>(data: T) => z.object({ data, message: z.literal("success") });

export const errorBodySchema = z
  .object({
    message: z.string().openapi({ description: "Human-readable; the messages of each code are listed per response" }),
    code: z.string().openapi({ description: "Stable and machine-readable: branch on this" }),
    requestId: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("Error");

type Codes = readonly [ErrorCode, ...ErrorCode[]];

/** An error body shape: its schema narrowed to some codes, and a body of one code for an example. */
export type ErrorShape = {
  schema: (codes: Codes) => z.ZodType;
  example: (code: ErrorCode, message: string) => Record<string, unknown>;
};

const EXAMPLE_REQUEST_ID = "9b2f4c1e-5d3a-4e8b-a1c7-0f6d2e9b8a45";

/** The core API's error body `{ message, code, requestId, details? }`. */
export const coreErrorShape: ErrorShape = {
  schema: (codes) => errorBodySchema.extend({ code: z.enum(codes) }),
  example: (code, message) => ({ message, code, requestId: EXAMPLE_REQUEST_ID }),
};

/** Where an error example's message goes: the served document fills it in (withErrorMessages). */
export const MESSAGE_SLOT = "{message}";

/**
 * The OpenAPI responses of the error codes an operation can answer: one per status, the status
 * read from the error table (so a code is never documented under another status), its schema's
 * `code` an enum of exactly those codes, and an example per code whose message the served
 * document fills in from the table's messages (kept out of the bundle: withErrorMessages).
 */
export const errorResponses = (codes: readonly ErrorCode[], shape: ErrorShape = coreErrorShape) => {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = errorStatus[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, listed]) => {
        const sorted = [...listed].sort() as unknown as Codes;
        const examples = Object.fromEntries(
          sorted.map((code) => [code, { summary: code, value: shape.example(code, MESSAGE_SLOT) }]),
        );
        const description = sorted.map((code) => `\`${code}\``).join(", ");
        return [status, { description, content: { "application/json": { schema: shape.schema(sorted), examples } } }];
      }),
  );
};

/**
 * The response headers the platform sends, each defined once: on every response, on the errors
 * of a rate-limited route, on a 429 (and a 409 of a key still in use), on a route that replays.
 */
export const sentHeaders = {
  everyResponse: {
    "x-request-id": z.string().openapi({
      description:
        "The request's id (the caller's X-Request-Id when it is sane, else generated); errors carry it as requestId",
    }),
    "x-edgestay-version": z
      .string()
      .openapi({ description: "The deployed version that answered (local in development)" }),
  },
  rateLimit: {
    "X-RateLimit-Limit": z.string().openapi({ description: "Requests allowed in the window" }),
    "X-RateLimit-Remaining": z.string().openapi({ description: "Requests left in the window" }),
    "X-RateLimit-Reset": z.string().openapi({ description: "Unix seconds when the window resets" }),
  },
  retryAfter: {
    "Retry-After": z.string().openapi({ description: "Seconds to wait before retrying" }),
  },
  replayed: {
    "Idempotent-Replayed": z
      .literal("true")
      .optional()
      .openapi({ description: "Present when this is the stored answer to an earlier request with the same key" }),
  },
};

/** The rate headers of a route that counts requests: absent on a connection not limited (rateLimit 0). */
export const rateLimitHeaders = z.object(
  Object.fromEntries(Object.entries(sentHeaders.rateLimit).map(([name, schema]) => [name, schema.optional()])),
);
