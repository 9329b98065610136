import Ajv2020, { type ErrorObject, type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { exports } from "cloudflare:workers";
import { type ErrorCode, errorStatus, isListedMessage } from "../../src/platform/http/errors";

/** What a test sent: a Request, or the method and path of one. */
export type Sent = { method: string; url: string };

type Schema = { $ref?: string; allOf?: Schema[]; properties?: Record<string, Schema>; enum?: unknown[] };
type Operation = {
  operationId?: string;
  responses?: Record<
    string,
    { content?: Record<string, { schema?: Schema }>; headers?: Record<string, { required?: boolean }> }
  >;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, unknown>;
  components?: { schemas?: Record<string, unknown> };
};

const JSON_TYPE = /^application\/([\w.-]+\+)?json\b/i;
// The document itself is the one JSON route it does not describe.
const UNDESCRIBED = new Set(["/openapi.json"]);

const escapePointer = (segment: string) => segment.replace(/~/g, "~0").replace(/\//g, "~1");
const patternOf = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}/?$`);

/**
 * The app's own /openapi.json, loaded once per test file, with one ajv validator per documented
 * response, compiled on first use. Every response a test receives is checked against it, so the
 * document cannot drift from the code.
 */
const loadDocument = async () => {
  const response = await exports.default.fetch(new Request("https://edgestay.test/openapi.json"));
  if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
  const document = (await response.json()) as Document;
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; `example` and friends are annotations ajv need not know.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document as object, "openapi");
  const validators = new Map<string, ValidateFunction>();
  const validator = (pointer: string) => {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `openapi#${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  };
  // Fewest path parameters first: /api/search/tgx is that route, not /api/search/{x}.
  const routes = Object.keys(document.paths)
    .map((path) => ({ path, pattern: patternOf(path), parameters: (path.match(/\{/g) ?? []).length }))
    .sort((a, b) => a.parameters - b.parameters);
  // Errors answered before any route matches (404, 405, refused bodies) use one of the error bodies
  // the operations narrow (the core's Error, chat's ChatError), with any code of the error table.
  const errorBodies = new Set<string>();
  for (const item of Object.values(document.paths))
    for (const operation of Object.values(item))
      for (const [status, answer] of Object.entries(operation.responses ?? {})) {
        const schema = answer.content?.["application/json"]?.schema;
        const base = schema?.$ref ?? schema?.allOf?.find((part) => part.$ref)?.$ref;
        if (status.startsWith("4") && base) errorBodies.add(base);
      }
  const anyErrorBody = ajv.compile({ anyOf: [...errorBodies].map((ref) => ({ $ref: `openapi${ref}` })) });
  return { document, routes, validator, anyErrorBody };
};

let loaded: ReturnType<typeof loadDocument> | undefined;

const describeErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? [])
    .slice(0, 8)
    .map(
      (error) =>
        `  ${error.instancePath || "(body)"} ${error.message}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ""}`,
    )
    .join("\n");

/** The `code` enum of a documented error schema (the core's and chat's narrow their base by allOf). */
const documentedCodes = (schema: Schema | undefined): unknown[] | undefined => {
  if (!schema) return undefined;
  if (schema.properties?.code?.enum) return schema.properties.code.enum;
  for (const part of schema.allOf ?? []) {
    const codes = documentedCodes(part);
    if (codes) return codes;
  }
  return undefined;
};

/**
 * An error body's code is in the error table (errors.ts) and its message one of those the table lists for
 * it; the core body says `message`, chat's says `error`.
 */
const assertListed = (where: string, body: { code?: unknown; message?: unknown; error?: unknown } | null) => {
  if (typeof body?.code !== "string") return;
  if (!(body.code in errorStatus)) {
    throw new Error(
      `OpenAPI: ${where} with code ${body.code}, which is not in the error table (src/platform/http/errors.ts)`,
    );
  }
  const message = typeof body.message === "string" ? body.message : body.error;
  if (typeof message === "string" && !isListedMessage(body.code as ErrorCode, message)) {
    throw new Error(
      `OpenAPI: ${where} with code ${body.code} and the message "${message}", which errorMessages (src/platform/http/errors.ts) does not list for it`,
    );
  }
};

const excerpt = (text: string) => (text.length > 600 ? `${text.slice(0, 600)}…` : text);

/**
 * Throws, naming the operation and what is wrong, when a response is not what /openapi.json
 * documents for the request: an undocumented status, a JSON body where none is documented, or a
 * body that breaks the documented schema. Bodies that are not JSON (pages, assets) are skipped.
 */
