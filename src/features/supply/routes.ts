import { z } from "@hono/zod-openapi";
import { calendarDate, isoDate } from "../../platform/http/fields";
import { apiRoute } from "../../platform/http/api-route";
import { operatorAuth, operatorSecurity } from "../../platform/auth/operator";
import { envelopeSchema, success } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import { feeScheduleInputSchema, feeScheduleSchema, replaceFeeSchedule } from "../content";
import { setRatePlanNights, setRoomNights, viewInventory } from "./service";

const range = {
  from: isoDate.openapi({ description: "First night (included)" }),
  to: isoDate.openapi({ description: "Last night (included)" }),
};
const price = z
  .number()
  .positive()
  .max(100_000)
  // Stored in whole cents: more decimals would be rounded away, so they are refused rather than altered.
  .refine((usd) => Math.abs(usd * 100 - Math.round(usd * 100)) < 1e-6, "must have at most 2 decimals (whole US cents)")
  .nullable()
  .optional()
  .openapi({ description: "Nightly USD price before occupancy, at most 2 decimals; null restores the derived price" });

const roomChange = z
  .object({
    ...range,
    allotment: z.number().int().min(0).max(10_000).optional(),
    price,
    stopSell: z.boolean().optional(),
  })
  .openapi("RoomNightChange", { example: { from: "2027-03-10", to: "2027-03-11", allotment: 5, price: 120 } });
const planChange = z
  .object({ ...range, price, stopSell: z.boolean().optional() })
  .openapi("RatePlanNightChange", { example: { from: "2027-03-10", to: "2027-03-11", stopSell: true } });

const inventoryExample = {
  accommodationCode: "US000001",
  currency: "USD",
  rooms: [
    {
      code: "STD",
      name: "Standard Queen Room",
      maxAdults: 2,
      maxChildren: 1,
      maxOccupancy: 3,
      defaultAllotment: 8,
      nights: [{ night: "2027-03-10", allotment: 5, sold: 2, available: 3, stopSell: false, price: 120, stored: true }],
      ratePlans: [
        {
          code: "STD-RO-FLX",
          boardCode: "RO",
          boardName: "Room Only",
          cancellation: { refundable: true, freeDays: 2, penalty: "FIRST_NIGHT" },
          nights: [{ night: "2027-03-10", stopSell: false, price: 120 }],
        },
      ],
    },
  ],
};
const night = calendarDate.openapi({ description: "The night (its check-in date)" });
const ratePlanInventory = z
  .object({
    code: z.string(),
    boardCode: z.string(),
    boardName: z.string(),
    cancellation: z.union([
      z.object({ refundable: z.literal(false) }),
      z.object({
        refundable: z.literal(true),
        freeDays: z.number().int(),
        penalty: z.enum(["FIRST_NIGHT", "FULL_STAY"]),
      }),
    ]),
    nights: z.array(z.object({ night, stopSell: z.boolean(), price: z.number() })),
  })
  .openapi("RatePlanInventory");
const roomInventory = z
  .object({
    code: z.string(),
    name: z.string(),
    maxAdults: z.number().int(),
    maxChildren: z.number().int(),
    maxOccupancy: z.number().int(),
    defaultAllotment: z.number().int(),
    nights: z.array(
      z.object({
        night,
        allotment: z.number().int(),
        sold: z.number().int(),
        available: z.number().int(),
        stopSell: z.boolean(),
        price: z.number().openapi({ description: "Nightly USD price before occupancy" }),
        stored: z.boolean().openapi({ description: "Whether the night has its own row (else the defaults apply)" }),
      }),
    ),
    ratePlans: z.array(ratePlanInventory),
  })
  .openapi("RoomInventory");
const inventorySchema = envelopeSchema(
  z
    .object({
      accommodationCode: z.string(),
      currency: z.string().openapi({ example: "USD" }),
      rooms: z.array(roomInventory),
    })
    .openapi({ example: inventoryExample }),
).openapi("InventoryResponse");
const json = { content: { "application/json": { schema: inventorySchema } } };
const code = z.string().min(1).max(64);
const accommodationCode = code.openapi({ example: "US000001" });

