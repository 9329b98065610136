import { z } from "@hono/zod-openapi";
import { apiRoute } from "../../platform/http/api-route";
import type { Context } from "hono";
import { apiKeySecurity } from "../../platform/auth/api-key";
import { requireAdmin } from "../../platform/auth/bearer";
import { apiKeyOrBearer, apiKeyOrBearerSecurity, byLoginToken } from "../../platform/auth/partner-credential";
import { replicaReadsAllowed } from "../../platform/db/replica-reads";
import { ApiError } from "../../platform/http/api-error";
import { rateLimitHeaders, success } from "../../platform/http/envelope";
import { idempotencyErrors, replayHeaders, withIdempotency } from "../../platform/idempotency/idempotency";
import { cardDataGuardErrors, noRawCardData } from "../../platform/card-data/card-data";
import { featureRouter } from "../../platform/http/router";
import { bookOnce, bookOrderOf } from "./book";
import { bookingListResponseSchema, bookingsQuerySchema, listBookings } from "./booking-list";
import { partnerBooking, readBooking, readBookingByPartnerReference } from "./bookings";
import { cancelBooking } from "./cancel";
import {
  cancellationPreviewQuerySchema,
  cancellationPreviewResponseSchema,
  previewCancellation,
} from "./cancellation-preview";
import { coreAccess, coreAccessOrBearer, coreConnection, readAccessById, searchConnection } from "../connections";
import { sandboxScenario } from "./deps";
import { admit, billed, type BookingEnv, connectionOf, metered, supplierTimedOut } from "./metering";
import { quoteOption, quoteQueryOf } from "./quote";
import { commitOnce } from "./hold";
import { commitModificationOnce, previewModification } from "./modification";
import {
  bookExamples,
  bookingResponseSchema,
  bookRequestSchema,
  cancelExamples,
  commitRequestSchema,
  idempotencyHeader,
  modificationPreviewRequestSchema,
  modificationPreviewResponseSchema,
  modificationRequestSchema,
  modificationResponseSchema,
  bookResponseSchema,
  cancelRequestSchema,
  cancelResponseSchema,
  quoteRequestSchema,
  quoteResponseSchema,
  sandboxHeader,
  searchErrors,
  searchRequestSchema,
  searchResponseSchema,
} from "./schemas";
import { optionTermsOf, searchAvailability, searchQueryOf } from "./search";
import { supplierFailureCodes, supplyOptionsOf } from "../supply";

const json = <T extends z.ZodType>(schema: T, examples?: Record<string, { summary: string; value: unknown }>) => ({
  content: { "application/json": { schema, ...(examples ? { examples } : {}) } },
});
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, ...json(schema) } });

/** The bookingReference of a POST /api/book answer (or of GET /api/bookings). */
const bookingReferenceParams = z.object({
  bookingReference: z.string().min(1).max(100).openapi({ example: "BKFGEOEIKMQZYK4POB5HFF" }),
});

/**
 * The connection a call about one booking goes through: with the API key, the one the body names;
 * with a login token (the console), the booking's own, judged as the API key's would be. `act`:
 * the call changes the booking, which a token may do only for a partner admin.
 */
const bookingConnectionOf = async (c: Context<BookingEnv>, bookingReference: string, act: boolean) => {
  const caller = c.get("caller");
  if (!byLoginToken(caller)) return connectionOf(c, coreConnection);
  if (act) requireAdmin(c.get("user"));
  const booking = await partnerBooking(c.get("db"), caller.partnerId, bookingReference);
  const connection = coreConnection(await readAccessById(c.get("db"), booking.connectionId), caller.partnerId);
  c.set("billing", { connection });
  return connection;
};

