import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { apiKeyAuth, hotelxKeySecurity } from "../../platform/auth/api-key";
import { cardDataGuardErrors, noRawCardData } from "../../platform/card-data/card-data";
import { replicaReadsAllowed } from "../../platform/db/replica-reads";
import { apiRoute, json } from "../../platform/http/api-route";
import { rateLimitHeaders } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import { idempotencyErrors, replayHeaders } from "../../platform/idempotency/idempotency";
import {
  admit,
  afterAnswer,
  billed,
  type BookingEnv,
  connectionOf,
  idempotencyHeader,
  metered,
  sandboxHeader,
  sandboxScenario,
  searchErrors,
  supplierTimedOut,
} from "../booking";
import { coreAccess, coreConnection, type CoreConnection, searchConnection } from "../connections";
import {
  accessKeeps,
  bookConnection,
  cancelConnection,
  type HotelxRouting,
  quoteConnection,
  searchConnections,
} from "./hotelx-access";
import { executeHotelx, GRAPHQL_RESPONSE_TYPE, type GraphqlCall, graphqlAnswerOf } from "./hotelx-graphql";
import { tgxOutcome } from "./tgx-answers";
import { bookTgx } from "./tgx-book";
import { cancelTgx } from "./tgx-cancel";
import {
  graphqlRequestSchema,
  graphqlResponseSchema,
  tgxBookRequestSchema,
  tgxBookResponseSchema,
  tgxCancelRequestSchema,
  tgxCancelResponseSchema,
  tgxQuoteRequestSchema,
  tgxQuoteResponseSchema,
} from "./tgx-flow-schemas";
import { quoteTgx } from "./tgx-quote";
import { tgxSearchRequestSchema, tgxSearchResponseSchema } from "./tgx-schemas";
import { searchTgxAccesses } from "./tgx-search";

const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, ...json(schema) } });

/**
 * A Hotel-X route's routing (issue 40): the caller's partner and the body's `settings.access.code`,
 * when sent (then the connection is the one it names, read in the API key's batch: `connectionOf`).
 */
const routingOf = (c: Context<BookingEnv>): HotelxRouting => ({
  db: c.get("db"),
  partnerId: c.get("caller").partnerId,
  named: c.var.access.code === "missing" ? undefined : c.var.access.code,
});

/** The connection a Hotel-X call is counted on, found the Hotel-X way when the body names none. */
const routedConnection = async (
  c: Context<BookingEnv>,
  find: (routing: HotelxRouting) => Promise<CoreConnection>,
): Promise<CoreConnection> => {
  if (c.var.access.code !== "missing") return connectionOf(c, coreConnection);
  const connection = await find(routingOf(c));
  c.set("billing", { connection });
  return connection;
};

// Hotel-X's own header, `Authorization: Apikey <key>`, is read beside `api-key` on the Hotel-X routes only.
const HOTELX_KEY = "api-key or Apikey" as const;

const searchTgxRoute = apiRoute({
  operationId: "searchAvailabilityTgx",
  method: "post",
  path: "/api/search/tgx",
  unknownFields: "hotelx",
  tags: ["Booking"],
  summary: "Hotel-X (TravelgateX) shaped search over the same inventory (rate limited)",
  description: "Hotel-X step 1: an option's id is the optionRefId of quote/tgx.",
  security: hotelxKeySecurity,
  middleware: [metered("search"), replicaReadsAllowed, coreAccess(HOTELX_KEY)] as const,
  request: body(tgxSearchRequestSchema),
  errors: searchErrors,
  responses: {
    200: {
      description: "Hotel-X HotelSearch: options, and supplier-level errors/warnings",
      headers: rateLimitHeaders,
      ...json(tgxSearchResponseSchema),
    },
  },
});

// The Hotel-X shaped flow: what the option, quote, booking or supplier decide is answered 200 in
// the payload's `errors`; the request's shape, key, connection and limits keep the error envelope.
const HOTELX_OUTCOMES =
  "refusals (PRICE_CHANGED, SOLD_OUT, BOOKING_NOT_FOUND...) are Hotel-X errors in the payload, HTTP 200";