const view = apiRoute({
  operationId: "getInventory",
  method: "get",
  path: "/{accommodationCode}",
  tags: ["Inventory (operator)"],
  summary: "Room types, rate plans and the effective state of each night (at most 62 nights)",
  description: "accommodationCode: from search or the content export.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: { params: z.object({ accommodationCode }), query: z.object(range) },
  errors: ["accommodation_not_found", "invalid_dates"],
  responses: { 200: { description: "Inventory", ...json } },
});

const setRoom = apiRoute({
  operationId: "setRoomInventory",
  method: "put",
  path: "/{accommodationCode}/rooms/{roomCode}",
  tags: ["Inventory (operator)"],
  summary: "Set allotment, price and stop-sell of a room type for a date range",
  description: "roomCode: from GET /api/inventory/{accommodationCode}.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: {
    params: z.object({ accommodationCode, roomCode: code.openapi({ example: "STD" }) }),
    body: { required: true, content: { "application/json": { schema: roomChange } } },
  },
  errors: [
    "accommodation_not_found",
    "room_type_not_found",
    "invalid_dates",
    "nothing_to_change",
    "allotment_below_sold",
  ],
  responses: {
    200: { description: "Inventory after the change", ...json },
  },
});

const setPlan = apiRoute({
  operationId: "setRatePlanInventory",
  method: "put",
  path: "/{accommodationCode}/rate-plans/{ratePlanCode}",
  tags: ["Inventory (operator)"],
  summary: "Set price and stop-sell of a rate plan for a date range",
  description: "ratePlanCode: from GET /api/inventory/{accommodationCode}.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: {
    params: z.object({ accommodationCode, ratePlanCode: code.openapi({ example: "STD-RO-FLX" }) }),
    body: { required: true, content: { "application/json": { schema: planChange } } },
  },
  errors: ["accommodation_not_found", "rate_plan_not_found", "invalid_dates", "nothing_to_change"],
  responses: { 200: { description: "Inventory after the change", ...json } },
});

const setFees = apiRoute({
  operationId: "setAccommodationFees",
  method: "put",
  path: "/{accommodationCode}/fees",
  tags: ["Inventory (operator)"],
  summary: "Replace an accommodation's taxes and fees; the next search prices with them",
  description: "accommodationCode: from search or the content export.",
  security: operatorSecurity,
  middleware: [operatorAuth()] as const,
  request: {
    params: z.object({ accommodationCode }),
    body: { required: true, content: { "application/json": { schema: feeScheduleInputSchema } } },
  },
  errors: ["accommodation_not_found"],
  responses: {
    200: {
      description: "The schedule now in force",
      content: { "application/json": { schema: envelopeSchema(feeScheduleSchema).openapi("FeeScheduleResponse") } },
    },
  },
});

/** Mounted at /api/inventory. */
export const supplyRoutes = featureRouter()
  .openapi(view, async (c) => {
    const { from, to } = c.req.valid("query");
    return c.json(success(await viewInventory(c.get("db"), c.req.valid("param").accommodationCode, from, to)), 200);
  })
  .openapi(setRoom, async (c) => {
    const { accommodationCode, roomCode } = c.req.valid("param");
    return c.json(success(await setRoomNights(c.get("db"), accommodationCode, roomCode, c.req.valid("json"))), 200);
  })
  .openapi(setFees, async (c) => {
    const { accommodationCode } = c.req.valid("param");
    return c.json(success(await replaceFeeSchedule(c.get("db"), accommodationCode, c.req.valid("json"))), 200);
  })
  .openapi(setPlan, async (c) => {
    const { accommodationCode, ratePlanCode } = c.req.valid("param");
    return c.json(
      success(await setRatePlanNights(c.get("db"), accommodationCode, ratePlanCode, c.req.valid("json"))),
      200,
    );
  });
