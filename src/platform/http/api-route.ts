import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import { servesWhileMisconfigured } from "../config/fail-closed";
import { BOOKMARK_HEADER } from "../db/client";
import { replicaReadsAllowed } from "../db/replica-reads";
import { coreErrorShape, type ErrorShape, errorResponses, rateLimitHeaders, sentHeaders } from "./envelope";
import type { ErrorCode } from "./errors";
import { jsonBody } from "./json-body";
import { rowUploadGate } from "./row-upload";
import { refuseUnknownFields } from "./unknown-fields";

type SecurityRequirement = Record<string, string[]>;

/** What every operation must say about itself for the document to be complete. */
type Described = {
  /** camelCase, unique across the API and never renamed: generated clients call it by this name. */
  operationId: string;
  summary: string;
  /** For people: what the operation is for and where each id it takes comes from (kept short: it ships in the Worker). */
  description: string;
  /** At least one: the reference groups operations by their first tag. */
  tags: string[];
  /** `[]` for a public route: an absent security is an omission, an empty one a statement. */
  security: SecurityRequirement[];
  /**
   * The error codes the route's own middleware and handler can answer (the platform's are added:
   * see `platformErrors`); `[]` when there are none. A test walks them (http.test.ts, "every error code is documented"), and
   * the conformance check fails a response whose code its operation does not list.
   */
  errors: readonly ErrorCode[];
  /** The error body this route answers with (default: the core API's `Error`). */
  errorShape?: ErrorShape;
  /**
   * What an undeclared field of the JSON body gets: `refused` (the default, 400 `Unknown field:
   * <path>`, see refuseUnknownFields) or `hotelx` (the Hotel-X routes' own rules: their schemas say
   * which objects are strict, since a Hotel-X client sends its whole variables).
   */
  unknownFields?: "refused" | "hotelx";
  /**
   * The body gate: `json` (the default, `jsonBody`: 1 MiB, parsed before the route) or `rows` (a
   * bulk upload, `rowUploadGate`: JSON array or NDJSON up to 8 MiB and 50,000 rows, read as a
   * stream by the handler with `readUploadRows`). Only the operator's map imports say `rows`.
   */
  body?: "json" | "rows";
  /** A larger body limit than every other route's MAX_BODY_BYTES, for a route that takes a whole list in one call. */
  maxBodyBytes?: number;
};

const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;
const BODY_METHODS = new Set(["post", "put", "patch"]);

/** The codes the platform's credential checks answer, by security scheme. */
const credentialErrors: Record<string, ErrorCode[]> = {
  ApiKey: ["api_key_required", "invalid_api_key"],
  HotelxApiKey: ["api_key_required", "invalid_api_key"],
  Bearer: ["bearer_token_required", "invalid_token"],
  OperatorToken: ["operator_token_required", "invalid_operator_token"],
};

/**
 * The errors the platform itself can answer on a route, whatever its handler does: input the
 * validators or the body gate refuse (400, 413), a missing or wrong credential (401, 403), an
 * unexpected failure (500) and a misconfigured deploy (503, see failClosed).
 */
const platformErrors = (config: Pick<RouteConfig, "method" | "path" | "request"> & Pick<Described, "security">) => {
  const { request = {}, security, method, path } = config;
  const codes: ErrorCode[] = ["internal_error"];
  const hasBody = BODY_METHODS.has(method);
  if (hasBody || request.query || request.params || request.headers) codes.push("invalid_request");
  if (hasBody) codes.push("malformed_json", "unsupported_content_type", "body_too_deep", "body_too_large");
  // A route that also takes a scheme of its own (chat) checks every credential itself and lists its codes.
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  if (schemes.every((scheme) => scheme in credentialErrors))
    for (const scheme of schemes) codes.push(...credentialErrors[scheme]!);
  if (!servesWhileMisconfigured(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ":$1"))) codes.push("misconfigured");
  return codes;
};

const bookmarkSent = z.string().optional().openapi({
  description: "An earlier response's x-d1-bookmark: this read sees its writes. A malformed one is ignored.",
  example: "0000002c-00000004-00005019-8d2e9e6c4f6b1ae1cc62b2d7b8b1e3f4",
});
const bookmarkAnswered = z.string().optional().openapi({
  description: "The D1 bookmark after this request, for a later read (absent when no data was touched).",
});

type RequestHeaders = RouteConfig["request"] extends infer Q ? (Q extends { headers?: infer H } ? H : never) : never;
/** Header schemas with one more optional header; a headers object that is not zod is left as it is. */
const withHeader = (headers: unknown, name: string, schema: z.ZodType) => {
  if (headers === undefined) return z.object({ [name]: schema });
  return headers instanceof z.ZodObject ? headers.extend({ [name]: schema }) : headers;
};

/**
 * The headers a response of this route is sent with, beside those it declares: the request id,
 * the version and the D1 bookmark always; Retry-After on a 429 (and optionally on a 409, for a key
 * still in use); the rate headers on the errors of a rate-limited route (absent when refused before
 * counting); Idempotent-Replayed on every answer of a route that replays.
 */
