import { z } from "@hono/zod-openapi";
import { apiRoute } from "./platform/http/api-route";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import { bookingEvents, bookingRoutes } from "./features/booking";
import { chatPages, chatRoutes } from "./features/chat";
import { hotelxRoutes } from "./features/hotelx-api";
import { contentRoutes } from "./features/content";
import { operatorRoutes, exchangeRateRoutes, holdLimitRoutes, supplierRoutes } from "./features/operators";
import { partnerRoutes } from "./features/partners";
import { partnerConnectionRoutes } from "./features/connections";
import { hotelMatchingRoutes, supplierMapRoutes, supplyRoutes } from "./features/supply";
import { radarRoutes } from "./features/radar";
import { paymentRoutes } from "./features/payments";
import { webhooksOf } from "./features/webhooks";
import { failClosed } from "./platform/config/fail-closed";
import { probeDatabase, withDb } from "./platform/db/client";
import { ApiError } from "./platform/http/api-error";
import { envelopeSchema, success } from "./platform/http/envelope";
import { CONTENT_TYPE_MESSAGE, jsonBody } from "./platform/http/json-body";
import { publicBaseUrl } from "./platform/http/public-url";
import { allowedMethods } from "./platform/http/allowed-methods";
import { errorBodies, featureRouter } from "./platform/http/router";
import { type AfterAnswer, type AppEnv, type Services, withServices } from "./platform/app-env";
import { requestServices } from "./services";
import { requestLog } from "./platform/observability/request-log";
import { versionHeader } from "./platform/http/deployed-version";
import { consoleSecurityHeaders, pageSecurityHeaders } from "./platform/http/secure-headers";
import { loggableError } from "./platform/observability/loggable-error";
import { builtDocument } from "./platform/docs/openapi-document";

const health = apiRoute({
  operationId: "getHealth",
  security: [],
  method: "get",
  path: "/health",
  tags: ["Operations"],
  summary: "Liveness with one trivial D1 query",
  description: "For monitors.",
  errors: [],
  responses: {
    200: {
      description: "Up",
      content: {
        "application/json": {
          schema: envelopeSchema(z.object({ status: z.literal("ok") })),
          example: success({ status: "ok" as const }),
        },
      },
    },
  },
});

/** Every thrown thing as the one error type: client errors keep their message, anything else is a bare 500. */
const asApiError = (err: unknown): ApiError => {
  if (err instanceof ApiError) return err;
  // zod-openapi's media-type gate: the same 400 as every other wrong content type.
  if (err instanceof HTTPException && err.status === 415)
    return new ApiError("unsupported_content_type", CONTENT_TYPE_MESSAGE);
  if (err instanceof HTTPException && err.status < 500) {
    return ApiError.revived({ status: err.status, code: `http_${err.status}`, message: err.message || "Bad request" });
  }
  return new ApiError("internal_error", "Internal server error");
};

/** Reads that may be a moment stale (content export, both searches, booking list and read) may start at a replica. */
const documentServer = (env: Env, requestUrl: string) => {
  try {
    return publicBaseUrl(env, requestUrl);
  } catch {
    return "/";
  }
};

