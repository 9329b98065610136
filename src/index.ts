import { createApp } from "./app";
import { scheduled } from "./upkeep";
import { deliverWebhooks, type WebhookMessage } from "./features/webhooks";
const app = createApp();

// The only queue consumed here is the webhook queue (wrangler.toml).
export default { fetch: app.fetch, queue: deliverWebhooks, scheduled } satisfies ExportedHandler<Env, WebhookMessage>;
export { RateLimiter } from "./platform/ratelimit/rate-limiter";
export { ChatSession } from "./features/chat";
export { UpstreamCircuit } from "./features/supply";
export { HoldExpiry } from "./features/booking";
