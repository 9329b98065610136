import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { call } from "../../../test/support/api";
import { DEMO_COLLECTOR_KEY } from "../../../test/support/radar";
import { demoAdminToken, OPERATOR } from "../../../test/support/sessions";
import { assertDocumented } from "../../../test/support/openapi-conformance";
import { env } from "cloudflare:test";
import bundleJs from "swagger-ui-dist/swagger-ui-bundle.js?raw";
import uiCss from "swagger-ui-dist/swagger-ui.css?raw";
import licence from "swagger-ui-dist/LICENSE?raw";
import notice from "swagger-ui-dist/NOTICE?raw";
import { SWAGGER_UI_ASSET_DIR, SWAGGER_UI_FILES } from "../docs/api-reference";
import { z } from "@hono/zod-openapi";
import * as fullZod from "zod/v4";
import { bookingEvents } from "../../features/booking";
import { createApp } from "../../app";
import { declaredDocument } from "../docs/openapi-document";
import { errorMessages } from "./errors";

type Schema = {
  $ref?: string;
  example?: unknown;
  examples?: unknown[];
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
};
type Media = { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean; example?: unknown; schema?: Schema }>;
  requestBody?: { content?: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media>; headers?: Record<string, { required?: boolean }> }>;
};

const METHODS = ["get", "put", "post", "delete", "patch"];

const loadDocument = async () => {
  const res = await call("GET", "/openapi.json");
  expect(res.status).toBe(200);
  return res.json as {
    servers?: Array<{ url: string }>;
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Schema> };
  };
};

const operationsOf = (document: Awaited<ReturnType<typeof loadDocument>>) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({
      where: `${method.toUpperCase()} ${path}`,
      operation: item[method]!,
    })),
  );

/**
 * The example a schema shows, as a reference renders it: its own `example`, else its `const` (or only enum value), its
 * first variant's, its items' as a one-item list, or one composed from its properties' examples
 * (every required property needs one).
 */
const exampleOf = (schema: Schema | undefined, schemas: Record<string, Schema>, depth = 0): unknown => {
  if (!schema || depth > 20) return undefined;
  if (schema.$ref) return exampleOf(schemas[schema.$ref.split("/").pop()!], schemas, depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length === 1) return schema.enum[0];
  for (const branch of schema.anyOf ?? schema.oneOf ?? []) {
    const value = exampleOf(branch, schemas, depth + 1);
    if (value !== undefined) return value;
  }
  if (schema.items) {
    const item = exampleOf(schema.items, schemas, depth + 1);
    return item === undefined ? undefined : [item];
  }
  if (schema.properties) {
    const composed: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      const value = exampleOf(property, schemas, depth + 1);
      if (value !== undefined) composed[name] = value;
      else if (schema.required?.includes(name)) return undefined;
    }
    return composed;
  }
  return undefined;
};

const mediaExample = (media: Media, schemas: Record<string, Schema>) =>
  media.example ?? Object.values(media.examples ?? {})[0]?.value ?? exampleOf(media.schema, schemas);

/** A moment (ISO 8601 with its time) or a calendar day, as a value looks. */
const TIME_VALUE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const DATE_VALUE = /^\d{4}-\d{2}-\d{2}$/;
/** Names that say a moment: `*At`, `*_at`, deadlines, time stamps, `*Since`. */
const TIME_NAME = /^(at|deadline|timestamp|timeStamp)$|[a-z0-9](At|Deadline|Since|TimeStamp|Timestamp)$|_at$/;
/** Names that say a calendar day: stay dates, nights, `*Date`, `*_date`. */
const DATE_NAME = /^(date|night|checkIn|checkOut|start|end|from|to|creation)$|[a-z0-9]Date$|_date$/;
/** Descriptions that say a moment or a day. */
const TIME_WORDS = /\(UTC\)|\bmoment\b|\bdate-?time\b|\btimestamp\b/i;
const DATE_WORDS = /\bYYYY-MM-DD\b|\bdate\b/i;

/**
 * What the format rule leaves alone, each with its reason (JSON pointer into the document -> why). Kept
 * short on purpose: a new field is held to the rule unless it is named here.
 */
