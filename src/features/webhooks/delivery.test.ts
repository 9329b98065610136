import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, DEMO_KEY, post } from "../../../test/support/api";
import { bookBody, cancelBody, quoteOf, searchOne } from "../../../test/support/booking";
import { createApp } from "../../app";
import { requestServices } from "../../services";
import { NEW_YORK, say, startSession, attachCard } from "../../../test/support/chat";
import { asBearer, createUser, demoAdminToken, loginAs } from "../../../test/support/sessions";
import {
  deliverWebhooks,
  deliveryTimeoutMs,
  MAX_DELIVERY_ATTEMPTS,
  RETRY_DELAYS_SECONDS,
  retryDelays,
} from "./delivery";
import { webhookReenqueue, type WebhookMessage } from "./events";
import { expectLogs } from "../../../test/support/expected-logs";
import {
  bookRefundable,
  logEvent,
  receivedAt,
  refusingQueue,
  signatureIsValid,
  subscribe,
} from "../../../test/support/webhooks";

let admin: string;

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
  admin = await demoAdminToken();
});

// Each test starts without endpoints; queued messages for removed endpoints are acked unsent.
afterEach(async () => {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM webhook_deliveries"),
    env.DB.prepare("DELETE FROM webhook_endpoints"),
  ]);
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
    // The payload is the event of the log (issue 28), as GET /api/events lists it.
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      sequence: expect.any(Number),
      type: "booking.confirmed",
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      bookingReference: booking.bookingReference,
      partnerReference: "wh-confirmed-1",
      data: {
        bookingReference: booking.bookingReference,
        partnerReference: "wh-confirmed-1",
        status: "success",
        chargeTotal: booking.chargeTotal,
        currency: "USD",
        accommodationCode: "US000001",
        checkIn: expect.any(String),
        checkOut: expect.any(String),
        // The booked breakdown, as the book answer gave it.
        rate: booking.rate,
      },
    });

    await vi.waitFor(
      async () => {
        const [delivery] = await deliveriesOf(endpoint.id);
        expect(delivery).toMatchObject({
          eventId: event.id,
          type: "booking.confirmed",
          status: "delivered",
          attempts: 2,
          lastStatusCode: 200,
          nextAttemptAt: null,
        });
      },
      { timeout: 10_000, interval: 100 },
    );

    const again = await asBearer(admin).post(`/api/partner/webhooks/${endpoint.id}/deliveries/${event.id}/redeliver`);
    expect(again.status, again.text).toBe(202);
    expect(again.json.data).toMatchObject({ eventId: event.id, status: "pending" });
    const third = (await receivedAt("confirmed-retry", 3))[2]!;
    expect(third.headers["edgestay-event-id"]).toBe(event.id);
    expect(third.body).toBe(first!.body);
    expect(await signatureIsValid(endpoint.secret, third)).toBe(true);
    await vi.waitFor(
      async () => expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({ status: "delivered", attempts: 3 }),
      { timeout: 10_000, interval: 100 },
    );

    // The secret rotated (an admin's act; a user's token is refused): the next delivery of the same
    // event is signed with the new secret, shown once, and no longer with the old one.
    const { password } = await createUser(admin, "rotate-user@demo.test");
    const user = await loginAs("rotate-user@demo.test", password);
    const refused = await asBearer(user).post(`/api/partner/webhooks/${endpoint.id}/secret`);
    expect([refused.status, refused.json.code]).toEqual([403, "admin_required"]);
    const rotated = await asBearer(admin).post(`/api/partner/webhooks/${endpoint.id}/secret`);
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.json.data).toEqual({
      id: endpoint.id,
      url: endpoint.url,
      events: endpoint.events,
      createdAt: endpoint.createdAt,
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(rotated.json.data.secret).not.toBe(endpoint.secret);
    const listed = await asBearer(admin).get("/api/partner/webhooks");
    expect(JSON.stringify(listed.json)).not.toContain(rotated.json.data.secret);
    const unknown = await asBearer(admin).post("/api/partner/webhooks/wh_nope/secret");
    expect(unknown.status).toBe(404);
    expect(
      (await asBearer(admin).post(`/api/partner/webhooks/${endpoint.id}/deliveries/${event.id}/redeliver`)).status,
    ).toBe(202);
    const fourth = (await receivedAt("confirmed-retry", 4))[3]!;
    expect(fourth.body).toBe(first!.body);
    expect(await signatureIsValid(rotated.json.data.secret, fourth)).toBe(true);
    expect(await signatureIsValid(endpoint.secret, fourth)).toBe(false);
  });
});