const sentHeadersOf = (status: number, declared: unknown, errors: readonly ErrorCode[]) => {
  const added: Array<readonly [string, z.ZodType]> = [
    ...Object.entries(sentHeaders.everyResponse),
    [BOOKMARK_HEADER, bookmarkAnswered],
  ];
  if (status === 429) added.push(...Object.entries(sentHeaders.retryAfter));
  if (status === 409 && errors.includes("idempotency_key_in_use"))
    added.push(["Retry-After", sentHeaders.retryAfter["Retry-After"].optional()]);
  if (status >= 400 && errors.includes("rate_limit_exceeded")) added.push(...Object.entries(rateLimitHeaders.shape));
  if (errors.includes("idempotency_key_reused")) added.push(...Object.entries(sentHeaders.replayed));
  return added.reduce((headers, [name, schema]) => withHeader(headers, name, schema), declared);
};

/** The request with its JSON body's schema refusing unknown fields at any depth (the document shows additionalProperties: false). */
const withStrictBody = (request: RouteConfig["request"]): RouteConfig["request"] => {
  const body = request?.body;
  const json = body?.content["application/json"];
  if (!body || !json || !("schema" in json) || !(json.schema instanceof z.ZodType)) return request;
  const schema = refuseUnknownFields(json.schema);
  return { ...request, body: { ...body, content: { ...body.content, "application/json": { ...json, schema } } } };
};

type ApiRouteConfig<P extends string = string> = Omit<RouteConfig, "path"> & { path: P } & Described;

/**
 * The responses the document shows for a route: its own, beside the platform's errors and the
 * headers every answer is sent with, once the route says all the document needs of it. Only the
 * document reads them: the Worker's upload leaves this out with every route's `responses`
 * (scripts/worker-documentation.ts), and the document is built from these sources first.
 */
const documentedResponses = (config: ApiRouteConfig) => {
  if (!CAMEL_CASE.test(config.operationId)) throw new Error(`operationId must be camelCase: ${config.operationId}`);
  if (config.tags.length === 0) throw new Error(`${config.operationId} needs a tag`);
  const { errors, errorShape = coreErrorShape } = config;
  const declared: RouteConfig["responses"] = errorResponses([...platformErrors(config), ...errors], errorShape);
  const all: RouteConfig["responses"] = { ...declared };
  // A status a route answers besides its errors (GraphQL's 400 in its own media type) keeps both bodies.
  for (const [status, response] of Object.entries(config.responses)) {
    const error = declared[status];
    all[status] =
      error && !("$ref" in error) && !("$ref" in response) && response.content
        ? {
            ...response,
            description: `${error.description}; ${response.description}`,
            content: { ...error.content, ...response.content },
          }
        : response;
  }
  return Object.fromEntries(
    Object.entries(all).map(([status, response]) => [
      status,
      "$ref" in response ? response : { ...response, headers: sentHeadersOf(Number(status), response.headers, errors) },
    ]),
  );
};

/**
 * `createRoute` for every operation of this API: it requires an operationId, a summary, a tag and
 * a security statement, and documents the platform's own errors beside the route's, so the
 * OpenAPI document lists every status a caller can get. A POST, PUT or PATCH passes the body gate
 * (`jsonBody`) first, before its own middleware (authentication included).
 */
export const apiRoute = <P extends string, R extends ApiRouteConfig<P>>(config: R) => {
  // errors and errorShape are the document's (documentedResponses), not a route config's.
  const {
    errors: _errors,
    errorShape: _errorShape,
    unknownFields = "refused",
    body = "json",
    maxBodyBytes,
    ...route
  } = config;
  const middleware = BODY_METHODS.has(config.method)
    ? [body === "rows" ? rowUploadGate() : jsonBody(maxBodyBytes), ...[config.middleware ?? []].flat()]
    : config.middleware;
  // Every response that touched D1 carries its bookmark; a route a replica may answer takes one (withDb).
  const replicaRead = [config.middleware ?? []].flat().includes(replicaReadsAllowed);
  const strictRequest = unknownFields === "refused" ? withStrictBody(config.request) : config.request;
  const request = replicaRead
    ? {
        ...strictRequest,
        headers: withHeader(strictRequest?.headers, BOOKMARK_HEADER, bookmarkSent) as RequestHeaders,
      }
    : strictRequest;
  return createRoute({
    ...route,
    ...(request ? { request } : {}),
    ...(middleware ? { middleware } : {}),
    responses: documentedResponses(config),
  } as RouteConfig) as unknown as ReturnType<typeof createRoute<P, R>>;
};

/** A JSON response or body of `schema`, as a route declares it. */
export const json = <T>(schema: T) => ({ content: { "application/json": { schema } } });
/** A required JSON request body of `schema`. */
export const jsonRequestBody = <T>(schema: T) => ({ body: { required: true, ...json(schema) } });