const search = apiRoute({
  operationId: "searchAvailability",
  method: "post",
  path: "/api/search",
  tags: ["Booking"],
  summary: "Search availability and priced options (rate limited per connection)",
  description: "Step 1 of 4. Each options[].id is the quoteCriteria.optionId of POST /api/quote.",
  security: apiKeySecurity,
  middleware: [metered("search"), replicaReadsAllowed, coreAccess()] as const,
  request: body(searchRequestSchema),
  // settings.suppliers naming a supplier the connection does not sell (issue 39).
  errors: [...searchErrors, "unknown_supplier"],
  responses: {
    200: { description: "Options per accommodation", headers: rateLimitHeaders, ...json(searchResponseSchema) },
  },
});

const quote = apiRoute({
  operationId: "createQuote",
  method: "post",
  path: "/api/quote",
  tags: ["Booking"],
  summary: "Re-check one option and keep it as a quote for 30 minutes (rate limited)",
  description:
    "Step 2 of 4. quoteCriteria.optionId: an options[].id from search. The answer's data.id is the bookCriteria.quoteId of POST /api/book.",
  security: apiKeySecurity,
  middleware: [metered("quote"), coreAccess()] as const,
  request: { headers: sandboxHeader, ...body(quoteRequestSchema) },
  errors: [
    "invalid_connection_code",
    "rate_limit_exceeded",
    "invalid_timeout",
    "option_expired_or_invalid",
    "option_invalid",
    "accommodation_mismatch",
    "stay_dates_mismatch",
    "occupancy_mismatch",
    "currency_mismatch",
    "payment_type_mismatch",
    "unsupported_currency",
    "room_unavailable",
    "price_changed",
    "currency_not_convertible",
    ...supplierFailureCodes,
  ],
  responses: {
    200: { description: "The quote", headers: rateLimitHeaders, ...json(quoteResponseSchema) },
  },
});

const book = apiRoute({
  operationId: "createBooking",
  method: "post",
  path: "/api/book",
  tags: ["Booking"],
  summary: "Book a quote, or hold it (bookCriteria.hold; 403 booking_not_allowed on a metasearch connection)",
  description:
    "Step 3 of 4. bookCriteria.quoteId: data.id of POST /api/quote. The answer's bookingReference is what read, cancel, commit and modifications take.",
  security: apiKeySecurity,
  // Holder, pax names, partnerReference, remarks: free text a card number must never be stored through.
  middleware: [metered("book"), noRawCardData(), coreAccess()] as const,
  request: {
    headers: sandboxHeader.merge(idempotencyHeader),
    body: { required: true, ...json(bookRequestSchema, bookExamples.request) },
  },
  errors: [
    ...cardDataGuardErrors,
    ...idempotencyErrors,
    "invalid_connection_code",
    "invalid_timeout",
    "quote_expired_or_invalid",
    "occupancy_not_found",
    "occupancy_mismatch",
    "accommodation_mismatch",
    "stay_dates_mismatch",
    "currency_mismatch",
    "payment_type_mismatch",
    "missing_rate_snapshot",
    "missing_supplier_metadata",
    "accommodation_not_found",
    "booking_failed",
    "booking_not_allowed",
    "partner_reference_conflict",
    "payment_card_required",
    "payment_card_not_found",
    "card_expired",
    "hold_not_supported",
    "hold_limit_reached",
    "hold_share_exceeded",
    "hold_too_far_ahead",
  ],
  responses: {
    200: { description: "The booking, or the hold (status held)", ...json(bookResponseSchema, bookExamples.response) },
    202: {
      description:
        "Pending: the supplier's answer did not arrive in time; GET /api/bookings/{bookingReference} shows when it settles",
      ...json(bookResponseSchema, bookExamples.pending),
    },
  },
});

