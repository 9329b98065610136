import { ApiError } from "../../platform/http/api-error";

export const CHAT_BASE = "/api/partner/v1/core-chat";

export const isChatPath = (path: string) => path === CHAT_BASE || path.startsWith(`${CHAT_BASE}/`);

/** Section 7 chat error body: { success: false, error, code, details, requestId }. */
export const chatErrorBody = (error: { message: string; code: string; details?: Record<string, unknown> | null }, requestId: string) => ({
  success: false as const,
  error: error.message,
  code: error.code,
  details: error.details ?? null,
  requestId,
});

export const sessionNotFound = () => new ApiError("session_not_found", "session_not_found", { error: "session_not_found" });

export const actorMismatch = () =>
  new ApiError("actor_mismatch", "This session belongs to another actor; start a session for this actor instead.", { error: "actor_mismatch" });
