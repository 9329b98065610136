import { z } from "@hono/zod-openapi";
import { isoDate, timestamp } from "../../platform/http/fields";
import { specMessage, unsupportedField } from "../../platform/http/validation";
import {
  distributionContext,
  MAX_PAXES_PER_ROOM,
  MAX_ROOMS,
  MAX_SEARCH_CODES,
  oneCurrency,
  settingsSchema,
} from "../booking";
import { MAX_SUPPLIER_TIMEOUT_MS, RATE_RULES } from "../supply";

/**
 * POST /api/search/tgx: the variables of a Hotel-X `hotelX.search` query and its `HotelSearch`
 * answer, in the field names and enum values of TravelgateX's public GraphQL schema
 * (HotelCriteriaSearchInput, HotelSettingsInput, HotelXFilterSearchInput, HotelOptionSearch).
 * Written for this project from that schema; see docs/api-decisions.md, "Issue 14".
 */

/** Codes in a Hotel-X answer are always Edgestay's own: the response context says so. */
export const TGX_CONTEXT = "EDGESTAY";

/** Hotel-X `PaymentType`. */
export const PAYMENT_TYPES = ["MERCHANT", "DIRECT", "CARD_BOOKING", "CARD_CHECK_IN"] as const;
/** Hotel-X `StatusType`. */
export const STATUS_TYPES = ["OK", "RQ"] as const;
/** Hotel-X `CancelPenaltyType`. */
export const CANCEL_PENALTY_TYPES = ["NIGHTS", "PERCENT", "IMPORT"] as const;
/** Hotel-X `BusinessRulesType`. */
export const BUSINESS_RULES_TYPES = ["CHEAPER_AMOUNT", "ROOM_TYPE"] as const;
/** Hotel-X `PluginStepType`, for `settings.plugins` and the plugin filter. */
export const PLUGIN_STEP_TYPES = [
  "REQUEST",
  "REQUEST_ACCESS",
  "RESPONSE_OPTION",
  "RESPONSE_ACCESS",
  "RESPONSE",
] as const;

/** Hotel-X `PluginType`. */
export const PLUGIN_TYPES = [
  "PRE_STEP",
  "HOTEL_MAP",
  "BOARD_MAP",
  "ROOM_MAP",
  "CURRENCY_CONVERSION",
  "MARKUP",
  "AGGREGATION",
  "POST_STEP",
  "COMMISSION",
  "MARKETS_GROUP",
  "AMENITY_MAP",
  "PROMOTION_MAP",
] as const;
/** The one Hotel-X plugin that runs here: the `AGGREGATION` that keeps the cheapest of identical options. */
export const CHEAPEST_PRICE = "cheapest_price";

/** Hotel-X PluginStepInput: where a plugin runs, and which (PluginsInput, their ParameterInput). */
const pluginStep = z
  .object({
    step: z.enum(PLUGIN_STEP_TYPES),
    pluginsType: z
      .array(
        z
          .object({
            type: z.enum(PLUGIN_TYPES),
            name: z.string().min(1).max(64),
            parameters: z
              .array(z.object({ key: z.string().max(64), value: z.string().max(200) }).strict())
              .max(50)
              .optional(),
          })
          .strict(),
      )
      .max(20)
      .optional(),
  })
  .strict();

const ONE_ACCESS_LIST = specMessage("filter.access: use includes or excludes, not both");
const ONE_FILTER = specMessage("Send filterSearch or filter (its deprecated name), not both");

/** A Hotel-X list filter: only one of includes or excludes is meant to be used. */
const listFilter = <T extends z.ZodType>(item: T) =>
  z.object({ includes: z.array(item).max(50).optional(), excludes: z.array(item).max(50).optional() }).strict();

/**
 * Hotel-X HotelXFilterSearchInput (`filterSearch`); the deprecated FilterInput (`filter`) is read
 * the same way. Every key is a filter, so an unknown one is refused rather than left unapplied.
 */
const filterSearch = z
  .object({
    access: listFilter(z.union([z.string().min(1).max(64), z.number().int()]))
      .refine((a) => !(a.includes && a.excludes), { message: ONE_ACCESS_LIST })
      .optional(),
    rateRules: listFilter(z.enum(RATE_RULES)).optional(),
    status: listFilter(z.enum(STATUS_TYPES)).optional(),
    plugin: z
      .object({
        includes: unsupportedField("no plugins run here"),
        excludes: z
          .array(z.object({ step: z.enum(PLUGIN_STEP_TYPES), type: z.string(), name: z.string() }))
          .max(50)
          .optional()
          .openapi({ description: "Accepted: no plugin runs here, so every plugin is already excluded" }),
      })
      .strict()
      .optional(),
  })
  .strict()
  .optional();

