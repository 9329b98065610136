import { createApp } from "./app";
import { scheduled } from "./features/upkeep/scheduled";
import { deliverWebhooks } from "./features/webhooks/delivery";
import type { WebhookMessage } from "./features/webhooks/events";

const app = createApp();

// The only queue consumed here is the webhook queue (wrangler.toml).
export default { fetch: app.fetch, queue: deliverWebhooks, scheduled } satisfies ExportedHandler<Env, WebhookMessage>;
export { RateLimiter } from "./platform/ratelimit/rate-limiter";
export { ChatSession } from "./features/chat/chat-session";
export { UpstreamCircuit } from "./features/supply/upstream-circuit";