const FORMAT_EXCEPTIONS: Record<string, string> = {
  "/paths/~1api~1bookings/get/parameters/createdFrom": "a UTC date or a date-time: either is taken",
  "/paths/~1api~1bookings/get/parameters/createdTo": "a UTC date or a date-time: either is taken",
};

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);
const pointer = (where: string, key: string) => `${where}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;

/** A schema's string branches (itself, or the string variants of its anyOf/oneOf): where a format belongs. */
const stringBranches = (schema: Node): Node[] => {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (schema.enum || schema.const !== undefined) return []; // a closed list of words is no time
  if (types.includes("string")) return [schema];
  return [...((schema.anyOf as Node[]) ?? []), ...((schema.oneOf as Node[]) ?? [])]
    .filter(isNode)
    .flatMap(stringBranches);
};

/** What a named string says it holds: a moment (date-time), a day (date), or neither. */
const expectedFormat = (name: string, schema: Node, parentExample: unknown): "date-time" | "date" | undefined => {
  const description = [schema.description, ...stringBranches(schema).map((b) => b.description)].join(" ");
  const examples = [schema.example, ...((schema.examples as unknown[]) ?? []), parentExample]
    .concat(stringBranches(schema).flatMap((b) => [b.example, ...((b.examples as unknown[]) ?? [])]))
    .filter((value): value is string => typeof value === "string");
  if (TIME_NAME.test(name) || TIME_WORDS.test(description) || examples.some((e) => TIME_VALUE.test(e)))
    return "date-time";
  if (DATE_NAME.test(name) || examples.some((e) => DATE_VALUE.test(e))) return "date";
  if (DATE_WORDS.test(description) && !examples.length) return "date";
  return undefined;
};

/**
 * Every named string of a document (schema properties and parameters, anywhere: components, paths,
 * webhooks) whose name, description or example says it is a moment or a day, and whose format does
 * not say so: `date-time` for moments, `date` for days. Names the place of each by JSON pointer.
 */
const timeFormatGaps = (document: unknown, exceptions = FORMAT_EXCEPTIONS): string[] => {
  const gaps: string[] = [];
  const seen = new Set<string>();
  const check = (where: string, name: string, schema: Node, parentExample: unknown) => {
    const branches = stringBranches(schema);
    seen.add(where);
    if (!branches.length || exceptions[where]) return;
    const expected = expectedFormat(name, schema, parentExample);
    if (!expected) return;
    const formats = new Set(branches.map((b) => b.format ?? schema.format));
    if (formats.size !== 1 || !formats.has(expected))
      gaps.push(`${where}: ${name} needs format ${expected} (has ${[...formats].map(String).join(", ")})`);
  };
  // `shown` is the example an enclosing schema or media shows for this node, carried down to every property.
  const walk = (node: unknown, where: string, shown?: unknown): void => {
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, `${where}/${i}`);
      return;
    }
    if (!isNode(node)) return;
    if (typeof node.name === "string" && typeof node.in === "string" && isNode(node.schema)) {
      check(
        `${where.replace(/\/\d+$/, "")}/${node.name}`,
        node.name,
        { description: node.description, ...node.schema },
        node.example,
      );
    }
    const own = node.example ?? (node.examples as unknown[] | undefined)?.[0] ?? shown;
    for (const [key, value] of Object.entries(node)) {
      const at = pointer(where, key);
      if (key === "properties" && isNode(value)) {
        for (const [name, property] of Object.entries(value)) {
          const example = isNode(own) ? own[name] : undefined;
          if (isNode(property)) check(pointer(at, name), name, property, example);
          walk(property, pointer(at, name), example);
        }
      } else if (key === "items") walk(value, at, Array.isArray(own) ? own[0] : undefined);
      else if (key === "anyOf" || key === "oneOf" || key === "allOf")
        for (const [i, branch] of (value as unknown[]).entries()) walk(branch, `${at}/${i}`, own);
      else if (key === "schema") walk(value, at, node.example);
      else walk(value, at);
    }
  };
  walk(document, "");
  for (const where of Object.keys(exceptions))
    if (!seen.has(where)) gaps.push(`${where}: an exception for a field the document no longer has`);
  return gaps;
};

describe("the OpenAPI document is complete", () => {
  it("serves the document the routes declare, built with the Worker (snippet/_data/openapi.json), naming each answer's server", async () => {
    const app = createApp();
    const served = async (base: string) =>
      (await app.request("/openapi.json", {}, { ...env, PUBLIC_BASE_URL: base })).text();
    const declared = (base: string) =>
      JSON.stringify({
        ...declaredDocument(app, errorMessages),
        servers: [{ url: base, description: "This deployment" }],
      });
    // Byte for byte what the routes declare today: a stale asset fails here (npm run build writes it).
    for (const base of ["https://a.example", "https://b.example"]) {
      const [answer, expected] = [await served(base), declared(base)];
      expect(answer.length, "snippet/_data/openapi.json is stale: npm run build").toBe(expected.length);
      expect(answer === expected, "snippet/_data/openapi.json is stale: npm run build").toBe(true);
    }
  });

  it("has servers, and every operation an operationId (camelCase, unique), a tag, a summary, a description and a security statement", async () => {
    const document = await loadDocument();
    expect(document.servers?.[0]?.url).toBe("https://edgestay.test");
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(50);
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const incomplete = operations.filter(
      ({ operation }) =>
        !/^[a-z][a-zA-Z0-9]*$/.test(operation.operationId ?? "") ||
        !operation.tags?.length ||
        !operation.summary ||
        !operation.description ||
        !Array.isArray(operation.security),
    );
    expect(incomplete.map(({ where }) => where)).toEqual([]);
  });

  it("shows an example of every parameter (path, query, header)", async () => {
    const operations = operationsOf(await loadDocument());
    const bare = operations.flatMap(({ where, operation }) =>
      (operation.parameters ?? [])
        .filter((p) => p.example === undefined && p.schema?.example === undefined)
        .map((p) => `${where} ${p.in} ${p.name}`),
    );
    expect(bare).toEqual([]);
  });

  it("gives every moment format date-time and every day format date, wherever it is", async () => {
    expect(timeFormatGaps(await loadDocument())).toEqual([]);
  });

  it("the format rule finds a planted moment or day by its name, its description or its example (its own or an enclosing one's)", () => {
    const planted = {
      components: {
        schemas: {
          Stay: {
            type: "object",
            properties: {
              heldAt: { type: "string" },
              firstNight: { type: "string", description: "The date of the first night" },
              lastSeen: { anyOf: [{ type: "string", example: "2027-03-10T12:00:00.000Z" }, { type: "null" }] },
              checkOut: { type: "string", format: "date-time" },
              createdAt: { type: "string", format: "date-time" },
              label: { type: "string" },
              window: { type: "object", properties: { opens: { type: "string" } } },
            },
            example: { label: "x", window: { opens: "2027-03-10T00:00:00Z" } },
          },
        },
      },
      paths: { "/x": { get: { parameters: [{ name: "arrivalDate", in: "query", schema: { type: "string" } }] } } },
    };
    expect(timeFormatGaps(planted, { "/paths/~1x/get/parameters/since": "either form" })).toEqual([
      "/components/schemas/Stay/properties/heldAt: heldAt needs format date-time (has undefined)",
      "/components/schemas/Stay/properties/firstNight: firstNight needs format date (has undefined)",
      "/components/schemas/Stay/properties/lastSeen: lastSeen needs format date-time (has undefined)",
      "/components/schemas/Stay/properties/checkOut: checkOut needs format date (has date-time)",
      "/components/schemas/Stay/properties/window/properties/opens: opens needs format date-time (has undefined)",
      "/paths/~1x/get/parameters/arrivalDate: arrivalDate needs format date (has undefined)",
      "/paths/~1x/get/parameters/since: an exception for a field the document no longer has",
    ]);
  });

  it("documents the platform's errors on every operation: 500 always, 401 where a credential is required", async () => {
    const operations = operationsOf(await loadDocument());
    const missing = operations.filter(
      ({ operation }) => !operation.responses["500"] || (operation.security!.length > 0 && !operation.responses["401"]),
    );
    expect(missing.map(({ where }) => where)).toEqual([]);
  });

  it("documents x-d1-bookmark: answered on every response, taken by exactly the reads a replica may answer", async () => {
    const operations = operationsOf(await loadDocument());
    const unanswered = operations.flatMap(({ where, operation }) =>
      Object.entries(operation.responses)
        .filter(([, response]) => response.headers?.["x-d1-bookmark"]?.required !== false)
        .map(([status]) => `${where} ${status}`),
    );
    expect(unanswered).toEqual([]);
    const takers = operations
      .filter(({ operation }) =>
        operation.parameters?.some((p) => p.in === "header" && p.name === "x-d1-bookmark" && p.required === false),
      )
      .map(({ operation }) => operation.operationId)
      .sort();
    // The routes that declare replicaReadsAllowed (test/workers/d1-session.test.ts checks each continues from it).
    expect(takers).toEqual([
      "getBooking",
      "listAccommodationContent",
      "listBookings",
      "previewCancellation",
      "searchAvailability",
      "searchAvailabilityTgx",
    ]);
  });

  it("documents every event type as an OpenAPI 3.1 webhook: signed headers, a payload schema and an example", async () => {
    const document = (await call("GET", "/openapi.json")).json as {
      webhooks: Record<string, { post: Operation }>;
    };
    expect(Object.keys(document.webhooks)).toEqual(Object.keys(bookingEvents));
    for (const [type, { post }] of Object.entries(document.webhooks)) {
      expect(post.summary && post.description, type).toBeTruthy();
      expect(post.parameters?.map((p) => `${p.in} ${p.name} ${p.required}`)).toEqual([
        "header Edgestay-Signature true",
        "header Edgestay-Event-Id true",
      ]);
      const body = post.requestBody?.content?.["application/json"]?.schema as Schema & { example?: { type: string } };
      expect(body.example?.type, type).toBe(type);
    }
  });

  it("shows GET /health's answer as its own example", async () => {
    const document = await loadDocument();
    const up = document.paths["/health"]!.get!.responses["200"]!.content!["application/json"]!;
    expect(up.example).toEqual({ data: { status: "ok" }, message: "success" });
  });

  it("shows a pending booking as the 202 of POST /api/book", async () => {
    const document = await loadDocument();
    const pending = document.paths["/api/book"]!.post!.responses["202"]!.content!["application/json"]!;
    expect((mediaExample(pending, document.components.schemas) as { data: { status: string } }).data.status).toBe(
      "pending",
    );
  });

  it("has a request example for every JSON body and a response example for every JSON success, each valid against its schema", async () => {
    const document = await loadDocument();
    const schemas = document.components.schemas;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(document, "openapi");
    const problems: string[] = [];
    const check = (where: string, media: Media, pointer: string) => {
      const example = mediaExample(media, schemas);
      if (example === undefined) return problems.push(`${where}: no example`);
      const validate = ajv.compile({ $ref: `openapi#${pointer}` });
      if (!validate(example)) problems.push(`${where}: example breaks the schema: ${ajv.errorsText(validate.errors)}`);
    };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS.filter((m) => item[m])) {
        const operation = item[method]!;
        const base = `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}`;
        const request = operation.requestBody?.content?.["application/json"];
        if (request)
          check(
            `${method.toUpperCase()} ${path} request`,
            request,
            `${base}/requestBody/content/application~1json/schema`,
          );
        for (const [status, answer] of Object.entries(operation.responses)) {
          const media = answer.content?.["application/json"];
          if (status.startsWith("2") && media)
            check(
              `${method.toUpperCase()} ${path} ${status}`,
              media,
              `${base}/responses/${status}/content/application~1json/schema`,
            );
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

// The Hotel-X routes follow the Hotel-X rules (their schemas say which objects are strict).
const HOTELX_RULES = /\/tgx$|^\/api\/graphql$/;
// The free-form maps the contract leaves open (docs/api-decisions.md, "Issue 37: unknown fields are refused by name").
const OPEN_MAPS = ["settings.access.parameters", "distributionContext.customer", "rates", "payload"];
// Bodies that are a map as a whole (issue 39: a supplier's board codes are the keys): an unknown key is a bad value.
const OPEN_BODIES = ["PUT /api/operator/suppliers/{code}/board-map"];
// Row uploads are judged a row at a time: a row with an unknown field is a rejected row (maps.test.ts), never a 400.
const isRowUpload = (operation: { requestBody?: { content?: Record<string, unknown> } }) =>
  operation.requestBody?.content?.["application/x-ndjson"] !== undefined;

/** Every object of a schema that does not refuse an undeclared key, by its path in the body. */
const openObjectsOf = (
  schema: Schema | undefined,
  schemas: Record<string, Schema>,
  path = "",
  seen = new Set<string>(),
): string[] => {
  if (!schema) return [];
  if (schema.$ref) {
    const name = schema.$ref.split("/").pop()!;
    if (seen.has(name)) return [];
    return openObjectsOf(schemas[name], schemas, path, new Set([...seen, name]));
  }
  const open = (schema.type === "object" || schema.properties) && schema.additionalProperties !== false ? [path] : [];
  if (open.length > 0 && OPEN_MAPS.includes(path)) return [];
  const inner = [
    ...Object.entries(schema.properties ?? {}).map(([name, property]) =>
      openObjectsOf(property, schemas, path ? `${path}.${name}` : name, seen),
    ),
    ...[...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].map((branch) => openObjectsOf(branch, schemas, path, seen)),
    schema.items ? openObjectsOf(schema.items, schemas, `${path}[]`, seen) : [],
  ];
  return [...open, ...inner.flat()];
};

describe("every JSON request body refuses an unknown field by name (issue 37)", () => {
  it("documents every object of every body as closed (additionalProperties: false), but the open maps", async () => {
    const document = await loadDocument();
    const open = operationsOf(document)
      .filter(({ where }) => !HOTELX_RULES.test(where.split(" ")[1]!))
      .flatMap(({ where, operation }) => {
        const media = operation.requestBody?.content?.["application/json"];
        return media
          ? openObjectsOf(media.schema, document.components.schemas)
              .filter((path) => path !== "" || !OPEN_BODIES.includes(where))
              .map((path) => `${where} ${path || "(body)"}`)
          : [];
      });
    expect(open).toEqual([]);
  });

  it("answers 400 naming the field when a route's valid example carries one more field", async () => {
    const document = await loadDocument();
    const admin = await demoAdminToken();
    const credentials: Record<string, { apiKey?: null; headers: Record<string, string> }> = {
      ApiKey: { headers: {} },
      ChatApiKey: { headers: {} },
      Bearer: { apiKey: null, headers: { authorization: `Bearer ${admin}` } },
      OperatorToken: { apiKey: null, headers: { ...OPERATOR.headers } },
      CollectorKey: { apiKey: null, headers: { "x-radar-collector-key": DEMO_COLLECTOR_KEY } },
    };
    const routes = operationsOf(document).filter(
      ({ where, operation }) =>
        operation.requestBody?.content?.["application/json"] &&
        !HOTELX_RULES.test(where.split(" ")[1]!) &&
        !isRowUpload(operation),
    );
    expect(routes.length).toBeGreaterThan(25);
    const answers: string[] = [];
    for (const { where, operation } of routes) {
      const [method, template] = where.split(" ") as [string, string];
      const example = mediaExample(operation.requestBody!.content!["application/json"]!, document.components.schemas);
      const scheme = Object.keys((operation.security?.[0] ?? {}) as object)[0];
      const options = scheme ? credentials[scheme]! : { apiKey: null, headers: {} };
      const headers = {
        ...options.headers,
        "idempotency-key": crypto.randomUUID(),
        "session-id": "sess-unknown-fields-0001",
      };
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
        const parameter = operation.parameters?.find((p) => p.in === "path" && p.name === name);
        return encodeURIComponent(String(parameter?.example ?? parameter?.schema?.example));
      });
      const res = await call(method, path, { ...(example as object), unexpectedField: true }, { ...options, headers });
      const message = res.json?.message ?? res.json?.error;
      answers.push(`${where}: ${res.status} ${message}`);
    }
    expect(answers).toEqual(
      routes.map(({ where }) =>
        OPEN_BODIES.includes(where)
          ? expect.stringMatching(new RegExp(`^${where.replace(/[{}]/g, "\\$&")}: 400 unexpectedField: `))
          : `${where}: 400 Unknown field: unexpectedField`,
      ),
    );
  });
});

