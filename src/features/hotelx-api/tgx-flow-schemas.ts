import { z } from "@hono/zod-openapi";
import { calendarDate, isoDate, personName as personNameField, timestamp } from "../../platform/http/fields";
import { unsupportedField } from "../../platform/http/validation";
import { MAX_OPTION_ID_LENGTH, MAX_PAXES_PER_ROOM, MAX_ROOMS } from "../booking";
import {
  CANCEL_PENALTY_TYPES,
  hotelError,
  PAYMENT_TYPES,
  price,
  STATUS_TYPES,
  surcharge,
  tgxSearchRequestSchema,
} from "./tgx-schemas";

/**
 * POST /api/quote/tgx, /api/book/tgx and /api/cancel/tgx: the variables of Hotel-X's `hotelX.quote`
 * query and `hotelX { book cancel }` mutations (HotelCriteriaQuoteInput, HotelBookInput,
 * HotelCancelInput, HotelSettingsInput) and their payloads (HotelQuote, HotelBookPayload,
 * HotelCancelPayload), named as TravelgateX's public GraphQL schema names them. Inputs are strict:
 * a field Hotel-X does not have is refused, as GraphQL would. See docs/api-decisions.md, "Issue 29:
 * Hotel-X shaped quote, book and cancel".
 */

/** Hotel-X `BookStatusType`. */
export const BOOK_STATUS_TYPES = ["OK", "KO", "ON_REQUEST", "CANCELLED", "UNKNOWN", "PENDING_COMMIT"] as const;

/**
 * Hotel-X HotelSettingsInput plus `access.code`, `currency` and `includeProviderTransactions`: the
 * settings of /api/search/tgx, read the same way (its business rules concern a search only).
 */
const tgxFlowSettings = tgxSearchRequestSchema.shape.settings;

const EXAMPLE_OPTION_ID =
  "WzMsImRlbW8iLCIyMDI3LTAzLTEwIiwiMjAyNy0wMy0xMiJd.dsZpj7AE69bB1gmzZkN15IUpSyFCW8_n401HG7MVFUE~US000001~STD~STD-RO-FLX~442.11";

const language = z.string().max(8).optional().openapi({ description: "Texts are English; another is a warning" });
const optionRefId = z.string().min(1).max(MAX_OPTION_ID_LENGTH);
const personName = personNameField();
const noTitle = unsupportedField("Edgestay keeps names without titles");

export const tgxQuoteRequestSchema = z
  .object({
    criteria: z
      .object({
        optionRefId: optionRefId.openapi({ description: "The `id` of an option of /api/search/tgx" }),
        language,
      })
      .strict(),
    settings: tgxFlowSettings,
  })
  .openapi("TgxQuoteRequest", {
    example: {
      criteria: {
        optionRefId: EXAMPLE_OPTION_ID,
      },
      settings: { access: { code: 1001 } },
    },
  });
export type TgxQuoteRequest = z.infer<typeof tgxQuoteRequestSchema>;

export const tgxBookRequestSchema = z
  .object({
    input: z
      .object({
        optionRefId: optionRefId.openapi({
          description:
            "The optionRefId of a /api/quote/tgx answer (booked at the quoted price), or the `id` of a /api/search/tgx option (quoted and booked in one step, deltaPrice applied)",
        }),
        language,
        clientReference: z
          .string()
          .trim()
          .min(1)
          .max(100)
          .openapi({ description: "Your reference: the partnerReference of /api/book, unique per partner" }),
        deltaPrice: z
          .object({
            amount: z.number().min(0).optional(),
            percent: z.number().min(0).max(1000).optional(),
            applyBoth: z.boolean(),
          })
          .strict()
          .optional()
          .openapi({
            description:
              "How far above the option's price a book from a search option may be: amount (the option's currency) and percent; applyBoth false: within either, true: within each given. Absent: no rise",
          }),
        paymentCard: unsupportedField(
          "Edgestay never takes card data; a DIRECT (PayAtProperty) option is booked at /api/book with a saved card",
        ),
        remarks: z.string().trim().max(2000).optional().openapi({
          description: "Your words for the hotel: kept on the booking, shown on every read, sent to the supplier",
        }),
        holder: z
          .object({
            name: personName,
            surname: personName,
            title: noTitle,
            contactInfo: unsupportedField("Edgestay keeps the holder's name only"),
            fidelityCard: unsupportedField("Edgestay keeps the holder's name only"),
          })
          .strict(),
        rooms: z
          .array(
            z
              .object({
                occupancyRefId: z.number().int(),
                paxes: z
                  .array(
                    z
                      .object({
                        name: personName,
                        surname: personName,
                        age: z.number().int().min(0).max(120),
                        title: noTitle,
                      })
                      .strict(),
                  )
                  .min(1)
                  .max(MAX_PAXES_PER_ROOM),
              })
              .strict(),
          )
          .min(1)
          .max(MAX_ROOMS)
          .openapi({ description: "One entry per quoted occupancy (occupancyRefId), its guests named" }),
      })
      .strict(),
    settings: tgxFlowSettings,
  })
  .openapi("TgxBookRequest", {
    example: {
      input: {
        optionRefId: "qt_1Vrv81VE8_wcA76YLMteG7WQ6yqAfx7k",
        clientReference: "PR-2027-0001",
        holder: { name: "Ada", surname: "Lovelace" },
        rooms: [
          {
            occupancyRefId: 1,
            paxes: [
              { name: "Ada", surname: "Lovelace", age: 36 },
              { name: "William", surname: "King", age: 40 },
            ],
          },
        ],
      },
      settings: { access: { code: 1001 } },
    },
  });
