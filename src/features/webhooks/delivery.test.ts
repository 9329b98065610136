import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { seedDemoAccommodations } from "../../../scripts/demo/seed";
import { post } from "../../../test/api";
import { bookBody, cancelBody, quoteOf, searchOne } from "../booking/booking-test-kit";
import { bookQuote } from "../booking/book";
import { coreConnection } from "../booking/connection-access";
import { bookingDeps } from "../booking/deps";
import type { BookRequest } from "../booking/schemas";
import { attachBody, NEW_YORK, say, startSession, tokenOf } from "../chat/chat-test-kit";
import { asBearer, demoAdminToken } from "../partners/test-sessions";
import { deliverWebhooks, MAX_DELIVERY_ATTEMPTS, RETRY_DELAYS_SECONDS, retryDelays } from "./delivery";
import { announceBookingChange, webhookReenqueue, type WebhookMessage } from "./events";
import { bookRefundable, receivedAt, refusingQueue, signatureIsValid, subscribe } from "./webhook-test-kit";

let admin: string;

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
  admin = await demoAdminToken();
});

// Each test starts without endpoints; queued messages for removed endpoints are acked unsent.
afterEach(async () => {
  await env.DB.batch([env.DB.prepare("DELETE FROM webhook_deliveries"), env.DB.prepare("DELETE FROM webhook_endpoints")]);
});

const deliveriesOf = async (endpointId: string) => {
  const res = await asBearer(admin).get(`/api/partner/webhooks/${endpointId}/deliveries`);
  expect(res.status, res.text).toBe(200);
  return res.json.data.deliveries as any[];
};

describe("booking webhooks through the real queue", () => {
  it("POSTs a signed booking.confirmed within 10 s, retries it after a 500, and redelivers on request", async () => {
    const endpoint = await subscribe(admin, "confirmed-retry", { query: "?fail=1" });
    const booking = await bookRefundable("US000001", "wh-confirmed-1");
    const bookedAt = Date.now();

    const [first, second] = await receivedAt("confirmed-retry", 2);
    expect(first!.answeredStatus).toBe(500);
    expect(second!.answeredStatus).toBe(200);
    expect(first!.receivedAt - bookedAt).toBeLessThan(10_000);
    for (const hook of [first!, second!]) {
      expect(await signatureIsValid(endpoint.secret, hook)).toBe(true);
      expect(hook.headers["content-type"]).toBe("application/json");
    }
    // The same event, byte for byte; a wrong secret does not verify it.
    expect(second!.body).toBe(first!.body);
    expect(await signatureIsValid(`whsec_${"A".repeat(43)}`, second!)).toBe(false);
    const event = JSON.parse(second!.body);
    expect(second!.headers["edgestay-event-id"]).toBe(event.id);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: "booking.confirmed",
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      data: {
        bookingReference: booking.bookingReference,
        partnerReference: "wh-confirmed-1",
        status: "success",
        chargeTotal: booking.chargeTotal,
        currency: "USD",
        accommodationCode: "US000001",
        checkIn: expect.any(String),
        checkOut: expect.any(String),
      },
    });

    await vi.waitFor(async () => {
      const [delivery] = await deliveriesOf(endpoint.id);
      expect(delivery).toMatchObject({ eventId: event.id, type: "booking.confirmed", status: "delivered", attempts: 2, lastStatusCode: 200, nextAttemptAt: null });
    }, { timeout: 10_000, interval: 100 });

    const again = await asBearer(admin).post(`/api/partner/webhooks/${endpoint.id}/deliveries/${event.id}/redeliver`);
    expect(again.status, again.text).toBe(202);
    expect(again.json.data).toMatchObject({ eventId: event.id, status: "pending" });
    const third = (await receivedAt("confirmed-retry", 3))[2]!;
    expect(third.headers["edgestay-event-id"]).toBe(event.id);
    expect(third.body).toBe(first!.body);
    expect(await signatureIsValid(endpoint.secret, third)).toBe(true);
    await vi.waitFor(async () => expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({ status: "delivered", attempts: 3 }), { timeout: 10_000, interval: 100 });
  });
});