const commit = apiRoute({
  operationId: "commitBooking",
  method: "post",
  path: "/api/bookings/{bookingReference}/commit",
  tags: ["Booking"],
  summary: "Commit a hold (bookCriteria.hold): success at the held price",
  description:
    "bookingReference: of a hold (POST /api/book, bookCriteria.hold). Charged exactly its held rate. Retry-safe: an Idempotency-Key replays the answer; committing a committed hold answers it again.",
  security: apiKeySecurity,
  middleware: [coreAccess()] as const,
  request: {
    headers: idempotencyHeader,
    params: bookingReferenceParams,
    ...body(commitRequestSchema),
  },
  errors: [
    ...idempotencyErrors,
    ...supplierFailureCodes,
    "invalid_connection_code",
    "invalid_timeout",
    "booking_not_found",
    "booking_not_held",
    "hold_expired",
    "booking_changed",
  ],
  responses: {
    200: { description: "The booking, committed", ...json(bookResponseSchema) },
  },
});

const modificationPreview = apiRoute({
  operationId: "previewBookingModification",
  method: "post",
  path: "/api/bookings/{bookingReference}/modifications/preview",
  tags: ["Booking"],
  summary:
    "Preview a change of a booking (dates, guests, holder, room types or boards): the booking after it and what it costs (rate limited)",
  description:
    "bookingReference: from POST /api/book. Prices the changed stay as a new search and quote would, and answers the booking as the change makes it, its amounts and a previewId good for 15 minutes. Nothing is changed.",
  security: apiKeyOrBearerSecurity,
  // A changed holder or pax names are free text: a card number is refused before anything keeps it.
  middleware: [noRawCardData(), coreAccessOrBearer()] as const,
  request: {
    params: bookingReferenceParams,
    ...body(modificationPreviewRequestSchema),
  },
  errors: [
    ...cardDataGuardErrors,
    "invalid_connection_code",
    "rate_limit_exceeded",
    "invalid_timeout",
    "booking_not_found",
    "booking_not_modifiable",
    "modification_not_supported",
    "invalid_dates",
    "invalid_occupancy",
    "room_unavailable",
    "rate_rule_not_met",
    "accommodation_not_found",
  ],
  responses: {
    200: {
      description: "The booking as the change would make it, and its amounts",
      headers: rateLimitHeaders,
      ...json(modificationPreviewResponseSchema),
    },
  },
});

const modification = apiRoute({
  operationId: "modifyBooking",
  method: "post",
  path: "/api/bookings/{bookingReference}/modifications",
  tags: ["Booking"],
  summary: "Commit a previewed change: exactly the previewed amounts, or 409 with the current figures",
  description:
    "previewId: from the preview. Commits it at its amounts to the cent, in one transaction; the booking gains modifiedAt and a new version. 409 modification_outdated (with the current figures) when anything moved since. Retry-safe as commit is.",
  security: apiKeySecurity,
  middleware: [noRawCardData(), coreAccess()] as const,
  request: {
    headers: idempotencyHeader,
    params: bookingReferenceParams,
    ...body(modificationRequestSchema),
  },
  errors: [
    ...cardDataGuardErrors,
    ...idempotencyErrors,
    "invalid_connection_code",
    "booking_not_found",
    "booking_not_modifiable",
    "modification_not_supported",
    "modification_outdated",
    "modification_preview_expired",
    "modification_preview_not_found",
  ],
  responses: {
    200: { description: "The booking, changed", ...json(modificationResponseSchema) },
  },
});

const cancel = apiRoute({
  operationId: "cancelBooking",
  method: "post",
  path: "/api/cancel",
  tags: ["Booking"],
  summary: "Cancel a booking, or some of its rooms (input.rooms); a hold is released free",
  description:
    "Step 4 of 4. input.reference.bookingReference: from POST /api/book. GET .../cancellation shows the cost first. With a partner admin's login token instead of the API key (the console), the booking's own connection is used and settings.access is not read.",
  security: apiKeyOrBearerSecurity,
  middleware: [metered("cancel"), coreAccessOrBearer()] as const,
  request: { headers: idempotencyHeader, body: { required: true, ...json(cancelRequestSchema, cancelExamples) } },
  errors: [
    ...idempotencyErrors,
    ...supplierFailureCodes,
    "invalid_connection_code",
    "invalid_timeout",
    "booking_not_found",
    "booking_not_owned",
    "booking_not_cancellable",
    "booking_pending",
    "after_check_in",
    "cancel_policy_not_found",
    "not_refundable",
    "currency_mismatch",
    "room_not_found",
    "room_already_cancelled",
    "partial_cancel_not_supported",
    "booking_changed",
    "admin_required",
  ],
  responses: {
    200: { description: "Cancelled", ...json(cancelResponseSchema) },
  },
});

