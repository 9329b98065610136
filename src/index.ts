import { createApp } from "./app";
import { scheduled } from "./upkeep";
import { BOOKING_TIMERS_QUEUE, type BookingTimer, runBookingTimers } from "./features/booking";
import { deliverWebhooks, type WebhookMessage } from "./features/webhooks";
const app = createApp();

/** The queues consumed here (wrangler.toml): booking timers, and the webhook queue. */
const queue = (batch: MessageBatch<BookingTimer | WebhookMessage>, env: Env) =>
  batch.queue === BOOKING_TIMERS_QUEUE
    ? runBookingTimers(batch as MessageBatch<BookingTimer>, env)
    : deliverWebhooks(batch as MessageBatch<WebhookMessage>, env);

export default { fetch: app.fetch, queue, scheduled } satisfies ExportedHandler<Env, BookingTimer | WebhookMessage>;
export { RateLimiter } from "./platform/ratelimit/rate-limiter";
export { ChatSession } from "./features/chat";
export { UpstreamCircuit } from "./features/supply/durable-objects";
export { ConnectionUsage } from "./features/connections/durable-objects";
export { HoldExpiry } from "./features/booking";
