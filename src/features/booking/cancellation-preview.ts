import type { Db } from "../../platform/db/client";
import { isoDatetime, timestamp } from "../../platform/http/fields";
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../platform/http/api-error";
import { envelopeSchema } from "../../platform/http/envelope";
import { bookedRate } from "./booked-rate";
import { amountJson, rateJson } from "./wire";
import { partnerBooking } from "./bookings";
import { bookingExample, rateSchema } from "./schemas";
import { cancelPenaltyAt, isOnOrAfterCheckIn, roomsCancellation } from "./cancel";
import { MAX_ROOMS } from "./schemas";

export const cancellationPreviewQuerySchema = z.object({
  at: isoDatetime.optional().openapi({
    description: "The moment to price the cancellation at; default now",
    example: "2027-03-01T12:00:00Z",
  }),
  rooms: z
    .string()
    .regex(/^\d{1,3}(,\d{1,3})*$/, "expected occupancyRefIds separated by commas, e.g. 1,2")
    .transform((list) => list.split(",").map(Number))
    .refine((ids) => ids.length <= MAX_ROOMS, `at most ${MAX_ROOMS} rooms`)
    .refine((ids) => new Set(ids).size === ids.length, "each room at most once")
    .optional()
    .openapi({
      type: "string",
      description:
        "Price cancelling only these rooms (occupancyRefIds, as POST /api/cancel's input.rooms); default every room still booked",
      example: "2",
    }),
});

export const cancellationPreviewSchema = z
  .object({
    cancelPrice: z.number().openapi({
      description:
        "What cancelling at `at` costs, computed on what was charged (chargeTotal, never what is due at the property); the whole charge of the rooms when the booking could not be cancelled then; 0 for a hold. For some rooms: their share of the booking's penalty (docs/api-decisions.md, issue 28)",
    }),
    currency: z.string(),
    refundable: z.boolean().openapi({ description: "Whether the booked rate is refundable at all" }),
    deadline: timestamp.nullable().openapi({
      description: "End of free cancellation: the earliest penalty deadline (null when no penalty applies)",
    }),
    cancellable: z.boolean().openapi({ description: "Whether POST /api/cancel would accept the booking at `at`" }),
    at: timestamp.openapi({ description: "The moment priced (UTC)" }),
    rate: rateSchema.openapi({ description: "The booking's rate as it is now" }),
    rooms: z.array(z.number()).openapi({ description: "The rooms priced (occupancyRefIds)", example: [2] }),
    remainingRate: z.union([rateSchema, z.null()]).openapi({
      description:
        "The booking's rate after cancelling these rooms: the sum of the rooms left, exact to the cent; null when every room goes",
    }),
  })
  .openapi("CancellationPreview", {
    example: {
      cancelPrice: 0,
      currency: "USD",
      refundable: true,
      deadline: "2027-03-08T00:00:00.000Z",
      cancellable: true,
      at: "2027-03-01T12:00:00.000Z",
      rate: bookingExample.rate,
      rooms: [1],
      remainingRate: null,
    },
  });

export const cancellationPreviewResponseSchema =
  envelopeSchema(cancellationPreviewSchema).openapi("CancellationPreviewResponse");

/**
 * What cancelling (the booking, or `rooms` of it) would cost at `at`, without cancelling: the same
 * policy, penalty function (cancelPenaltyAt), sharing over rooms (roomsCancellation) and check-in
 * rule as cancelBooking, so the preview is what a cancel then charges, to the cent.
 */
export const previewCancellation = async (
  db: Db,
  partnerId: string,
  bookingReference: string,
  at: number,
  rooms?: number[],
) => {
  const booking = await partnerBooking(db, partnerId, bookingReference);
  if (booking.status === "pending")
    throw new ApiError("booking_pending", "Booking is pending: the supplier has not confirmed it yet");
  if (booking.status !== "success" && booking.status !== "held")
    throw new ApiError("booking_already_cancelled", `Booking is already ${booking.status}`);
  const held = booking.status === "held";
  const policy = booking.cancelPolicy;
  if (!policy && !held) throw new ApiError("cancel_policy_not_found", "Cancellation policy not found for this booking");
  // A hold is released free at any moment; a booking by its policy before check-in.
  const cancellable = held || (policy!.refundable && !isOnOrAfterCheckIn(booking, at));
  const plan = roomsCancellation(booking, rooms, "rooms", held || !cancellable ? null : cancelPenaltyAt(policy!, at));
  const deadlines = (policy?.cancelPenalties ?? []).map((p) => Date.parse(p.deadline)).filter((t) => !Number.isNaN(t));
  return {
    // Rooms that cannot be cancelled refund nothing: they cost what they were charged.
    cancelPrice: amountJson(cancellable ? plan.cancelPrice : plan.bookPrice, booking.currency),
    currency: booking.currency,
    refundable: policy?.refundable ?? true,
    deadline: deadlines.length ? new Date(Math.min(...deadlines)).toISOString() : null,
    cancellable,
    at: new Date(at).toISOString(),
    // The booked breakdown, as the search, quote, book answer and booking read showed it.
    rate: rateJson(bookedRate(booking)),
    rooms: plan.rooms,
    remainingRate: plan.remaining ? rateJson(plan.remaining.rate) : null,
  };
};