const bookingByReference = apiRoute({
  operationId: "getBooking",
  method: "get",
  path: "/api/bookings/{bookingReference}",
  tags: ["Booking"],
  summary: "Read one of your bookings",
  description: "bookingReference: from POST /api/book or GET /api/bookings.",
  security: apiKeyOrBearerSecurity,
  middleware: [replicaReadsAllowed, apiKeyOrBearer()] as const,
  request: { params: bookingReferenceParams },
  errors: ["booking_not_found"],
  responses: { 200: { description: "The booking", ...json(bookingResponseSchema) } },
});

// One path, two reads: with partnerReference the one booking (as before), without it the reconciliation list.
const bookingByPartnerReference = apiRoute({
  operationId: "listBookings",
  method: "get",
  path: "/api/bookings",
  tags: ["Booking"],
  summary: "List your bookings newest first (reconciliation), or find one by your partnerReference",
  description: "For reconciliation; pass nextCursor as cursor to read on.",
  security: apiKeyOrBearerSecurity,
  middleware: [replicaReadsAllowed, apiKeyOrBearer()] as const,
  request: { query: bookingsQuerySchema },
  errors: ["booking_not_found", "invalid_cursor", "cursor_mismatch", "cursor_partner"],
  responses: {
    200: {
      description: "With partnerReference: the booking. Otherwise: one page of bookings",
      ...json(z.union([bookingResponseSchema, bookingListResponseSchema])),
    },
  },
});

const cancellationPreview = apiRoute({
  operationId: "previewCancellation",
  method: "get",
  path: "/api/bookings/{bookingReference}/cancellation",
  tags: ["Booking"],
  summary: "What cancelling (the booking, or ?rooms= of it) would cost at a moment (default now), without cancelling",
  description: "bookingReference: from POST /api/book; the figures POST /api/cancel uses.",
  security: apiKeyOrBearerSecurity,
  middleware: [replicaReadsAllowed, apiKeyOrBearer()] as const,
  request: {
    params: bookingReferenceParams,
    query: cancellationPreviewQuerySchema,
  },
  errors: [
    "booking_not_found",
    "booking_already_cancelled",
    "booking_pending",
    "cancel_policy_not_found",
    "room_not_found",
    "room_already_cancelled",
  ],
  responses: {
    200: { description: "The cancellation cost", ...json(cancellationPreviewResponseSchema) },
  },
});

