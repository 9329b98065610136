import { z } from "@hono/zod-openapi";
import { apiRoute, json } from "../../platform/http/api-route";
import { operatorAuth, operatorSecurity } from "../../platform/auth/operator";
import { envelopeSchema, success } from "../../platform/http/envelope";
import { timestamp } from "../../platform/http/fields";
import { featureRouter } from "../../platform/http/router";
import { DEFAULT_HOLD_LIMITS, readHoldLimits, replaceHoldLimits } from "../booking";

const whole = (min: number, max: number, description: string, example: number) =>
  z
    .number()
    .int("expected a whole number")
    .gte(min)
    .lte(max)
    .openapi({ description: `${description} (${min} to ${max})`, example });

const limits = {
  maxHoldsPerPartner: whole(0, 10_000, "Live holds one partner may have at once; 0: no holds", 20),
  maxHeldRoomNightsPerPartner: whole(0, 1_000_000, "Room-nights one partner's live holds may take together", 200),
  maxSharePercent: whole(
    0,
    100,
    "Percent of a room type's allotment for a night one partner may hold, rounded down, at least one room (0: none)",
    50,
  ),
  shortHoldAfterDays: whole(
    0,
    730,
    "A stay starting more days ahead than this is held at most shortHoldMaxMinutes",
    60,
  ),
  shortHoldMaxMinutes: whole(1, 30, "The longest hold of such a stay, in minutes", 10),
  noHoldAfterDays: whole(0, 730, "A stay starting more days ahead than this is not held (409 hold_too_far_ahead)", 180),
};

export const holdLimitsRequestSchema = z
  .object(limits)
  .refine((l) => l.shortHoldAfterDays <= l.noHoldAfterDays, {
    message: "shortHoldAfterDays must not be more than noHoldAfterDays",
    path: ["shortHoldAfterDays"],
  })
  .openapi("HoldLimitsRequest", { example: DEFAULT_HOLD_LIMITS });

const holdLimitsSchema = z
  .object({
    ...limits,
    updatedAt: timestamp.nullable().openapi({ description: "When the operator last set them; null: the defaults" }),
  })
  .openapi("HoldLimits", { example: { ...DEFAULT_HOLD_LIMITS, updatedAt: null } });

const operator = { security: operatorSecurity, middleware: [operatorAuth()] };
const answer = { description: "The hold limits in force", ...json(envelopeSchema(holdLimitsSchema)) };

const put = apiRoute({
  operationId: "setHoldLimits",
  method: "put",
  path: "/api/operator/hold-limits",
  tags: ["Inventory (operator)"],
  summary: "Set the limits every partner's holds (bookCriteria.hold) are kept within",
  description:
    "All of them at once; they apply to holds made from then on (a live hold is never cut short). A hold past a partner limit is refused with 409 hold_limit_reached or hold_share_exceeded.",
  ...operator,
  request: { body: { required: true, ...json(holdLimitsRequestSchema) } },
  errors: [],
  responses: { 200: answer },
});

const get = apiRoute({
  operationId: "getHoldLimits",
  method: "get",
  path: "/api/operator/hold-limits",
  tags: ["Inventory (operator)"],
  summary: "Read the hold limits in force",
  description: "The operator's, or the defaults (updatedAt null) until they are set.",
  ...operator,
  errors: [],
  responses: { 200: answer },
});

export const holdLimitRoutes = featureRouter()
  .openapi(put, async (c) => c.json(success(await replaceHoldLimits(c.get("db"), c.req.valid("json"))), 200))
  .openapi(get, async (c) => c.json(success(await readHoldLimits(c.get("db"))), 200));
