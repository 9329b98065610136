import type { ContentfulStatusCode } from "hono/utils/http-status";
import { errorStatus, type ErrorCode } from "./errors";

/**
 * The one error type. `code` comes from the error table (errors.ts), which gives the status;
 * `message` carries the spec's exact text where the spec names one; `details` holds extra facts
 * for the client; `headers` go on the error response (Retry-After and the rate headers of a 429,
 * Idempotent-Replayed), written by the app's error handler.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, headers?: Record<string, string>);
  /** @internal see `ApiError.revived` */
  constructor(
    code: string,
    message: string,
    details: Record<string, unknown> | undefined,
    headers: Record<string, string> | undefined,
    status: ContentfulStatusCode,
  );
  constructor(
    code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
    status?: ContentfulStatusCode,
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status ?? errorStatus[code as ErrorCode];
  }

  /**
   * An error made earlier and carried as data (an idempotent replay, a Durable Object's RPC
   * answer) or one of Hono's own HTTPExceptions: it keeps the status it was answered with.
   */
  static revived(error: {
    status: number;
    code: string;
    message: string;
    details?: Record<string, unknown>;
    headers?: Record<string, string>;
  }) {
    return new ApiError(error.code, error.message, error.details, error.headers, error.status as ContentfulStatusCode);
  }
}