export type TgxBookRequest = z.infer<typeof tgxBookRequestSchema>;

const BY_ID_OR_REFERENCE =
  "input.bookingID, or input.accessCode, input.hotelCode and input.reference.client or input.reference.supplier, is required";

export const tgxCancelRequestSchema = z
  .object({
    input: z
      .object({
        accessCode: z
          .string()
          .max(64)
          .optional()
          .openapi({ description: "The option's accessCode: the connection code the booking was made on" }),
        language,
        hotelCode: z.string().max(64).optional(),
        reference: z
          .object({
            client: z.string().max(100).optional().openapi({ description: "Your clientReference" }),
            supplier: z
              .string()
              .max(200)
              .optional()
              .openapi({ description: "The supplier's reference: names the booking without reference.client" }),
            hotel: z.string().max(200).optional(),
            dates: z
              .object({ start: isoDate.optional(), end: isoDate.optional(), creation: isoDate.optional() })
              .strict()
              .optional(),
          })
          .strict()
          .optional()
          .openapi({ description: "Each field sent must be the booking's" }),
        bookingID: z
          .string()
          .min(1)
          .max(100)
          .optional()
          .openapi({ description: "reference.bookingID of the book answer: Edgestay's bookingReference" }),
      })
      .strict()
      .refine(
        (i) =>
          i.bookingID !== undefined ||
          Boolean(i.accessCode && i.hotelCode && (i.reference?.client || i.reference?.supplier)),
        {
          message: BY_ID_OR_REFERENCE,
        },
      ),
    settings: tgxFlowSettings,
  })
  .openapi("TgxCancelRequest", {
    example: {
      input: { bookingID: "BKFGEOEIKMQZYK4POB5HFF" },
      settings: { access: { code: 1001 } },
    },
  });
export type TgxCancelRequest = z.infer<typeof tgxCancelRequestSchema>;

/**
 * `mutation { hotelX { commit } }` on POST /api/graphql (there is no REST route of it): Hotel-X's
 * HotelCommitInput names the hold by `reference.client` (your clientReference) or
 * `reference.supplier`, made on the connection `accessCode` names.
 */
export const tgxCommitRequestSchema = z.object({
  input: z
    .object({
      accessCode: z.string().max(64),
      language,
      reference: z
        .object({ client: z.string().min(1).max(100).optional(), supplier: z.string().min(1).max(200).optional() })
        .strict()
        .optional(),
    })
    .strict()
    .refine((i) => Boolean(i.reference?.client || i.reference?.supplier), {
      message: "input.reference.client (your clientReference) or input.reference.supplier is required",
    }),
  settings: tgxFlowSettings,
});
export type TgxCommitRequest = z.infer<typeof tgxCommitRequestSchema>;

/** A registered schema or null: `.nullable()` would register the nullable form under the component's name. */
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

const priceChange = z
  .object({ currency: z.string(), net: z.number(), gross: z.number(), binding: z.boolean() })
  .openapi("TgxPriceChange");

const cancelPolicy = z
  .object({
    refundable: z.boolean(),
    cancelPenalties: z.array(
      z.object({
        deadline: timestamp,
        isCalculatedDeadline: z.boolean(),
        hoursBefore: z.number().int(),
        penaltyType: z.enum(CANCEL_PENALTY_TYPES),
        currency: z.string(),
        value: z.number(),
      }),
    ),
  })
  .openapi("TgxCancelPolicy");

const auditData = z
  .object({
    transactions: z.array(z.object({ request: z.string(), response: z.string(), timeStamp: timestamp })),
    timeStamp: timestamp,
    processTime: z.number(),
  })
  .optional()
  .openapi({
    description:
      "With settings.auditTransactions (or includeProviderTransactions) only: each supplier exchange, credentials and card data redacted; empty for the embedded inventory",
  });

