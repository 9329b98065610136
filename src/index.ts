import { createApp } from "./app";

const app = createApp();

export default { fetch: app.fetch } satisfies ExportedHandler<Env>;
export { RateLimiter } from "./platform/ratelimit/rate-limiter";
export { ChatSession } from "./features/chat/chat-session";
