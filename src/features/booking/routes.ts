import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { apiKeyAuth, apiKeySecurity } from "../../platform/auth/api-key";
import { ApiError } from "../../platform/http/api-error";
import { errorResponses, success } from "../../platform/http/envelope";
import { withIdempotency } from "../../platform/idempotency/idempotency";
import { featureRouter } from "../../platform/http/router";
import { bookQuote } from "./book";
import { readBooking, readBookingByPartnerReference } from "./bookings";
import { cancelBooking } from "./cancel";
import { coreAccess, coreConnection, searchConnection, type BookingEnv, type CoreConnection } from "./connection-access";
import { bookingDeps, sandboxScenario } from "./deps";
import { quoteOption } from "./quote";
import { consumeRateLimit, RateLimited } from "./rate-limit";
import {
  bookingResponseSchema,
  bookRequestSchema,
  bookResponseSchema,
  cancelRequestSchema,
  cancelResponseSchema,
  quoteRequestSchema,
  quoteResponseSchema,
  searchRequestSchema,
  searchResponseSchema,
} from "./schemas";
import { searchAvailability } from "./search";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });
const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, ...json(schema) } });

const rateLimitHeaders = z.object({
  "X-RateLimit-Limit": z.string(),
  "X-RateLimit-Remaining": z.string(),
  "X-RateLimit-Reset": z.string().openapi({ description: "Unix seconds when the window resets" }),
});

const sandboxHeader = z.object({
  "test-scenario": z.string().optional().openapi({ description: "Sandbox only (SANDBOX_SCENARIOS=on): price_changed, room_unavailable, booking_failed" }),
});
const idempotencyHeader = z.object({ "idempotency-key": z.string().optional().openapi({ description: "Replays the stored response for a retried request" }) });

/** Counts the request against the connection's window; the rate headers go on success and on 429 alike. */
const admit = async (c: Context<BookingEnv>, connection: CoreConnection) => {
  try {
    const headers = await consumeRateLimit(c.env.RATE_LIMITER, connection);
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
  } catch (error) {
    if (error instanceof RateLimited) for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    throw error;
  }
};

const search = createRoute({
  method: "post",
  path: "/api/search",
  tags: ["Booking"],
  summary: "Search availability and priced options (rate limited per connection)",
  security: apiKeySecurity,
  middleware: [coreAccess()] as const,
  request: body(searchRequestSchema),
  responses: { 200: { description: "Options per accommodation", headers: rateLimitHeaders, ...json(searchResponseSchema) }, ...errorResponses(400, 401, 413, 429, 501) },
});

const searchTgx = createRoute({
  method: "post",
  path: "/api/search/tgx",
  tags: ["Booking"],
  summary: "TGX-shaped search: not implemented (501)",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  responses: errorResponses(401, 501),
});

const quote = createRoute({
  method: "post",
  path: "/api/quote",
  tags: ["Booking"],
  summary: "Re-check one option and keep it as a quote for 30 minutes (rate limited)",
  security: apiKeySecurity,
  middleware: [coreAccess()] as const,
  request: { headers: sandboxHeader, ...body(quoteRequestSchema) },
  responses: { 200: { description: "The quote", headers: rateLimitHeaders, ...json(quoteResponseSchema) }, ...errorResponses(400, 401, 403, 413, 429, 501) },
});

const quoteTgx = createRoute({
  method: "post",
  path: "/api/quote/tgx",
  tags: ["Booking"],
  summary: "TGX-shaped quote: not implemented (501); use /api/quote",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  responses: errorResponses(401, 501),
});

const book = createRoute({
  method: "post",
  path: "/api/book",
  tags: ["Booking"],
  summary: "Book a quote",
  security: apiKeySecurity,
  middleware: [coreAccess()] as const,
  request: { headers: sandboxHeader.merge(idempotencyHeader), ...body(bookRequestSchema) },
  responses: { 200: { description: "The booking", ...json(bookResponseSchema) }, ...errorResponses(400, 401, 403, 404, 409, 413, 501) },
});

const cancel = createRoute({
  method: "post",
  path: "/api/cancel",
  tags: ["Booking"],
  summary: "Cancel a booking",
  security: apiKeySecurity,
  middleware: [coreAccess()] as const,
  request: { headers: idempotencyHeader, ...body(cancelRequestSchema) },
  responses: { 200: { description: "Cancelled", ...json(cancelResponseSchema) }, ...errorResponses(400, 401, 403, 404, 409, 413) },
});