export const tgxSearchRequestSchema = z
  .object({
    criteria: z.object({
      checkIn: isoDate,
      checkOut: isoDate,
      hotels: z
        .array(z.string().min(1).max(64))
        .min(1)
        .max(MAX_SEARCH_CODES, `at most ${MAX_SEARCH_CODES} hotels per search`)
        .openapi({ description: "Edgestay accommodation codes (the content API's `code`)", example: ["US000001"] }),
      destinations: unsupportedField("list hotel codes in criteria.hotels"),
      occupancies: z
        .array(
          z.object({
            paxes: z
              .array(z.object({ age: z.number().int().min(0).max(120) }))
              .min(1)
              .max(MAX_PAXES_PER_ROOM),
          }),
        )
        .min(1)
        .max(MAX_ROOMS),
      language: z.string().max(8).optional().openapi({ description: "Texts are English; another is a warning" }),
      currency: z.string().max(3).optional().openapi({
        description:
          "Prices in this currency when the operator has its rate; otherwise a warning (Hotel-X's 'if supported')",
      }),
      nationality: z.string().max(2).optional(),
      market: z.string().max(16).optional(),
      markets: z
        .array(z.string().max(16))
        .max(50)
        .optional()
        .openapi({ description: "Accepted: every Edgestay option is sold in every market at one price" }),
    }),
    settings: settingsSchema
      .extend({
        context: z
          .string()
          .max(64)
          .optional()
          .openapi({
            description: `Accepted, not used: codes in answers are always Edgestay's (context ${TGX_CONTEXT}), whatever context is asked`,
          }),
        useContext: z
          .boolean()
          .optional()
          .openapi({ description: `Accepted, not used: codes are always in context ${TGX_CONTEXT}` }),
        connectUser: z
          .string()
          .max(64)
          .optional()
          .openapi({ description: "Accepted, not used: the API key names the caller" }),
        client: z
          .string()
          .max(64)
          .optional()
          .openapi({ description: "Accepted, not used: the API key names the caller" }),
        group: z
          .string()
          .max(64)
          .optional()
          .openapi({ description: "Accepted, not used: settings.access.code names the connection" }),
        timeout: z.union([z.number().int().min(0), z.string()]).optional(),
        operationTimeout: z
          .number()
          .int()
          .min(1)
          .max(MAX_SUPPLIER_TIMEOUT_MS * 100)
          .optional()
          .openapi({ description: "Milliseconds: caps the supplier deadline (settings.timeout)" }),
        auditTransactions: z.boolean().optional().openapi({
          description: "Adds auditData: each supplier request and response, credentials and card data redacted",
        }),
        testMode: z
          .boolean()
          .optional()
          .openapi({ description: "Accepted, not used: the connection decides what is a sandbox, not the request" }),
        clientTokens: z
          .array(z.string().max(200))
          .max(50)
          .optional()
          .openapi({ description: "Accepted, not used: Hotel-X uses them in plugins only, and none run here" }),
        suppliers: unsupportedField("settings.access.code names the connection, which names its suppliers"),
        plugins: z
          .array(pluginStep)
          .max(20)
          .nullish()
          .openapi({
            description: `Hotel-X PluginStepInput: on a search, an AGGREGATION plugin named ${CHEAPEST_PRICE} keeps the cheapest of identical options; any other plugin is answered as a PLUGIN_NOT_RUN warning`,
          }),
        commitRequired: unsupportedField("bookings are confirmed in one step", [false]),
        businessRules: z
          .object({
            optionsQuota: z.number().int().min(1).max(10_000).optional(),
            businessRulesType: z.enum(BUSINESS_RULES_TYPES).optional(),
          })
          .strict()
          .optional(),
      })
      // Hotel-X's rules: settings it does not name pass through (the core routes refuse them).
      .passthrough()
      .openapi({
        description: "Hotel-X HotelSettingsInput, plus `access.code`: the Edgestay connection code, as in /api/search",
      }),
    filterSearch: filterSearch.openapi({ description: "Hotel-X HotelXFilterSearchInput" }),
    distributionContext: distributionContext.openapi({
      description:
        "Edgestay's, as on /api/search (Hotel-X has none): supportedVisibilityTypes PACKAGE shows package rates, salesChannel APP mobile rates; rateRules.includes names the rules a traveller qualifies for",
    }),
    filter: filterSearch.openapi({ description: "Hotel-X's deprecated name of filterSearch, read the same way" }),
  })
  .refine((r) => !(r.filter && r.filterSearch), { message: ONE_FILTER })
  .superRefine(oneCurrency("criteria"))
  .openapi("TgxSearchRequest", {
    example: {
      criteria: {
        checkIn: "2027-03-10",
        checkOut: "2027-03-12",
        hotels: ["US000001"],
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
      },
      settings: { access: { code: 1001 } },
    },
  });

