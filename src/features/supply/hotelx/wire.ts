import { z } from "zod";

/**
 * The parts of the public Hotel-X schema (travelgateX/graphql-schema, hotelx/hubgra) this client
 * reads. Unknown fields are ignored; a missing required one makes the answer `supplier_error`.
 */
export const statusTypeSchema = z.enum(["OK", "RQ"]);
/**
 * `PENDING_COMMIT`: the booking exists upstream but waits for a `commit` (two-step book). Asked for
 * (a hold, `settings.commitRequired`) it is our `held`; unasked it is kept pending, like ON_REQUEST
 * and a lost answer, until the upstream reports it OK, KO or CANCELLED.
 */
export const bookStatusTypeSchema = z.enum(["OK", "KO", "ON_REQUEST", "CANCELLED", "UNKNOWN", "PENDING_COMMIT"]);
export type StatusType = z.infer<typeof statusTypeSchema>;
export type BookStatusType = z.infer<typeof bookStatusTypeSchema>;

/** Hotel-X `Error` and `Warning`: both carry code, type and description. */
export const issueSchema = z.object({ code: z.string(), type: z.string(), description: z.string() });
export type HotelxIssue = z.infer<typeof issueSchema>;
const issues = z
  .array(issueSchema)
  .nullish()
  .transform((list) => list ?? []);

export const priceSchema = z.object({
  currency: z.string(),
  binding: z.boolean(),
  net: z.number(),
  gross: z.number().nullish(),
  exchange: z.object({ currency: z.string(), rate: z.number() }).nullish(),
});
export type HotelxPrice = z.infer<typeof priceSchema>;
/**
 * The part of a `Price` that pricing reads (hotelx-price.ts): what a searched option and a
 * surcharge are asked for (documents.ts), and all that is validated of them.
 */
export const amountSchema = z.object({ currency: z.string(), net: z.number() });
export type HotelxAmount = z.infer<typeof amountSchema>;
/** `PriceChange`: the price of the previous step (search price at quote, quote price at book). */
export const priceChangeSchema = z.object({
  currency: z.string(),
  net: z.number(),
  gross: z.number().nullish(),
  binding: z.boolean(),
});
export type HotelxPriceChange = z.infer<typeof priceChangeSchema>;

/**
 * Hotel-X `Surcharge`: `INCLUDE` is inside the option's price; `EXCLUDE` is not (paid at the hotel
 * when `mandatory`). Its price is in its own currency.
 */
export const surchargeSchema = z.object({
  code: z.string().nullish(),
  chargeType: z.enum(["INCLUDE", "EXCLUDE"]),
  mandatory: z.boolean(),
  description: z.string().nullish(),
  price: amountSchema,
});
export type HotelxSurcharge = z.infer<typeof surchargeSchema>;
const surcharges = z
  .array(surchargeSchema)
  .nullish()
  .transform((list) => list ?? []);

export const cancelPolicySchema = z.object({
  refundable: z.boolean(),
  cancelPenalties: z
    .array(
      z.object({
        deadline: z.string().nullish(),
        hoursBefore: z.number().int(),
        penaltyType: z.string(),
        currency: z.string(),
        value: z.number(),
      }),
    )
    .nullish()
    .transform((list) => list ?? []),
});
export type HotelxCancelPolicy = z.infer<typeof cancelPolicySchema>;

/**
 * A searched `HotelOptionSearch`, the fields the search reads and no more (the SEARCH document asks
 * for exactly these): a search answers hundreds of options per supplier, and every field asked is
 * sent, parsed and validated for each (docs/api-decisions.md, "Issue 39: a search asks suppliers
 * only for what it reads").
 */
export const optionSchema = z.object({
  id: z.string().min(1),
  accessCode: z.string(),
  hotelCode: z.string(),
  boardCode: z.string(),
  paymentType: z.string(),
  status: statusTypeSchema,
  rooms: z.array(
    z.object({
      occupancyRefId: z.number().int(),
      code: z.string(),
      description: z.string().nullish(),
      refundable: z.boolean().nullish(),
    }),
  ),
  price: amountSchema,
  surcharges,
  /** `RateRulesType` names; one we do not know is read as `CUSTOM` (rate-rules.ts), never refused. */
  rateRules: z.array(z.string()).nullish(),
  cancelPolicy: cancelPolicySchema.nullish(),
});
export type HotelxOption = z.infer<typeof optionSchema>;

