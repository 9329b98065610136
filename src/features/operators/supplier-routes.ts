import { z } from "@hono/zod-openapi";
import { apiRoute, json, jsonRequestBody } from "../../platform/http/api-route";
import { operatorAuth, operatorSecurity } from "../../platform/auth/operator";
import { envelopeSchema, success } from "../../platform/http/envelope";
import { timestamp } from "../../platform/http/fields";
import { isLocal } from "../../platform/environment";
import { featureRouter } from "../../platform/http/router";
import { supplierHasBookings } from "../booking";
import { connectionSupplierCodes } from "../connections";
import {
  createSupplier,
  deleteSupplier,
  getSupplier,
  listSuppliers,
  sellSuppliers,
  supplierKinds,
  updateSupplier,
  type SupplierKind,
} from "../supply";
import { connectionIdParamsSchema } from "./schemas";

const codeField = z
  .string()
  .regex(/^[a-z0-9-]{2,40}$/, "expected 2 to 40 lower-case letters, digits or hyphens")
  .openapi({ example: "hotelx-acme" });
const nameField = z.string().trim().min(1).max(100).openapi({ example: "Acme Hotel-X" });

/** A kind's settings as the operator sends them: its schema, plus its credentials when it has any (sealed, never shown back). */
const requestSettingsOf = (kind: SupplierKind) => {
  const settings = kind.settings as unknown as z.ZodObject;
  return kind.credentials
    ? settings.extend({
        credentials: (kind.credentials as z.ZodType).nullable().optional().openapi({
          description: "Sealed, never shown back. On PUT: absent keeps the stored ones, null clears them",
        }),
      })
    : settings;
};

// Built from the kind registry: one branch per kind an operator can create (a built-in one cannot be).
const creatable = supplierKinds().filter((kind) => !kind.builtIn);
const createSupplierSchema = z
  .discriminatedUnion(
    "kind",
    creatable.map((kind) =>
      z.object({
        code: codeField,
        kind: z.literal(kind.kind).openapi({ description: kind.description }),
        name: nameField,
        settings: requestSettingsOf(kind),
      }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  )
  .openapi("CreateSupplierRequest", {
    example: {
      code: "hotelx-acme",
      kind: "hotelx",
      name: "Acme Hotel-X",
      settings: {
        url: "https://api.travelgatex.com",
        client: "edgestay",
        context: "ACME",
        credentials: { apiKey: "supplier-api-key" },
        currency: "EUR",
        hotelCodes: "mapped",
        twoStepBooking: false,
      },
    },
  });

const updateSupplierSchema = z
  .object({
    name: nameField,
    settings: z
      .union(creatable.map(requestSettingsOf) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]])
      .openapi({
        description: "The whole settings of the supplier's kind (as on create): they replace the stored ones",
      }),
  })
  .openapi("UpdateSupplierRequest", {
    example: {
      name: "Acme Hotel-X",
      settings: { url: "https://api.travelgatex.com", client: "edgestay", context: "ACME", timeout: 4000 },
    },
  });

const supplierSchema = z
  .object({
    code: z.string(),
    kind: z.string(),
    name: z.string(),
    settings: z.record(z.string(), z.unknown()),
    credentials: z
      .record(z.string(), z.string())
      .nullable()
      .openapi({ description: "Masked: which credentials are set, never their value; null: none" }),
    active: z.boolean().openapi({ description: "false: deleted while bookings name it (they can still be cancelled)" }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi("Supplier", {
    example: {
      code: "hotelx-acme",
      kind: "hotelx",
      name: "Acme Hotel-X",
      settings: { url: "https://api.travelgatex.com", client: "edgestay", context: "ACME", currency: "EUR" },
      credentials: { apiKey: "********" },
      active: true,
      createdAt: "2026-12-01T09:00:00.000Z",
      updatedAt: "2026-12-01T09:00:00.000Z",
    },
  });

const supplierCodeParamsSchema = z.object({
  code: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "code", in: "path" }, example: "hotelx-acme" }),
});

const soldList = () =>
  z
    .array(z.object({ code: z.string().min(1).max(64) }))
    .min(1)
    .max(20)
    .openapi({ description: "In order of preference (on equal prices, the first wins)" });
const soldExample = { suppliers: [{ code: "embedded" }, { code: "hotelx-acme" }] };
const connectionSuppliersRequestSchema = z
  .object({ suppliers: soldList() })
  .openapi("ConnectionSuppliersRequest", { example: soldExample });
const connectionSuppliersSchema = z
  .object({ suppliers: soldList() })
  .openapi("ConnectionSuppliers", { example: soldExample });

const operator = { security: operatorSecurity, middleware: [operatorAuth()] };
const tags = ["Operator: suppliers"];
const one = { description: "The supplier, credentials masked", ...json(envelopeSchema(supplierSchema)) };
const sold = { description: "The suppliers the connection sells", ...json(envelopeSchema(connectionSuppliersSchema)) };

