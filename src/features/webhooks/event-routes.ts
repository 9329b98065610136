import type { z } from "@hono/zod-openapi";
import { apiKeyOrBearer, apiKeyOrBearerSecurity } from "../../platform/auth/partner-credential";
import { apiRoute } from "../../platform/http/api-route";
import { success } from "../../platform/http/envelope";
import { featureRouter } from "../../platform/http/router";
import { readEvents } from "./event-log";
import type { CatalogueSchemas } from "./schemas";

const json = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } } });

/** GET /api/events (API key, or a partner user's login token for the console), mounted at /. */
export const eventRoutes = ({ eventsQuerySchema, eventPageResponseSchema }: CatalogueSchemas) => {
  // Read from the primary (no replica reads): a replica behind the reader's cursor would refuse it as unknown.
  const listEvents = apiRoute({
    operationId: "listEvents",
    method: "get",
    path: "/api/events",
    tags: ["Events"],
    summary: "Your booking events, oldest first, from a cursor: the same log webhooks deliver from",
    description:
      "Every state change of your bookings, webhooks or not, numbered by sequence (per partner, no gaps). Read from the start (no after), then pass nextCursor as after; a replay from any cursor gives the same events. Kept 30 days: a cursor past that is 410.",
    security: apiKeyOrBearerSecurity,
    middleware: [apiKeyOrBearer()] as const,
    request: { query: eventsQuerySchema },
    errors: ["invalid_cursor", "cursor_expired"],
    responses: {
      200: { description: "A page of events", ...json(eventPageResponseSchema) },
    },
  });

  return featureRouter().openapi(listEvents, async (c) => {
    const { after, limit, types, bookingReference } = c.req.valid("query");
    const page = await readEvents(c.get("db"), c.get("caller").partnerId, {
      limit,
      ...(after === undefined ? {} : { after: Number(after) }),
      ...(types === undefined ? {} : { types: [...new Set(types.split(",").map((t) => t.trim()))] }),
      ...(bookingReference === undefined ? {} : { bookingReference }),
    });
    return c.json(success(page), 200);
  });
};
