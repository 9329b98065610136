import { z } from "@hono/zod-openapi";
import { timestamp } from "../../platform/http/fields";
import { CHAT_STATUSES, EVENT_KINDS } from "./conversation";
import { BOOKING_STATUS_WORDS, type BookingStatus } from "./booking-status";
import { IDEMPOTENCY_KEY_PATTERN } from "../../platform/idempotency/idempotency";
import type { ErrorShape } from "../../platform/http/envelope";
import { MAX_OPTION_ID_LENGTH } from "../booking";
import { PAYMENT_TYPES } from "../supply";

const SESSION_ID = /^cs_[A-Za-z0-9_-]{32}$/;
const label = z.string().max(200);

export const actorSchema = z.object({
  actorId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .openapi({ description: "Stable id of the end user in the partner's system", example: "user-42" }),
  timezoneOffsetMinutes: z.number().int().min(-840).max(840).optional().openapi({
    description: "Minutes east of UTC (New York in winter: -300); dates like 'next Friday' are read in it",
    example: -300,
  }),
});

export const createSessionSchema = z
  .object({
    actor: actorSchema,
    channel: z.object({ workspaceId: label.optional() }).optional(),
    conversation: z
      .object({ id: label.optional(), channelId: label.optional(), threadTs: label.optional() })
      .optional(),
  })
  .openapi("ChatCreateSession", { example: { actor: { actorId: "user-42", timezoneOffsetMinutes: -300 } } });

export const sessionIdSchema = z.string().regex(SESSION_ID, "expected a session id from POST /sessions");

export const eventRequestSchema = z
  .object({
    sessionId: sessionIdSchema,
    actor: z.object({ actorId: z.string().trim().min(1).max(200) }).optional(),
    text: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .optional()
      .openapi({ description: "The traveller's message (natural-language flow)" }),
    kind: z
      .enum(EVENT_KINDS)
      .optional()
      .openapi({ description: "search_query (default with text) or an explicit action kind" }),
    payload: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "Per kind: see docs/api-decisions.md" }),
    idempotencyKey: z.string().regex(IDEMPOTENCY_KEY_PATTERN, "expected 1 to 255 visible ASCII characters").optional(),
  })
  .openapi("ChatEventRequest", {
    example: {
      sessionId: "cs_9rQs8J1JxUs8lks0BCBpifIHEKSW9GUf",
      actor: { actorId: "user-42" },
      text: "a hotel in New York for 2 adults from 2027-03-10 to 2027-03-12",
    },
  });

const guest = z.object({ firstName: z.string().trim().min(1).max(100), lastName: z.string().trim().min(1).max(100) });

const optionId = z.string().min(1).max(MAX_OPTION_ID_LENGTH);

/**
 * Payload per explicit kind (documented in docs/api-decisions.md). Every key of a payload is part
 * of the action, so one the kind does not take (a `guest` on action_book_option) is refused.
 */
export const payloadSchemas = {
  command_book_by_option_id: z.object({ optionId, guest: guest.optional() }).strict(),
  action_book_option: z.object({ optionId }).strict(),
  action_confirm_price_change: z.object({ accept: z.boolean() }).strict(),
  action_confirm_payment_card: z.object({ paymentMethodId: z.string().min(1).max(200) }).strict(),
  action_cancel_booking: z.object({ bookingId: z.string().min(1).max(100) }).strict(),
} as const;

const shortlistEntry = z.object({
  optionId: z.string(),
  name: z.string(),
  pricePerNight: z.number().openapi({ description: "The all-in price per night" }),
  totalPrice: z.number().openapi({
    description: "The all-in price (rate.totalStayPrice): charged at booking plus what is due at the hotel",
  }),
  chargedAtBooking: z.number().openapi({ description: "What is charged at booking (rate.chargeTotal)" }),
  dueAtHotel: z
    .object({ amount: z.number(), currency: z.string() })
    .openapi({ description: "What the hotel collects from the guest (rate.dueAtProperty), in its currency" }),
  paymentType: z.enum(PAYMENT_TYPES).openapi({
    description:
      "MerchantPay: chargedAtBooking is charged to the saved card at booking. PayAtProperty: nothing is charged at booking (chargedAtBooking 0), the whole stay is dueAtHotel and the saved card is the hotel's guarantee",
  }),
  currency: z.string(),
  refundable: z.boolean(),
  rating: z.number(),
  distanceTo: z.string().optional(),
  detailsUrl: z.string(),
});

