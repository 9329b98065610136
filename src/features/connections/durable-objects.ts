/**
 * The room's Durable Object classes, for the Worker's entry (src/index.ts) alone: they load
 * `cloudflare:workers`, which the Node tools entering connections through index.ts cannot.
 */
export { ConnectionUsage } from "./usage-counter";