export const assertDocumented = async (
  sent: Sent,
  answer: { status: number; headers: Headers; text: string; json: unknown },
) => {
  const { document, routes, validator, anyErrorBody } = await (loaded ??= loadDocument());
  const path = new URL(sent.url, "https://edgestay.test").pathname;
  const method = sent.method.toLowerCase() === "head" ? "get" : sent.method.toLowerCase();
  const isJson = JSON_TYPE.test(answer.headers.get("content-type") ?? "");
  const where = `${sent.method.toUpperCase()} ${path} answered ${answer.status}`;
  if (UNDESCRIBED.has(path) || !isJson || sent.method.toUpperCase() === "HEAD") return;

  const route = routes.find((candidate) => candidate.pattern.test(path) && document.paths[candidate.path]![method]);
  const body = answer.json as { code?: unknown; message?: unknown; error?: unknown } | null;
  if (!route) {
    if (answer.status < 400 || !anyErrorBody(answer.json)) {
      throw new Error(
        `OpenAPI: ${where} on no documented operation, with a body that is not a documented error:\n${describeErrors(anyErrorBody.errors)}\nbody: ${excerpt(answer.text)}`,
      );
    }
    assertListed(where, body);
    return;
  }
  const responses = document.paths[route.path]![method]!.responses ?? {};
  const status = String(answer.status);
  const key = [status, `${status[0]}XX`, "default"].find((candidate) => candidate in responses);
  if (!key) {
    throw new Error(
      `OpenAPI: ${where}, a status ${method.toUpperCase()} ${route.path} does not document (documented: ${Object.keys(responses).join(", ")})\nbody: ${excerpt(answer.text)}`,
    );
  }
  const missing = Object.entries(responses[key]!.headers ?? {})
    .filter(([name, header]) => header.required && !answer.headers.has(name))
    .map(([name]) => name);
  if (missing.length) {
    throw new Error(
      `OpenAPI: ${where} without the header(s) ${missing.join(", ")} that ${method.toUpperCase()} ${route.path} documents as required for ${key}`,
    );
  }
  // The body is checked against what the operation documents for its media type (GraphQL has its own).
  const media = (answer.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!responses[key]!.content?.[media]) {
    throw new Error(
      `OpenAPI: ${where} with a ${media} body, but ${method.toUpperCase()} ${route.path} documents none for ${key}\nbody: ${excerpt(answer.text)}`,
    );
  }
  if (answer.status >= 400 && typeof body?.code === "string") {
    const operation = `${method.toUpperCase()} ${route.path} (${document.paths[route.path]![method]!.operationId})`;
    const codes = documentedCodes(responses[key]!.content![media]!.schema);
    if (codes && !codes.includes(body.code)) {
      throw new Error(
        `OpenAPI: ${where} with code ${body.code}, a code ${operation} does not document for ${key} (documented: ${codes.join(", ")}); add it to the route's errors\nbody: ${excerpt(answer.text)}`,
      );
    }
    assertListed(where, body);
  }
  const pointer = `/paths/${escapePointer(route.path)}/${method}/responses/${key}/content/${escapePointer(media)}/schema`;
  const validate = validator(pointer);
  if (!validate(answer.json)) {
    throw new Error(
      `OpenAPI: ${where}, a body that breaks the documented schema of ${method.toUpperCase()} ${route.path} ${key}:\n${describeErrors(validate.errors)}\nbody: ${excerpt(answer.text)}`,
    );
  }
  // The event log lists each event as its webhook delivers it: each must be its type's documented payload.
  if (route.path === "/api/events" && answer.status === 200) {
    for (const event of (answer.json as { data: { events: unknown[] } }).data.events)
      await assertWebhookDocumented(event);
  }
};

/**
 * Throws unless `event` is the payload the document's `webhooks` describe for its type (what a
 * webhook endpoint receives, and GET /api/events lists).
 */
export const assertWebhookDocumented = async (event: unknown) => {
  const { document, validator } = await (loaded ??= loadDocument());
  const type = (event as { type?: string }).type ?? "";
  if (!document.webhooks?.[type]) throw new Error(`OpenAPI: an event of type ${type}, which no webhook documents`);
  const validate = validator(`/webhooks/${escapePointer(type)}/post/requestBody/content/application~1json/schema`);
  if (!validate(event)) {
    throw new Error(
      `OpenAPI: a ${type} event that breaks its webhook's documented payload:\n${describeErrors(validate.errors)}\nevent: ${excerpt(JSON.stringify(event))}`,
    );
  }
};