const sessionShape = {
  sessionId: z.string(),
  tenantId: z.string(),
  channel: z.object({ type: z.literal("partner_api"), workspaceId: z.string().optional() }),
  conversation: z.object({
    id: z.string().optional(),
    channelId: z.string().optional(),
    threadTs: z.string().optional(),
  }),
  actor: z.object({ actorId: z.string(), timezoneOffsetMinutes: z.number() }),
  createdAt: timestamp,
  updatedAt: timestamp,
};

const historyEntry = z.object({
  eventId: z.string(),
  kind: z.string(),
  resultStatus: z.enum(CHAT_STATUSES),
  recordedAt: timestamp,
});

const SESSION_EXAMPLE = {
  sessionId: "cs_9rQs8J1JxUs8lks0BCBpifIHEKSW9GUf",
  tenantId: "demo",
  channel: { type: "partner_api" as const },
  conversation: {},
  actor: { actorId: "user-42", timezoneOffsetMinutes: -300 },
  createdAt: "2026-11-24T14:59:01.505Z",
  updatedAt: "2026-11-24T14:59:01.505Z",
};

export const sessionResponseSchema = z
  .object({ data: z.object({ ...sessionShape, events: z.array(historyEntry) }) })
  .openapi("ChatSession", { example: { data: { ...SESSION_EXAMPLE, events: [] } } });
export const sessionReadSchema = z
  .object({
    data: z.object({
      ...sessionShape,
      status: z
        .enum(["new", ...CHAT_STATUSES])
        .openapi({ description: "Status of the last result (new before any event)" }),
      events: z.array(historyEntry),
    }),
  })
  .openapi("ChatSessionWithHistory", {
    example: {
      data: {
        ...SESSION_EXAMPLE,
        updatedAt: "2026-11-24T14:59:01.529Z",
        status: "shortlist",
        events: [
          {
            eventId: "ev_3e10bdf5-77ff-4766-aa73-94041d7b2ebd",
            kind: "search_query",
            resultStatus: "shortlist",
            recordedAt: "2026-11-24T14:59:01.529Z",
          },
        ],
      },
    },
  });

const amount = z.object({ amount: z.number(), currency: z.string() });
const BOOKING_STATUSES = Object.keys(BOOKING_STATUS_WORDS) as [BookingStatus, ...BookingStatus[]];

// What each result status hands over beside its text (conversation.ts builds them).
const paymentArtifact = z
  .union([
    z.object({ setupUrl: z.string().openapi({ description: "The one-time card-setup page, good for 30 minutes" }) }),
    z.object({
      paymentMethodId: z.string(),
      cardBrand: z.string(),
      cardLast4: z.string(),
      expMonth: z.number().int(),
      expYear: z.number().int(),
    }),
  ])
  .openapi({
    description:
      "payment_setup_required: setupUrl; payment_confirmation_required: the saved card that would pay (never a card number)",
  });
const bookingArtifact = z
  .object({
    bookingId: z.string(),
    confirmationBookingId: z.string(),
    hotelName: z.string(),
    totalPrice: z.number().openapi({ description: "What was charged at booking (chargeTotal)" }),
    currency: z.string(),
    paymentType: z.enum(PAYMENT_TYPES),
    totalStayPrice: z.number().openapi({ description: "The all-in price (rate.totalStayPrice)" }),
    dueAtHotel: amount.openapi({ description: "What the hotel collects (rate.dueAtProperty), in its currency" }),
    confirmationUrl: z.string(),
    cancelPolicy: z.string(),
    status: z.enum(BOOKING_STATUSES),
  })
  .openapi({ description: "booked (or error for a failed booking): the booking made" });
const priceChangeArtifact = z
  .object({ previousTotal: z.number(), currentTotal: z.number(), currency: z.string() })
  .openapi({ description: "price_change_confirmation_required: the price shown and today's" });
const cancellationArtifact = z
  .object({ bookingId: z.string(), status: z.literal("cancelled"), cancelledAt: timestamp, cancelPrice: amount })
  .openapi({ description: "cancelled: the cancellation and its fee" });