export type TgxSearchRequest = z.infer<typeof tgxSearchRequestSchema>;

const exchange = z.object({ currency: z.string(), rate: z.number() });
export const price = z
  .object({
    currency: z.string(),
    binding: z.boolean(),
    net: z.number().openapi({ description: "What the partner pays: the rate's chargeTotal" }),
    gross: z.number().openapi({ description: "The same amount: no separate retail price is published" }),
    exchange,
  })
  .openapi("TgxPrice");

/** Hotel-X `ChargeType`. */
export const CHARGE_TYPES = ["INCLUDE", "EXCLUDE"] as const;
export const surcharge = z
  .object({
    code: z.string().nullable(),
    chargeType: z.enum(CHARGE_TYPES).openapi({
      description: "INCLUDE: inside price (an included tax or fee); EXCLUDE: paid at the hotel (dueAtProperty)",
    }),
    mandatory: z.boolean(),
    description: z.string().nullable(),
    price,
  })
  .openapi("TgxSurcharge");

export const hotelError = z.object({ code: z.string(), type: z.string(), description: z.string() }).openapi("TgxError");

export const tgxOptionSchema = z
  .object({
    id: z.string().openapi({ description: "The optionId for POST /api/quote" }),
    accessCode: z.string().openapi({ description: "The connection code the option was searched on" }),
    supplierCode: z.string().openapi({
      description:
        "The supplier that made the option: EDGESTAY for Edgestay's own inventory, otherwise the supplier's code in Edgestay",
    }),
    markets: z.array(z.string()).openapi({
      description:
        "The markets asked (criteria.markets and market): every option is sold in each at one price; [] when none was asked",
    }),
    hotelCode: z.string(),
    hotelCodeSupplier: z.string().openapi({
      description: "The supplier's own hotel code (hotelCode for a supplier that uses Edgestay's codes)",
    }),
    hotelName: z.string().nullable(),
    boardCode: z.string(),
    boardCodeSupplier: z.string().openapi({
      description: "The supplier's own board code (boardCode for a supplier that uses Edgestay's codes)",
    }),
    paymentType: z.enum(PAYMENT_TYPES),
    status: z.enum(STATUS_TYPES),
    occupancies: z.array(z.object({ id: z.number().int(), paxes: z.array(z.object({ age: z.number().int() })) })),
    rooms: z.array(
      z.object({
        occupancyRefId: z.number().int(),
        legacyRoomId: z.string().openapi({ description: "The room within the option: `<occupancyRefId>|<code>`" }),
        code: z.string(),
        supplierCode: z.string().openapi({
          description: "The supplier's own room code (code for a supplier that uses Edgestay's codes)",
        }),
        description: z.string().nullable(),
        refundable: z.boolean().nullable(),
        roomPrice: z.object({
          price,
          breakdown: z
            .array(z.object({ start: isoDate, end: isoDate, effectiveDate: isoDate, expireDate: isoDate, price }))
            .openapi({
              description:
                "Each night, from its date to the next: its base and taxes (a night paid at the property in the property's currency)",
            }),
        }),
        ratePlans: z
          .array(
            z.object({
              code: z.string(),
              supplierCode: z.string(),
              name: z.string().nullable(),
              start: isoDate,
              end: isoDate,
            }),
          )
          .openapi({ description: "The room's rate plan, one for the whole stay, named after its board" }),
      }),
    ),
    price,
    surcharges: z.array(surcharge).openapi({
      description: "The rate's included charges (INCLUDE) and what is due at the property (EXCLUDE), Hotel-X Surcharge",
    }),
    rateRules: z.array(z.enum(RATE_RULES)).nullable(),
    cancelPolicy: z
      .object({
        refundable: z.boolean(),
        cancelPenalties: z.array(
          z.object({
            deadline: timestamp,
            isCalculatedDeadline: z.boolean().openapi({
              description:
                "false only for a deadline an upstream stated; the embedded inventory's (from the plan's free days, in the hotel's zone) and one worked out from an upstream's hoursBefore are true",
            }),
            hoursBefore: z.number().int().openapi({
              description:
                "The upstream's own when it stated them; else whole hours from deadline to check-in day 00:00 UTC, rounded up",
            }),
            penaltyType: z.enum(CANCEL_PENALTY_TYPES),
            currency: z.string(),
            value: z.number(),
          }),
        ),
      })
      .nullable(),
  })
  .openapi("TgxOption");

export type TgxOption = z.infer<typeof tgxOptionSchema>;
export type TgxError = z.infer<typeof hotelError>;