/** The Worker's app; `services` builds each request's services (a test may pass its own). */
export const createApp = ({
  services = requestServices,
}: {
  services?: (env: Env, afterAnswer: AfterAnswer) => Services;
} = {}) => {
  const app = featureRouter();

  app.use("*", versionHeader());
  app.use("*", requestLog());
  app.use("*", pageSecurityHeaders());
  app.use("/console", consoleSecurityHeaders());
  app.use("/console/*", consoleSecurityHeaders());
  // Hono's: a caller's X-Request-Id is kept when it is at most 128 of [A-Za-z0-9_=-], else a UUID.
  app.use("*", requestId({ limitLength: 128 }));
  app.use("*", failClosed());
  app.use("*", withDb);
  app.use("*", withServices(services));

  app.openapi(health, async (c) => {
    await probeDatabase(c.get("db"));
    return c.json(success({ status: "ok" as const }), 200);
  });
  app.route("/", contentRoutes);
  app.route("/", partnerRoutes);
  app.route("/", partnerConnectionRoutes);
  app.route("/", operatorRoutes);
  app.route("/", exchangeRateRoutes);
  app.route("/", holdLimitRoutes);
  app.route("/", supplierRoutes);
  app.route("/", bookingRoutes);
  app.route("/", hotelxRoutes);
  app.route("/api/inventory", supplyRoutes);
  app.route("/", supplierMapRoutes);
  app.route("/", hotelMatchingRoutes);
  app.route("/api/v1/radar", radarRoutes);
  app.route("/api/partner/v1/core-chat", chatRoutes);
  app.route("/chat", chatPages);
  app.route("/", paymentRoutes);
  // The events webhooks deliver and the log lists are booking's, declared in its catalogue.
  const events = webhooksOf(bookingEvents);
  app.route("/api/partner/webhooks", events.webhookRoutes);
  app.route("/", events.eventRoutes);

  for (const webhook of events.webhooks) app.openAPIRegistry.registerWebhook(webhook);
  // Built with the Worker (platform/docs/openapi-document.ts) and read once per isolate: every request
  // gets the same document but for its server.
  app.get("/openapi.json", async (c) => {
    const document = await builtDocument(c.env.ASSETS);
    // This deployment's own origin (PUBLIC_BASE_URL); relative to the document where it is not set.
    return c.json({
      ...document,
      servers: [{ url: documentServer(c.env, c.req.url), description: "This deployment" }],
    });
  });
  // /docs and / are static assets (snippet/docs.html, snippet/index.html): no CDN, no inline script.
  // So is the partner console at /console (snippet/console/), which reads this API over HTTP only.

  const methodsAt = allowedMethods(app.routes);
  const errorBodyAt = errorBodies(app.routes);
  /**
   * Every error answer, in one place: the error's own headers (Retry-After and the rate headers of a
   * 429, Idempotent-Replayed) and the body of its path (a router may bring its own), with the status
   * from the error table.
   */
  const errorResponse = (c: Context<AppEnv>, failure: ApiError) => {
    for (const [name, value] of Object.entries(failure.headers ?? {})) c.header(name, value);
    return c.json(errorBodyAt(c.req.path)(failure, c.get("requestId")), failure.status);
  };

  app.notFound(async (c) => {
    // Test calls and run_worker_first requests reach the Worker before the asset router.
    if ((c.req.method === "GET" || c.req.method === "HEAD") && !c.req.path.startsWith("/api/")) {
      const asset = await c.env.ASSETS.fetch(c.req.raw);
      // Through the context, so the headers middleware set (request id) join the asset's own.
      if (asset.status !== 404) return c.newResponse(asset.body as ReadableStream, asset);
    }
    // No route read the body: it is judged all the same, so a bad one is a 400 on any path.
    await jsonBody()(c, async () => {});
    // A known path with another method is a 405 that says which methods it takes.
    const allowed = methodsAt(c.req.path);
    if (allowed.length > 0) c.header("Allow", allowed.join(", "));
    const failure =
      allowed.length > 0
        ? new ApiError("method_not_allowed", `Method not allowed: ${c.req.method} ${c.req.path}`)
        : new ApiError("not_found", `Route not found: ${c.req.method} ${c.req.path}`);
    return errorResponse(c, failure);
  });

  app.onError((err, c) => {
    const requestId = c.get("requestId");
    const failure = asApiError(err);
    // An ApiError is an answer chosen on purpose (a 501, a 503): the request log has its status.
    if (failure.status >= 500 && !(err instanceof ApiError)) {
      // Internals stay in the log, keyed by request id; the client gets only the id.
      console.error(
        JSON.stringify({
          level: "error",
          requestId,
          path: c.req.path,
          error: loggableError(err),
        }),
      );
    }
    return errorResponse(c, failure);
  });

  return app;
};