const quoteTgxRoute = apiRoute({
  operationId: "createQuoteTgx",
  method: "post",
  path: "/api/quote/tgx",
  unknownFields: "hotelx",
  tags: ["Booking"],
  summary: "Hotel-X shaped quote, kept 30 minutes (rate limited)",
  description: "Hotel-X step 2: optionRefId from search/tgx; the answer's goes to book/tgx.",
  security: hotelxKeySecurity,
  middleware: [metered("quote"), coreAccess(HOTELX_KEY)] as const,
  request: { headers: sandboxHeader, ...body(tgxQuoteRequestSchema) },
  errors: [
    "invalid_connection_code",
    "rate_limit_exceeded",
    "invalid_timeout",
    "accommodation_mismatch",
    "stay_dates_mismatch",
    "payment_type_mismatch",
    "unsupported_currency",
  ],
  responses: {
    200: {
      description: `Hotel-X HotelQuote: optionQuote at today's price (searchPrice when it moved); ${HOTELX_OUTCOMES}`,
      headers: rateLimitHeaders,
      ...json(tgxQuoteResponseSchema),
    },
  },
});

const bookTgxRoute = apiRoute({
  operationId: "createBookingTgx",
  method: "post",
  path: "/api/book/tgx",
  unknownFields: "hotelx",
  tags: ["Booking"],
  summary: "Hotel-X shaped book of a quote, or of a search option in one step (deltaPrice)",
  description: "Hotel-X step 3: reference.bookingID is cancel/tgx's input.bookingID.",
  security: hotelxKeySecurity,
  // Hotel-X's paymentCard carries a card number: refused before anything reads it.
  middleware: [metered("book"), noRawCardData(), coreAccess(HOTELX_KEY)] as const,
  request: { headers: sandboxHeader.merge(idempotencyHeader), ...body(tgxBookRequestSchema) },
  errors: [
    ...cardDataGuardErrors,
    ...idempotencyErrors,
    "invalid_connection_code",
    "booking_not_allowed",
    "rate_limit_exceeded",
    "invalid_timeout",
    "accommodation_mismatch",
    "stay_dates_mismatch",
    "payment_type_mismatch",
    "unsupported_currency",
    "payment_card_not_found",
    "card_expired",
  ],
  responses: {
    200: {
      description: `Hotel-X HotelBookPayload: the booking (status OK, or UNKNOWN/ON_REQUEST while pending); ${HOTELX_OUTCOMES}`,
      ...json(tgxBookResponseSchema),
    },
  },
});

const cancelTgxRoute = apiRoute({
  operationId: "cancelBookingTgx",
  method: "post",
  path: "/api/cancel/tgx",
  unknownFields: "hotelx",
  tags: ["Booking"],
  summary: "Hotel-X shaped cancel, by bookingID or by accessCode, hotelCode and clientReference",
  description: "Hotel-X step 4: input.bookingID from book/tgx.",
  security: hotelxKeySecurity,
  middleware: [metered("cancel"), coreAccess(HOTELX_KEY)] as const,
  request: { headers: idempotencyHeader, ...body(tgxCancelRequestSchema) },
  errors: [
    ...idempotencyErrors,
    "invalid_connection_code",
    "invalid_timeout",
    "booking_changed",
    "partial_cancel_not_supported",
  ],
  responses: {
    200: {
      description: `Hotel-X HotelCancelPayload: the cancellation and the booking; ${HOTELX_OUTCOMES}`,
      ...json(tgxCancelResponseSchema),
    },
  },
});

const graphqlRoute = apiRoute({
  operationId: "hotelxGraphql",
  method: "post",
  path: "/api/graphql",
  unknownFields: "hotelx",
  tags: ["Booking"],
  summary:
    "Hotel-X GraphQL: hotelX { search quote booking } and mutation { hotelX { book cancel commit } } over the Hotel-X shaped routes",
  description:
    "The /api/*/tgx flow as Hotel-X GraphQL. A document past its limits (depth, fields, aliases, introspection, 5 search/quote/booking, 1 write, 50 references) is refused.",
  security: hotelxKeySecurity,
  // A document or its variables may carry Hotel-X's paymentCard: refused before anything reads it.
  middleware: [noRawCardData(), apiKeyAuth(undefined, HOTELX_KEY)] as const,
  request: {
    headers: idempotencyHeader.extend({
      "access-code": z.string().optional().openapi({
        description:
          "A shortcut naming the connection of every field (as a settings variable's access.code does); without it each field's own names decide, the Hotel-X way: a search's filterSearch.access, an option id's access, a quote's or booking's connection, an accessCode",
        example: "1001",
      }),
    }),
    ...body(graphqlRequestSchema),
  },
  errors: [...cardDataGuardErrors, ...idempotencyErrors, "invalid_connection_code"],
  responses: {
    200: {
      description:
        "GraphQL's answer: data, and errors (a document refused before it ran: no data; a field refused: its API code in extensions)",
      content: {
        "application/json": { schema: graphqlResponseSchema },
        [GRAPHQL_RESPONSE_TYPE]: { schema: graphqlResponseSchema },
      },
    },
    400: {
      description: "A document refused before it ran, under application/graphql-response+json",
      content: { [GRAPHQL_RESPONSE_TYPE]: { schema: graphqlResponseSchema } },
    },
  },
});

