import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, DEMO_KEY, post } from "../../../test/support/api";
import { bookBody, cancelBody, quoteOf, searchOne } from "../../../test/support/booking";
import { createApp } from "../../app";
import { requestServices } from "../../services";
import { NEW_YORK, say, startSession, attachCard } from "../../../test/support/chat";
import { asBearer, createUser, demoAdminToken, loginAs, otherAdminToken } from "../../../test/support/sessions";
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
  RECEIVER,
} from "../../../test/support/webhooks";
import { MAX_ENDPOINTS_PER_PARTNER } from "./endpoints";

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

describe("the endpoint routes", () => {
  const BOTH = ["booking.confirmed", "booking.cancelled"];
  let demo: ReturnType<typeof asBearer>;
  let other: ReturnType<typeof asBearer>;
  let demoUser: ReturnType<typeof asBearer>;

  beforeAll(async () => {
    const adminToken = await demoAdminToken();
    demo = asBearer(adminToken);
    other = asBearer(await otherAdminToken());
    const { profile, password } = await createUser(adminToken, "agent@webhooks.test", "user");
    demoUser = asBearer(await loginAs(profile.email, password));
  });

  const demoAuthHeader = async () => `Bearer ${await demoAdminToken()}`;

  const create = (
    as: ReturnType<typeof asBearer>,
    url = "https://partner.example/hooks/edgestay",
    events: unknown = BOTH,
  ) => as.post("/api/partner/webhooks", { url, events });

  describe("POST /api/partner/webhooks", () => {
    it("creates an endpoint and shows its whsec_ secret in this answer only, sealed at rest", async () => {
      const res = await create(demo);
      expect(res.status, res.text).toBe(201);
      expect(res.json).toEqual({
        data: {
          id: expect.stringMatching(/^wh_[0-9a-f]{32}$/),
          url: "https://partner.example/hooks/edgestay",
          events: BOTH,
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
          createdAt: expect.any(String),
        },
        message: "success",
      });
      const { id, secret } = res.json.data;

      const list = await demo.get("/api/partner/webhooks");
      expect(list.status).toBe(200);
      expect(list.json.data).toContainEqual({
        id,
        url: "https://partner.example/hooks/edgestay",
        events: BOTH,
        createdAt: res.json.data.createdAt,
      });
      expect(list.text).not.toContain("whsec_");

      const row = await env.DB.prepare("SELECT * FROM webhook_endpoints WHERE id = ?")
        .bind(id)
        .first<Record<string, string>>();
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(JSON.stringify(row)).not.toContain(secret.slice(6));
      expect(row!.sealed_secret).toMatch(/^v1\./);
    });

    it("refuses a user who is not a partner admin with 403, on every webhook route", async () => {
      const own = (await create(demo)).json.data.id;
      for (const res of [
        await create(demoUser),
        await demoUser.get("/api/partner/webhooks"),
        await demoUser.del(`/api/partner/webhooks/${own}`),
        await demoUser.get(`/api/partner/webhooks/${own}/deliveries`),
        await demoUser.post(`/api/partner/webhooks/${own}/deliveries/evt_x/redeliver`),
      ]) {
        expect(res.status).toBe(403);
        expect(res.json.message).toBe("Require partner admin role");
      }
      expect((await call("GET", "/api/partner/webhooks", undefined, { apiKey: null })).status).toBe(401);
      expect((await call("GET", "/api/partner/webhooks", undefined, { apiKey: DEMO_KEY })).status).toBe(401);
    });

    it.each([
      ["http://partner.example/hooks", "url must use https"],
      ["ftp://partner.example/hooks", "url must use https"],
      ["not a url", "url must be an absolute URL"],
      ["https://user:pass@partner.example/hooks", "url must not contain credentials"],
      ["https://localhost/hooks", "url must not point to a local host name"],
      ["https://api.localhost/hooks", "url must not point to a local host name"],
      ["https://intranet/hooks", "url must not point to a local host name"],
      ["https://10.1.2.3/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://172.20.0.1/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://192.168.1.10/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://127.0.0.1/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://2130706433/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://169.254.169.254/latest/meta-data", "url must not point to a private, loopback or link-local address"],
      ["https://[::1]/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://[::ffff:10.0.0.1]/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://[fd00::1]/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://[fe80::1]/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://[64:ff9b::a9fe:a9fe]/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://[2002:a9fe:a9fe::]/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://[fec0::1]/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://192.0.2.1/hooks", "url must not point to a private, loopback or link-local address"],
      ["https://partner.example:0/hooks", "url must not use port 0"],
      ["http://127.0.0.1/hooks", "url must use https"],
      ["http://localhost:8080/hooks", "url must use https"],
    ])("refuses %s with 400", async (url, message) => {
      const res = await create(demo, url);
      expect(res.status, res.text).toBe(400);
      expect(res.json).toMatchObject({ message, code: "invalid_webhook_url" });
    });

    it("accepts http://127.0.0.1:<port> in local development only", async () => {
      const res = await create(demo, `${RECEIVER}/hooks/local-only`);
      expect(res.status, res.text).toBe(201);
      expect(res.json.data.url).toBe(`${RECEIVER}/hooks/local-only`);
    });

    it.each([
      [{ url: "https://partner.example/h" }, "events is required"],
      [{ url: "https://partner.example/h", events: [] }, "events: Too small: expected array to have >=1 items"],
      [
        { url: "https://partner.example/h", events: ["booking.created"] },
        'events[0]: Invalid option: expected one of "booking.confirmed"|"booking.pending"|"booking.failed"|"booking.held"|"booking.hold_expired"|"booking.committed"|"booking.modified"|"booking.room_cancelled"|"booking.cancelled"',
      ],
      [
        { url: "https://partner.example/h", events: "booking.confirmed" },
        "events: Invalid input: expected array, received string",
      ],
      [
        { url: "https://partner.example/h", events: ["booking.confirmed", "booking.confirmed"] },
        "events: must not repeat an event type",
      ],
      [{ events: BOTH }, "url is required"],
      [{ url: 42, events: BOTH }, "url: Invalid input: expected string, received number"],
    ])("refuses body %j with 400", async (body, message) => {
      const res = await demo.post("/api/partner/webhooks", body);
      expect(res.status, res.text).toBe(400);
      expect(res.json.message).toBe(message);
    });

    it("refuses malformed JSON with 400", async () => {
      const res = await call("POST", "/api/partner/webhooks", undefined, {
        apiKey: null,
        raw: '{"url": "https://x.example",',
        headers: { authorization: await demoAuthHeader(), "content-type": "application/json" },
      });
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("Malformed JSON in request body");
    });

    it(`caps a partner at ${MAX_ENDPOINTS_PER_PARTNER} endpoints, even under parallel requests`, async () => {
      const before = (await other.get("/api/partner/webhooks")).json.data.length;
      const results = await Promise.all(
        Array.from({ length: MAX_ENDPOINTS_PER_PARTNER + 4 }, (_, i) =>
          create(other, `https://other.example/hooks/${i}`),
        ),
      );
      const created = results.filter((r) => r.status === 201).length;
      expect(created).toBe(MAX_ENDPOINTS_PER_PARTNER - before);
      for (const refused of results.filter((r) => r.status !== 201)) {
        expect(refused.status).toBe(409);
        expect(refused.json.message).toBe(`A partner can have at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints`);
      }
      expect((await other.get("/api/partner/webhooks")).json.data).toHaveLength(MAX_ENDPOINTS_PER_PARTNER);
      await env.DB.prepare("DELETE FROM webhook_endpoints WHERE partner_id = 'other'").run();
    });
  });

  describe("another partner's endpoint", () => {
    it("is 404 on delete, deliveries and redeliver, and absent from the list", async () => {
      const mine = (await create(demo, "https://partner.example/hooks/isolated")).json.data.id;
      for (const res of [
        await other.del(`/api/partner/webhooks/${mine}`),
        await other.get(`/api/partner/webhooks/${mine}/deliveries`),
        await other.post(`/api/partner/webhooks/${mine}/deliveries/evt_x/redeliver`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.json.message).toBe("Webhook endpoint not found");
      }
      expect((await other.get("/api/partner/webhooks")).json.data.map((w: any) => w.id)).not.toContain(mine);
      expect((await demo.get("/api/partner/webhooks")).json.data.map((w: any) => w.id)).toContain(mine);
    });
  });

  describe("DELETE /api/partner/webhooks/:id", () => {
    it("deletes the endpoint and its delivery records; a second delete is 404", async () => {
      const id = (await create(demo, "https://partner.example/hooks/deleted")).json.data.id;
      await logEvent("BK-DEL-1");
      expect((await demo.get(`/api/partner/webhooks/${id}/deliveries`)).json.data.deliveries.length).toBeGreaterThan(0);
      const res = await demo.del(`/api/partner/webhooks/${id}`);
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual({
        id,
        url: "https://partner.example/hooks/deleted",
        events: BOTH,
        createdAt: expect.any(String),
      });
      expect((await demo.get("/api/partner/webhooks")).json.data.map((w: any) => w.id)).not.toContain(id);
      expect(
        (await env.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?")
          .bind(id)
          .first<{ n: number }>())!.n,
      ).toBe(0);
      const again = await demo.del(`/api/partner/webhooks/${id}`);
      expect(again.status).toBe(404);
    });
  });

  describe("GET /api/partner/webhooks/:id/deliveries", () => {
    it("pages newest first with a cursor, showing attempts, last status code and next try", async () => {
      await env.DB.prepare("DELETE FROM webhook_endpoints WHERE partner_id = 'demo'").run();
      const id = (await create(demo, "https://partner.example/hooks/paged")).json.data.id;
      const start = Date.parse("2030-01-01T00:00:00.000Z");
      for (let i = 0; i < 5; i++) await logEvent(`BK-PAGE-${i}`, start + i * 1000);

      const first = await demo.get(`/api/partner/webhooks/${id}/deliveries?limit=2`);
      expect(first.status, first.text).toBe(200);
      expect(first.json.data.deliveries.map((d: any) => d.bookingReference)).toEqual(["BK-PAGE-4", "BK-PAGE-3"]);
      expect(first.json.data.deliveries[0]).toEqual({
        eventId: expect.stringMatching(/^evt_/),
        type: "booking.confirmed",
        bookingReference: "BK-PAGE-4",
        status: "pending",
        attempts: 0,
        lastStatusCode: null,
        lastError: null,
        lastAttemptAt: null,
        nextAttemptAt: "2030-01-01T00:00:04.000Z",
        deliveredAt: null,
        createdAt: "2030-01-01T00:00:04.000Z",
      });
      const second = await demo.get(
        `/api/partner/webhooks/${id}/deliveries?limit=2&cursor=${first.json.data.nextCursor}`,
      );
      expect(second.json.data.deliveries.map((d: any) => d.bookingReference)).toEqual(["BK-PAGE-2", "BK-PAGE-1"]);
      const third = await demo.get(
        `/api/partner/webhooks/${id}/deliveries?limit=2&cursor=${second.json.data.nextCursor}`,
      );
      expect(third.json.data).toEqual({
        deliveries: [expect.objectContaining({ bookingReference: "BK-PAGE-0" })],
        nextCursor: null,
      });
    });

    it("refuses a bad cursor or limit with 400, and an unknown event on redeliver with 404", async () => {
      const id = (await create(demo, "https://partner.example/hooks/bad-page")).json.data.id;
      for (const query of ["cursor=%21%21", "cursor=bm9wZQ", "limit=0", "limit=101", "limit=ten"]) {
        const res = await demo.get(`/api/partner/webhooks/${id}/deliveries?${query}`);
        expect(res.status, query).toBe(400);
      }
      const unknown = await demo.post(`/api/partner/webhooks/${id}/deliveries/evt_nope/redeliver`);
      expect(unknown.status).toBe(404);
      expect(unknown.json.message).toBe("Webhook event not found");
    });
  });

  describe("OpenAPI", () => {
    it("describes every webhook route", async () => {
      const doc = (await call("GET", "/openapi.json")).json;
      expect(Object.keys(doc.paths["/api/partner/webhooks"]).sort()).toEqual(["get", "post"]);
      expect(Object.keys(doc.paths["/api/partner/webhooks/{id}"])).toEqual(["delete"]);
      expect(Object.keys(doc.paths["/api/partner/webhooks/{id}/deliveries"])).toEqual(["get"]);
      expect(Object.keys(doc.paths["/api/partner/webhooks/{id}/deliveries/{eventId}/redeliver"])).toEqual(["post"]);
      expect(doc.paths["/api/partner/webhooks"].post.security).toEqual([{ Bearer: [] }]);
      expect(
        doc.paths["/api/partner/webhooks"].post.responses["201"].content["application/json"].schema.properties.data,
      ).toEqual({ $ref: "#/components/schemas/CreatedWebhook" });
      expect(JSON.stringify(doc.components.schemas.CreatedWebhook)).toContain('"secret"');
      expect(JSON.stringify(doc.components.schemas.Webhook)).not.toContain("secret");
    });
  });
});
