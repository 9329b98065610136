/**
 * zod's classic API with the parts this Worker never calls at run time left out. @hono/zod-openapi
 * passes zod's `z` namespace around as a value, so no bundler can shake anything out of it, and
 * that namespace carries all 64 of zod's locale files, JSON Schema import and the schema compiler.
 * A local export shadows the `export *` of the same name, so those stay out of the bundle.
 * Types are unchanged: TypeScript still reads them from the real package.
 */
// A relative path on purpose: the alias would rewrite any "zod/..." specifier to index.ts.
export * from "../../../node_modules/zod/v4/classic/external.js";

// Error messages stay English: zod registers its `en` locale itself on the first schema built.
export const locales = undefined;
// Used for types only here (z.core.$ZodIssue); the namespace would bring the locales back.
export const core = undefined;
export const fromJSONSchema = undefined;
export const compile = undefined;
export const withParser = undefined;
