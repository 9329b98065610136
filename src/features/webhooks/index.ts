export { deliverWebhooks } from "./delivery";
export { announceEvent, webhookReenqueue } from "./events";
export type { WebhookMessage } from "./events";
export { webhookRoutes } from "./routes";
export type { PartnerEvent } from "./events";
export type { WebhookEventType } from "./tables";
