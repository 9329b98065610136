import { type Hook, z } from "@hono/zod-openapi";
import { ApiError } from "./api-error";
import { UNKNOWN_FIELD } from "./unknown-fields";

// Messages the spec fixes word for word; the hook passes them through without a field prefix.
const specMessages = new Set<string>();

/** Marks a zod error message as spec text to be returned exactly as written. */
export const specMessage = (message: string): string => {
  specMessages.add(message);
  return message;
};

/** Values that ask for nothing: a field sent as one of them changes no answer. */
const asksNothing = (value: unknown, inert: readonly unknown[]) =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0) || inert.includes(value);

/**
 * A field the contract (or Hotel-X) names that this service does not apply. Absent, null, an
 * empty list or one of `inert` (a value that asks for what happens anyway) is accepted; any other
 * value is 400 `<field> is not supported` (then `; <hint>`), so no partner believes a filter or
 * setting was applied when it was not (docs/api-decisions.md, "Issue 25: request fields are honoured or refused").
 */
export const unsupportedField = (hint?: string, inert: readonly unknown[] = []) =>
  z
    .unknown()
    .superRefine((value, ctx) => {
      if (!asksNothing(value, inert))
        ctx.addIssue({ code: "custom", message: "is not supported", params: { unsupported: hint ?? "" } });
    })
    .optional()
    .openapi({
      description: `Not supported${hint ? ` (${hint})` : ""}: accepted only absent, null, []${inert.map((v) => ` or ${JSON.stringify(v)}`).join("")}`,
    });

const unsupportedHint = (issue: z.core.$ZodIssue): string | undefined => {
  if (issue.code !== "custom") return undefined;
  const hint = (issue.params as { unsupported?: unknown } | undefined)?.unsupported;
  return typeof hint === "string" ? hint : undefined;
};

const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    return out ? `${out}.${String(key)}` : String(key);
  }, "");

/** Whether the request carried a value at `path` (an absent field is reported as required). */
const isAbsent = (input: unknown, path: ReadonlyArray<PropertyKey>): boolean => {
  let node: unknown = input;
  for (const key of path) {
    if (node === null || typeof node !== "object" || !(key in node)) return true;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node === undefined;
};

/** One readable sentence for a validation issue, naming the field. */
export const describeIssue = (issue: z.core.$ZodIssue, input?: unknown): string => {
  if (specMessages.has(issue.message)) return issue.message;
  if (isUnknownField(issue)) return `${UNKNOWN_FIELD}: ${fieldPath([...issue.path, issue.keys[0]!])}`;
  const field = fieldPath(issue.path);
  const hint = unsupportedHint(issue);
  if (hint !== undefined) return `${field || "Request body"} is not supported${hint ? `; ${hint}` : ""}`;
  if (!field) return `Request body: ${issue.message}`;
  const missing =
    issue.code !== "custom" &&
    (input === undefined
      ? issue.code === "invalid_type" && /received undefined$/.test(issue.message)
      : isAbsent(input, issue.path));
  return missing ? `${field} is required` : `${field}: ${issue.message}`;
};

const isUnknownField = (issue: z.core.$ZodIssue): issue is z.core.$ZodIssueUnrecognizedKeys =>
  issue.code === "unrecognized_keys" && issue.message === UNKNOWN_FIELD;

/** One issue per unknown key, named by its own path (zod reports them together, at their object). */
const oneFieldEach = (issues: z.core.$ZodIssue[]): z.core.$ZodIssue[] =>
  issues.flatMap((issue) =>
    isUnknownField(issue) && issue.keys.length > 1 ? issue.keys.map((key) => ({ ...issue, keys: [key] })) : [issue],
  );

export const validationError = (issues: z.core.$ZodIssue[], input?: unknown): ApiError => {
  const each = oneFieldEach(issues);
  return new ApiError("invalid_request", describeIssue(each[0]!, input), {
    issues: each.slice(0, 20).map((i) => ({
      field: fieldPath(isUnknownField(i) ? [...i.path, i.keys[0]!] : i.path),
      message: describeIssue(i, input),
    })),
  });
};

/** Default hook for every route: the first issue becomes the message, all are listed in details. */
// biome-ignore lint/suspicious/noExplicitAny: one hook serves every route, whatever its env, path and schema.
export const validationHook: Hook<unknown, any, any, any> = (result) => {
  if (!result.success) throw validationError(result.error.issues, (result as { data?: unknown }).data);
};
