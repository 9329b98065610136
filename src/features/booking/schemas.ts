import { z } from "@hono/zod-openapi";
import { calendarDate, currencyCode, isoDate, personName, timestamp } from "../../platform/http/fields";
import { envelopeSchema } from "../../platform/http/envelope";
import { specMessage, unsupportedField } from "../../platform/http/validation";
import {
  CHARGE_TYPES,
  nameSearchCharacters,
  PAYMENT_TYPES,
  RATE_RULES,
  SALES_CHANNELS,
  VISIBILITY_TYPES,
} from "../supply";
import { MAX_OPTION_ID_LENGTH } from "./option-token";
import { BOOKING_STATUSES, type BookingStatus } from "./tables";

export const MAX_SEARCH_CODES = 1000;

/**
 * What became of a hotel of a search (docs/api-decisions.md, "Issue 29: per-hotel statuses", "Issue
 * 39: one search, every supplier"): options answered; none for the stay; not in our content;
 * options removed by the filters, business rules, what the search may sell or its currency; no
 * option and a supplier that did not answer in time, failed, or was not asked (circuit open); or
 * no supplier of the search maps it.
 */
export const ACCOMMODATION_STATUSES = [
  "available",
  "no_availability",
  "unknown_code",
  "filtered_out",
  "supplier_timeout",
  "supplier_error",
  "supplier_unavailable",
  "not_mapped",
] as const;
/** What one supplier made of a hotel of a search: a hotel's statuses but `unknown_code`. */
export const SUPPLIER_STATUSES = ACCOMMODATION_STATUSES.filter(
  (s): s is Exclude<AccommodationStatus, "unknown_code"> => s !== "unknown_code",
);
export type AccommodationStatus = (typeof ACCOMMODATION_STATUSES)[number];
export const MAX_ROOMS = 9;
export const MAX_PAXES_PER_ROOM = 8;
/** The longest hold (bookCriteria.holdMinutes). */
export const MAX_HOLD_MINUTES = 30;

const code = z.string().min(1).max(64);
/** A string field's own limit, worded so that a schema-wide "is required" message cannot stand in for it. */
const tooLong = (max: number) => ({ error: `too long: at most ${max} characters` });

/**
 * Market, nationality and language codes. Every Edgestay option is sold in every market and to
 * every nationality at one price, and every text is English, so they select nothing (issue 25).
 */
const marketCode = z.string().max(16);
const countryCode = z.string().max(2);
const languageCode = z.string().max(16);

// Examples for the reference, taken from a demo-data run (one option, one room; ids shortened where they are long).
const OPTION_ID =
  "eyJkIjpbNCwiZGVtbyIsIjIwMjctMDMtMTAiLCIyMDI3LTAzLTEyIiwiMzAuMzAiLCJVU0QiLCIxIl0sImUiOjE3OTU3NDIxNTMwMDB9.uPDQVZDm0TUpz1k7HR2BcnoE1Mvz9DoiTv-jh_vl9tk~US000010~STD~STD-RO-FLX~291.14";
const RESORT_FEE = {
  type: "FEE" as const,
  code: "RESORT_FEE",
  description: "Resort fee per room and night, payable at the property",
};
const DUE_EXAMPLE = { amount: 50, currency: "USD", charges: [{ ...RESORT_FEE, amount: 50, currency: "USD" }] };
// A resort's option: two taxes and a city fee charged at booking, a resort fee due at the property.
const RATE_EXAMPLE = {
  currency: "USD",
  baseRate: 247,
  taxesAndFees: 44.14,
  chargeTotal: 291.14,
  charges: [
    { type: "TAX" as const, code: "STATE_SALES_TAX", description: "State sales tax", amount: 11.12, included: true },
    {
      type: "TAX" as const,
      code: "CITY_OCCUPANCY_TAX",
      description: "City occupancy tax",
      amount: 29.02,
      included: true,
    },
    { type: "FEE" as const, code: "CITY_FEE", description: "City fee per room and night", amount: 4, included: true },
    { ...RESORT_FEE, amount: 50, included: false },
  ],
  dueAtProperty: DUE_EXAMPLE,
  totalStayPrice: 341.14,
  nights: [
    { date: "2027-03-10", baseRate: 123.5, taxesAndFees: 22.07 },
    { date: "2027-03-11", baseRate: 123.5, taxesAndFees: 22.07 },
  ],
  exchange: { currency: "USD", rate: 1 },
};
const CANCEL_POLICY_EXAMPLE = {
  refundable: true,
  cancelPenalties: [
    { penaltyType: "FIRST_NIGHT", currency: "USD", deadline: "2027-03-07T23:00:00.000Z", value: 145.57 },
  ],
};
const ROOM_EXAMPLE = { occupancyRefId: 1, code: "STD", description: "Standard Queen Room", rate: RATE_EXAMPLE };
const BOOKED_ROOM_EXAMPLE = { ...ROOM_EXAMPLE, status: "success", cancelledAt: null, cancelPrice: null };
const ACCOMMODATION_EXAMPLE = {
  accommodationCode: "US000010",
  accommodationName: "Sunset Tacoma Golf Resort",
  accommodationType: "Resort",
  location: { country: "US", longitude: -122.541513, latitude: 47.305818 },
};
const OCCUPANCIES_EXAMPLE = [{ occupancyId: 1, paxes: [{ age: 30 }, { age: 30 }] }];
const BOOKING_EXAMPLE = {
  bookingReference: "BKFGEOEIKMQZYK4POB5HFF",
  partnerReference: "PR-2027-0001",
  status: "success",
  accommodation: { code: "US000010", name: "Sunset Tacoma Golf Resort" },
  checkIn: "2027-03-10",
  checkOut: "2027-03-12",
  boardCode: "RO",
  paymentType: "MerchantPay",
  paymentCard: null,
  rate: RATE_EXAMPLE,
  rooms: [BOOKED_ROOM_EXAMPLE],
  cancelPolicy: CANCEL_POLICY_EXAMPLE,
  holder: { name: "Ada", surName: "Lovelace" },
  occupancies: OCCUPANCIES_EXAMPLE,
  chargeTotal: 291.14,
  hotelConfirmationNumber: "VPICM5RK",
  supplierCode: "embedded",
  supplierHotelCode: null,
  createdAt: "2027-02-01T10:00:00.000Z",
  cancelledAt: null,
  cancelPrice: null,
  holdExpiresAt: null,
  modifiedAt: null,
  version: 1,
};
/** One booking as the reads show it (list and single read share it). */
export const bookingExample = BOOKING_EXAMPLE;

const searchPax = z.object({ age: z.number().int().min(0).max(120), nationality: countryCode.optional() });
const searchOccupancy = z.object({
  occupancyId: z.number().int().min(1).optional(),
  paxes: z.array(searchPax).min(1).max(MAX_PAXES_PER_ROOM),
});
const occupancies = z.array(searchOccupancy).min(1).max(MAX_ROOMS);

/**
 * `settings.access.code` is validated by the service, not here, so that each bad value gets the
 * spec's connection message rather than a generic validation error.
 */
const reserved = (schema: z.ZodType, what = "Reserved by the contract") =>
  schema.optional().openapi({ description: `${what}: accepted, not used (docs/api-decisions.md, issue 25)` });

