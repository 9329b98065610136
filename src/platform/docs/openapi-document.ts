import type { OpenAPIHono } from "@hono/zod-openapi";
import { withErrorMessages } from "../http/error-examples";
import { staticData } from "../static-data";

/**
 * /openapi.json is built when the Worker is (scripts/build-worker.ts, wrangler.toml [build]) and
 * served from this static asset: the schemas' descriptions and examples, the error table's messages
 * and the document generator stay out of the Worker's upload. A workerd test proves the asset is
 * the document the routes declare (http.test.ts, "the OpenAPI document").
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
} as const;

/**
 * The credentials routes name in `security`, each its own scheme: a generated client asks for each
 * apart and never sends one for another. Only the document reads them, so they are registered when
 * it is built.
 */
const SECURITY_SCHEMES = {
  ApiKey: { type: "apiKey", in: "header", name: "api-key", description: "From POST /api/partner/api-keys" },
  HotelxApiKey: {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description:
      "Hotel-X's own header, `Authorization: Apikey <key>` with a key of POST /api/partner/api-keys; Hotel-X routes only (elsewhere Authorization carries bearer tokens). With api-key too, both must name the same key.",
  },
  OperatorToken: { type: "http", scheme: "bearer", bearerFormat: "opaque", description: "The OPERATOR_TOKEN secret" },
  Bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "accessToken of POST /api/auth/login" },
  CollectorKey: { type: "apiKey", in: "header", name: "x-radar-collector-key" },
  ChatApiKey: { type: "apiKey", in: "header", name: "x-partner-api-key" },
  ChatBearer: { type: "http", scheme: "bearer", description: "The partner API key as a bearer token (chat only)" },
} as const;

// biome-ignore lint/suspicious/noExplicitAny: any app of the feature router, whatever its env
type App = OpenAPIHono<any>;
const withSchemes = new WeakSet<App>();

/** The document the app's routes declare, with its security schemes and the error table's messages. */
export const declaredDocument = (app: App, messages: Record<string, readonly string[]>) => {
  if (!withSchemes.has(app))
    for (const [name, scheme] of Object.entries(SECURITY_SCHEMES))
      app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  withSchemes.add(app);
  return withErrorMessages(app.getOpenAPI31Document({ ...DOCUMENT_INFO, servers: [] }), messages);
};

export type OpenApiDocument = ReturnType<typeof declaredDocument>;

/** The built document, read once per isolate. */
export const builtDocument = staticData(OPENAPI_DOCUMENT_ASSET, (res) => res.json() as Promise<OpenApiDocument>);