const create = apiRoute({
  operationId: "createSupplier",
  method: "post",
  path: "/api/operator/suppliers",
  tags,
  summary: "Create a supplier of a registered kind; credentials are stored sealed, never returned",
  description:
    "code: 2 to 40 of a-z, 0-9 and -, unique. settings: the kind's (the schema below has one branch per kind of the registry).",
  ...operator,
  request: jsonRequestBody(createSupplierSchema),
  errors: ["supplier_exists", "invalid_upstream_url"],
  responses: { 201: one },
});
const list = apiRoute({
  operationId: "listSuppliers",
  method: "get",
  path: "/api/operator/suppliers",
  tags,
  summary: "Every supplier (the built-in `embedded` one included), credentials masked",
  description: "Deleted suppliers that bookings still name are listed with active false.",
  ...operator,
  errors: [],
  responses: {
    200: {
      description: "The suppliers, by code",
      ...json(envelopeSchema(z.object({ items: z.array(supplierSchema) }))),
    },
  },
});
const read = apiRoute({
  operationId: "getSupplier",
  method: "get",
  path: "/api/operator/suppliers/{code}",
  tags,
  summary: "One supplier, credentials masked",
  description: "code: from GET /api/operator/suppliers.",
  ...operator,
  request: { params: supplierCodeParamsSchema },
  errors: ["supplier_not_found"],
  responses: { 200: one },
});
const update = apiRoute({
  operationId: "updateSupplier",
  method: "put",
  path: "/api/operator/suppliers/{code}",
  tags,
  summary: "Replace a supplier's name and whole settings (credentials: absent keeps them, null clears them)",
  description: "code: from GET /api/operator/suppliers. Its kind cannot change.",
  ...operator,
  request: { params: supplierCodeParamsSchema, ...jsonRequestBody(updateSupplierSchema) },
  errors: ["supplier_not_found", "invalid_upstream_url"],
  responses: { 200: one },
});
const remove = apiRoute({
  operationId: "deleteSupplier",
  method: "delete",
  path: "/api/operator/suppliers/{code}",
  tags,
  summary:
    "Delete a supplier: 409 while a connection sells it; one that bookings name is deactivated (active false), never erased, so they still cancel",
  description: "code: from GET /api/operator/suppliers. Answers the supplier as it was, or as deactivated.",
  ...operator,
  request: { params: supplierCodeParamsSchema },
  errors: ["supplier_not_found", "supplier_in_use"],
  responses: { 200: one },
});
const putSold = apiRoute({
  operationId: "setConnectionSuppliers",
  method: "put",
  path: "/api/connections/{id}/suppliers",
  tags: ["Operator: connections"],
  summary: "Set the suppliers a connection sells, in order of preference (new connections sell [embedded])",
  description: "id: from GET /api/connections. An unknown or deleted supplier code is a 400 naming it.",
  ...operator,
  request: { params: connectionIdParamsSchema, ...jsonRequestBody(connectionSuppliersRequestSchema) },
  errors: ["connection_not_found", "unknown_supplier"],
  responses: { 200: sold },
});
const getSold = apiRoute({
  operationId: "getConnectionSuppliers",
  method: "get",
  path: "/api/connections/{id}/suppliers",
  tags: ["Operator: connections"],
  summary: "The suppliers a connection sells, in order of preference",
  description: "id: from GET /api/connections.",
  ...operator,
  request: { params: connectionIdParamsSchema },
  errors: ["connection_not_found"],
  responses: { 200: sold },
});

const keysOf = (env: Env) => ({ credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, local: isLocal(env) });
const soldView = (codes: string[]) => ({ suppliers: codes.map((code) => ({ code })) });

export const supplierRoutes = featureRouter()
  .openapi(create, async (c) =>
    c.json(success(await createSupplier(c.get("db"), keysOf(c.env), c.req.valid("json") as never)), 201),
  )
  .openapi(list, async (c) => c.json(success({ items: await listSuppliers(c.get("db")) }), 200))
  .openapi(read, async (c) => c.json(success(await getSupplier(c.get("db"), c.req.valid("param").code)), 200))
  .openapi(update, async (c) =>
    c.json(
      success(await updateSupplier(c.get("db"), keysOf(c.env), c.req.valid("param").code, c.req.valid("json"))),
      200,
    ),
  )
  .openapi(remove, async (c) => {
    const db = c.get("db");
    const { deleted: _, ...view } = await deleteSupplier(db, c.req.valid("param").code, (code) =>
      supplierHasBookings(db, code),
    );
    return c.json(success(view), 200);
  })
  .openapi(putSold, async (c) => {
    const codes = c.req.valid("json").suppliers.map((s) => s.code);
    const sold = await sellSuppliers(c.get("db"), c.req.valid("param").id, codes);
    return c.json(success(soldView(sold.suppliers)), 200);
  })
  .openapi(getSold, async (c) =>
    c.json(success(soldView(await connectionSupplierCodes(c.get("db"), c.req.valid("param").id))), 200),
  );