describe("retries exhausted on the real queue", () => {
  it(`stops after ${MAX_DELIVERY_ATTEMPTS} attempts (max_retries in wrangler.toml) and marks the delivery failed`, async () => {
    const endpoint = await subscribe(admin, "real-dead-letter", { query: "?fail=99" });
    await bookRefundable("US000004", "wh-dead-1");
    const hooks = await receivedAt("real-dead-letter", MAX_DELIVERY_ATTEMPTS);
    expect(hooks).toHaveLength(MAX_DELIVERY_ATTEMPTS);
    expect(new Set(hooks.map((h) => h.headers["edgestay-event-id"])).size).toBe(1);
    await vi.waitFor(
      async () => {
        expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({
          status: "failed",
          attempts: MAX_DELIVERY_ATTEMPTS,
          lastStatusCode: 500,
          nextAttemptAt: null,
        });
      },
      { timeout: 10_000, interval: 200 },
    );
  }, 45_000);
});

describe("booking.cancelled and chat bookings", () => {
  it("announces a cancellation with its cancelPrice to an endpoint subscribed to booking.cancelled only", async () => {
    const endpoint = await subscribe(admin, "cancel-only", { events: ["booking.cancelled"] });
    const booking = await bookRefundable("US000002", "wh-cancel-1");
    // Not subscribed to booking.confirmed: nothing was recorded for the booking itself.
    expect(await deliveriesOf(endpoint.id)).toEqual([]);
    const cancelled = await post("/api/cancel", cancelBody(booking.bookingReference));
    expect(cancelled.status, cancelled.text).toBe(200);

    const [hook] = await receivedAt("cancel-only", 1);
    expect(await signatureIsValid(endpoint.secret, hook!)).toBe(true);
    const event = JSON.parse(hook!.body);
    expect(event).toMatchObject({
      type: "booking.cancelled",
      data: {
        bookingReference: booking.bookingReference,
        partnerReference: "wh-cancel-1",
        status: "cancelled",
        cancelPrice: cancelled.json.data.cancelPrice.amount,
        chargeTotal: booking.chargeTotal,
      },
    });
    expect(await deliveriesOf(endpoint.id)).toHaveLength(1);
  });

  it("announces a booking made in chat (the same book service)", async () => {
    const endpoint = await subscribe(admin, "chat-booked", { events: ["booking.confirmed"] });
    const id = await startSession("webhook-traveller");
    await say(id, NEW_YORK);
    expect((await say(id, "I'll take the cheapest")).result.status).toBe("guest_name_required");
    const setup = await say(id, "The guest is Ada Lovelace");
    expect(setup.result.status).toBe("payment_setup_required");
    const attached = await attachCard(setup.result.artifacts.payment.setupUrl);
    expect(attached.status, attached.text).toBe(200);
    expect((await say(id, "Done")).result.status).toBe("payment_confirmation_required");
    const booked = await say(id, "Yes");
    expect(booked.result.status).toBe("booked");

    const [hook] = await receivedAt("chat-booked", 1);
    expect(await signatureIsValid(endpoint.secret, hook!)).toBe(true);
    const event = JSON.parse(hook!.body);
    expect(event).toMatchObject({
      type: "booking.confirmed",
      bookingReference: booked.result.artifacts.booking.bookingId,
      partnerReference: `chat-${id}-1`,
      data: {
        bookingReference: booked.result.artifacts.booking.bookingId,
        partnerReference: `chat-${id}-1`,
        status: "success",
      },
    });
    // The chat booking is in the partner's event log, as delivered.
    const log = await call("GET", `/api/events?after=${event.sequence - 1}&limit=1`);
    expect(log.json.data.events).toEqual([event]);
  });
});