const problems = {
  errors: z.array(hotelError).openapi({
    description:
      "Why the operation was refused (the option, quote, booking or supplier said no): HTTP 200 all the same, the detail null or KO",
  }),
  warnings: z.array(hotelError),
  auditData,
};

const optionQuote = z
  .object({
    optionRefId: z.string().openapi({ description: "The input.optionRefId for POST /api/book/tgx; valid 30 minutes" }),
    status: z.enum(STATUS_TYPES),
    price,
    searchPrice: orNull(priceChange).openapi({ description: "The search's price, when today's differs from it" }),
    cancelPolicy,
    remarks: z.string().nullable(),
    surcharges: z.array(surcharge),
    rooms: z.array(
      z.object({
        occupancyRefId: z.string().openapi({ description: "Hotel-X types it ID: a string" }),
        legacyRoomId: z.string(),
        code: z.string(),
        supplierCode: z.string(),
        description: z.string().nullable(),
      }),
    ),
    paymentType: z.enum(PAYMENT_TYPES),
  })
  .openapi("TgxOptionQuote");

const EXAMPLE_PRICE = {
  currency: "USD",
  binding: false,
  net: 442.11,
  gross: 442.11,
  exchange: { currency: "USD", rate: 1 },
};
const EXAMPLE_POLICY = {
  refundable: true,
  cancelPenalties: [
    {
      deadline: "2027-03-07T20:00:00.000Z",
      isCalculatedDeadline: true,
      hoursBefore: 52,
      penaltyType: "IMPORT" as const,
      currency: "USD",
      value: 221.06,
    },
  ],
};

export const tgxQuoteResponseSchema = z
  .object({
    data: z.object({
      hotelX: z.object({ quote: z.object({ optionQuote: orNull(optionQuote), ...problems }) }),
    }),
  })
  .openapi("TgxQuoteResponse", {
    example: {
      data: {
        hotelX: {
          quote: {
            optionQuote: {
              optionRefId: "qt_1Vrv81VE8_wcA76YLMteG7WQ6yqAfx7k",
              status: "OK",
              price: EXAMPLE_PRICE,
              searchPrice: null,
              cancelPolicy: EXAMPLE_POLICY,
              remarks: null,
              surcharges: [],
              rooms: [
                {
                  occupancyRefId: "1",
                  legacyRoomId: "1|STD",
                  code: "STD",
                  supplierCode: "STD",
                  description: "Standard Queen Room",
                },
              ],
              paymentType: "MERCHANT",
            },
            errors: [],
            warnings: [],
          },
        },
      },
    },
  });
export type TgxQuoteResponse = z.infer<typeof tgxQuoteResponseSchema>;

const occupancy = z.object({ id: z.number().int(), paxes: z.array(z.object({ age: z.number().int() })) });

const bookingDetail = z
  .object({
    reference: z
      .object({
        client: z.string().nullable().openapi({ description: "Your clientReference (partnerReference)" }),
        supplier: z.string().nullable(),
        hotel: z.string().nullable().openapi({ description: "The hotel's confirmation number, when known" }),
        bookingID: z
          .string()
          .nullable()
          .openapi({ description: "Edgestay's bookingReference: /api/bookings/{bookingReference}, cancel" }),
      })
      .openapi("TgxReference"),
    holder: z.object({ name: z.string(), surname: z.string() }).nullable(),
    hotel: z
      .object({
        bookingDate: calendarDate,
        start: calendarDate,
        end: calendarDate,
        hotelCode: z.string(),
        hotelName: z.string(),
        boardCode: z.string(),
        occupancies: z.array(occupancy),
        rooms: z.array(
          z.object({ occupancyRefId: z.number().int(), code: z.string(), description: z.string().nullable(), price }),
        ),
      })
      .nullable(),
    price,
    quotePrice: orNull(priceChange).openapi({
      description: "A price change refused (PRICE_CHANGED): the price the option had",
    }),
    cancelPolicy: orNull(cancelPolicy),
    remarks: z.string().nullable(),
    payable: z.string().nullable().openapi({
      description:
        "Who the stay is paid to: Edgestay for a MERCHANT booking (charged to the partner's account), the hotel's name for a DIRECT one; null for a booking refused (KO, nothing booked)",
    }),
    status: z.enum(BOOK_STATUS_TYPES).openapi({
      description:
        "OK booked; UNKNOWN: the supplier's answer was lost (pending, settled later: read the booking); ON_REQUEST: booked upstream, not confirmed yet; CANCELLED; KO: refused",
    }),
  })
  .openapi("TgxBookingDetail");