describe("every response a test receives is checked against the document", () => {
  const json = (status: number, body: unknown, type = "application/json") => ({
    status,
    headers: new Headers({ "content-type": type, "x-request-id": "r", "x-edgestay-version": "local" }),
    text: JSON.stringify(body),
    json: body,
  });

  it("refuses an undocumented status, naming the operation and the statuses it documents", async () => {
    await expect(
      assertDocumented({ method: "GET", url: "/health" }, json(418, { message: "x", code: "x", requestId: "r" })),
    ).rejects.toThrow(/GET \/health answered 418, a status GET \/health does not document \(documented: 200, 500\)/);
  });

  it("refuses a body that breaks the documented schema, naming the field", async () => {
    await expect(
      assertDocumented({ method: "GET", url: "/health" }, json(200, { data: { status: "down" }, message: "success" })),
    ).rejects.toThrow(
      /breaks the documented schema of GET \/health 200:\n {2}\/data\/status must be equal to one of the allowed values/,
    );
    await expect(
      assertDocumented({ method: "POST", url: "/api/search" }, json(400, { error: "wrong shape" })),
    ).rejects.toThrow(/POST \/api\/search 400/);
  });

  it("accepts what is documented, path parameters included, and skips bodies that are not JSON", async () => {
    await assertDocumented(
      { method: "GET", url: "https://edgestay.test/health?x=1" },
      json(200, { data: { status: "ok" }, message: "success" }),
    );
    await assertDocumented(
      { method: "GET", url: "/api/bookings/BK1" },
      json(404, { message: "Booking not found with bookingReference: BK1", code: "booking_not_found", requestId: "r" }),
    );
    await assertDocumented(
      { method: "GET", url: "/chat/accommodations/US000001" },
      { ...json(200, null, "text/html; charset=UTF-8"), text: "<!doctype html>" },
    );
  });

  it("refuses a response without a header its operation documents as required", async () => {
    const answer = json(200, { data: { status: "ok" }, message: "success" });
    answer.headers.delete("x-edgestay-version");
    await expect(assertDocumented({ method: "GET", url: "/health" }, answer)).rejects.toThrow(
      "OpenAPI: GET /health answered 200 without the header(s) x-edgestay-version that GET /health documents as required for 200",
    );
  });

  it("refuses a code the operation does not document for the status, and a message the error table does not list", async () => {
    await expect(
      assertDocumented(
        { method: "GET", url: "/api/bookings/BK1" },
        json(404, { message: "Route not found: GET /x", code: "not_found", requestId: "r" }),
      ),
    ).rejects.toThrow(
      /GET \/api\/bookings\/BK1 answered 404 with code not_found, a code GET \/api\/bookings\/\{bookingReference\} \(getBooking\) does not document for 404 \(documented: booking_not_found\)/,
    );
    await expect(
      assertDocumented(
        { method: "GET", url: "/api/bookings/BK1" },
        json(404, { message: "Booking not found", code: "booking_not_found", requestId: "r" }),
      ),
    ).rejects.toThrow(
      /code booking_not_found and the message "Booking not found", which errorMessages .* does not list/,
    );
    await expect(
      assertDocumented(
        { method: "GET", url: "/nowhere" },
        json(404, { message: "x", code: "no_such_code", requestId: "r" }),
      ),
    ).rejects.toThrow(/code no_such_code, which is not in the error table/);
  });

  it("holds errors answered before any route (404, 405, refused bodies) to a documented error body", async () => {
    await assertDocumented(
      { method: "GET", url: "/nowhere" },
      json(404, { message: "Route not found: GET /nowhere", code: "not_found", requestId: "r" }),
    );
    await expect(assertDocumented({ method: "GET", url: "/nowhere" }, json(404, { oops: true }))).rejects.toThrow(
      /on no documented operation/,
    );
  });
});