describe("when the queue refuses the message", () => {
  it("still books, records the event as not enqueued, and the upkeep task enqueues it later", async () => {
    const endpoint = await subscribe(admin, "refused-then-reenqueued");
    const warnings = expectLogs("warn");
    // The app as deployed, but with booking's services announcing to a queue that refuses everything.
    const app = createApp({
      services: (bindings) => {
        const services = requestServices(bindings);
        return { ...services, booking: { ...services.booking, webhookQueue: refusingQueue } };
      },
    });
    const quote = await quoteOf(await searchOne("US000003", { pick: (o) => o.isRefundable }));
    const response = await app.request(
      "/api/book",
      {
        method: "POST",
        headers: { "content-type": "application/json", "api-key": DEMO_KEY },
        body: JSON.stringify(bookBody(quote, "wh-refused-1")),
      },
      env,
    );
    const booked = ((await response.json()) as { data: { bookingReference: string } }).data;
    expect([response.status, booked]).toMatchObject([200, { status: "success", partnerReference: "wh-refused-1" }]);
    const stored = await env.DB.prepare("SELECT status FROM bookings WHERE reference = ?")
      .bind(booked.bookingReference)
      .first<{ status: string }>();
    expect(stored?.status).toBe("success");
    expect(warnings.join("\n")).toContain("webhook deliveries not enqueued");

    const pending = () =>
      env.DB.prepare("SELECT event_id, enqueued_at FROM webhook_deliveries WHERE endpoint_id = ?")
        .bind(endpoint.id)
        .all<{ event_id: string; enqueued_at: string | null }>();
    expect((await pending()).results).toEqual([{ event_id: expect.stringMatching(/^evt_/), enqueued_at: null }]);
    // Too fresh (the request may still be enqueueing it), then due.
    expect(await webhookReenqueue.run(env, new Date())).toBe(0);
    expect(await webhookReenqueue.run(env, new Date(Date.now() + 2 * 60_000))).toBe(1);
    expect((await pending()).results[0]!.enqueued_at).not.toBeNull();
    expect(await webhookReenqueue.run(env, new Date(Date.now() + 2 * 60_000))).toBe(0);

    const [hook] = await receivedAt("refused-then-reenqueued", 1);
    expect(JSON.parse(hook!.body).data.bookingReference).toBe(booked.bookingReference);
    expect(await signatureIsValid(endpoint.secret, hook!)).toBe(true);
  });
});

