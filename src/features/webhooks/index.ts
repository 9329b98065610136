export { eventTypesOf } from "./catalogue";
export type { EventCatalogue, EventData, EventDeclaration } from "./catalogue";
export { deliverWebhooks } from "./delivery";
export { EVENT_RETENTION_DAYS, eventWrites, expiredEvents, newEvent } from "./event-log";
export type { LoggedEvent, PartnerEvent } from "./event-log";
export { publishEvent, webhookReenqueue } from "./events";
export type { WebhookMessage, WebhookOutbox } from "./events";
export { webhooksOf } from "./routes";
