import type { OpenAPIHono } from "@hono/zod-openapi";
import { withErrorMessages } from "../http/error-examples";
import { staticData } from "../static-data";

/**
 * /openapi.json is built when the Worker is (scripts/build-worker.ts, wrangler.toml [build]) and
 * served from this static asset: the schemas' descriptions and examples, the error table's messages
 * and the document generator stay out of the Worker's upload. A workerd test proves the asset is
 * the document the routes declare (openapi-document.test.ts).
 */
export const OPENAPI_DOCUMENT_ASSET = "/_data/openapi.json";

/** What every deployment's document says of itself; `servers` is filled in per request. */
const DOCUMENT_INFO = {
  openapi: "3.1.0",
  info: {
    title: "Edgestay Partner API",
    version: "1.0.0",
    description: "Business-to-business accommodation distribution.",
  },
  servers: [],
} as const;

/** The document the app's routes declare, with the error table's messages filled in. */
// biome-ignore lint/suspicious/noExplicitAny: any app of the feature router, whatever its env
export const declaredDocument = (app: OpenAPIHono<any>, messages: Record<string, readonly string[]>) =>
  withErrorMessages(app.getOpenAPI31Document({ ...DOCUMENT_INFO, servers: [] }), messages);

export type OpenApiDocument = ReturnType<typeof declaredDocument>;

/** The built document, read once per isolate. */
export const builtDocument = staticData(OPENAPI_DOCUMENT_ASSET, (res) => res.json() as Promise<OpenApiDocument>);
