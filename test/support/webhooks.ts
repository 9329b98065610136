import { env } from "cloudflare:test";
import { expect, inject } from "vitest";
import type { ReceivedWebhook } from "./webhook-receiver";
import { post } from "./api";
import { bookBody, quoteOf, searchOne } from "./booking";
import { asBearer } from "./sessions";
import type { WebhookMessage } from "../../src/features/webhooks/events";
import { eventWrites, newEvent } from "../../src/features/webhooks/event-log";
import { database } from "../../src/platform/db/client";
import { bookingChange } from "../../src/features/booking/schemas";
import { bookingEvents } from "../../src/features/booking";
import { assertWebhookDocumented } from "./openapi-conformance";

/** Shared helpers for the webhook tests (not a test file itself). */
export const RECEIVER = inject("webhookReceiver");

/**
 * What the Node receiver got on `/hooks/<name>`, once at least `count` requests have arrived; each
 * must be its webhook as the document describes it (payload and headers).
 */
export const receivedAt = async (name: string, count: number): Promise<ReceivedWebhook[]> => {
  const res = await fetch(`${RECEIVER}/received/${name}?count=${count}`);
  const received = (await res.json()) as ReceivedWebhook[];
  for (const hook of received) {
    await assertWebhookDocumented(JSON.parse(hook.body));
    expect(hook.headers["edgestay-event-id"]).toBe(JSON.parse(hook.body).id);
    expect(hook.headers["edgestay-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  }
  return received;
};

export const subscribe = async (
  adminToken: string,
  name: string,
  options: { events?: string[]; query?: string } = {},
) => {
  const res = await asBearer(adminToken).post("/api/partner/webhooks", {
    url: `${RECEIVER}/hooks/${name}${options.query ?? ""}`,
    events: options.events ?? ["booking.confirmed", "booking.cancelled"],
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { id: string; url: string; events: string[]; secret: string; createdAt: string };
};

/** Books a refundable option of `code` through POST /api/book. */
export const bookRefundable = async (code: string, partnerReference: string) => {
  const quote = await quoteOf(await searchOne(code, { pick: (o) => o.isRefundable }));
  const res = await post("/api/book", bookBody(quote, partnerReference));
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.data as {
    bookingReference: string;
    partnerReference: string;
    status: string;
    chargeTotal: number;
    rate: unknown;
  };
};

/** Checks Edgestay-Signature the way a partner would: HMAC-SHA-256 of "<t>.<raw body>" with the secret. */
export const signatureIsValid = async (secret: string, hook: Pick<ReceivedWebhook, "headers" | "body">) => {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(hook.headers["edgestay-signature"] ?? "");
  if (!match) return false;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${match[1]}.${hook.body}`)),
  );
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("") === match[2];
};

/** A queue that refuses every message, standing in for an outage of the Queues service. */
export const refusingQueue = {
  send: async () => {
    throw new Error("queue unavailable");
  },
  sendBatch: async () => {
    throw new Error("queue unavailable");
  },
} as unknown as Queue<WebhookMessage>;

/**
 * Logs a booking.confirmed event of `partnerId` (its deliveries recorded, not enqueued), as a booking's
 * batch would, but with no booking change before it: for tests that drive the log or the consumer alone.
 */
export const logEvent = async (bookingReference: string, now = Date.now(), partnerId = "demo") => {
  const db = database(env.DB);
  const event = newEvent(
    bookingEvents,
    {
      type: "booking.confirmed",
      partnerId,
      bookingReference,
      partnerReference: bookingReference,
      // The documented booking.confirmed payload (the conformance checks hold logged events to it).
      data: { ...bookingChange("success").example, bookingReference, partnerReference: bookingReference },
    },
    now,
  );
  const [first, ...rest] = eventWrites(db, event, { ifChanged: false });
  await db.batch([first!, ...rest]);
  return event;
};
