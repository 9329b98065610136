import { z } from "@hono/zod-openapi";

/**
 * The message zod gives an unknown key of a body `refuseUnknownFields` made strict; the validation
 * hook words it `Unknown field: <path>` (validation.ts), one per key.
 */
export const UNKNOWN_FIELD = "Unknown field";

type Def = z.core.$ZodTypeDef & Record<string, unknown>;
type Schema = z.core.$ZodType;

const defOf = (schema: Schema) => schema._zod.def as Def;

/** A copy of `schema` with `changes` to its definition; it keeps the original's OpenAPI metadata (name, example). */
const copy = (schema: Schema, changes: Record<string, unknown>): Schema =>
  (schema as z.ZodType).clone({ ...defOf(schema), ...changes } as z.core.$ZodTypeDef, { parent: true });

const memo = new WeakMap<Schema, Schema>();

/** Each inner schema a wrapper holds, by the name of its definition's field. */
const WRAPPED: Record<string, readonly string[]> = {
  optional: ["innerType"],
  nullable: ["innerType"],
  default: ["innerType"],
  prefault: ["innerType"],
  nonoptional: ["innerType"],
  readonly: ["innerType"],
  catch: ["innerType"],
  array: ["element"],
  intersection: ["left", "right"],
  pipe: ["in", "out"],
};

const strictObject = (schema: Schema): Schema => {
  const def = defOf(schema);
  const catchall = def.catchall as Schema | undefined;
  // A loose object (z.looseObject, .passthrough()) is a free-form map the contract leaves open: its whole subtree stays open.
  if (catchall && defOf(catchall).type !== "never") return schema;
  const shape = def.shape as Record<string, Schema>;
  const strictShape = Object.fromEntries(
    Object.entries(shape).map(([key, value]) => [key, refuseUnknownFields(value)]),
  );
  const ownError = def.error as ((issue: z.core.$ZodRawIssue) => unknown) | undefined;
  return copy(schema, {
    shape: strictShape,
    catchall: z.never(),
    error: (issue: z.core.$ZodRawIssue) => (issue.code === "unrecognized_keys" ? UNKNOWN_FIELD : ownError?.(issue)),
  });
};

const strict = (schema: Schema): Schema => {
  const def = defOf(schema);
  if (def.type === "object") return strictObject(schema);
  if (def.type === "union") {
    const options = def.options as Schema[];
    const strictOptions = options.map(refuseUnknownFields);
    return strictOptions.every((option, i) => option === options[i])
      ? schema
      : copy(schema, { options: strictOptions });
  }
  // A record is a free-form map (its keys are data, not fields); a lazy schema is left as it is.
  const fields = WRAPPED[def.type];
  if (!fields) return schema;
  const changes: Record<string, Schema> = {};
  for (const field of fields) {
    const inner = def[field] as Schema | undefined;
    if (!inner) continue;
    const strictInner = refuseUnknownFields(inner);
    if (strictInner !== inner) changes[field] = strictInner;
  }
  return Object.keys(changes).length === 0 ? schema : copy(schema, changes);
};

/**
 * `schema` with every object in it strict, at any depth: a key it does not declare is refused
 * (400 `Unknown field: <path>`) instead of dropped, so a typo (`checkin`) or a setting we do not
 * have (`settings.suppliers`) is never accepted as if applied. Records and loose objects
 * (z.looseObject) are the opt-out, for the free-form maps the contract leaves open. apiRoute applies
 * it to every JSON request body (docs/api-decisions.md, "Issue 37: unknown fields are refused by name").
 */
export const refuseUnknownFields = <T extends Schema>(schema: T): T => {
  let result = memo.get(schema);
  if (!result) {
    result = strict(schema);
    memo.set(schema, result);
  }
  return result as T;
};