export const settingsSchema = z.object({
  access: z
    .object({
      code: z.unknown().optional().openapi({ type: "number", description: "The connection code", example: 1001 }),
      user: reserved(z.string().max(200)),
      password: reserved(z.string().max(200)),
      apiKey: reserved(z.string().max(512)),
      urls: reserved(
        z.object({
          book: z.string().max(2048).optional(),
          search: z.string().max(2048).optional(),
          quote: z.string().max(2048).optional(),
          generic: z.string().max(2048).optional(),
        }),
      ),
      // A free-form key-value map (reserved): its keys are the supplier's.
      parameters: reserved(z.record(z.string(), z.unknown())),
    })
    .optional(),
  supplier: z.string().min(1).max(200).optional().openapi({
    description: "Search only: one supplier's code, as one entry of settings.suppliers",
    example: "iberbeds",
  }),
  suppliers: z
    .array(z.object({ code: z.string().min(1).max(40) }))
    .min(1)
    .max(50)
    .optional()
    .openapi({
      description:
        "Search only (Hotel-X's name): ask only these of the connection's suppliers; a code the connection does not sell is a 400 naming it. Absent: every supplier",
      example: [{ code: "iberbeds" }, { code: "embedded" }],
    }),
  platform: reserved(z.string().max(200)),
  client: reserved(z.string().max(200)),
  // The contract shows a string; Hotel-X clients send a number: both are milliseconds (supplierTimeoutMs).
  timeout: z.union([z.string(), z.number()]).optional().openapi({
    description:
      'Supplier deadline in milliseconds (at most 25000, default 8000) for suppliers reached over the network: a whole number, as a string ("8000", the contract\'s form) or a number (8000)',
    example: "8000",
  }),
  includeProviderTransactions: z.boolean().optional().openapi({
    description:
      "Adds data.providerTransactions: each supplier request and response, credentials and card data redacted",
  }),
  currency: currencyCode.optional().openapi({
    example: "EUR",
    description:
      "Prices in this currency, converted with the operator's exchange rates (default: the hotel's currency)",
  }),
  includePriceBreakdown: z.boolean().optional().openapi({
    description:
      "Search only. true: each option also gives rate.nights, and each room its own charges, dueAtProperty.charges and nights (the breakdown quote, book and the booking reads always give). Default false: a search option gives every total of the option and of each room, and each of its charges once (docs/api-decisions.md, issue 38)",
  }),
  businessRules: z
    .object({
      businessRuleType: z.enum(["CHEAPEST", "DEFAULT"]).optional(),
      optionsQuota: z.number().int().min(1).optional(),
    })
    // Every key here is a rule: an unknown one is refused rather than left unapplied.
    .strict()
    .optional()
    .openapi({ description: "Search only: a quote, book or cancel concerns one option, which every rule keeps" }),
});

/**
 * Section 2.7. On search, `supportedVisibilityTypes` and `salesChannel` decide which restricted
 * rates it may show (docs/api-decisions.md, "Issue 27: restricted rates"); the option ids carry
 * that, so on quote and book they are validated and select nothing.
 */
export const distributionContext = z
  .object({
    customer: z.record(z.string(), z.unknown()).optional(),
    salesChannel: z.enum(SALES_CHANNELS).optional().openapi({
      description: "Search: `APP` also shows MOBILE rates (rates for bookings made in a mobile app)",
      example: "APP",
    }),
    distributionMode: z.enum(["CUSTOMER", "REDISTRIBUTION"]).optional(),
    supportedVisibilityTypes: z
      .array(z.enum(VISIBILITY_TYPES))
      .max(3)
      .optional()
      .openapi({
        description:
          "Search: the visibilities the partner can sell (default [PUBLIC]). PACKAGE shows package-only rates (to be sold with a flight or other travel product), OPAQUE_PROPERTY opaque ones",
        example: ["PUBLIC", "PACKAGE"],
      }),
  })
  .optional()
  .openapi({
    description:
      "Section 2.7. Search: which restricted rates the partner may be shown (default: public rates only). Quote and book: validated; the option id keeps what its search could show",
  });

/** `<criteria>.currency` and `settings.currency` ask for the same thing: both sent, they must agree. */
export const oneCurrency =
  <K extends string>(criteria: K) =>
  (request: Record<K, { currency?: string }> & { settings: { currency?: string } }, ctx: z.RefinementCtx) => {
    const asked = request[criteria].currency;
    const set = request.settings.currency;
    if (asked && set && asked !== set)
      ctx.addIssue({
        code: "custom",
        path: [criteria, "currency"],
        message: `${asked} differs from settings.currency ${set}`,
      });
  };

/**
 * Which payment type a quote or book expects (docs/api-decisions.md, "Issue 27: payment types"):
 * it must be the option's own. Read without regard to case (`merchantpay` was accepted before).
 */
const paymentType = z
  .preprocess(
    (v) => (typeof v === "string" ? (PAYMENT_TYPES.find((t) => t.toLowerCase() === v.trim().toLowerCase()) ?? v) : v),
    z.enum(PAYMENT_TYPES),
  )
  .optional()
  .openapi({
    description:
      "MerchantPay (Edgestay charges chargeTotal at booking) or PayAtProperty (nothing charged at booking; the guest pays dueAtProperty at the hotel). When sent, it must be the option's own paymentType",
    example: "MerchantPay",
  });

const paymentTypeOut = z.enum(PAYMENT_TYPES).openapi({
  description:
    "MerchantPay: Edgestay charges chargeTotal at booking. PayAtProperty: nothing is charged at booking (chargeTotal 0); the whole stay is in dueAtProperty and booking needs bookCriteria.paymentCard as a guarantee",
  example: "MerchantPay",
});

/** The supplier a booking was made with, by its Edgestay code (the one settings.suppliers names). */
const supplierCodeOut = z.string().openapi({
  description:
    "The supplier that holds the booking, by its code in Edgestay (`embedded`: Edgestay's own inventory); cancel and changes go to it",
  example: "embedded",
});

/** A card on file of the partner's end user (payments: saved by the chat card step), never card data. */
const paymentCardIn = z
  .object({
    actorId: z.string().trim().min(1).max(200).openapi({ description: "The end user the card was saved for" }),
    paymentMethodId: z.string().trim().min(1).max(200).openapi({ example: "pm_3kT9x0aQw2LmNpR7" }),
  })
  .strict()
  .optional()
  .openapi({
    description:
      "Required for a PayAtProperty option: the guarantee the hotel may charge (no-show, late cancellation). A saved card's id, never card data",
  });

const paymentCardOut = z
  .object({ paymentMethodId: z.string(), brand: z.string(), last4: z.string() })
  .openapi("PaymentCard", {
    description: "The card guaranteeing a PayAtProperty booking, masked: its id, brand and last four digits",
    example: { paymentMethodId: "pm_3kT9x0aQw2LmNpR7", brand: "visa", last4: "4242" },
  });

const stringList = z.array(z.string().max(64)).max(50).optional();

const SELECTOR_MESSAGE = specMessage(
  "Exactly one selector is required: destinations.accommodations, geo(lat/lng), or accommodationName",
);

