export { deliverWebhooks } from "./delivery";
export { EVENT_RETENTION_DAYS, eventWrites, expiredEvents, newEvent } from "./event-log";
export type { LoggedEvent, PartnerEvent } from "./event-log";
export { eventRoutes } from "./event-routes";
export { publishEvent, webhookReenqueue } from "./events";
export type { WebhookMessage, WebhookOutbox } from "./events";
export { webhookRoutes } from "./routes";
export { EVENT_TYPES } from "./tables";
export type { EventType } from "./tables";
