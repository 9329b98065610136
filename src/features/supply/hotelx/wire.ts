import { z } from "zod";

/**
 * The parts of the public Hotel-X schema (travelgateX/graphql-schema, hotelx/hubgra) this client
 * reads. Unknown fields are ignored; a missing required one makes the answer `supplier_error`.
 */
export const statusTypeSchema = z.enum(["OK", "RQ"]);
/**
 * `PENDING_COMMIT`: the booking exists upstream but waits for a `commit` (two-step book). Asked for
 * (a hold, `settings.commitRequired`) it is our `held`, also when a lost hold's answer is found so
 * later. Unasked, Edgestay commits it (issue 40): confirmed when the commit answers OK, else pending
 * like ON_REQUEST, and committed again when settling still finds it PENDING_COMMIT.
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

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isInt = (value: unknown): value is number => Number.isSafeInteger(value);
const isNullish = (value: unknown): value is null | undefined => value === null || value === undefined;
const nullishString = (value: unknown) => isNullish(value) || isString(value);
/** Each element read, or null when one is not of its shape. */
const readList = <T>(list: unknown, read: (value: unknown) => T | null): T[] | null => {
  if (!Array.isArray(list)) return null;
  const out: T[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    const item = read(list[i]);
    if (item === null) return null;
    out[i] = item;
  }
  return out;
};
const readAmount = (v: unknown): HotelxAmount | null =>
  isRecord(v) && isString(v.currency) && isNumber(v.net) ? { currency: v.currency, net: v.net } : null;
const readRoom = (v: unknown): HotelxOption["rooms"][number] | null =>
  isRecord(v) &&
  isInt(v.occupancyRefId) &&
  isString(v.code) &&
  nullishString(v.description) &&
  (isNullish(v.refundable) || typeof v.refundable === "boolean")
    ? { occupancyRefId: v.occupancyRefId, code: v.code, description: v.description, refundable: v.refundable }
    : null;
const readSurcharge = (v: unknown): HotelxSurcharge | null => {
  if (!isRecord(v) || !nullishString(v.code) || !nullishString(v.description)) return null;
  if ((v.chargeType !== "INCLUDE" && v.chargeType !== "EXCLUDE") || typeof v.mandatory !== "boolean") return null;
  const price = readAmount(v.price);
  return price && { code: v.code, chargeType: v.chargeType, mandatory: v.mandatory, description: v.description, price };
};
const readPenalty = (v: unknown): HotelxCancelPolicy["cancelPenalties"][number] | null =>
  isRecord(v) &&
  nullishString(v.deadline) &&
  isInt(v.hoursBefore) &&
  isString(v.penaltyType) &&
  isString(v.currency) &&
  isNumber(v.value)
    ? {
        deadline: v.deadline,
        hoursBefore: v.hoursBefore,
        penaltyType: v.penaltyType,
        currency: v.currency,
        value: v.value,
      }
    : null;
const readPolicy = (v: unknown): HotelxCancelPolicy | null => {
  if (!isRecord(v) || typeof v.refundable !== "boolean") return null;
  const cancelPenalties = isNullish(v.cancelPenalties) ? [] : readList(v.cancelPenalties, readPenalty);
  return cancelPenalties && { refundable: v.refundable, cancelPenalties };
};
/** A nullish field whose value is not of its shape (null itself is a value there). */
const MISREAD: unique symbol = Symbol("misread");
const readOption = (v: unknown): HotelxOption | null => {
  if (!isRecord(v) || !isString(v.id) || v.id.length === 0) return null;
  const { accessCode, hotelCode, boardCode, paymentType, status } = v;
  if (!isString(accessCode) || !isString(hotelCode) || !isString(boardCode) || !isString(paymentType)) return null;
  if (status !== "OK" && status !== "RQ") return null;
  const rooms = readList(v.rooms, readRoom);
  const price = readAmount(v.price);
  const surcharges = isNullish(v.surcharges) ? [] : readList(v.surcharges, readSurcharge);
  // Null and absent stand as they came (the schema's nullish); a value must be of its shape.
  const rateRules = isNullish(v.rateRules)
    ? v.rateRules
    : (readList(v.rateRules, (r) => (isString(r) ? r : null)) ?? MISREAD);
  const cancelPolicy = isNullish(v.cancelPolicy) ? v.cancelPolicy : (readPolicy(v.cancelPolicy) ?? MISREAD);
  if (!rooms || !price || !surcharges || rateRules === MISREAD || cancelPolicy === MISREAD) return null;
  return {
    id: v.id,
    accessCode,
    hotelCode,
    boardCode,
    paymentType,
    status,
    rooms,
    price,
    surcharges,
    rateRules,
    cancelPolicy,
  };
};

/**
 * A search answer's options, read as `optionSchema` reads them (the same result, the same
 * refusals: wire.unit.test.ts checks both on random answers), or null when one is not of that
 * shape. Written out because a supplier answers hundreds of options per search and zod, which may
 * not generate code in a Worker, takes about as long to check them as JSON.parse takes to read them
 * (docs/api-decisions.md, "Issue 39: a search asks suppliers only for what it reads").
 */
export const readSearchOptions = (options: unknown): HotelxOption[] | null =>
  isNullish(options) ? [] : readList(options, readOption);

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
  // The options are read by readSearchOptions.
  z.object({ options: z.array(z.unknown()).nullish(), errors: issues, warnings: issues }),
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