/** The Hotel-X face's routes (issue 40): search, quote, book and cancel under /api/…/tgx and POST /api/graphql, over booking's services. */
export const hotelxRoutes = featureRouter<BookingEnv>()
  .openapi(searchTgxRoute, async (c) => {
    const request = c.req.valid("json");
    const deps = c.get("services").booking;
    const access = (request.filterSearch ?? request.filter)?.access;
    const named = c.var.access.code !== "missing";
    const connections = named
      ? [connectionOf(c, searchConnection)].filter((connection) => accessKeeps(access, connection))
      : await searchConnections(routingOf(c), access);
    // The first access is the request's count (its refusal, a 429, the request's); the others beside it.
    const [first] = connections;
    if (first) c.set("billing", { connection: first });
    // Each access counted first, as /api/search: a refused search does no supplier work at all.
    const { answer, searches } = await searchTgxAccesses(
      deps,
      connections,
      request,
      (connection) => admit(c, connection),
      named,
    );
    for (const [i, each] of searches.entries()) {
      const supplierTimeout =
        "search" in each && supplierTimedOut([...(each.search.errors ?? []), ...(each.search.warnings ?? [])]);
      if (i === 0) billed(c, { supplierTimeout, ...("refused" in each ? { outcome: each.refused.code } : {}) });
      else
        void afterAnswer(
          c,
          deps.meter({
            connection: each.connection,
            operation: "search",
            outcome: "refused" in each ? each.refused.code : "success",
            supplierTimeout,
            requestId: c.get("requestId"),
          }),
        );
    }
    return c.json(answer, 200);
  })
  .openapi(quoteTgxRoute, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = c.get("services").booking;
    const connection = await routedConnection(c, (routing) => quoteConnection(routing, request.criteria.optionRefId));
    await admit(c, connection);
    const scenario = sandboxScenario(deps, c.req.header("test-scenario"));
    const answer = await quoteTgx(deps, connection, request, { requestId: c.get("requestId"), startedAt, scenario });
    const quoted = answer.data.hotelX.quote;
    billed(c, { outcome: tgxOutcome(Boolean(quoted.optionQuote), quoted.errors) });
    return c.json(answer, 200);
  })
  .openapi(bookTgxRoute, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = c.get("services").booking;
    const connection = await routedConnection(c, (routing) => bookConnection(deps, routing, request.input));
    const scenario = sandboxScenario(deps, c.req.header("test-scenario"));
    const { body, replayed, booked } = await bookTgx(
      deps,
      connection,
      request,
      { requestId: c.get("requestId"), startedAt, scenario },
      c.req.header("idempotency-key"),
    );
    billed(c, { replayed, outcome: tgxOutcome(booked, body.data.hotelX.book.errors) });
    return c.json(body, 200, replayHeaders({ replayed }));
  })
  .openapi(cancelTgxRoute, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const deps = c.get("services").booking;
    await routedConnection(c, (routing) => cancelConnection(routing, request.input));
    const { body, replayed, cancelled } = await cancelTgx(
      deps,
      routingOf(c),
      request,
      c.req.header("idempotency-key"),
      startedAt,
    );
    billed(c, { replayed, outcome: tgxOutcome(cancelled, body.data.hotelX.cancel.errors) });
    return c.json(body, 200, replayHeaders({ replayed }));
  })
  .openapi(graphqlRoute, async (c) => {
    const startedAt = Date.now();
    const request = c.req.valid("json");
    const call: GraphqlCall = {
      deps: c.get("services").booking,
      // The connection is each field's: what its document names, the header a shortcut (hotelx-access.ts).
      routing: { db: c.get("db"), partnerId: c.get("caller").partnerId, named: c.req.header("access-code") },
      meta: { requestId: c.get("requestId"), startedAt, scenario: null },
      idempotencyKey: c.req.header("idempotency-key"),
      admit: (connection) => admit(c, connection),
      count: (billing) =>
        void afterAnswer(c, c.get("services").booking.meter({ ...billing, requestId: c.get("requestId") })),
      replayed: false,
      assets: c.env.ASSETS,
    };
    const result = await executeHotelx(request, call);
    const { status, contentType } = graphqlAnswerOf(result, c.req.header("accept"));
    return c.json(result as z.infer<typeof graphqlResponseSchema>, status, {
      ...replayHeaders(call),
      "Content-Type": contentType,
    });
  });
