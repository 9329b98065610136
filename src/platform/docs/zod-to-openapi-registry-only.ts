/**
 * What `@asteasolutions/zod-to-openapi` resolves to in the Worker's upload (wrangler.toml [alias]):
 * /openapi.json is built with the Worker (openapi-document.ts) and served as an asset, so the Worker
 * never generates a document. @hono/zod-openapi still registers every route, component and webhook
 * here, and `.openapi(...)` stays callable; nothing is kept. Tests and the build run the package itself.
 */

// biome-ignore lint/suspicious/noExplicitAny: the shape @hono/zod-openapi passes (zod's namespace)
export const extendZodWithOpenApi = (zod: { ZodType: { prototype: any } }) => {
  if (typeof zod.ZodType.prototype.openapi !== "undefined") return;
  zod.ZodType.prototype.openapi = function (this: unknown) {
    return this;
  };
};

export const getOpenApiMetadata = () => ({});

export class OpenAPIRegistry {
  readonly definitions: unknown[] = [];
  register = <T>(_refId: string, schema: T) => schema;
  registerParameter = <T>(_refId: string, schema: T) => schema;
  registerPath = () => {};
  registerWebhook = () => {};
  registerComponent = (_type: string, name: string) => ({ name, ref: { $ref: `#/components/${_type}/${name}` } });
}

class BuiltApart {
  generateDocument(): never {
    throw new Error("/openapi.json is built with the Worker (scripts/build-worker.ts), not in it");
  }
}
export { BuiltApart as OpenApiGeneratorV3, BuiltApart as OpenApiGeneratorV31, BuiltApart as OpenApiGeneratorV32 };
