import { createApp } from "./app";
import { scheduled } from "./features/upkeep/scheduled";

const app = createApp();

export default { fetch: app.fetch, scheduled } satisfies ExportedHandler<Env>;
export { RateLimiter } from "./platform/ratelimit/rate-limiter";
export { ChatSession } from "./features/chat/chat-session";
