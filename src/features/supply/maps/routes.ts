import { z } from "@hono/zod-openapi";
import { operatorAuth, operatorSecurity } from "../../../platform/auth/operator";
import { apiRoute, json, jsonRequestBody } from "../../../platform/http/api-route";
import { envelopeSchema, success } from "../../../platform/http/envelope";
import { featureRouter } from "../../../platform/http/router";
import { MAX_UPLOAD_BYTES, MAX_UPLOAD_ROWS, NDJSON, readUploadRows } from "../../../platform/http/row-upload";
import { boardMapSchema, readBoardMap, replaceBoardMap } from "./board-map";
import { deleteHotelMapping, hotelMapQuery, hotelMapRow, importHotelMap, listHotelMap } from "./hotel-map";
import { importRoomMap, listRoomMap, roomMapQuery, roomMapRow } from "./room-map";
import { REJECTION_REASONS } from "./upload";

const TAG = ["Supplier maps (operator)"];
const supplierCode = z
  .string()
  .min(1)
  .max(64)
  .openapi({ description: "A supplier's code (GET /api/operator/suppliers)", example: "acme-beds" });
const params = z.object({ code: supplierCode });

/** What a hotel map import did (also what hotel-map/suggest's `apply` did). */
export const mapImportResult = z
  .object({
    inserted: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int(),
    rejected: z.array(
      z.object({
        row: z
          .number()
          .int()
          .openapi({ description: "The row's number in the upload, from 1 (NDJSON: blank lines are not counted)" }),
        reason: z.enum(REJECTION_REASONS),
        message: z.string(),
      }),
    ),
  })
  .openapi("MapImportResult", {
    example: {
      inserted: 2,
      updated: 0,
      unchanged: 1,
      rejected: [{ row: 4, reason: "unknown_accommodation", message: "No accommodation US999999" }],
    },
  });
const importAnswer = envelopeSchema(mapImportResult).openapi("MapImportResponse");

/** The upload as documented: validated row by row by the handler (a bad row is rejected, not the upload). */
const uploadOf = (
  properties: Record<string, { type: "string"; description: string }>,
  what: string,
  example: Array<Record<string, string>>,
) => {
  const row = { type: "object" as const, required: Object.keys(properties), additionalProperties: false, properties };
  return {
    required: true,
    description: `${what}: a JSON array of rows, or ${NDJSON} (one row a line), at most ${MAX_UPLOAD_ROWS} rows and ${MAX_UPLOAD_BYTES} bytes (the only routes above 1 MiB). Read as a stream.`,
    content: {
      "application/json": { schema: { type: "array" as const, maxItems: MAX_UPLOAD_ROWS, items: row }, example },
      [NDJSON]: {
        schema: { type: "string" as const, description: "One JSON row a line" },
        example: example.map((row) => JSON.stringify(row)).join("\n"),
      },
    },
  };
};
const codeField = (description: string) => ({ type: "string" as const, description });

const putHotelMap = apiRoute({
  operationId: "importSupplierHotelMap",
  method: "put",
  path: "/api/operator/suppliers/{code}/hotel-map",
  tags: TAG,
  summary: "Add or change a supplier's hotel codes as Edgestay accommodations (upsert, one-to-one)",
  description:
    "Rows are applied or rejected one by one (row number and reason); the applied ones are written together. Judged against the map before the upload: to give an accommodation another supplier hotel, delete its mapping first.",
  security: operatorSecurity,
  body: "rows",
  middleware: [operatorAuth()] as const,
  request: {
    params,
    body: uploadOf(
      {
        supplierHotelCode: codeField("The supplier's own hotel code"),
        accommodationCode: codeField("Edgestay's accommodation code"),
      },
      "Hotel map rows",
      [
        { supplierHotelCode: "H-88213", accommodationCode: "US000001" },
        { supplierHotelCode: "H-88214", accommodationCode: "US000002" },
      ],
    ),
  },
  errors: ["supplier_not_found", "conflict"],
  responses: { 200: { description: "What the upload did", ...json(importAnswer) } },
});

const pageOf = <T extends z.ZodType>(row: T, name: string, example: Record<string, string>) =>
  envelopeSchema(
    z
      .object({
        rows: z.array(row),
        nextCursor: z.string().nullable().openapi({ description: "Null on the last page" }),
      })
      .openapi(name, { example: { rows: [example], nextCursor: null } }),
  ).openapi(`${name}Response`);

const getHotelMap = apiRoute({
  operationId: "listSupplierHotelMap",
  method: "get",
  path: "/api/operator/suppliers/{code}/hotel-map",
  tags: TAG,
  summary: "A page of a supplier's hotel map, in supplier hotel code order, or the mapping of one code",
  description: "Pass nextCursor as cursor to read on.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: { params, query: hotelMapQuery },
  errors: ["supplier_not_found", "invalid_cursor"],
  responses: {
    200: {
      description: "A page",
      ...json(pageOf(hotelMapRow, "HotelMapPage", { supplierHotelCode: "H-88213", accommodationCode: "US000001" })),
    },
  },
});