const bookingByReference = createRoute({
  method: "get",
  path: "/api/bookings/{bookingReference}",
  tags: ["Booking"],
  summary: "Read one of your bookings",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: { params: z.object({ bookingReference: z.string().min(1).max(100) }) },
  responses: { 200: { description: "The booking", ...json(bookingResponseSchema) }, ...errorResponses(401, 404) },
});

const bookingByPartnerReference = createRoute({
  method: "get",
  path: "/api/bookings",
  tags: ["Booking"],
  summary: "Find one of your bookings by your partnerReference (after a timeout)",
  security: apiKeySecurity,
  middleware: [apiKeyAuth()] as const,
  request: { query: z.object({ partnerReference: z.string().min(1).max(100) }) },
  responses: { 200: { description: "The booking", ...json(bookingResponseSchema) }, ...errorResponses(400, 401, 404) },
});

const notImplemented = (what: string) =>
  new ApiError(501, `${what} is not implemented; use the JSON API at ${what.replace("/tgx", "")}`, "not_implemented");

export const bookingRoutes = featureRouter<BookingEnv>()
  .openapi(search, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = bookingDeps(c.env);
    const connection = await searchConnection(deps.d1, c.get("caller").partnerId, request.settings.access?.code, c.var.connection);
    // Counted first: a refused search does no supplier work at all.
    await admit(c, connection);
    const result = await searchAvailability(deps, connection, request);
    const requestId = c.get("requestId");
    return c.json(success({ ...result, requestId, responseTime: Math.max(0, Date.now() - startedAt) }), 200);
  })
  .openapi(searchTgx, () => {
    throw notImplemented("/api/search/tgx");
  })
  .openapi(quote, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = bookingDeps(c.env);
    const connection = await coreConnection(deps.d1, c.get("caller").partnerId, request.settings.access?.code, c.var.connection);
    await admit(c, connection);
    const scenario = sandboxScenario(deps, c.req.header("test-scenario"));
    const result = await quoteOption(deps, connection, request, { requestId: c.get("requestId"), startedAt, scenario });
    return c.json(success(result), 200);
  })
  .openapi(quoteTgx, () => {
    throw notImplemented("/api/quote/tgx");
  })
  .openapi(book, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = bookingDeps(c.env);
    const connection = await coreConnection(deps.d1, c.get("caller").partnerId, request.settings.access?.code, c.var.connection);
    const scenario = sandboxScenario(deps, c.req.header("test-scenario"));
    const response = await withIdempotency(
      deps.d1,
      { scope: "book", partnerId: connection.partnerId, key: c.req.header("idempotency-key"), request },
      async () => ({ status: 200, body: success(await bookQuote(deps, connection, request, { requestId: c.get("requestId"), startedAt, scenario })) }),
    );
    if (response.replayed) c.header("Idempotent-Replayed", "true");
    return c.json(response.body as z.infer<typeof bookResponseSchema>, 200);
  })
  .openapi(cancel, async (c) => {
    const request = c.req.valid("json");
    const deps = bookingDeps(c.env);
    const connection = await coreConnection(deps.d1, c.get("caller").partnerId, request.settings.access?.code, c.var.connection);
    const response = await withIdempotency(
      deps.d1,
      { scope: "cancel", partnerId: connection.partnerId, key: c.req.header("idempotency-key"), request },
      async () => ({ status: 200, body: success(await cancelBooking(deps, connection.partnerId, request.input.reference.bookingReference)) }),
    );
    if (response.replayed) c.header("Idempotent-Replayed", "true");
    return c.json(response.body as z.infer<typeof cancelResponseSchema>, 200);
  })
  .openapi(bookingByReference, async (c) => {
    const booking = await readBooking(c.env.DB, c.get("caller").partnerId, c.req.valid("param").bookingReference);
    return c.json(success(booking), 200);
  })
  .openapi(bookingByPartnerReference, async (c) => {
    const booking = await readBookingByPartnerReference(c.env.DB, c.get("caller").partnerId, c.req.valid("query").partnerReference);
    return c.json(success(booking), 200);
  });