export const searchRequestSchema = z
  .object({
    searchCriteria: z
      .object({
        destinations: z
          .object({
            accommodations: z
              .array(z.object({ type: z.string().optional(), code }))
              .min(1)
              .max(MAX_SEARCH_CODES, `at most ${MAX_SEARCH_CODES} accommodations per search`)
              .optional(),
          })
          .optional(),
        geo: z
          .object({
            lat: z.number().min(-90).max(90).optional(),
            lng: z.number().min(-180).max(180).optional(),
            radiusKm: z.number().min(0.1).max(60).optional(),
            limit: z.number().int().min(1).max(1000).optional(),
          })
          .optional(),
        accommodationName: z
          .string()
          .trim()
          .min(2)
          .max(200)
          // "a*" is one character that can match: the 2-character minimum counts letters and digits.
          .refine((name) => nameSearchCharacters(name) >= 2, "Too small: expected string to have >=2 characters")
          .optional(),
        occupancies,
        markets: z.array(marketCode).max(50).optional(),
        checkIn: isoDate,
        checkOut: isoDate,
        language: languageCode.optional(),
        currency: currencyCode.optional().openapi({ description: "As settings.currency (both sent: they must agree)" }),
        nationality: countryCode.optional(),
      })
      .superRefine((criteria, ctx) => {
        const geo = criteria.geo;
        // Any geo field asks for a geo search: a radius beside a code list would otherwise go unused.
        const geoAsked = geo !== undefined && Object.values(geo).some((v) => v !== undefined);
        const selectors = [
          criteria.destinations?.accommodations !== undefined,
          geoAsked,
          criteria.accommodationName !== undefined,
        ].filter(Boolean).length;
        if (selectors !== 1) ctx.addIssue({ code: "custom", message: SELECTOR_MESSAGE, path: [] });
        else if (geoAsked && (geo.lat === undefined || geo.lng === undefined))
          ctx.addIssue({ code: "custom", message: SELECTOR_MESSAGE, path: [] });
      }),
    settings: settingsSchema,
    // Every key under filters is a filter: an unknown one is refused rather than left unapplied.
    filters: z
      .object({
        status: z.object({ includes: stringList, excludes: stringList }).strict().optional(),
        rateRuleFilter: z
          .object({ includes: stringList, excludes: stringList, includeEmptyRateRulesOptions: z.boolean().optional() })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    distributionContext,
    listing: reserved(z.boolean(), "No effect given by the contract"),
    requestFromPortal: reserved(z.boolean(), "No effect given by the contract"),
  })
  .superRefine(oneCurrency("searchCriteria"))
  .openapi("SearchRequest", {
    example: {
      searchCriteria: {
        destinations: { accommodations: [{ code: "US000010" }, { code: "US000011" }, { code: "ZZ000001" }] },
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
        checkIn: "2027-03-10",
        checkOut: "2027-03-12",
      },
      settings: { access: { code: 1001 } },
    },
  });

export type SearchRequest = z.infer<typeof searchRequestSchema>;

const exchange = z
  .object({
    currency: z.string().openapi({ description: "The hotel's currency" }),
    rate: z.number().openapi({ description: "Units of the rate's currency per unit of the hotel's" }),
  })
  .openapi("Exchange");
const chargeType = z.enum(CHARGE_TYPES).openapi({
  description: "A tax, a fee, or ROOM: the room's own price, due at the property on a PayAtProperty rate only",
});
const rateCharge = z
  .object({
    type: chargeType,
    code: z.string().openapi({ description: "Stable code of the tax or fee", example: "CITY_OCCUPANCY_TAX" }),
    description: z.string(),
    amount: z.number().openapi({ description: "In the rate's currency" }),
    included: z.boolean().openapi({
      description:
        "true: charged at booking (part of taxesAndFees and chargeTotal); false: due at the property (also in dueAtProperty)",
    }),
  })
  .openapi("RateCharge", { example: RATE_EXAMPLE.charges[1] });
const propertyCharge = z
  .object({
    type: chargeType,
    code: z.string(),
    description: z.string(),
    amount: z.number().openapi({ description: "In the property's currency" }),
    currency: z.string(),
  })
  .openapi("PropertyCharge", { example: DUE_EXAMPLE.charges[0] });
const dueAtProperty = z
  .object({
    amount: z.number().openapi({ description: "What the property collects from the guest, in its own currency" }),
    currency: z.string().openapi({ description: "The property's currency" }),
    amountInRateCurrency: z.number().optional().openapi({
      description: "The same amount in the rate's currency; present only when the two currencies differ",
    }),
    charges: z.array(propertyCharge),
  })
  .openapi("DueAtProperty", {
    description: "Always present: amount 0 and no charges when nothing is due at the property",
    example: DUE_EXAMPLE,
  });
const nightPrice = z
  .object({
    date: calendarDate.openapi({ description: "The night (its check-in date)", example: "2027-03-10" }),
    baseRate: z.number(),
    taxesAndFees: z.number().openapi({
      description:
        "The included taxes and fees of this night; on a PayAtProperty rate every tax and fee of this night due at the property",
    }),
    currency: z
      .string()
      .optional()
      .openapi({ description: "Present on a PayAtProperty rate: the property's currency" }),
  })
  .openapi("NightPrice", { example: RATE_EXAMPLE.nights[0] });
export const rateSchema = z
  .object({
    currency: z.string(),
    baseRate: z.number().openapi({ description: "The room price (the connection's markup included)" }),
    taxesAndFees: z.number().openapi({ description: "The sum of the included charges" }),
    chargeTotal: z.number().openapi({ description: "baseRate + taxesAndFees: what the partner is charged at booking" }),
    charges: z.array(rateCharge).openapi({ description: "Every tax and fee, included or due at the property" }),
    dueAtProperty,
    totalStayPrice: z.number().openapi({
      description:
        "chargeTotal plus what is due at the property, in the rate's currency: the all-in price a guest must see",
    }),
    nights: z.array(nightPrice).openapi({
      description:
        "Per night, whoever collects it. MerchantPay: in the rate's currency, they sum to baseRate and taxesAndFees exactly. PayAtProperty: in the property's currency (currency), they sum to dueAtProperty exactly (baseRate to its ROOM charge, taxesAndFees to its other charges)",
    }),
    exchange: exchange.optional(),
  })
  .openapi("Rate", {
    description:
      "Exact to the minor unit of the currency: items sum to totals, nights sum to the rate, an option to its rooms (docs/api-decisions.md, issue 27)",
  });
const cancelPolicy = z
  .object({
    refundable: z.boolean(),
    cancelPenalties: z.array(
      z.object({
        penaltyType: z.string(),
        currency: z.string(),
        deadline: timestamp,
        value: z
          .number()
          .openapi({ description: "What cancelling costs from the deadline on: always an amount in currency" }),
        supplierPenalty: z
          .object({
            penaltyType: z.string(),
            value: z.number(),
            currency: z.string(),
            hoursBefore: z.number().int().optional().openapi({ description: "From this many hours before check-in" }),
            deadline: timestamp.optional().openapi({
              description:
                "The deadline it stated; absent when it stated hoursBefore only (deadline above is then check-in 00:00 UTC minus those hours)",
            }),
          })
          .optional()
          .openapi({
            description:
              "An upstream's penalty as it stated it (Hotel-X CancelPenaltyType: PERCENT value a percentage, NIGHTS a number of nights, IMPORT an amount in its currency); value above is it as an amount",
            example: { penaltyType: "PERCENT", value: 100, currency: "EUR", hoursBefore: 48 },
          }),
      }),
    ),
  })
  .openapi("CancelPolicy");
const room = z.object({ occupancyRefId: z.number(), code: z.string(), description: z.string(), rate: rateSchema });
/**
 * A search option's rate and its rooms' (docs/api-decisions.md, "Issue 38: the lighter search answer").
 * By default the option keeps every total and lists each charge once (rate.charges those charged at
 * booking, dueAtProperty.charges those due at the property) and no nights; a room gives its totals,
 * in the option's currencies. `settings.includePriceBreakdown: true` gives the whole Rate on both.
 * New objects of the Rate's fields, not `.extend()`: that documents an allOf of Rate, whose fields are required.
 */
const breakdownOnly = (what: string) => `With settings.includePriceBreakdown: true only: ${what}`;
const searchRate = z
  .object({
    ...rateSchema.shape,
    charges: z.array(rateCharge).openapi({
      description:
        "By default the charges charged at booking (included: true) only: those due at the property are listed once, in dueAtProperty.charges. With settings.includePriceBreakdown: true every tax and fee, as in quote",
    }),
    nights: z
      .array(nightPrice)
      .optional()
      .openapi({
        description: breakdownOnly(
          "per night; they sum to baseRate and taxesAndFees exactly (quote always gives them)",
        ),
      }),
    exchange: exchange.optional().openapi({
      description:
        "By default only when the price was converted from the hotel's currency (which dueAtProperty.currency always names). With settings.includePriceBreakdown: true always, as in quote (rate 1 when nothing was converted)",
    }),
  })
  .openapi("SearchRate", {
    description:
      "A search option's Rate: every total, each charge once; nights with settings.includePriceBreakdown: true",
    example: { ...RATE_EXAMPLE, charges: RATE_EXAMPLE.charges.filter((c) => c.included), nights: undefined },
  });
const searchRoomRate = z
  .object({
    ...rateSchema.shape,
    currency: z
      .string()
      .optional()
      .openapi({ description: breakdownOnly("the option's rate.currency") }),
    charges: z
      .array(rateCharge)
      .optional()
      .openapi({ description: breakdownOnly("this room's taxes and fees") }),
    dueAtProperty: z
      .object({
        amount: dueAtProperty.shape.amount,
        currency: z
          .string()
          .optional()
          .openapi({ description: breakdownOnly("the option's rate.dueAtProperty.currency") }),
        amountInRateCurrency: dueAtProperty.shape.amountInRateCurrency,
        charges: z
          .array(propertyCharge)
          .optional()
          .openapi({ description: breakdownOnly("this room's items") }),
      })
      .openapi("SearchRoomDueAtProperty"),
    nights: z
      .array(nightPrice)
      .optional()
      .openapi({ description: breakdownOnly("this room's nights") }),
    exchange: exchange.optional().openapi({ description: breakdownOnly("the option's rate.exchange") }),
  })
  .openapi("SearchRoomRate", {
    description:
      "A room of a search option: its totals, in the option's currencies; with settings.includePriceBreakdown: true its whole Rate",
    example: {
      baseRate: 247,
      taxesAndFees: 44.14,
      chargeTotal: 291.14,
      dueAtProperty: { amount: 50 },
      totalStayPrice: 341.14,
    },
  });
const searchRoom = z.object({
  occupancyRefId: z.number(),
  code: z
    .string()
    .openapi({ description: "Edgestay's room code (a room the supplier's room map lacks keeps the supplier's)" }),
  roomCodeSupplier: z.string().openapi({
    description: "The supplier's own room code (Edgestay's for a supplier that uses Edgestay's codes)",
  }),
  description: z.string(),
  rate: searchRoomRate,
});
const rateRules = z.array(z.enum(RATE_RULES)).openapi({
  description:
    "Hotel-X RateRulesType names of the rate (never NORMAL); empty for a plain public rate. PACKAGE, MOBILE and the rules a traveller must qualify for are shown only where they may be sold (docs/api-decisions.md)",
  example: ["NON_REFUNDABLE"],
});
const visibility = z.enum(VISIBILITY_TYPES).openapi({
  description:
    "PUBLIC: may be shown on its own. PACKAGE: only as part of a package (shown with supportedVisibilityTypes PACKAGE). OPAQUE_PROPERTY: only without naming the hotel",
  example: "PUBLIC",
});
const location = z.object({ country: z.string(), longitude: z.number(), latitude: z.number() });

export const optionSchema = z
  .object({
    id: z.string().openapi({ description: "optionId for quote; valid about 24 hours" }),
    supplierCode: z.string().openapi({
      description:
        "The supplier that made the option: its code in Edgestay (the one settings.suppliers, statuses and bookings use; embedded: Edgestay's own inventory)",
      example: "embedded",
    }),
    boardCode: z.string(),
    boardName: z.string(),
    isRefundable: z.boolean(),
    rateRules,
    visibility,
    paymentType: paymentTypeOut,
    rate: searchRate,
    cancelPolicy,
    rooms: z.array(searchRoom),
  })
  .openapi("SearchOption");

export const supplierWarningSchema = z
  .object({
    code: z.enum(["supplier_timeout", "supplier_error", "supplier_unavailable", "currency_not_convertible"]),
    supplier: z.string(),
    message: z.string(),
    currency: z.string().optional().openapi({
      description: "currency_not_convertible: the currency the supplier priced in, which has no exchange rate",
    }),
    requestedCurrency: z
      .string()
      .optional()
      .openapi({ description: "currency_not_convertible: the currency the search sells in" }),
    accommodationCodes: z
      .array(z.string())
      .optional()
      .openapi({ description: "currency_not_convertible: the accommodations whose options were left out" }),
    options: z
      .number()
      .int()
      .optional()
      .openapi({ description: "currency_not_convertible: how many options were left out" }),
  })
  .openapi("SupplierWarning");

export const providerTransactionSchema = z
  .object({
    supplier: z.string(),
    operation: z.enum(["search", "quote", "book", "commit", "cancel", "bookingByReference"]),
    request: z.string(),
    response: z.string(),
    status: z.number().nullable().openapi({ description: "HTTP status of the supplier's answer; null when none came" }),
    durationMs: z.number(),
  })
  .openapi("ProviderTransaction");
const providerTransactions = z
  .array(providerTransactionSchema)
  .optional()
  .openapi({ description: "With settings.includeProviderTransactions: true only; empty for the embedded inventory" });

export const searchResponseSchema = envelopeSchema(
  z
    .object({
      accommodations: z.array(
        z.object({
          accommodationCode: z.string(),
          accommodationName: z.string(),
          accommodationType: z.string(),
          location,
          options: z.array(optionSchema),
        }),
      ),
      statuses: z
        .array(
          z.object({
            accommodationCode: z.string(),
            status: z.enum(ACCOMMODATION_STATUSES).openapi({
              description:
                "available: some supplier answered options. Otherwise, the first of supplier_timeout, supplier_error, supplier_unavailable (no option, and a supplier that might have had one did not answer in time, failed, or was not asked: its circuit is open), filtered_out (options existed and the filters, business rules, what the search may sell (visibility, rate rules) or its currency removed them all), no_availability (none for this stay and party) among its suppliers; not_mapped: no supplier of the search maps it; unknown_code: not in Edgestay's content",
            }),
            suppliers: z
              .array(
                z.object({
                  code: z.string().openapi({ description: "The supplier's code in Edgestay" }),
                  status: z.enum(SUPPLIER_STATUSES).openapi({
                    description:
                      "What this supplier made of the hotel (as the hotel's status); not_mapped: its hotel map does not have it, so it was not asked",
                  }),
                }),
              )
              .openapi({
                description:
                  "Every supplier of the search, in the connection's order (settings.suppliers restricts them); empty for unknown_code",
              }),
          }),
        )
        .openapi({
          description:
            "One entry per code asked (a code sent twice once), in the order asked; for a geo or name search one per hotel it found, in the answer's order (docs/api-decisions.md, issues 29 and 39)",
        }),
      warnings: z
        .array(supplierWarningSchema)
        .optional()
        .openapi({ description: "One per supplier that did not answer in time or failed; absent when all answered" }),
      providerTransactions,
      requestId: z.string(),
      responseTime: z.number(),
    })
    .openapi({
      example: {
        accommodations: [
          {
            ...ACCOMMODATION_EXAMPLE,
            options: [
              {
                id: OPTION_ID,
                supplierCode: "embedded",
                boardCode: "RO",
                boardName: "Room Only",
                isRefundable: true,
                rateRules: [],
                visibility: "PUBLIC",
                paymentType: "MerchantPay",
                rate: RATE_EXAMPLE,
                cancelPolicy: CANCEL_POLICY_EXAMPLE,
                rooms: [{ ...ROOM_EXAMPLE, roomCodeSupplier: "STD" }],
              },
            ],
          },
        ],
        statuses: [
          {
            accommodationCode: "US000010",
            status: "available",
            suppliers: [{ code: "embedded", status: "available" }],
          },
          {
            accommodationCode: "US000011",
            status: "no_availability",
            suppliers: [{ code: "embedded", status: "no_availability" }],
          },
          { accommodationCode: "ZZ000001", status: "unknown_code", suppliers: [] },
        ],
        requestId: "3226ea4d-9af1-4d49-834d-ad57ddfb839d",
        responseTime: 51,
      },
    }),
).openapi("SearchResponse");

export const quoteRequestSchema = z
  .object({
    quoteCriteria: z.object({
      optionId: z
        .string({ error: specMessage("optionRefId is required") })
        .min(1, specMessage("optionRefId is required"))
        .max(MAX_OPTION_ID_LENGTH, tooLong(MAX_OPTION_ID_LENGTH)),
      accommodation: z.object({ type: z.string().optional(), code }),
      occupancies,
      market: marketCode.optional(),
      paymentType,
      parameters: unsupportedField("no supplier takes booking parameters"),
      checkIn: isoDate,
      checkOut: isoDate,
      language: languageCode.optional(),
      currency: currencyCode.optional().openapi({ description: "As settings.currency (both sent: they must agree)" }),
      nationality: countryCode.optional(),
    }),
    settings: settingsSchema,
    distributionContext,
    requestFromPortal: reserved(z.boolean(), "No effect given by the contract"),
  })
  .superRefine(oneCurrency("quoteCriteria"))
  .openapi("QuoteRequest", {
    example: {
      quoteCriteria: {
        optionId: OPTION_ID,
        accommodation: { code: "US000010" },
        occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
        checkIn: "2027-03-10",
        checkOut: "2027-03-12",
      },
      settings: { access: { code: 1001 } },
    },
  });

export type QuoteRequest = z.infer<typeof quoteRequestSchema>;

const occupancyOut = z.object({
  occupancyId: z.number(),
  paxes: z.array(z.object({ age: z.number(), nationality: z.string().optional() })),
});

export const quoteSchema = z
  .object({
    id: z.string().openapi({ description: "quoteId for book; valid 30 minutes" }),
    accommodation: z.object({
      accommodationCode: z.string(),
      accommodationName: z.string(),
      accommodationType: z.string(),
      location,
    }),
    occupancies: z.array(occupancyOut),
    checkIn: calendarDate,
    checkOut: calendarDate,
    roomCodes: z.array(z.string()),
    roomNames: z.array(z.string()),
    boardCode: z.string(),
    boardName: z.string(),
    isRefundable: z.boolean(),
    rateRules,
    visibility,
    paymentType: paymentTypeOut,
    rate: rateSchema,
    cancelPolicy,
    rooms: z.array(room),
    requestId: z.string(),
    responseTime: z.number(),
    providerTransactions,
  })
  .openapi("Quote", {
    example: {
      id: "qt_1Vrv81VE8_wcA76YLMteG7WQ6yqAfx7k",
      accommodation: ACCOMMODATION_EXAMPLE,
      occupancies: OCCUPANCIES_EXAMPLE,
      checkIn: "2027-03-10",
      checkOut: "2027-03-12",
      roomCodes: ["STD"],
      roomNames: ["Standard Queen Room"],
      boardCode: "RO",
      boardName: "Room Only",
      isRefundable: true,
      rateRules: [],
      visibility: "PUBLIC",
      paymentType: "MerchantPay",
      rate: RATE_EXAMPLE,
      cancelPolicy: CANCEL_POLICY_EXAMPLE,
      rooms: [ROOM_EXAMPLE],
      requestId: "f1e25ec3-15dd-405e-9a50-ffb60481c3cd",
      responseTime: 47,
    },
  });

export const quoteResponseSchema = envelopeSchema(quoteSchema).openapi("QuoteResponse");
export type QuoteView = z.infer<typeof quoteSchema>;

const BOOK_REQUEST_EXAMPLE = {
  bookCriteria: {
    quoteId: "qt_1Vrv81VE8_wcA76YLMteG7WQ6yqAfx7k",
    accommodation: { code: "US000010" },
    partnerReference: "PR-2027-0001",
    holder: { name: "Ada", surName: "Lovelace" },
    checkIn: "2027-03-10",
    checkOut: "2027-03-12",
  },
  settings: { access: { code: 1001 } },
};
const BOOK_RESULT_EXAMPLE = {
  bookingReference: "BKFGEOEIKMQZYK4POB5HFF",
  partnerReference: "PR-2027-0001",
  status: "success",
  chargeTotal: 291.14,
  currency: "USD",
  paymentType: "MerchantPay",
  exchange: { currency: "USD", rate: 1 },
  rate: RATE_EXAMPLE,
  hotelConfirmationNumber: "VPICM5RK",
  supplierCode: "embedded",
  requestId: "cb68f4ac-e291-4d2f-9e38-5ce1cf6786bc",
  responseTime: 12,
};

/** The holder's names, as book and a change take them: a name of spaces only is no name. */
const holderSchema = z.object({ name: personName(), surName: personName() });

const bookPax = z.object({
  age: z.number().int().min(0).max(120),
  nationality: countryCode.optional(),
  name: personName().optional(),
  surName: personName().optional(),
});

export const bookRequestSchema = z
  .object({
    bookCriteria: z.object({
      quoteId: z
        .string({ error: specMessage("optionId is required") })
        .min(1, specMessage("optionId is required"))
        .max(200, tooLong(200)),
      accommodation: z.object({ type: z.string().optional(), code }),
      occupancies: z
        .array(
          z.object({
            occupancyId: z
              .number({ error: specMessage("occupancyId is required when providing occupancies") })
              .int({ error: "expected a whole number" }),
            paxes: z.array(bookPax).min(1).max(MAX_PAXES_PER_ROOM),
          }),
        )
        .min(1)
        .max(MAX_ROOMS)
        .optional(),
      market: marketCode.optional(),
      paymentType,
      paymentCard: paymentCardIn,
      partnerReference: z.string().trim().min(1).max(100),
      holder: holderSchema,
      hold: z.boolean().optional().openapi({
        description:
          "Hold the rooms instead of booking them: status held, nothing charged, until POST /api/bookings/{bookingReference}/commit (success, at the held price) or POST /api/cancel (released free); at holdExpiresAt the rooms go back and the booking is expired. 409 hold_not_supported when the option's supplier cannot hold. Holds are kept within the operator's limits (GET /api/operator/hold-limits): a partner's live holds and their room-nights (409 hold_limit_reached), on the embedded inventory a share of each night's rooms of a type per partner (409 hold_share_exceeded), and a stay far ahead is held for less time or not at all (409 hold_too_far_ahead)",
        example: true,
      }),
      holdMinutes: z
        .number()
        .int({ error: "expected a whole number of minutes" })
        .min(1)
        .max(MAX_HOLD_MINUTES)
        .optional()
        .openapi({
          description: `With hold: how long, 1 to ${MAX_HOLD_MINUTES} minutes (default 15); a stay far ahead is held at most the operator's shortHoldMaxMinutes (holdExpiresAt says when it ends)`,
          example: 15,
        }),
      checkIn: isoDate,
      checkOut: isoDate,
      language: languageCode.optional(),
      currency: currencyCode.optional().openapi({ description: "As settings.currency (both sent: they must agree)" }),
      nationality: countryCode.optional(),
    }),
    settings: settingsSchema,
    distributionContext,
  })
  .superRefine(oneCurrency("bookCriteria"))
  .superRefine((request, ctx) => {
    const { hold, holdMinutes } = request.bookCriteria;
    if (holdMinutes !== undefined && hold !== true)
      ctx.addIssue({
        code: "custom",
        path: ["bookCriteria", "holdMinutes"],
        message: "holdMinutes is for a hold: send it with hold: true",
      });
  })
  .openapi("BookRequest", { example: BOOK_REQUEST_EXAMPLE });

export type BookRequest = z.infer<typeof bookRequestSchema>;

export const bookResultSchema = z
  .object({
    bookingReference: z.string(),
    partnerReference: z.string(),
    status: z.enum(["success", "pending", "held"]).openapi({
      description:
        "success; pending (HTTP 202) while the supplier's answer is awaited; held for a hold (bookCriteria.hold)",
    }),
    chargeTotal: z
      .number()
      .openapi({ description: "What was charged: 0 while held (rate is the held price, charged at the commit)" }),
    currency: z.string().optional().openapi({ description: "The quoted currency chargeTotal is in" }),
    paymentType: paymentTypeOut,
    exchange: exchange.optional(),
    rate: rateSchema,
    hotelConfirmationNumber: z.string().optional(),
    supplierCode: supplierCodeOut,
    supplierHotelCode: z.string().optional().openapi({
      description: "The supplier's own code of the hotel, when it differs from Edgestay's (absent: the same)",
      example: "H-88213",
    }),
    holdExpiresAt: timestamp.optional().openapi({
      description: "A hold: when its rooms go back (and it becomes expired) unless it is committed first",
      example: "2027-02-01T10:15:00.000Z",
    }),
    requestId: z.string(),
    responseTime: z.number(),
    providerTransactions,
  })
  .openapi("BookResult", { example: BOOK_RESULT_EXAMPLE });

export const bookResponseSchema = envelopeSchema(bookResultSchema).openapi("BookResponse");

/** Named examples of the book route beside each schema's own: a hold, and its answer. */
export const bookExamples = {
  request: {
    book: { summary: "Book", value: BOOK_REQUEST_EXAMPLE },
    hold: {
      summary: "Hold for 10 minutes (commit with POST /api/bookings/{bookingReference}/commit)",
      value: {
        ...BOOK_REQUEST_EXAMPLE,
        bookCriteria: {
          ...BOOK_REQUEST_EXAMPLE.bookCriteria,
          partnerReference: "PR-2027-0002",
          hold: true,
          holdMinutes: 10,
        },
      },
    },
  },
  response: {
    booked: { summary: "Booked", value: { data: BOOK_RESULT_EXAMPLE, message: "success" } },
    held: {
      summary: "Held: nothing charged until the commit, at this rate",
      value: {
        data: {
          ...BOOK_RESULT_EXAMPLE,
          bookingReference: "BKQ2W7E5T4R3Y6U8I9O1P0ASDF",
          partnerReference: "PR-2027-0002",
          status: "held",
          chargeTotal: 0,
          holdExpiresAt: "2027-02-01T10:10:00.000Z",
        },
        message: "success",
      },
    },
  },
  // The 202: booked with the supplier, its confirmation not yet in (no hotelConfirmationNumber).
  pending: {
    pending: {
      summary: "Pending: GET the booking until it settles",
      value: {
        data: { ...BOOK_RESULT_EXAMPLE, status: "pending", hotelConfirmationNumber: undefined },
        message: "success",
      },
    },
  },
};

/** Named examples of the cancel route: the whole booking, or one room of it. */
export const cancelExamples = {
  whole: {
    summary: "The whole booking",
    value: {
      input: { reference: { bookingReference: "BKFGEOEIKMQZYK4POB5HFF" } },
      settings: { access: { code: 1001 } },
    },
  },
  rooms: {
    summary: "Room 2 only (its occupancyRefId)",
    value: {
      input: { reference: { bookingReference: "BKFGEOEIKMQZYK4POB5HFF" }, rooms: [2] },
      settings: { access: { code: 1001 } },
    },
  },
};

export const cancelRequestSchema = z
  .object({
    input: z.object({
      reference: z.object(
        {
          bookingReference: z
            .string({ error: specMessage("bookingReference is required for cancellation") })
            .min(1, specMessage("bookingReference is required for cancellation"))
            .max(100, tooLong(100)),
        },
        { error: specMessage("bookingReference is required for cancellation") },
      ),
      language: languageCode.optional(),
      accommodation: reserved(
        z.object({ type: z.string().max(64).optional(), code: z.string().max(64).optional() }),
        "Unused by the contract (4.6)",
      ),
      rooms: z
        .array(z.number({ error: "expected occupancyRefIds (numbers)" }).int().min(1))
        .min(1)
        .max(MAX_ROOMS)
        .refine((ids) => new Set(ids).size === ids.length, "each room at most once")
        .optional()
        .openapi({
          description:
            "Cancel only these rooms (their occupancyRefIds): the rest of the booking stays at its rooms' own prices; every room left is the whole booking. Default: the whole booking",
          example: [2],
        }),
    }),
    settings: settingsSchema,
  })
  .openapi("CancelRequest", {
    example: {
      input: { reference: { bookingReference: "BKFGEOEIKMQZYK4POB5HFF" } },
      settings: { access: { code: 1001 } },
    },
  });

export type CancelRequest = z.infer<typeof cancelRequestSchema>;

const money = z.object({ currency: z.string(), amount: z.number() });

const bookedRoom = room
  .extend({
    status: z.enum(BOOKING_STATUSES).openapi({
      description: "cancelled once cancelled (alone or with the booking); otherwise the booking's own status",
      example: "success",
    }),
    cancelledAt: timestamp.nullable(),
    cancelPrice: money.nullable().openapi({ description: "This room's share of the penalty when it was cancelled" }),
  })
  .openapi("BookedRoom");

export const bookingViewSchema = z
  .object({
    bookingReference: z.string(),
    partnerReference: z.string(),
    status: z.enum(BOOKING_STATUSES).openapi({
      description:
        "success; pending while the supplier's answer is awaited (then success or failed); held (rooms taken, nothing charged) until committed (success) or released (cancelled), else expired at holdExpiresAt; cancelled",
      example: "success",
    }),
    accommodation: z.object({ code: z.string(), name: z.string() }),
    checkIn: calendarDate,
    checkOut: calendarDate,
    boardCode: z.string(),
    paymentType: paymentTypeOut,
    paymentCard: paymentCardOut
      .nullable()
      .openapi({ description: "PayAtProperty: the guaranteeing card, masked; else null" }),
    rate: rateSchema.openapi({
      description:
        "The rate of the rooms still booked (the sum of their own rates, exact to the cent); a hold's is the held price",
    }),
    rooms: z.array(bookedRoom).openapi({ description: "Every room booked, each with its own rate and status" }),
    cancelPolicy: cancelPolicy.nullable(),
    holder: z.object({ name: z.string(), surName: z.string() }),
    occupancies: z.array(z.object({ occupancyId: z.number(), paxes: z.array(bookPax) })),
    chargeTotal: z.number().openapi({ description: "What is charged for the rooms still booked: 0 while held" }),
    hotelConfirmationNumber: z.string().nullable(),
    supplierCode: supplierCodeOut,
    supplierHotelCode: z.string().nullable().openapi({
      description:
        "The supplier's own code of the hotel, when it differs from Edgestay's; null when the supplier uses Edgestay's codes",
      example: null,
    }),
    createdAt: timestamp,
    cancelledAt: timestamp.nullable(),
    cancelPrice: money
      .nullable()
      .openapi({ description: "The penalties charged so far: of rooms cancelled alone and of the cancel of the rest" }),
    holdExpiresAt: timestamp.nullable().openapi({
      description: "A hold (bookCriteria.hold): when its rooms go back unless committed; null for any other booking",
    }),
    modifiedAt: timestamp.nullable().openapi({
      description:
        "When the stay was last changed (POST /api/bookings/{bookingReference}/modifications); null until then",
    }),
    version: z.number().int().openapi({ description: "Bumped by every change of the booking after it was made" }),
  })
  .openapi("Booking", { example: BOOKING_EXAMPLE });

export const bookingResponseSchema = envelopeSchema(bookingViewSchema).openapi("BookingResponse");

const PARTIAL_CANCEL_EXAMPLE = {
  ...BOOKING_EXAMPLE,
  rooms: [
    BOOKED_ROOM_EXAMPLE,
    {
      ...ROOM_EXAMPLE,
      occupancyRefId: 2,
      status: "cancelled",
      cancelledAt: "2027-02-03T09:30:00.000Z",
      cancelPrice: { currency: "USD", amount: 0 },
    },
  ],
  occupancies: [...OCCUPANCIES_EXAMPLE, { occupancyId: 2, paxes: [{ age: 30 }] }],
  cancelPrice: { currency: "USD", amount: 0 },
};

export const cancelResultSchema = z
  .object({
    status: z.literal("cancelled"),
    cancelledAt: timestamp,
    cancelLocator: z.string().optional(),
    reference: z
      .object({
        bookingReference: z.string(),
        partnerReference: z.string(),
        hotelConfirmationNumber: z.string().nullable(),
      })
      .optional(),
    bookPrice: money.optional().openapi({ description: "What the rooms cancelled were charged (0 for a hold)" }),
    cancelPrice: money.optional().openapi({
      description: "The penalty of this cancel: for some rooms their share of the booking's (0 for a hold)",
    }),
    rooms: z.array(z.number()).optional().openapi({ description: "The rooms this cancel cancelled (occupancyRefIds)" }),
    booking: bookingViewSchema
      .optional()
      .openapi({ description: "The booking after this cancel: cancelled, or the rooms left at their new rate" }),
    providerTransactions,
  })
  .openapi("CancelResult", {
    example: {
      status: "cancelled",
      cancelledAt: "2027-02-03T09:30:00.000Z",
      reference: {
        bookingReference: "BKFGEOEIKMQZYK4POB5HFF",
        partnerReference: "PR-2027-0001",
        hotelConfirmationNumber: "VPICM5RK",
      },
      bookPrice: { currency: "USD", amount: 291.14 },
      cancelPrice: { currency: "USD", amount: 0 },
      rooms: [2],
      booking: PARTIAL_CANCEL_EXAMPLE,
    },
  });

export const cancelResponseSchema = envelopeSchema(cancelResultSchema).openapi("CancelResponse");

/** POST /api/bookings/{bookingReference}/commit: the connection, as every booking write names it. */
export const commitRequestSchema = z
  .object({ settings: settingsSchema })
  .openapi("CommitRequest", { example: { settings: { access: { code: 1001 } } } });

const STAY_CHANGE_EXAMPLE = {
  settings: { access: { code: 1001 } },
  change: {
    checkOut: "2027-03-13",
    holder: { name: "Ada", surName: "Byron" },
    rooms: [{ occupancyRefId: 1, roomCode: "DLX", boardCode: "BB" }],
  },
};

/** POST /api/bookings/{bookingReference}/modifications/preview: what to change (every field optional). */
export const modificationPreviewRequestSchema = z
  .object({
    settings: settingsSchema,
    change: z
      .object({
        checkIn: isoDate.optional(),
        checkOut: isoDate.optional(),
        occupancies: z
          .array(
            z.object({
              occupancyId: z.number().int().min(1).optional(),
              paxes: z.array(bookPax).min(1).max(MAX_PAXES_PER_ROOM),
            }),
          )
          .min(1)
          .max(MAX_ROOMS)
          .optional()
          .openapi({
            description:
              "The rooms and their guests after the change (every room); occupancyId defaults to the position, from 1",
          }),
        holder: holderSchema.optional(),
        rooms: z
          .array(
            z.object({
              occupancyRefId: z.number().int().min(1),
              roomCode: z.string().min(1).max(20).optional(),
              boardCode: z.string().min(1).max(10).optional(),
            }),
          )
          .min(1)
          .max(MAX_ROOMS)
          .optional()
          .openapi({ description: "Another room type or board for some rooms (by occupancyRefId after the change)" }),
      })
      .openapi({ description: "What changes; what is left out stays as booked" }),
  })
  .openapi("ModificationPreviewRequest", { example: STAY_CHANGE_EXAMPLE });

/** POST /api/bookings/{bookingReference}/modifications: the preview to commit. */
export const modificationRequestSchema = z
  .object({ settings: settingsSchema, previewId: z.string().min(1).max(100) })
  .openapi("ModificationRequest", {
    example: { settings: { access: { code: 1001 } }, previewId: "MPQ3V7K2M9XW4T8RJ5N6Y" },
  });

const MODIFIED_BOOKING_EXAMPLE = {
  ...BOOKING_EXAMPLE,
  checkOut: "2027-03-13",
  holder: { name: "Ada", surName: "Byron" },
  modifiedAt: "2027-02-02T08:05:00.000Z",
  version: 2,
};

const modificationAmounts = {
  priceDifference: money.openapi({
    description:
      "New selling total minus the booked one: positive is charged, negative refunded (PayAtProperty: the change of what the hotel collects; nothing is charged by us)",
  }),
  modificationFee: money.openapi({
    description:
      "Charged on top of priceDifference inside a penalty window, so that a change never makes cancelling cheaper: the part of penaltyDue the changed booking would no longer cost to cancel, or for a change that lowers the price the refund kept up to penaltyDue, whichever is larger; 0 while cancelling is free (docs/api-decisions.md, issue 37)",
  }),
  penaltyDue: money.openapi({
    description:
      "What cancelling the booking cost at the moment priced, before the change (a non-refundable booking: its whole selling total). modificationFee plus what cancelling the changed booking costs is never less",
  }),
};

export const modificationPreviewSchema = z
  .object({
    previewId: z.string(),
    expiresAt: timestamp.openapi({ description: "15 minutes after the preview; commit it before" }),
    ...modificationAmounts,
    booking: bookingViewSchema.openapi({
      description: "The booking as the change makes it (version and modifiedAt as after a commit)",
    }),
  })
  .openapi("ModificationPreview", {
    example: {
      previewId: "MPQ3V7K2M9XW4T8RJ5N6Y",
      expiresAt: "2027-02-02T08:15:00.000Z",
      priceDifference: { currency: "USD", amount: 145.57 },
      modificationFee: { currency: "USD", amount: 0 },
      penaltyDue: { currency: "USD", amount: 0 },
      booking: MODIFIED_BOOKING_EXAMPLE,
    },
  });

export const modificationResultSchema = z
  .object({
    previewId: z.string(),
    modifiedAt: timestamp,
    ...modificationAmounts,
    booking: bookingViewSchema,
  })
  .openapi("ModificationResult", {
    example: {
      previewId: "MPQ3V7K2M9XW4T8RJ5N6Y",
      modifiedAt: "2027-02-02T08:05:00.000Z",
      priceDifference: { currency: "USD", amount: 145.57 },
      modificationFee: { currency: "USD", amount: 0 },
      penaltyDue: { currency: "USD", amount: 0 },
      booking: MODIFIED_BOOKING_EXAMPLE,
    },
  });

export const modificationPreviewResponseSchema =
  envelopeSchema(modificationPreviewSchema).openapi("ModificationPreviewResponse");
export const modificationResponseSchema = envelopeSchema(modificationResultSchema).openapi("ModificationResponse");
export type StayChange = z.infer<typeof modificationPreviewRequestSchema>["change"];

/** A booking event's `data` (bookingEvent in booking-events.ts builds it): the booking after the change. */
export const bookingChangeSchema = z
  .object({
    bookingReference: z.string(),
    partnerReference: z.string(),
    status: z.enum(BOOKING_STATUSES),
    chargeTotal: z.number(),
    currency: z.string(),
    accommodationCode: z.string(),
    checkIn: isoDate,
    checkOut: isoDate,
    rate: rateSchema,
    cancelPrice: z.number().optional().openapi({ description: "booking.cancelled: what cancelling cost" }),
  })
  .openapi("BookingChange");
const CHANGE_EXAMPLE: z.input<typeof bookingChangeSchema> = {
  bookingReference: BOOKING_EXAMPLE.bookingReference,
  partnerReference: BOOKING_EXAMPLE.partnerReference,
  status: "success",
  chargeTotal: RATE_EXAMPLE.chargeTotal,
  currency: "USD",
  accommodationCode: BOOKING_EXAMPLE.accommodation.code,
  checkIn: BOOKING_EXAMPLE.checkIn,
  checkOut: BOOKING_EXAMPLE.checkOut,
  rate: RATE_EXAMPLE,
};
/** The data of a booking event, as `status` leaves the booking (`extra`: amounts the example shows otherwise). */
export const bookingChange = (status: BookingStatus, extra: Partial<z.input<typeof bookingChangeSchema>> = {}) => ({
  payload: bookingChangeSchema,
  example: { ...CHANGE_EXAMPLE, status, ...extra },
});
/** booking.room_cancelled's `data` (cancel.ts adds what was cancelled). */
export const roomsCancelled = {
  payload: bookingChangeSchema.extend({
    rooms: z.array(z.number()).openapi({ description: "The occupancyRefIds cancelled" }),
    roomsCancelPrice: z.number(),
  }),
  example: { ...CHANGE_EXAMPLE, rooms: [2], roomsCancelPrice: 0 },
};
const changedFields = z.record(z.string(), z.unknown());
/** booking.modified's `data` (modification.ts adds the change and its amounts). */
export const bookingModified = {
  payload: bookingChangeSchema.extend({
    before: changedFields.openapi({ description: "The fields the change altered, as they were" }),
    after: changedFields,
    ...modificationAmounts,
  }),
  // A holder's name changed: nothing else moves.
  example: {
    ...CHANGE_EXAMPLE,
    before: { holder: BOOKING_EXAMPLE.holder },
    after: { holder: MODIFIED_BOOKING_EXAMPLE.holder },
    priceDifference: { currency: "USD", amount: 0 },
    modificationFee: { currency: "USD", amount: 0 },
    penaltyDue: { currency: "USD", amount: 0 },
  },
};

/** The sandbox's scenario header of the quote and book routes (booking's and the Hotel-X face's). */
export const sandboxHeader = z.object({
  "test-scenario": z.string().optional().openapi({
    description: "Sandbox only (SANDBOX_SCENARIOS=on): price_changed, room_unavailable, booking_failed",
    example: "price_changed",
  }),
});

/** The idempotency header of the writing routes (booking's and the Hotel-X face's). */
export const idempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .optional()
    .openapi({ description: "Replays the stored response for a retried request", example: "book-PARTNER-REF-1001" }),
});

/** What a search answers beside the platform's errors, in the contract's shape or Hotel-X's. */
export const searchErrors = [
  "no_connection",
  "malformed_connection_code",
  "unknown_connection",
  "connection_access_denied",
  "invalid_dates",
  "invalid_occupancy",
  "invalid_timeout",
  "rate_limit_exceeded",
  "unsupported_currency",
] as const;
