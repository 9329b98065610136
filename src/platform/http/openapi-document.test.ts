import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { call } from "../../../test/support/api";
import { assertDocumented } from "../../../test/support/openapi-conformance";

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
};
type Media = { schema?: Schema; example?: unknown; examples?: Record<string, { value?: unknown }> };
type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
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

describe("the OpenAPI document is complete", () => {
  it("has servers, and every operation an operationId (camelCase, unique), a tag, a summary and a security statement", async () => {
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
        !Array.isArray(operation.security),
    );
    expect(incomplete.map(({ where }) => where)).toEqual([]);
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

describe("every response a test receives is checked against the document", () => {
  const json = (status: number, body: unknown, type = "application/json") => ({
    status,
    headers: new Headers({ "content-type": type }),
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
      json(404, { message: "Booking not found", code: "not_found", requestId: "r" }),
    );
    await assertDocumented(
      { method: "GET", url: "/chat/accommodations/US000001" },
      { ...json(200, null, "text/html; charset=UTF-8"), text: "<!doctype html>" },
    );
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