describe("the consumer's retry schedule and dead-letter queue", () => {
  /** Records an event for the endpoint without enqueueing it, so the test alone drives the consumer. */
  const recordedEvent = async (bookingReference: string) => (await logEvent(bookingReference)).id;
  /**
   * The real queue's retries come at once here (vitest.config.ts); the consumer driven directly
   * gets a local schedule of its own, so the waits it asks for are seen.
   */
  const scheduled: Env = { ...env, WEBHOOK_RETRY_DELAYS_SECONDS: "5,10,15,20,25,30" };
  /**
   * One batch through the consumer. getQueueResult (pool 0.15.1) reports retried messages without
   * their delaySeconds, so the retry() calls are watched too (the spy calls through).
   */
  const consume = async (message: WebhookMessage, attempts: number, vars: Env = scheduled) => {
    const batch = createMessageBatch<WebhookMessage>("edgestay-webhooks", [
      { id: `msg-${attempts}`, timestamp: new Date(), attempts, body: message },
    ]);
    const retry = vi.spyOn(batch.messages[0]!, "retry");
    const ctx = createExecutionContext();
    await deliverWebhooks(batch, vars);
    return { ...(await getQueueResult(batch, ctx)), retryCalls: retry.mock.calls };
  };

  it("waits longer after each failure, at least 6 attempts over about an hour, in a deploy", () => {
    expect(retryDelays({ ...env, ENVIRONMENT: "production" })).toEqual(RETRY_DELAYS_SECONDS);
    expect(MAX_DELIVERY_ATTEMPTS).toBeGreaterThanOrEqual(6);
    const total = RETRY_DELAYS_SECONDS.reduce((sum, s) => sum + s, 0);
    expect(total).toBeGreaterThanOrEqual(50 * 60);
    expect(total).toBeLessThanOrEqual(90 * 60);
    expect([...RETRY_DELAYS_SECONDS].sort((a, b) => a - b)).toEqual([...RETRY_DELAYS_SECONDS]);
  });

  it("records each failed attempt with its status and next try, then parks the last one in the dead-letter queue", async () => {
    const endpoint = await subscribe(admin, "always-failing", { query: "?fail=99" });
    const eventId = await recordedEvent("BK-DLQ-1");
    const message = { eventId, endpointId: endpoint.id };
    const delays = retryDelays(scheduled);
    expect(delays[0]).toBe(5);

    const before = Date.now();
    const first = await consume(message, 1);
    expect(first.retryMessages).toEqual([{ msgId: "msg-1" }]);
    expect(first.retryCalls).toEqual([[{ delaySeconds: delays[0] }]]);
    expect(first.explicitAcks).toEqual([]);
    const [afterFirst] = await deliveriesOf(endpoint.id);
    expect(afterFirst).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 500, lastError: "HTTP 500" });
    expect(Date.parse(afterFirst.nextAttemptAt)).toBeGreaterThanOrEqual(before + delays[0]! * 1000);

    const last = await consume(message, MAX_DELIVERY_ATTEMPTS);
    // retry() without a delay past max_retries: the runtime moves the message to the dead-letter queue.
    expect(last.retryMessages).toEqual([{ msgId: `msg-${MAX_DELIVERY_ATTEMPTS}` }]);
    expect(last.retryCalls).toEqual([[]]);
    expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({
      status: "failed",
      attempts: 2,
      lastStatusCode: 500,
      nextAttemptAt: null,
    });
    expect(await receivedAt("always-failing", 2)).toHaveLength(2);

    // A stray duplicate of a parked delivery is acknowledged without sending.
    const duplicate = await consume(message, 1);
    expect(duplicate.explicitAcks).toEqual(["msg-1"]);
    expect(await receivedAt("always-failing", 2)).toHaveLength(2);
  });

  it("gives up on an endpoint that does not answer within the delivery timeout (10 s in a deploy) and retries it", async () => {
    expect(deliveryTimeoutMs({ ...env, ENVIRONMENT: "production", WEBHOOK_DELIVERY_TIMEOUT_MS: "300" })).toBe(10_000);
    expect(deliveryTimeoutMs(env)).toBe(10_000);
    // The receiver answers ?hang=1 after 15 s; locally the timeout can be shorter, so the test is.
    const endpoint = await subscribe(admin, "hanging", { query: "?hang=1" });
    const eventId = await recordedEvent("BK-HANG-1");
    const started = Date.now();
    const result = await consume({ eventId, endpointId: endpoint.id }, 1, {
      ...scheduled,
      WEBHOOK_DELIVERY_TIMEOUT_MS: "300",
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.retryCalls).toEqual([[{ delaySeconds: retryDelays(scheduled)[0] }]]);
    expect((await deliveriesOf(endpoint.id))[0]).toMatchObject({
      status: "pending",
      attempts: 1,
      lastStatusCode: null,
      lastError: "no answer within 0.3 s",
    });
  });

  it("acknowledges, without sending, a message whose endpoint was deleted", async () => {
    const result = await consume({ eventId: "evt_gone", endpointId: "wh_gone" }, 1);
    expect(result.explicitAcks).toEqual(["msg-1"]);
    expect(result.retryMessages).toEqual([]);
  });
});