export const bookingRoutes = featureRouter<BookingEnv>()
  .openapi(search, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = c.get("services").booking;
    const connection = connectionOf(c, searchConnection);
    // Counted first: a refused search does no supplier work at all.
    await admit(c, connection);
    const result = await searchAvailability(
      deps,
      connection,
      searchQueryOf(request),
      undefined,
      optionTermsOf(request),
    );
    billed(c, { supplierTimeout: supplierTimedOut(result.warnings) });
    return c.json(
      success({ ...result, requestId: c.get("requestId"), responseTime: Math.max(0, Date.now() - startedAt) }),
      200,
    );
  })
  .openapi(quote, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = c.get("services").booking;
    const connection = connectionOf(c, coreConnection);
    await admit(c, connection);
    const scenario = sandboxScenario(deps, c.req.header("test-scenario"));
    const result = await quoteOption(deps, connection, quoteQueryOf(request), {
      requestId: c.get("requestId"),
      startedAt,
      scenario,
    });
    return c.json(success(result), 200);
  })
  .openapi(book, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = c.get("services").booking;
    const connection = connectionOf(c, coreConnection);
    const scenario = sandboxScenario(deps, c.req.header("test-scenario"));
    const response = await bookOnce(
      deps,
      connection,
      bookOrderOf(request),
      { requestId: c.get("requestId"), startedAt, scenario },
      { key: c.req.header("idempotency-key"), request },
    );
    billed(c, { replayed: response.replayed });
    return c.json(response.body as z.infer<typeof bookResponseSchema>, response.status, replayHeaders(response));
  })
  .openapi(cancel, async (c) => {
    const request = c.req.valid("json");
    const deps = c.get("services").booking;
    const connection = await bookingConnectionOf(c, request.input.reference.bookingReference, true);
    const response = await withIdempotency(
      deps.db,
      { scope: "cancel", partnerId: connection.partnerId, key: c.req.header("idempotency-key"), request },
      async () => ({
        status: 200,
        body: success(
          await cancelBooking(deps, connection.partnerId, request.input.reference.bookingReference, Date.now(), {
            ...supplyOptionsOf(request.settings),
            currency: request.settings.currency,
            rooms: request.input.rooms,
          }),
        ),
      }),
    );
    billed(c, { replayed: response.replayed });
    return c.json(response.body as z.infer<typeof cancelResponseSchema>, 200, replayHeaders(response));
  })
  .openapi(commit, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const connection = connectionOf(c, coreConnection);
    const response = await commitOnce(
      c.get("services").booking,
      connection,
      c.req.valid("param").bookingReference,
      { requestId: c.get("requestId"), startedAt },
      supplyOptionsOf(request.settings),
      { key: c.req.header("idempotency-key"), request },
    );
    return c.json(response.body as z.infer<typeof bookResponseSchema>, 200, replayHeaders(response));
  })
  .openapi(modificationPreview, async (c) => {
    const request = c.req.valid("json");
    // Nothing is changed: a login token of any role may preview.
    const connection = await bookingConnectionOf(c, c.req.valid("param").bookingReference, false);
    // Priced as a quote is (a supplier quote, a row kept a day): counted in the same window first.
    await admit(c, connection);
    const preview = await previewModification(
      c.get("services").booking,
      connection,
      c.req.valid("param").bookingReference,
      request.change,
    );
    return c.json(success(preview), 200);
  })
  .openapi(modification, async (c) => {
    const request = c.req.valid("json");
    const response = await commitModificationOnce(
      c.get("services").booking,
      connectionOf(c, coreConnection),
      c.req.valid("param").bookingReference,
      request.previewId,
      { key: c.req.header("idempotency-key"), request },
    );
    return c.json(response.body as z.infer<typeof modificationResponseSchema>, 200, replayHeaders(response));
  })
  .openapi(bookingByReference, async (c) => {
    const booking = await readBooking(c.get("db"), c.get("caller").partnerId, c.req.valid("param").bookingReference);
    return c.json(success(booking), 200);
  })
  .openapi(bookingByPartnerReference, async (c) => {
    const { partnerReference, ...list } = c.req.valid("query");
    const partnerId = c.get("caller").partnerId;
    if (partnerReference === undefined)
      return c.json(success(await listBookings(c.get("db"), c.get("services").pageKeys, partnerId, list)), 200);
    const mixed = Object.keys(list).filter((name) => list[name as keyof typeof list] !== undefined);
    if (mixed.length)
      throw new ApiError("invalid_request", `partnerReference cannot be combined with ${mixed.join(", ")}`);
    return c.json(success(await readBookingByPartnerReference(c.get("db"), partnerId, partnerReference)), 200);
  })
  .openapi(cancellationPreview, async (c) => {
    const { at, rooms } = c.req.valid("query");
    const preview = await previewCancellation(
      c.get("db"),
      c.get("caller").partnerId,
      c.req.valid("param").bookingReference,
      at === undefined ? Date.now() : Date.parse(at),
      rooms,
    );
    return c.json(success(preview), 200);
  });