const cancelPreviewArtifact = z
  .object({
    bookingId: z.string(),
    cancellable: z.boolean().openapi({ description: "Whether the booking can be cancelled now at all" }),
    cancelPrice: amount.openapi({ description: "What cancelling now costs (GET /api/bookings/{ref}/cancellation)" }),
    deadline: timestamp.nullable().openapi({ description: "End of free cancellation (null: no penalty applies)" }),
    expiresAt: timestamp.optional().openapi({
      description: "cancel_confirmation_required: a yes after this cancels nothing (10 minutes after the question)",
    }),
  })
  .openapi({
    description:
      "cancel_confirmation_required (a cancellation asked for in text, waiting for a yes) or needs_input (a question about cancelling): what cancelling costs now",
  });
const errorArtifact = z
  .object({ code: z.string(), message: z.string() })
  .openapi({ description: "error: the API error behind it (code and message as the API answers them)" });

export const eventResponseSchema = z
  .object({
    data: z.object({
      sessionId: z.string(),
      event: z.object({ id: z.string(), kind: z.string() }),
      result: z.object({
        traceId: z.string(),
        status: z.enum(CHAT_STATUSES).openapi({
          description:
            "shortlist, guest_name_required, payment_setup_required, payment_confirmation_required, booked, error; also needs_input, price_change_confirmation_required, cancelled, cancel_confirmation_required",
        }),
        message: z.object({ text: z.string() }),
        artifacts: z.object({
          shortlist: z.array(shortlistEntry).optional(),
          payment: paymentArtifact.optional(),
          booking: bookingArtifact.optional(),
          priceChange: priceChangeArtifact.optional(),
          cancellation: cancellationArtifact.optional(),
          cancelPreview: cancelPreviewArtifact.optional(),
          error: errorArtifact.optional(),
          warnings: z.array(z.record(z.string(), z.unknown())).optional().openapi({
            description:
              "What the search could not show, as POST /api/search's data.warnings (a supplier that did not answer; currency_not_convertible: a supplier's hotels priced in a currency the operator has no exchange rate for); the message says it in plain words",
          }),
        }),
      }),
    }),
  })
  .openapi("ChatEventResponse", {
    example: {
      data: {
        sessionId: "cs_9rQs8J1JxUs8lks0BCBpifIHEKSW9GUf",
        event: { id: "ev_3e10bdf5-77ff-4766-aa73-94041d7b2ebd", kind: "search_query" },
        result: {
          traceId: "c7fddbb7-0d69-4b7a-a438-e2e444117867",
          status: "shortlist",
          message: {
            text: "Here is 1 option in New York for 2027-03-10 to 2027-03-12 (2 nights, 2 adults):\n1. Harborview New York Motel (1 star): $80.10 per night, $160.20 in total, non-refundable, 4.1 km from the centre of New York\nWhich one would you like to book?",
          },
          artifacts: {
            shortlist: [
              {
                optionId:
                  "WzMsImRlbW8iLCIyMDI3LTAzLTEwIiwiMjAyNy0wMy0xMiJd.dsZpj7AE69bB1gmzZkN15IUpSyFCW8_n401HG7MVFUE~US001041~TWN~TWN-RO-NRF~160.2",
                name: "Harborview New York Motel",
                pricePerNight: 80.1,
                totalPrice: 160.2,
                chargedAtBooking: 160.2,
                dueAtHotel: { amount: 0, currency: "USD" },
                paymentType: "MerchantPay",
                currency: "USD",
                refundable: false,
                rating: 1,
                distanceTo: "4.1 km from the centre of New York",
                detailsUrl: "https://api.edgestay.example/chat/accommodations/US001041",
              },
            ],
          },
        },
      },
    },
  });

export const chatErrorSchema = z
  .object({
    success: z.literal(false),
    error: z.string(),
    code: z.string(),
    details: z.record(z.string(), z.unknown()).nullable(),
    requestId: z.string(),
  })
  .openapi("ChatError");

/** Chat's error body (docs/api-decisions.md: why chat has its own), narrowed per operation like the core's. */
export const chatErrorShape: ErrorShape = {
  schema: (codes) => chatErrorSchema.extend({ code: z.enum(codes) }),
  example: (code, error) => ({
    success: false,
    error,
    code,
    details: null,
    requestId: "9b2f4c1e-5d3a-4e8b-a1c7-0f6d2e9b8a45",
  }),
};
