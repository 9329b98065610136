import type { Db } from "../../platform/db/client";
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../platform/http/api-error";
import { envelopeSchema } from "../../platform/http/envelope";
import { isIsoDatetime } from "../../platform/http/iso-time";
import { bookedRate } from "./booked-rate";
import { partnerBooking } from "./bookings";
import { bookingExample, rateSchema } from "./schemas";
import { cancelPenaltyAt, isOnOrAfterCheckIn, parsePolicy } from "./cancel";

export const cancellationPreviewQuerySchema = z.object({
  at: z
    .string()
    .refine(isIsoDatetime, "expected an ISO 8601 datetime with a zone")
    .optional()
    .openapi({ description: "The moment to price the cancellation at; default now", example: "2027-03-01T12:00:00Z" }),
});

export const cancellationPreviewSchema = z
  .object({
    cancelPrice: z.number().openapi({
      description:
        "What cancelling at `at` costs, computed on what was charged (chargeTotal, never what is due at the property); the whole charge when the booking could not be cancelled then",
    }),
    currency: z.string(),
    refundable: z.boolean().openapi({ description: "Whether the booked rate is refundable at all" }),
    deadline: z.string().nullable().openapi({
      description: "End of free cancellation: the earliest penalty deadline (null when no penalty applies)",
    }),
    cancellable: z.boolean().openapi({ description: "Whether POST /api/cancel would accept the booking at `at`" }),
    at: z.string().openapi({ description: "The moment priced (UTC)" }),
    rate: rateSchema,
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
    },
  });

export const cancellationPreviewResponseSchema =
  envelopeSchema(cancellationPreviewSchema).openapi("CancellationPreviewResponse");

/**
 * What cancelling would cost at `at`, without cancelling: the same policy, penalty function
 * (cancelPenaltyAt) and check-in rule as cancelBooking, so the preview is what a cancel then charges.
 */
export const previewCancellation = async (db: Db, partnerId: string, bookingReference: string, at: number) => {
  const booking = await partnerBooking(db, partnerId, bookingReference);
  if (booking.status === "pending")
    throw new ApiError("booking_pending", "Booking is pending: the supplier has not confirmed it yet");
  if (booking.status !== "success")
    throw new ApiError("booking_already_cancelled", `Booking is already ${booking.status}`);
  const policy = parsePolicy(booking.cancelPolicy);
  if (!policy) throw new ApiError("cancel_policy_not_found", "Cancellation policy not found for this booking");
  const cancellable = policy.refundable && !isOnOrAfterCheckIn(booking, at);
  const deadlines = policy.cancelPenalties.map((p) => Date.parse(p.deadline)).filter((t) => !Number.isNaN(t));
  return {
    // A booking that cannot be cancelled refunds nothing: it costs the whole charge.
    cancelPrice: cancellable ? cancelPenaltyAt(policy, at) : booking.chargeTotal,
    currency: booking.currency,
    refundable: policy.refundable,
    deadline: deadlines.length ? new Date(Math.min(...deadlines)).toISOString() : null,
    cancellable,
    at: new Date(at).toISOString(),
    // The booked breakdown, as the search, quote, book answer and booking read showed it.
    rate: bookedRate(booking),
  };
};
