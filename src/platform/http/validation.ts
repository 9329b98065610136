import type { Hook } from "@hono/zod-openapi";
import type { z } from "@hono/zod-openapi";
import { ApiError } from "./api-error";

// Messages the spec fixes word for word; the hook passes them through without a field prefix.
const specMessages = new Set<string>();

/** Marks a zod error message as spec text to be returned exactly as written. */
export const specMessage = (message: string): string => {
  specMessages.add(message);
  return message;
};

const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, "");

/** One readable sentence for a validation issue, naming the field. */
export const describeIssue = (issue: z.core.$ZodIssue): string => {
  if (specMessages.has(issue.message)) return issue.message;
  const field = fieldPath(issue.path);
  if (!field) return `Request body: ${issue.message}`;
  const missing = issue.code === "invalid_type" && /received undefined$/.test(issue.message);
  return missing ? `${field} is required` : `${field}: ${issue.message}`;
};

export const validationError = (issues: z.core.$ZodIssue[]): ApiError =>
  new ApiError(400, describeIssue(issues[0]!), "invalid_request", {
    issues: issues.slice(0, 20).map((i) => ({ field: fieldPath(i.path), message: describeIssue(i) })),
  });

/** Default hook for every route: the first issue becomes the message, all are listed in details. */
export const validationHook: Hook<unknown, any, any, any> = (result) => {
  if (!result.success) throw validationError(result.error.issues);
};
