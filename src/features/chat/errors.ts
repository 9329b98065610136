import { ApiError } from "../../platform/http/api-error";
import type { ErrorFacts } from "../../platform/http/router";

/** Section 7 chat error body: { success: false, error, code, details, requestId }. */
export const chatErrorBody = (error: ErrorFacts, requestId: string) => ({
  success: false as const,
  error: error.message,
  code: error.code,
  details: error.details ?? null,
  requestId,
});

export const sessionNotFound = () =>
  new ApiError("session_not_found", "session_not_found", { error: "session_not_found" });

export const sessionErased = () =>
  new ApiError(
    "session_erased",
    "This session's personal data was erased on request; it takes no more events. Start a new session.",
    { error: "session_erased" },
  );

export const actorMismatch = () =>
  new ApiError("actor_mismatch", "This session belongs to another actor; start a session for this actor instead.", {
    error: "actor_mismatch",
  });
