import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { base64url, fromBase64url } from "../../platform/crypto/digest";
import { ApiError } from "../../platform/http/api-error";
import { findWebhook } from "./endpoints";
import { enqueueDeliveries, type WebhookMessage } from "./events";
import type { WebhookDelivery } from "./schemas";
import { webhookDeliveries, webhookEvents } from "./tables";

type PageCursor = { createdAt: string; eventId: string };

// Not signed: it only positions a page inside the caller's own endpoint, which is checked first.
const encodeCursor = (c: PageCursor) => base64url(new TextEncoder().encode(JSON.stringify([c.createdAt, c.eventId])));
const decodeCursor = (text: string): PageCursor => {
  const bytes = fromBase64url(text);
  try {
    const value = bytes ? JSON.parse(new TextDecoder().decode(bytes)) : null;
    const [createdAt, eventId] = Array.isArray(value) && value.length === 2 ? value : [];
    if (typeof createdAt === "string" && typeof eventId === "string") return { createdAt, eventId };
  } catch {
    // falls through to the 400
  }
  throw new ApiError("invalid_cursor", "cursor: Invalid cursor");
};

const columns = {
  eventId: webhookDeliveries.eventId,
  type: webhookEvents.type,
  bookingReference: webhookEvents.bookingReference,
  status: webhookDeliveries.status,
  attempts: webhookDeliveries.attempts,
  lastStatusCode: webhookDeliveries.lastStatusCode,
  lastError: webhookDeliveries.lastError,
  lastAttemptAt: webhookDeliveries.lastAttemptAt,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  deliveredAt: webhookDeliveries.deliveredAt,
  createdAt: webhookDeliveries.createdAt,
};

/** One endpoint's deliveries, newest first, keyset-paginated on (createdAt, eventId). */
export const listDeliveries = async (
  db: Db,
  partnerId: string,
  endpointId: string,
  page: { limit: number; cursor?: string },
) => {
  const endpoint = await findWebhook(db, partnerId, endpointId);
  const after = page.cursor ? decodeCursor(page.cursor) : null;
  const rows: WebhookDelivery[] = await db
    .select(columns)
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(
      and(
        eq(webhookDeliveries.endpointId, endpoint.id),
        after
          ? sql`(${webhookDeliveries.createdAt}, ${webhookDeliveries.eventId}) < (${after.createdAt}, ${after.eventId})`
          : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.eventId))
    .limit(page.limit + 1);
  const deliveries = rows.slice(0, page.limit);
  const last = deliveries.at(-1);
  return { deliveries, nextCursor: rows.length > page.limit && last ? encodeCursor(last) : null };
};

/**
 * Sends one event to the endpoint again, as a new queue message with a fresh retry schedule,
 * whatever its state (delivered, failed or still retrying). Attempts keep counting.
 */
export const redeliver = async (
  db: Db,
  queue: Queue<WebhookMessage>,
  partnerId: string,
  endpointId: string,
  eventId: string,
  now = Date.now(),
) => {
  const endpoint = await findWebhook(db, partnerId, endpointId);
  const reset = await db
    .update(webhookDeliveries)
    .set({ status: "pending", nextAttemptAt: new Date(now).toISOString(), enqueuedAt: null })
    .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.eventId, eventId)))
    .returning({ eventId: webhookDeliveries.eventId });
  if (reset.length === 0) throw new ApiError("webhook_event_not_found", "Webhook event not found");
  await enqueueDeliveries(db, queue, [{ endpointId: endpoint.id, eventId }], now);
  const [row] = await db
    .select(columns)
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.eventId, eventId)));
  return row!;
};