describe("api-reference", () => {
  const PACKAGE_FILES: Record<(typeof SWAGGER_UI_FILES)[number], string> = {
    "swagger-ui-bundle.js": bundleJs,
    "swagger-ui.css": uiCss,
    LICENSE: licence,
    NOTICE: notice,
  };

  const get = (path: string) => call("GET", path, undefined, { apiKey: null });
  const directive = (csp: string, name: string) =>
    csp
      .split(";")
      .map((d) => d.trim())
      .find((d) => d.startsWith(`${name} `)) ?? "";
  const attributes = (html: string, tag: string, attribute: string) =>
    [...html.matchAll(new RegExp(`<${tag}\\b[^>]*\\b${attribute}="([^"]*)"`, "gi"))].map((m) => m[1]!);

  describe("Swagger UI, shipped as static assets from the pinned package", () => {
    it.each(SWAGGER_UI_FILES)(
      "%s is the package's file (run `npm run assets` after upgrading swagger-ui-dist)",
      async (file) => {
        const res = await env.ASSETS.fetch(new Request(`https://assets.local${SWAGGER_UI_ASSET_DIR}/${file}`));
        expect(res.status).toBe(200);
        const served = await res.text();
        expect(served.length).toBe(PACKAGE_FILES[file].length);
        expect(served === PACKAGE_FILES[file]).toBe(true);
      },
    );
  });

  describe("/docs and / are finished pages under the strict policy", () => {
    it.each(["/docs", "/"])(
      "%s answers 200 HTML with the CSP, only same-origin scripts and nothing inline",
      async (path) => {
        const res = await get(path);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toContain("text/html");
        const csp = res.headers.get("content-security-policy") ?? "";
        expect(directive(csp, "default-src")).toBe("default-src 'none'");
        expect(directive(csp, "frame-ancestors")).toBe("frame-ancestors 'none'");
        expect(directive(csp, "script-src")).toBe("script-src 'self'");
        expect(directive(csp, "style-src")).toBe("style-src 'self' 'unsafe-inline'");
        expect(csp).not.toMatch(/cdn|https?:/);
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        expect(res.headers.get("x-frame-options")).toBe("DENY");
        expect(res.headers.get("referrer-policy")).toBe("no-referrer");
        // Every script is a file on this origin; no inline script, no handler attribute.
        expect(res.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/i);
        expect(res.text).not.toMatch(/\son[a-z]+=/i);
        for (const src of [...attributes(res.text, "script", "src"), ...attributes(res.text, "link", "href")]) {
          expect(src, src).toMatch(/^\/(?!\/)|^data:,$/);
        }
      },
    );

    it("every script and stylesheet the pages load is served, and the bootstrap points the UI at /openapi.json", async () => {
      const docs = await get("/docs");
      const index = await get("/");
      const files = new Set(
        [docs.text, index.text]
          .flatMap((html) => [...attributes(html, "script", "src"), ...attributes(html, "link", "href")])
          .filter((f) => f.startsWith("/")),
      );
      expect([...files].sort()).toEqual([
        "/docs.js",
        "/site.css",
        `${SWAGGER_UI_ASSET_DIR}/swagger-ui-bundle.js`,
        `${SWAGGER_UI_ASSET_DIR}/swagger-ui.css`,
      ]);
      for (const file of files) {
        const res = await get(file);
        expect(res.status, file).toBe(200);
        expect(res.headers.get("content-type"), file).toMatch(file.endsWith(".css") ? /text\/css/ : /javascript/);
      }
      const bootstrap = (await get("/docs.js")).text;
      expect(bootstrap).toContain('url: "/openapi.json"');
      expect(bootstrap).not.toMatch(/https?:/);
      expect((await get("/openapi.json")).status).toBe(200);
    });

    it("the landing page links the reference, the document, the radar snippet and names the README sections", async () => {
      const { text } = await get("/");
      expect(attributes(text, "a", "href")).toEqual(expect.arrayContaining(["/docs", "/openapi.json", "/radar.js"]));
      for (const section of [
        "Set-up: two commands",
        "Search, quote, book and cancel with curl",
        "Booking through the chat API with curl",
        "Deploying",
      ]) {
        expect(text).toContain(section);
      }
    });
  });
});