export const tgxSearchResponseSchema = z
  .object({
    data: z.object({
      hotelX: z.object({
        search: z.object({
          context: z.string().nullable(),
          options: z.array(tgxOptionSchema),
          errors: z.array(hotelError).openapi({
            description:
              "When no option is answered: one entry per requested hotel without options, the hotel code first in its description (HOTEL_NOT_FOUND, NO_AVAILABILITY, FILTERED_OUT, SUPPLIER_TIMEOUT, SUPPLIER_ERROR, SUPPLIER_UNAVAILABLE: the statuses of /api/search), or NO_ACCESS; HTTP 200 all the same",
          }),
          warnings: z.array(hotelError).openapi({
            description:
              "Beside options: the same per-hotel entries, a supplier that did not answer, a currency or language not available",
          }),
          auditData: z
            .object({
              transactions: z.array(z.object({ request: z.string(), response: z.string(), timeStamp: timestamp })),
              timeStamp: timestamp,
              processTime: z.number(),
            })
            .optional()
            .openapi({
              description:
                "With settings.auditTransactions (or includeProviderTransactions) only: each supplier exchange, credentials and card data redacted; empty for the embedded inventory. Every request of a search is sent at its start (timeStamp)",
            }),
        }),
      }),
    }),
  })
  .openapi("TgxSearchResponse", {
    example: {
      data: {
        hotelX: {
          search: {
            context: null,
            options: [
              {
                id: "WzMsImRlbW8iLCIyMDI3LTAzLTEwIiwiMjAyNy0wMy0xMiJd.dsZpj7AE69bB1gmzZkN15IUpSyFCW8_n401HG7MVFUE~US000001~STD~STD-RO-FLX~442.11",
                accessCode: "1001",
                supplierCode: "EDGESTAY",
                markets: ["US"],
                hotelCode: "US000001",
                hotelCodeSupplier: "US000001",
                hotelName: "Midtown Norfolk Suites",
                boardCode: "RO",
                boardCodeSupplier: "RO",
                paymentType: "MERCHANT",
                status: "OK",
                occupancies: [{ id: 1, paxes: [{ age: 30 }, { age: 30 }] }],
                rooms: [
                  {
                    occupancyRefId: 1,
                    legacyRoomId: "1|STD",
                    code: "STD",
                    supplierCode: "STD",
                    description: "Standard Queen Room",
                    refundable: true,
                    roomPrice: {
                      price: {
                        currency: "USD",
                        binding: false,
                        net: 442.11,
                        gross: 442.11,
                        exchange: { currency: "USD", rate: 1 },
                      },
                      breakdown: [
                        {
                          start: "2027-03-10",
                          end: "2027-03-11",
                          effectiveDate: "2027-03-10",
                          expireDate: "2027-03-11",
                          price: {
                            currency: "USD",
                            binding: false,
                            net: 221.06,
                            gross: 221.06,
                            exchange: { currency: "USD", rate: 1 },
                          },
                        },
                        {
                          start: "2027-03-11",
                          end: "2027-03-12",
                          effectiveDate: "2027-03-11",
                          expireDate: "2027-03-12",
                          price: {
                            currency: "USD",
                            binding: false,
                            net: 221.05,
                            gross: 221.05,
                            exchange: { currency: "USD", rate: 1 },
                          },
                        },
                      ],
                    },
                    ratePlans: [
                      {
                        code: "STD-RO-FLX",
                        supplierCode: "STD-RO-FLX",
                        name: "Room Only",
                        start: "2027-03-10",
                        end: "2027-03-12",
                      },
                    ],
                  },
                ],
                price: {
                  currency: "USD",
                  binding: false,
                  net: 442.11,
                  gross: 442.11,
                  exchange: { currency: "USD", rate: 1 },
                },
                surcharges: [
                  {
                    code: "STATE_TAX",
                    chargeType: "INCLUDE",
                    mandatory: true,
                    description: "State sales tax",
                    price: {
                      currency: "USD",
                      binding: false,
                      net: 23.87,
                      gross: 23.87,
                      exchange: { currency: "USD", rate: 1 },
                    },
                  },
                  {
                    code: "RESORT_FEE",
                    chargeType: "EXCLUDE",
                    mandatory: true,
                    description: "Resort fee",
                    price: {
                      currency: "USD",
                      binding: false,
                      net: 50,
                      gross: 50,
                      exchange: { currency: "USD", rate: 1 },
                    },
                  },
                ],
                rateRules: null,
                cancelPolicy: {
                  refundable: true,
                  cancelPenalties: [
                    {
                      deadline: "2027-03-07T20:00:00.000Z",
                      isCalculatedDeadline: true,
                      hoursBefore: 52,
                      penaltyType: "IMPORT",
                      currency: "USD",
                      value: 221.06,
                    },
                  ],
                },
              },
            ],
            errors: [],
            warnings: [],
          },
        },
      },
    },
  });

export type TgxSearchResponse = z.infer<typeof tgxSearchResponseSchema>;
