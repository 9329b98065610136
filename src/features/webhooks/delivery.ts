import { and, eq } from "drizzle-orm";
import { database, type Db } from "../../platform/db/client";
import { isLocal } from "../../platform/environment";
import { signingSecretOf } from "./endpoints";
import type { WebhookMessage } from "./events";
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader } from "./signature";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "./tables";
import { loggableError } from "../../platform/observability/loggable-error";

/** Growing waits after attempts 1..6 (about 67 minutes in all). */
export const RETRY_DELAYS_SECONDS = [30, 120, 300, 600, 1200, 1800] as const;
/** Must equal `max_retries` + 1 of the consumer in wrangler.toml, so the last retry() parks the message. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
export const DELIVERY_TIMEOUT_MS = 10_000;

/**
 * The retry waits. Local development may shorten them with WEBHOOK_RETRY_DELAYS_SECONDS
 * (comma-separated; the workerd tests set it so the real queue's retry arrives in seconds);
 * a deploy always uses the schedule above.
 */
export const retryDelays = (env: Env): readonly number[] => {
  const override = (env as { WEBHOOK_RETRY_DELAYS_SECONDS?: string }).WEBHOOK_RETRY_DELAYS_SECONDS;
  if (!isLocal(env) || !override) return RETRY_DELAYS_SECONDS;
  const parsed = override.split(",").map((s) => Number(s.trim()));
  return parsed.length === RETRY_DELAYS_SECONDS.length && parsed.every((n) => Number.isInteger(n) && n >= 0)
    ? parsed
    : RETRY_DELAYS_SECONDS;
};

/**
 * How long one POST may take. Local development may shorten it with WEBHOOK_DELIVERY_TIMEOUT_MS
 * (a test of a hanging endpoint need not wait 10 s); a deploy always waits DELIVERY_TIMEOUT_MS.
 */
export const deliveryTimeoutMs = (env: Env): number => {
  const override = Number((env as { WEBHOOK_DELIVERY_TIMEOUT_MS?: string }).WEBHOOK_DELIVERY_TIMEOUT_MS);
  return isLocal(env) && Number.isInteger(override) && override > 0 ? override : DELIVERY_TIMEOUT_MS;
};

type Outcome = { delivered: boolean; statusCode: number | null; error: string | null };

/** One signed POST. Redirects are not followed (a redirect could lead to a private address). */
const post = async (
  url: string,
  eventId: string,
  body: string,
  secret: string,
  now: number,
  timeoutMs: number,
): Promise<Outcome> => {
  try {
    const response = await fetch(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        "content-type": "application/json",
        "user-agent": "Edgestay-Webhooks/1",
        [EVENT_ID_HEADER]: eventId,
        [SIGNATURE_HEADER]: await signatureHeader(secret, body, Math.floor(now / 1000)),
      },
      body,
    });
    await response.body?.cancel();
    const delivered = response.status >= 200 && response.status < 300;
    return { delivered, statusCode: response.status, error: delivered ? null : `HTTP ${response.status}` };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    return {
      delivered: false,
      statusCode: null,
      error: timedOut
        ? `no answer within ${timeoutMs / 1000} s`
        : `request failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
};

const pendingDelivery = async (db: Db, m: WebhookMessage) => {
  const [row] = await db
    .select({
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      body: webhookEvents.body,
      url: webhookEndpoints.url,
      id: webhookEndpoints.id,
      sealedSecret: webhookEndpoints.sealedSecret,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.endpointId, m.endpointId), eq(webhookDeliveries.eventId, m.eventId)))
    .limit(1);
  return row;
};

/** One message: send, record the attempt, then ack, retry later, or park in the dead-letter queue. */
const deliverOne = async (env: Env, db: Db, message: Message<WebhookMessage>, now: number) => {
  const delays = retryDelays(env);
  const delay = delays[Math.min(message.attempts, delays.length) - 1] ?? delays[0]!;
  try {
    const row = await pendingDelivery(db, message.body);
    // Endpoint deleted, or already delivered/failed (a duplicate message): nothing to send.
    if (row?.status !== "pending") return message.ack();
    const outcome = await post(
      row.url,
      message.body.eventId,
      row.body,
      await signingSecretOf(env.WEBHOOK_SECRET_KEY, row),
      now,
      deliveryTimeoutMs(env),
    );
    const lastAttemptAt = new Date(now).toISOString();
    const exhausted = !outcome.delivered && message.attempts >= MAX_DELIVERY_ATTEMPTS;
    await db
      .update(webhookDeliveries)
      .set({
        status: outcome.delivered ? "delivered" : exhausted ? "failed" : "pending",
        attempts: row.attempts + 1,
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        lastAttemptAt,
        deliveredAt: outcome.delivered ? lastAttemptAt : null,
        nextAttemptAt: outcome.delivered || exhausted ? null : new Date(now + delay * 1000).toISOString(),
      })
      .where(
        and(
          eq(webhookDeliveries.endpointId, message.body.endpointId),
          eq(webhookDeliveries.eventId, message.body.eventId),
        ),
      );
    if (outcome.delivered) return message.ack();
    // Past max_retries the runtime moves a retried message to the dead-letter queue.
    return exhausted ? message.retry() : message.retry({ delaySeconds: delay });
  } catch (error) {
    console.error(
      JSON.stringify({
        level: "error",
        message: "webhook delivery failed",
        eventId: message.body.eventId,
        error: loggableError(error, { stack: false }),
      }),
    );
    message.retry({ delaySeconds: delay });
  }
};

/** The Worker's queue handler for the webhook queue: the messages of a batch are sent in parallel. */
export const deliverWebhooks = async (batch: MessageBatch<WebhookMessage>, env: Env): Promise<void> => {
  const db = database(env.DB);
  await Promise.all(batch.messages.map((message) => deliverOne(env, db, message, Date.now())));
};
