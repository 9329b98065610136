import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The one error type. `message` carries the spec's exact text where the spec names one;
 * `code` is a stable machine-readable identifier; `details` holds extra facts for the client;
 * `headers` go on the error response (Retry-After, Idempotent-Replayed).
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly code: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}
