import { z } from "@hono/zod-openapi";
import { apiRoute, json } from "../../platform/http/api-route";
import { timestamp } from "../../platform/http/fields";
import { operatorAuth, operatorSecurity } from "../../platform/auth/operator";
import { envelopeSchema, success } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import { EXCHANGE_RATE_BOUNDS, EXCHANGE_RATE_BOUNDS_MESSAGE, readExchangeRates, replaceExchangeRates } from "../supply";

const currencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, "expected an ISO 4217 code of 3 upper-case letters")
  .openapi({ example: "EUR" });

export const exchangeRatesRequestSchema = z
  .object({
    base: currencyCode.openapi({ example: "USD" }),
    rates: z
      .record(
        currencyCode,
        z
          .number({ error: EXCHANGE_RATE_BOUNDS_MESSAGE })
          .gte(EXCHANGE_RATE_BOUNDS.min, EXCHANGE_RATE_BOUNDS_MESSAGE)
          .lte(EXCHANGE_RATE_BOUNDS.max, EXCHANGE_RATE_BOUNDS_MESSAGE),
      )
      .refine((rates) => Object.keys(rates).length <= 300, "at most 300 rates")
      .openapi({
        example: { EUR: 0.92, GBP: 0.79 },
        description: "Units of each currency for one unit of base, each from 1e-6 to 1e6",
      }),
  })
  .openapi("ExchangeRatesRequest");

const exchangeRatesSchema = z
  .object({ base: z.string().nullable(), rates: z.record(z.string(), z.number()), updatedAt: timestamp.nullable() })
  .openapi("ExchangeRates", {
    example: { base: "USD", rates: { EUR: 0.92, GBP: 0.79 }, updatedAt: "2026-11-02T09:15:00.000Z" },
  });

const operator = { security: operatorSecurity, middleware: [operatorAuth()] };
const answer = { description: "The exchange rates in force", ...json(envelopeSchema(exchangeRatesSchema)) };

const put = apiRoute({
  operationId: "setExchangeRates",
  method: "put",
  path: "/api/operator/exchange-rates",
  tags: ["Operator: pricing"],
  summary: "Replace the exchange rates search, quote and book convert prices with",
  description: "The whole table; a currency left out cannot be converted (422).",
  ...operator,
  request: { body: { required: true, ...json(exchangeRatesRequestSchema) } },
  errors: ["invalid_exchange_rates", "unsupported_currency"],
  responses: { 200: answer },
});

const get = apiRoute({
  operationId: "listExchangeRates",
  method: "get",
  path: "/api/operator/exchange-rates",
  tags: ["Operator: pricing"],
  summary: "Read the exchange rates",
  description: "As search, quote and book convert.",
  ...operator,
  errors: [],
  responses: { 200: answer },
});

export const exchangeRateRoutes = featureRouter()
  .openapi(put, async (c) => c.json(success(await replaceExchangeRates(c.get("db"), c.req.valid("json"))), 200))
  .openapi(get, async (c) => c.json(success(await readExchangeRates(c.get("db"))), 200));
