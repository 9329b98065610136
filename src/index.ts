import { createApp } from "./app";
import { deliverWebhooks } from "./features/webhooks/delivery";
import type { WebhookMessage } from "./features/webhooks/events";

const app = createApp();

// The only queue consumed here is the webhook queue (wrangler.toml).
export default { fetch: app.fetch, queue: deliverWebhooks } satisfies ExportedHandler<Env, WebhookMessage>;
export { RateLimiter } from "./platform/ratelimit/rate-limiter";
export { ChatSession } from "./features/chat/chat-session";