const EXAMPLE_BOOKING = {
  reference: {
    client: "PR-2027-0001",
    supplier: "INV-zLJfwtRrVDlS",
    hotel: "VPICM5RK",
    bookingID: "BKFGEOEIKMQZYK4POB5HFF",
  },
  holder: { name: "Ada", surname: "Lovelace" },
  hotel: {
    bookingDate: "2027-02-01",
    start: "2027-03-10",
    end: "2027-03-12",
    hotelCode: "US000001",
    hotelName: "Midtown Norfolk Suites",
    boardCode: "RO",
    occupancies: [{ id: 1, paxes: [{ age: 36 }, { age: 40 }] }],
    rooms: [{ occupancyRefId: 1, code: "STD", description: "Standard Queen Room", price: EXAMPLE_PRICE }],
  },
  price: EXAMPLE_PRICE,
  quotePrice: null,
  cancelPolicy: EXAMPLE_POLICY,
  remarks: null,
  payable: "Edgestay",
  status: "OK" as const,
};

export const tgxBookResponseSchema = z
  .object({
    data: z.object({ hotelX: z.object({ book: z.object({ booking: orNull(bookingDetail), ...problems }) }) }),
  })
  .openapi("TgxBookResponse", {
    example: { data: { hotelX: { book: { booking: EXAMPLE_BOOKING, errors: [], warnings: [] } } } },
  });
export type TgxBookResponse = z.infer<typeof tgxBookResponseSchema>;
export type TgxBookingDetail = z.infer<typeof bookingDetail>;

const cancelDetail = z
  .object({
    reference: bookingDetail.shape.reference,
    cancelReference: z.string().nullable(),
    status: z.enum(BOOK_STATUS_TYPES),
    price: price.openapi({ description: "What the cancellation costs (the cancelPrice of /api/cancel)" }),
    booking: bookingDetail,
  })
  .openapi("TgxCancelDetail");

export const tgxCancelResponseSchema = z
  .object({
    data: z.object({
      hotelX: z.object({ cancel: z.object({ cancellation: orNull(cancelDetail), ...problems }) }),
    }),
  })
  .openapi("TgxCancelResponse", {
    example: {
      data: {
        hotelX: {
          cancel: {
            cancellation: {
              reference: EXAMPLE_BOOKING.reference,
              cancelReference: "INV-zLJfwtRrVDlS",
              status: "CANCELLED",
              price: { ...EXAMPLE_PRICE, net: 0, gross: 0 },
              booking: { ...EXAMPLE_BOOKING, status: "CANCELLED" },
            },
            errors: [],
            warnings: [],
          },
        },
      },
    },
  });
export type TgxCancelResponse = z.infer<typeof tgxCancelResponseSchema>;

/** POST /api/graphql: GraphQL over HTTP with a JSON body. */
export const graphqlRequestSchema = z
  .object({
    query: z.string().min(1).max(100_000).openapi({ description: "A Hotel-X document" }),
    variables: z.record(z.string(), z.unknown()).nullable().optional().openapi({
      description:
        "The document's variables; a HotelSettingsInput variable may carry Edgestay's access.code (taken out before GraphQL reads it); Hotel-X's own names (filterSearch.access, accessCode) are read by each field",
    }),
    operationName: z.string().max(200).nullable().optional(),
  })
  .openapi("GraphqlRequest", {
    example: {
      query:
        "query ($criteria: HotelCriteriaQuoteInput!, $settings: HotelSettingsInput) { hotelX { quote(criteria: $criteria, settings: $settings) { optionQuote { optionRefId price { net } } errors { code } } } }",
      variables: {
        criteria: {
          optionRefId: EXAMPLE_OPTION_ID,
        },
        settings: { access: { code: 1001 } },
      },
    },
  });

const graphqlError = z.object({
  message: z.string(),
  locations: z.array(z.object({ line: z.number(), column: z.number() })).optional(),
  path: z.array(z.union([z.string(), z.number()])).optional(),
  extensions: z.record(z.string(), z.unknown()).optional().openapi({
    description: "A field's refusal by the API: its `code` and HTTP `status`, as the REST route answers them",
  }),
});

export const graphqlResponseSchema = z
  .object({
    data: z
      .record(z.string(), z.unknown())
      .nullable()
      .optional()
      .openapi({ description: "The selected fields; absent when the document did not parse or validate" }),
    errors: z.array(graphqlError).optional(),
  })
  .openapi("GraphqlResponse", {
    example: {
      data: {
        hotelX: {
          quote: {
            optionQuote: {
              optionRefId: "qt_1Vrv81VE8_wcA76YLMteG7WQ6yqAfx7k",
              price: { currency: "USD", net: 442.11 },
            },
            errors: [],
          },
        },
      },
    },
  });