describe("zod-without-locales", () => {
  // The names src/platform/zod-without-locales/api.ts leaves out of the bundle.
  const leftOut = ["locales", "core", "fromJSONSchema", "compile", "withParser"];
  // "zod/v4" adds a default export (the namespace) to the classic API; zod-without-locales has its own.
  const notClassic = ["default"];

  describe("zod as bundled", () => {
    it("is the trimmed module, so the suite runs what ships", () => {
      expect((z as Record<string, unknown>).locales).toBeUndefined();
    });

    it("keeps every other export of zod's classic API, as the same values", () => {
      const missing = Object.keys(fullZod).filter(
        (name) =>
          !leftOut.includes(name) &&
          !notClassic.includes(name) &&
          (z as Record<string, unknown>)[name] !== (fullZod as Record<string, unknown>)[name],
      );
      expect(missing).toEqual([]);
    });

    it("still answers in English", () => {
      const result = z.object({ name: z.string(), nights: z.number().int().min(1) }).safeParse({ name: 1, nights: 0 });
      expect(result.error?.issues.map((issue) => issue.message)).toEqual([
        "Invalid input: expected string, received number",
        "Too small: expected number to be >=1",
      ]);
    });

    it("still describes schemas for /openapi.json", () => {
      expect(z.string().openapi({ example: "x" }).toJSONSchema()).toMatchObject({ type: "string" });
    });
  });
});