const deleteHotelMap = apiRoute({
  operationId: "deleteSupplierHotelMapping",
  method: "delete",
  path: "/api/operator/suppliers/{code}/hotel-map/{supplierHotelCode}",
  tags: TAG,
  summary: "Unmap one supplier hotel (its room map goes with it)",
  description: "supplierHotelCode: from GET .../hotel-map.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: {
    params: z.object({
      code: supplierCode,
      supplierHotelCode: z.string().min(1).max(64).openapi({ example: "H-88213" }),
    }),
  },
  errors: ["supplier_not_found", "hotel_mapping_not_found"],
  responses: { 204: { description: "Deleted" } },
});

const boardMapResponse = envelopeSchema(boardMapSchema).openapi("BoardMapResponse");
const putBoardMap = apiRoute({
  operationId: "replaceSupplierBoardMap",
  method: "put",
  path: "/api/operator/suppliers/{code}/board-map",
  tags: TAG,
  summary: "Replace a supplier's board map (its board codes as RO, BB, HB, FB, AI)",
  description:
    "The whole map: a board code left out is no longer mapped (it passes through under the supplier's code and name).",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: { params, ...jsonRequestBody(boardMapSchema) },
  errors: ["supplier_not_found"],
  responses: { 200: { description: "The board map now in force", ...json(boardMapResponse) } },
});
const getBoardMap = apiRoute({
  operationId: "getSupplierBoardMap",
  method: "get",
  path: "/api/operator/suppliers/{code}/board-map",
  tags: TAG,
  summary: "A supplier's board map",
  description: "Empty until a PUT.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: { params },
  errors: ["supplier_not_found"],
  responses: { 200: { description: "The board map", ...json(boardMapResponse) } },
});

const putRoomMap = apiRoute({
  operationId: "importSupplierRoomMap",
  method: "put",
  path: "/api/operator/suppliers/{code}/room-map",
  tags: TAG,
  summary: "Add or change a supplier's room codes as the rooms of the accommodations its hotels are mapped to (upsert)",
  description:
    "A row's supplierHotelCode must be in the supplier's hotel map and its roomCode a room of that accommodation (GET /api/inventory/{accommodationCode}). Several supplier rooms may be one room. Rows are applied or rejected one by one.",
  security: operatorSecurity,
  body: "rows",
  middleware: [operatorAuth()] as const,
  request: {
    params,
    body: uploadOf(
      {
        supplierHotelCode: codeField("The supplier's own hotel code (mapped)"),
        supplierRoomCode: codeField("The supplier's own room code in that hotel"),
        roomCode: codeField("The room code of the accommodation the hotel is mapped to"),
      },
      "Room map rows",
      [
        { supplierHotelCode: "H-88213", supplierRoomCode: "DBL-ST", roomCode: "STD" },
        { supplierHotelCode: "H-88213", supplierRoomCode: "DBL-ST-NR", roomCode: "STD" },
      ],
    ),
  },
  errors: ["supplier_not_found", "conflict"],
  responses: { 200: { description: "What the upload did", ...json(importAnswer) } },
});
const getRoomMap = apiRoute({
  operationId: "listSupplierRoomMap",
  method: "get",
  path: "/api/operator/suppliers/{code}/room-map",
  tags: TAG,
  summary: "A page of a supplier's room map, in supplier hotel and room code order",
  description: "Pass nextCursor as cursor to read on.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: { params, query: roomMapQuery },
  errors: ["supplier_not_found", "invalid_cursor"],
  responses: {
    200: {
      description: "A page",
      ...json(
        pageOf(roomMapRow, "RoomMapPage", {
          supplierHotelCode: "H-88213",
          supplierRoomCode: "DBL-ST",
          roomCode: "STD",
        }),
      ),
    },
  },
});

/** The operator's supplier maps (issue 39), mounted at /. */
export const supplierMapRoutes = featureRouter()
  .openapi(putHotelMap, async (c) => {
    const answer = await importHotelMap(c.get("db"), c.req.valid("param").code, () => readUploadRows(c.req.raw));
    return c.json(success(answer), 200);
  })
  .openapi(getHotelMap, async (c) =>
    c.json(success(await listHotelMap(c.get("db"), c.req.valid("param").code, c.req.valid("query"))), 200),
  )
  .openapi(deleteHotelMap, async (c) => {
    const { code, supplierHotelCode } = c.req.valid("param");
    await deleteHotelMapping(c.get("db"), code, supplierHotelCode);
    return c.body(null, 204);
  })
  .openapi(putBoardMap, async (c) =>
    c.json(success(await replaceBoardMap(c.get("db"), c.req.valid("param").code, c.req.valid("json"))), 200),
  )
  .openapi(getBoardMap, async (c) => c.json(success(await readBoardMap(c.get("db"), c.req.valid("param").code)), 200))
  .openapi(putRoomMap, async (c) => {
    const answer = await importRoomMap(c.get("db"), c.req.valid("param").code, () => readUploadRows(c.req.raw));
    return c.json(success(answer), 200);
  })
  .openapi(getRoomMap, async (c) =>
    c.json(success(await listRoomMap(c.get("db"), c.req.valid("param").code, c.req.valid("query"))), 200),
  );