export const referenceSchema = z.object({
  client: z.string().nullish(),
  supplier: z.string().nullish(),
  hotel: z.string().nullish(),
  bookingID: z.string().nullish(),
});
export type HotelxReference = z.infer<typeof referenceSchema>;

export const bookingDetailSchema = z.object({
  reference: referenceSchema,
  status: bookStatusTypeSchema,
  price: priceSchema.nullish(),
  quotePrice: priceChangeSchema.nullish(),
  cancelPolicy: cancelPolicySchema.nullish(),
  hotel: z
    .object({
      hotelCode: z.string().nullish(),
      hotelName: z.string().nullish(),
      start: z.string().nullish(),
      end: z.string().nullish(),
    })
    .nullish(),
  remarks: z.string().nullish(),
});
export type HotelxBookingDetail = z.infer<typeof bookingDetailSchema>;

/** `{ data: { hotelX: { <operation>: payload } } }`; GraphQL-level `errors` are checked before this. */
const envelope = <K extends string, P extends z.ZodType>(operation: K, payload: P) =>
  z.object({ data: z.object({ hotelX: z.object({ [operation]: payload } as Record<K, P>) }) });

export const searchAnswerSchema = envelope(
  "search",
  z.object({ options: z.array(optionSchema).nullish(), errors: issues, warnings: issues }),
);
export const quoteAnswerSchema = envelope(
  "quote",
  z.object({
    optionQuote: z
      .object({
        optionRefId: z.string().min(1),
        status: statusTypeSchema,
        price: priceSchema,
        searchPrice: priceChangeSchema.nullish(),
        cancelPolicy: cancelPolicySchema,
        remarks: z.string().nullish(),
        surcharges,
        paymentType: z.string().nullish(),
        // RoomOptionQuote.occupancyRefId is an ID: a string on the wire.
        rooms: z
          .array(
            z.object({
              occupancyRefId: z.union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)]),
              code: z.string(),
              description: z.string().nullish(),
            }),
          )
          .nullish(),
      })
      .nullish(),
    errors: issues,
    warnings: issues,
  }),
);
export const bookAnswerSchema = envelope(
  "book",
  z.object({ booking: bookingDetailSchema.nullish(), errors: issues, warnings: issues }),
);
export const cancelAnswerSchema = envelope(
  "cancel",
  z.object({
    cancellation: z
      .object({
        reference: referenceSchema.nullish(),
        cancelReference: z.string().nullish(),
        status: bookStatusTypeSchema.nullish(),
        price: priceSchema.nullish(),
      })
      .nullish(),
    errors: issues,
    warnings: issues,
  }),
);
export const commitAnswerSchema = envelope(
  "commit",
  z.object({
    commitDetails: z.object({ reference: referenceSchema, status: bookStatusTypeSchema }).nullish(),
    errors: issues,
    warnings: issues,
  }),
);
export const bookingAnswerSchema = envelope(
  "booking",
  z.object({ bookings: z.array(bookingDetailSchema).nullish(), errors: issues, warnings: issues }),
);

/** A GraphQL response carrying top-level `errors` (validation, authentication, resolver failure). */
export const graphqlErrorsSchema = z
  .object({ errors: z.array(z.object({ message: z.string() }).loose()).min(1) })
  .loose();

/** One page of the `hotels` content query; a hotel without coordinates cannot be matched and is kept as null. */
export const hotelListAnswerSchema = envelope(
  "hotels",
  z.object({
    count: z.number().int(),
    token: z.string().nullish(),
    edges: z
      .array(
        z
          .object({
            node: z
              .object({
                hotelData: z
                  .object({
                    hotelCode: z.string(),
                    hotelName: z.string().nullish(),
                    location: z
                      .object({
                        address: z.string().nullish(),
                        city: z.string().nullish(),
                        zipCode: z.string().nullish(),
                        country: z.string().nullish(),
                        coordinates: z.object({ latitude: z.number(), longitude: z.number() }).nullish(),
                      })
                      .nullish(),
                  })
                  .nullish(),
              })
              .nullish(),
          })
          .nullish(),
      )
      .nullish(),
  }),
);
type HotelListEdge = NonNullable<z.infer<typeof hotelListAnswerSchema>["data"]["hotelX"]["hotels"]["edges"]>[number];
export type HotelxListedHotel = NonNullable<NonNullable<NonNullable<HotelListEdge>["node"]>["hotelData"]>;
