import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, DEMO_KEY, OTHER_KEY, post } from "../../../test/support/api";
import { readOptionId } from "../booking/option-token";
import { toMinor } from "../../platform/money";
import { stayNights } from "../../platform/time/zoned-time";
import {
  act,
  attachBody,
  chat,
  CHAT,
  NEW_YORK,
  say,
  startSession,
  tokenOf,
  attachCard,
} from "../../../test/support/chat";
import { keyring } from "../../platform/crypto/keyring";
import { SESSION_RETENTION_MS, type ChatSession } from "./chat-session";
import { seedSandboxHotels } from "../../../test/support/seed";
import { bookingByClientReference, cancel } from "../supply/hotelx/client";
import { settlePendingBookingsTask } from "../booking/settle-pending";
import { inDays } from "../../../test/support/clock";
import { demoUpstreamUrl, sandboxAccess } from "../../../test/support/hotelx";
import { OPERATOR } from "../../../test/support/sessions";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
});

const expectChatHeaders = (res: { headers: Headers }, partnerId: string | null) => {
  expect(res.headers.get("x-request-id")).toBeTruthy();
  expect(Number(res.headers.get("x-ratelimit-limit"))).toBeGreaterThan(0);
  expect(res.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
  expect(res.headers.get("x-partner-id")).toBe(partnerId);
};

/** An actor with a saved card, through the real setup flow (one setup URL, one attach). */
const actorWithCard = async (actorId: string) => {
  const id = await startSession(actorId);
  await say(id, NEW_YORK);
  await say(id, "book the first one");
  const setup = await say(id, "Alan Turing");
  if (setup.result.status !== "payment_setup_required") return;
  const attached = await attachCard(setup.result.artifacts.payment.setupUrl, {
    cardBrand: "mastercard",
    cardLast4: "4444",
  });
  expect(attached.status).toBe(200);
  return attached.json.data.paymentMethod.paymentMethodId as string;
};

describe("chat authentication (section 5) and error bodies (section 7)", () => {
  it("accepts x-partner-api-key, Authorization: Bearer and api-key", async () => {
    const body = { actor: { actorId: "a-1" } };
    const forms: Array<Record<string, string>> = [
      { "x-partner-api-key": DEMO_KEY },
      { authorization: `Bearer ${DEMO_KEY}` },
      { "api-key": DEMO_KEY },
    ];
    for (const headers of forms) {
      const res = await chat("POST", "/sessions", body, { key: null, headers });
      expect(res.status).toBe(201);
      expect(res.json.data.tenantId).toBe("demo");
      expect(res.json.data.actor).toEqual({ actorId: "a-1", timezoneOffsetMinutes: 0 });
      expectChatHeaders(res, "demo");
    }
  });

  it("401 for a missing key and 403 for an invalid one, with the exact chat bodies and rate headers", async () => {
    const missing = await chat("POST", "/sessions", { actor: { actorId: "a" } }, { key: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      success: false,
      error: "Missing partner API key.",
      code: "missing_partner_api_key",
      details: null,
      requestId: missing.headers.get("x-request-id"),
    });
    expectChatHeaders(missing, null);
    const invalid = await chat("GET", "/sessions/cs_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", undefined, { key: "not-a-key" });
    expect(invalid.status).toBe(403);
    expect(invalid.json).toEqual({
      success: false,
      error: "Invalid partner API key.",
      code: "invalid_partner_api_key",
      details: null,
      requestId: invalid.headers.get("x-request-id"),
    });
    expectChatHeaders(invalid, null);
    const badBearer = await chat("POST", "/events", {}, { key: null, headers: { authorization: "Bearer wrong" } });
    expect(badBearer.status).toBe(403);
  });

  it("renders validation, malformed JSON, unknown routes and wrong content types in the chat body, with all headers", async () => {
    const malformed = await chat("POST", "/events", undefined, {
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({
      success: false,
      error: "Malformed JSON in request body",
      code: "malformed_json",
      details: null,
    });
    expectChatHeaders(malformed, "demo");
    const noActor = await chat("POST", "/sessions", {});
    expect(noActor.status).toBe(400);
    expect(noActor.json).toMatchObject({
      success: false,
      error: "actor is required",
      code: "invalid_request",
      details: { issues: expect.any(Array) },
    });
    const wrongType = await chat("POST", "/sessions", { actor: { actorId: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.error).toMatch(/^actor\.actorId/);
    const badOffset = await chat("POST", "/sessions", { actor: { actorId: "x", timezoneOffsetMinutes: 5000 } });
    expect(badOffset.status).toBe(400);
    const textType = await chat("POST", "/sessions", undefined, {
      raw: "hello",
      headers: { "content-type": "text/plain" },
    });
    expect(textType.status).toBe(400);
    expect(textType.json.success).toBe(false);
    const huge = await chat("POST", "/events", { sessionId: "cs_x", text: "x".repeat(1024 * 1024 + 10) });
    expect(huge.status).toBe(413);
    expect(huge.json).toMatchObject({ success: false, code: "body_too_large" });
    const nowhere = await chat("GET", "/nothing");
    expect(nowhere.status).toBe(404);
    expect(nowhere.json).toMatchObject({ success: false, code: "not_found", details: null });
  });

  it("checks events: text or a kind, a known kind, a session id, an idempotencyKey for write kinds, a valid payload", async () => {
    const id = await startSession("events-1");
    const empty = await chat("POST", "/events", { sessionId: id });
    expect(empty.status).toBe(400);
    expect(empty.json.error).toBe("text is required for kind=search_query");
    const badKind = await chat("POST", "/events", { sessionId: id, kind: "action_teleport" });
    expect(badKind.status).toBe(400);
    expect(badKind.json.error).toMatch(/^kind/);
    const badSession = await chat("POST", "/events", { sessionId: "session-1", text: "hi" });
    expect(badSession.status).toBe(400);
    for (const kind of [
      "command_book_by_option_id",
      "action_book_option",
      "action_confirm_price_change",
      "action_confirm_payment_card",
      "action_cancel_booking",
    ]) {
      const res = await act(id, kind, {});
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        success: false,
        error: `idempotencyKey is required for kind=${kind}`,
        code: "idempotency_key_required",
        details: null,
        requestId: res.headers.get("x-request-id"),
      });
    }
    const noOption = await act(id, "action_book_option", {}, "k-1");
    expect(noOption.status).toBe(400);
    expect(noOption.json.error).toBe("payload.optionId is required");
    const badAccept = await act(id, "action_confirm_price_change", { accept: "yes" }, "k-2");
    expect(badAccept.status).toBe(400);
    const forged = await act(id, "command_book_by_option_id", { optionId: "forged" }, "k-3");
    expect(forged.status).toBe(400);
    expect(forged.json.error).toBe("Option reference expired or invalid");
    const wrongState = await act(id, "action_confirm_payment_card", { paymentMethodId: "pm_x" }, "k-4");
    expect(wrongState.status).toBe(409);
    expect(wrongState.json.code).toBe("invalid_session_state");
    // Errors leave no trace in the session.
    expect((await chat("GET", `/sessions/${id}`)).json.data.events).toEqual([]);
  });

  it("refuses what a kind would leave unread: a payload key it does not take, a payload beside text, text beside an action", async () => {
    const id = await startSession("events-unread");
    const cases: Array<[unknown, string]> = [
      [
        {
          sessionId: id,
          kind: "action_book_option",
          payload: { optionId: "o-1", guest: { firstName: "A", lastName: "B" } },
          idempotencyKey: "u-1",
        },
        "Unknown field: payload.guest",
      ],
      [
        { sessionId: id, text: "a hotel in New York", payload: { checkIn: "2027-03-10" } },
        "payload is not supported for kind=search_query; send text only",
      ],
      [
        {
          sessionId: id,
          kind: "action_cancel_booking",
          text: "cancel it",
          payload: { bookingId: "BK1" },
          idempotencyKey: "u-2",
        },
        "text is not supported for kind=action_cancel_booking; send payload only",
      ],
    ];
    for (const [body, error] of cases) {
      const res = await chat("POST", "/events", body);
      expect([res.status, res.json.code, res.json.error]).toEqual([400, "invalid_request", error]);
    }
    expect((await chat("GET", `/sessions/${id}`)).json.data.events).toEqual([]);
  });

  it("refuses raw card numbers in chat events and records nothing", async () => {
    const id = await startSession("card-in-chat");
    const inText = await chat("POST", "/events", { sessionId: id, text: "my card is 4242 4242 4242 4242 exp 12/30" });
    expect(inText.status).toBe(400);
    expect(inText.json.code).toBe("raw_card_data_refused");
    expect(inText.text).not.toContain("4242 4242");
    const inPayload = await act(
      id,
      "action_confirm_payment_card",
      { paymentMethodId: "pm_x", cardNumber: "5555555555554444" },
      "k",
    );
    expect(inPayload.status).toBe(400);
    expect(inPayload.json.details).toEqual({ field: "payload.cardNumber" });
    expect((await chat("GET", `/sessions/${id}`)).json.data.events).toEqual([]);
  });
});

describe("sessions belong to one partner and one actor", () => {
  it("another partner's session is 404 session_not_found on read and on events", async () => {
    const id = await startSession("owner-actor");
    const read = await chat("GET", `/sessions/${id}`, undefined, { key: OTHER_KEY });
    expect(read.status).toBe(404);
    expect(read.json).toEqual({
      success: false,
      error: "session_not_found",
      code: "session_not_found",
      details: { error: "session_not_found" },
      requestId: read.headers.get("x-request-id"),
    });
    expectChatHeaders(read, "other");
    const event = await chat("POST", "/events", { sessionId: id, text: NEW_YORK }, { key: OTHER_KEY });
    expect(event.status).toBe(404);
    expect(event.json.details).toEqual({ error: "session_not_found" });
    const unknown = await chat("GET", `/sessions/cs_${"a".repeat(32)}`);
    expect(unknown.status).toBe(404);
    const junk = await chat("GET", "/sessions/whatever");
    expect(junk.status).toBe(404);
    expect((await chat("GET", `/sessions/${id}`)).json.data.events).toEqual([]);
  });

  it("a different actor.actorId is 403 actor_mismatch; the same or no actor is accepted", async () => {
    const id = await startSession("actor-a");
    const other = await chat("POST", "/events", { sessionId: id, actor: { actorId: "actor-b" }, text: NEW_YORK });
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ success: false, code: "actor_mismatch", details: { error: "actor_mismatch" } });
    const same = await chat("POST", "/events", { sessionId: id, actor: { actorId: "actor-a" }, text: NEW_YORK });
    expect(same.status).toBe(200);
    expect(same.json.data.result.traceId).toBe(same.headers.get("x-request-id"));
    expectChatHeaders(same, "demo");
  });
});

describe("explicit actions (section 6)", () => {
  it("command_book_by_option_id with a guest, then action_confirm_payment_card: replays never book twice", async () => {
    const pm = await actorWithCard("actions-actor");
    expect(pm).toMatch(/^pm_/);
    // An option id straight from POST /api/search.
    const search = await post("/api/search", {
      searchCriteria: {
        destinations: { accommodations: [{ code: "US000040" }] },
        occupancies: [{ paxes: [{ age: 30 }] }],
        checkIn: NEW_YORK.split(" ").at(-3),
        checkOut: NEW_YORK.split(" ").at(-1),
      },
      settings: { access: { code: 1001 } },
    });
    const option = search.json.data.accommodations[0].options[0];
    const id = await startSession("actions-actor");
    const chosen = await act(
      id,
      "command_book_by_option_id",
      { optionId: option.id, guest: { firstName: "Katherine", lastName: "Johnson" } },
      "choose-1",
    );
    expect(chosen.status).toBe(200);
    expect(chosen.json.data.event.kind).toBe("command_book_by_option_id");
    expect(chosen.json.data.result.status).toBe("payment_confirmation_required");
    expect(chosen.json.data.result.artifacts.payment).toMatchObject({
      paymentMethodId: pm,
      cardBrand: "mastercard",
      cardLast4: "4444",
    });

    const foreignCard = await act(id, "action_confirm_payment_card", { paymentMethodId: "pm_notmine12345" }, "pay-x");
    expect(foreignCard.status).toBe(400);
    expect(foreignCard.json.code).toBe("payment_method_not_found");

    const [first, second] = await Promise.all([
      act(id, "action_confirm_payment_card", { paymentMethodId: pm }, "pay-1"),
      act(id, "action_confirm_payment_card", { paymentMethodId: pm }, "pay-1"),
    ]);
    // One does the work; the other replays it, or is told the key is in use while the work runs.
    const [done, other] =
      first.headers.get("idempotent-replayed") === null && first.status === 200 ? [first, second] : [second, first];
    expect(done.status).toBe(200);
    expect(done.json.data.result.status).toBe("booked");
    if (other.status === 409) {
      expect(other.json.code).toBe("idempotency_key_in_use");
      expect(other.headers.get("retry-after")).toBe("1");
    } else {
      expect(other.json).toEqual(done.json);
      expect(other.headers.get("idempotent-replayed")).toBe("true");
    }
    const replay = await act(id, "action_confirm_payment_card", { paymentMethodId: pm }, "pay-1");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json).toEqual(done.json);
    const misuse = await act(id, "action_confirm_payment_card", { paymentMethodId: "pm_other123456" }, "pay-1");
    expect(misuse.status).toBe(409);
    expect(misuse.json.code).toBe("idempotency_key_reused");
    const { results } = await env.DB.prepare(
      "SELECT reference, holder, charge_total FROM bookings WHERE partner_reference LIKE ?",
    )
      .bind(`chat-${id}-%`)
      .all<{ reference: string; holder: string; charge_total: number }>();
    expect(results).toHaveLength(1);
    expect(results[0]!.reference).toBe(done.json.data.result.artifacts.booking.bookingId);
    // Stored in minor units of the booking's currency.
    expect(results[0]!.charge_total).toBe(toMinor(option.rate.chargeTotal, option.rate.currency));
    // One event per distinct key, none for failures.
    const events = (await chat("GET", `/sessions/${id}`)).json.data.events;
    expect(events.map((e: any) => [e.kind, e.resultStatus])).toEqual([
      ["command_book_by_option_id", "payment_confirmation_required"],
      ["action_confirm_payment_card", "booked"],
    ]);
  });

  it("action_book_option picks from the shortlist; action_cancel_booking cancels in chat and replays", async () => {
    await actorWithCard("cancel-actor");
    const id = await startSession("cancel-actor");
    const list = (await say(id, `refundable rooms, ${NEW_YORK}`)).result.artifacts.shortlist;
    expect(list.every((e: any) => e.refundable)).toBe(true);
    const notListed = await act(id, "action_book_option", { optionId: "not-in-list" }, "pick-0");
    expect(notListed.status).toBe(400);
    const picked = await act(id, "action_book_option", { optionId: list[0].optionId }, "pick-1");
    expect(picked.json.data.result.status).toBe("guest_name_required");
    await say(id, "Dorothy Vaughan");
    const booked = await say(id, "yes");
    const bookingId = booked.result.artifacts.booking.bookingId;
    expect(booked.result.artifacts.booking.cancelPolicy).toMatch(/^Free cancellation/);

    const unknown = await act(id, "action_cancel_booking", { bookingId: "BKNOTINTHISSESSION00" }, "cancel-0");
    expect(unknown.status).toBe(404);
    const cancelled = await act(id, "action_cancel_booking", { bookingId }, "cancel-1");
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.data.result).toMatchObject({
      status: "cancelled",
      artifacts: {
        cancellation: {
          bookingId,
          status: "cancelled",
          cancelledAt: expect.any(String),
          cancelPrice: { currency: "USD", amount: 0 },
        },
      },
    });
    expect((await call("GET", `/api/bookings/${bookingId}`)).json.data.status).toBe("cancelled");
    expect((await act(id, "action_cancel_booking", { bookingId }, "cancel-1")).json).toEqual(cancelled.json);
    const twice = await act(id, "action_cancel_booking", { bookingId }, "cancel-2");
    expect(twice.json.data.result).toMatchObject({
      status: "error",
      message: { text: expect.stringContaining("Booking cannot be cancelled. Current status: cancelled") },
    });
  });

  it("text never cancels at once: questions and negations (any apostrophe) are answered, a request shows its fee, and only a yes within 10 minutes cancels (issue 37)", async () => {
    await actorWithCard("text-cancel-actor");
    const id = await startSession("text-cancel-actor");
    const nothing = await say(id, "cancel my booking");
    expect(nothing.result).toMatchObject({
      status: "needs_input",
      message: { text: "There is no booking in this conversation to cancel." },
    });
    const list = (await say(id, `refundable rooms, ${NEW_YORK}`)).result.artifacts.shortlist;
    await act(id, "action_book_option", { optionId: list[0].optionId }, "pick-1");
    await say(id, "Katherine Johnson");
    const booked = (await say(id, "yes")).result.artifacts.booking;
    const bookingId = booked.bookingId as string;
    const statusOf = async () => (await call("GET", `/api/bookings/${bookingId}`)).json.data.status;
    const other = await say(id, "cancel reservation BKNOTINTHISSESSION00");
    expect(other.result.message.text).toBe(
      "Booking BKNOTINTHISSESSION00 was not booked in this conversation, so I cannot cancel it here.",
    );
    // Inside its penalty window: the booking's own policy has a penalty of $40 due since yesterday.
    const penaltyDue = (value: number) =>
      env.DB.prepare("UPDATE bookings SET cancel_policy = ? WHERE reference = ?")
        .bind(
          JSON.stringify({
            refundable: true,
            cancelPenalties: [
              {
                penaltyType: "AMOUNT",
                currency: "USD",
                deadline: new Date(Date.now() - 86_400_000).toISOString(),
                value,
              },
            ],
          }),
          bookingId,
        )
        .run();
    await penaltyDue(40);

    // The attack's phrasings: each is answered, none cancels, and a "yes" after them cancels nothing.
    const question = await say(id, "What happens if I cancel my booking?");
    expect(question.result).toMatchObject({
      status: "needs_input",
      artifacts: { cancelPreview: { bookingId, cancellable: true, cancelPrice: { amount: 40, currency: "USD" } } },
    });
    expect(question.result.message.text).toContain("costs a cancellation fee of $40.00");
    expect(question.result.message.text).toContain("I have not cancelled anything");
    expect((await say(id, "yes")).result.status).not.toBe("cancelled");
    for (const text of [
      "don’t cancel my booking",
      "don‘t cancel my booking",
      "don＇t cancel my booking",
      "please don't cancel it",
      "if I cancel, what do I pay?",
      "would cancelling cost anything",
      "annuler ma réservation",
    ]) {
      const answer = await say(id, text);
      expect(answer.result.status, text).not.toMatch(/cancel/);
      expect(answer.result.artifacts.cancellation, text).toBeUndefined();
      expect(await statusOf(), text).toBe("success");
    }

    // A request is asked back with its fee; a non-affirmative answer drops it, and a later yes does nothing.
    const asked = await say(id, "Please cancel my booking");
    expect(asked.result).toMatchObject({
      status: "cancel_confirmation_required",
      artifacts: {
        cancelPreview: {
          bookingId,
          cancellable: true,
          cancelPrice: { amount: 40, currency: "USD" },
          expiresAt: expect.any(String),
        },
      },
    });
    expect(asked.result.message.text).toBe(
      `Cancelling booking ${bookingId} at ${booked.hotelName} now costs a cancellation fee of $40.00 (of $${booked.totalPrice.toFixed(2)} charged). Shall I cancel it? Reply yes to cancel, or no to keep it (this question stays open for 10 minutes).`,
    );
    expect((await chat("GET", `/sessions/${id}`)).json.data.status).toBe("cancel_confirmation_required");
    expect((await say(id, "please don’t")).result.message.text).toBe(
      `Understood: booking ${bookingId} is kept, nothing was cancelled.`,
    );
    expect((await say(id, "yes")).result.status).not.toBe("cancelled");
    await say(id, "cancel my booking");
    expect((await say(id, "hmm, what about parking?")).result.status).not.toBe("cancelled");
    expect((await say(id, "yes")).result.status).not.toBe("cancelled");
    expect(await statusOf()).toBe("success");

    // A yes after the 10 minutes cancels nothing.
    await say(id, "cancel my booking");
    await runInDurableObject(env.CHAT_SESSION.getByName(id), (_instance: ChatSession, state) => {
      state.storage.sql.exec(
        "UPDATE session SET state = json_set(state, '$.pendingCancel.expiresAt', ?)",
        Date.now() - 1,
      );
    });
    const late = await say(id, "yes");
    expect(late.result.message.text).toBe(
      `Your request to cancel booking ${bookingId} expired after 10 minutes, so nothing was cancelled. Say "cancel my booking" again to see what it costs now.`,
    );
    expect(await statusOf()).toBe("success");

    // A fee that grew after it was shown (a later deadline passed) is asked again, never charged unseen.
    expect((await say(id, "I’d like to cancel my stay")).result.status).toBe("cancel_confirmation_required");
    await penaltyDue(60);
    const askedAgain = await say(id, "yes please cancel");
    expect(askedAgain.result).toMatchObject({
      status: "cancel_confirmation_required",
      artifacts: { cancelPreview: { cancelPrice: { amount: 60, currency: "USD" } } },
    });
    expect(await statusOf()).toBe("success");

    // Request, then an affirmative next turn: cancelled, at the fee shown.
    const cancelled = await say(id, "cancel it");
    expect(cancelled.result).toMatchObject({
      status: "cancelled",
      artifacts: { cancellation: { bookingId, status: "cancelled", cancelPrice: { currency: "USD", amount: 60 } } },
    });
    expect(cancelled.result.message.text).toBe(
      `Your booking ${bookingId} at ${booked.hotelName} is cancelled. A cancellation fee of $60.00 applies.`,
    );
    expect(await statusOf()).toBe("cancelled");
    // Nothing left to cancel: said so, nothing cancelled twice.
    const again = await say(id, "cancel my booking");
    expect(again.result.message.text).toBe("There is no booking in this conversation to cancel.");
  });

  it("a non-refundable booking asked to be cancelled in text says why not and waits for nothing", async () => {
    await actorWithCard("nrf-cancel-actor");
    const id = await startSession("nrf-cancel-actor");
    const list = (await say(id, NEW_YORK)).result.artifacts.shortlist;
    const nrf = list.find((e: any) => !e.refundable);
    expect(nrf, "the demo city has a non-refundable option").toBeDefined();
    await act(id, "action_book_option", { optionId: nrf.optionId }, "pick-1");
    await say(id, "Mary Jackson");
    const booked = (await say(id, "yes")).result.artifacts.booking;
    const asked = await say(id, "cancel my booking");
    expect(asked.result).toMatchObject({
      status: "error",
      artifacts: { cancelPreview: { bookingId: booked.bookingId, cancellable: false } },
    });
    expect(asked.result.message.text).toBe(
      `Booking ${booked.bookingId} at ${booked.hotelName} is non-refundable: it cannot be cancelled and nothing would be refunded. Nothing was cancelled.`,
    );
    expect((await say(id, "yes")).result.status).toBe("booked");
    expect((await call("GET", `/api/bookings/${booked.bookingId}`)).json.data.status).toBe("success");
  });

  it("the explicit cancel action cancels at once and drops a cancellation waiting for its yes", async () => {
    await actorWithCard("action-cancel-actor");
    const id = await startSession("action-cancel-actor");
    const list = (await say(id, `refundable rooms, ${NEW_YORK}`)).result.artifacts.shortlist;
    await act(id, "action_book_option", { optionId: list[0].optionId }, "pick-1");
    await say(id, "Annie Easley");
    const bookingId = (await say(id, "yes")).result.artifacts.booking.bookingId;
    expect((await say(id, "cancel my booking")).result.status).toBe("cancel_confirmation_required");
    const cancelled = await act(id, "action_cancel_booking", { bookingId }, "cancel-1");
    expect(cancelled.json.data.result.status).toBe("cancelled");
    // The question asked before is gone: a yes is no answer to it.
    const yes = await say(id, "yes");
    expect(yes.result.status).not.toMatch(/cancel|error/);
    expect(yes.result.artifacts.cancellation).toBeUndefined();
  });

  it("a confirmation whose booking was already made under the session's reference reports it instead of booking again", async () => {
    await actorWithCard("recovery-actor");
    const id = await startSession("recovery-actor");
    const entry = (await say(id, NEW_YORK)).result.artifacts.shortlist[0];
    await say(id, "book the first one");
    expect((await say(id, "Rosalind Franklin")).result.status).toBe("payment_confirmation_required");
    // The booking went through but its answer never reached the session (a crash between the two).
    const option = await readOptionId(keyring(env.PAGE_TOKEN_SECRET), entry.optionId, "demo", Date.now());
    const occupancies = option.rooms.map((ages) => ({ paxes: ages.map((age) => ({ age })) }));
    const quote = await post("/api/quote", {
      quoteCriteria: {
        optionId: entry.optionId,
        accommodation: { code: option.accommodationCode },
        occupancies,
        checkIn: option.checkIn,
        checkOut: option.checkOut,
      },
      settings: { access: { code: 1001 } },
    });
    const made = await post("/api/book", {
      bookCriteria: {
        quoteId: quote.json.data.id,
        accommodation: { code: option.accommodationCode },
        partnerReference: `chat-${id}-1`,
        holder: { name: "Rosalind", surName: "Franklin" },
        checkIn: option.checkIn,
        checkOut: option.checkOut,
      },
      settings: { access: { code: 1001 } },
    });
    expect(made.status).toBe(200);
    const booked = await say(id, "yes");
    expect(booked.result.status).toBe("booked");
    expect(booked.result.artifacts.booking.bookingId).toBe(made.json.data.bookingReference);
    const { count } = (await env.DB.prepare("SELECT count(*) AS count FROM bookings WHERE partner_reference LIKE ?")
      .bind(`chat-${id}-%`)
      .first<{ count: number }>())!;
    expect(count).toBe(1);
  });

  it("a price rise asks for confirmation; accepting books at the new price, declining books nothing", async () => {
    await actorWithCard("price-actor");
    for (const accept of [true, false]) {
      const id = await startSession("price-actor");
      const list = (await say(id, NEW_YORK)).result.artifacts.shortlist;
      const entry = list[0];
      await say(id, "book the first one");
      expect((await say(id, "Mary Jackson")).result.status).toBe("payment_confirmation_required");
      // The hotel raises this rate plan's price for every night of the stay.
      const option = await readOptionId(keyring(env.PAGE_TOKEN_SECRET), entry.optionId, "demo", Date.now());
      for (const night of stayNights(option.checkIn, option.checkOut)) {
        await env.DB.prepare(
          "INSERT OR REPLACE INTO rate_plan_nights (accommodation_code, rate_plan_code, night, stop_sell, price_minor) VALUES (?, ?, ?, 0, ?)",
        )
          .bind(option.accommodationCode, option.ratePlanCode, night, Math.round(entry.pricePerNight * 2 * 100))
          .run();
      }
      const changed = await say(id, "yes");
      expect(changed.result.status).toBe("price_change_confirmation_required");
      expect(changed.result.artifacts.priceChange).toMatchObject({ previousTotal: entry.totalPrice, currency: "USD" });
      expect(changed.result.artifacts.priceChange.currentTotal).toBeGreaterThan(entry.totalPrice);
      const answer = await act(id, "action_confirm_price_change", { accept }, `price-${accept}`);
      const rows = (
        await env.DB.prepare("SELECT charge_total FROM bookings WHERE partner_reference LIKE ?")
          .bind(`chat-${id}-%`)
          .all<{ charge_total: number }>()
      ).results;
      if (accept) {
        expect(answer.json.data.result.status).toBe("booked");
        expect(answer.json.data.result.artifacts.booking.totalPrice).toBe(
          changed.result.artifacts.priceChange.currentTotal,
        );
        expect(rows).toEqual([{ charge_total: toMinor(changed.result.artifacts.priceChange.currentTotal, "USD") }]);
      } else {
        expect(answer.json.data.result.status).toBe("error");
        expect(rows).toEqual([]);
      }
      await env.DB.prepare("DELETE FROM rate_plan_nights WHERE accommodation_code = ?")
        .bind(option.accommodationCode)
        .run();
    }
  });
});

describe("payment attach (4.12 card setup step)", () => {
  const setupToken = async (actorId: string) => {
    const id = await startSession(actorId);
    await say(id, NEW_YORK);
    await say(id, "book the first one");
    const setup = await say(id, "Ada Lovelace");
    expect(setup.result.status).toBe("payment_setup_required");
    return tokenOf(setup.result.artifacts.payment.setupUrl);
  };

  it("refuses any full card number or security code and stores nothing", async () => {
    const token = await setupToken("attach-pan");
    for (const extra of [
      { cardNumber: "4242424242424242" },
      { number: "1" },
      { pan: "x" },
      { cvc: "123" },
      { note: "4000 0566 5566 5556" },
      { paymentMethodId: "pm_4242424242424242" },
      { nested: { value: 4242424242424242 } },
    ]) {
      const res = await post("/v1/hotel-ea/payment-methods/attach", attachBody(token, extra), { apiKey: null });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("raw_card_data_refused");
      expect(res.text).not.toMatch(/4242424242424242|5566 5556/);
    }
    const { count } = (await env.DB.prepare(
      "SELECT count(*) AS count FROM payment_methods WHERE actor_id = 'attach-pan'",
    ).first<{ count: number }>())!;
    expect(count).toBe(0);
    // The token was not spent by the refused calls.
    expect((await post("/v1/hotel-ea/payment-methods/attach", attachBody(token), { apiKey: null })).status).toBe(200);
    const stored = await env.DB.prepare("SELECT * FROM payment_methods WHERE actor_id = 'attach-pan'").first<
      Record<string, unknown>
    >();
    expect(Object.keys(stored!).sort()).toEqual([
      "actor_id",
      "brand",
      "created_at",
      "exp_month",
      "exp_year",
      "is_default",
      "last4",
      "partner_id",
      "payment_method_id",
    ]);
  });

  it("validates fields, the token and the expiry", async () => {
    const token = await setupToken("attach-bad");
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ cardLast4: "42" }, 400],
      [{ expMonth: 13 }, 400],
      [{ expYear: "2030" }, 400],
      [{ paymentMethodId: "tok_1" }, 400],
      [{ expYear: 2020 }, 400],
      [{ portalToken: "pst_forged" }, 401],
    ];
    for (const [override, status] of cases) {
      const res = await post("/v1/hotel-ea/payment-methods/attach", attachBody(token, override), { apiKey: null });
      expect(res.status).toBe(status);
    }
    const missing = await post("/v1/hotel-ea/payment-methods/attach", { portalToken: token }, { apiKey: null });
    expect(missing.status).toBe(400);
    const malformed = await call("POST", "/v1/hotel-ea/payment-methods/attach", undefined, {
      apiKey: null,
      raw: "{",
      headers: { "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    // An expired token is refused.
    await env.DB.prepare("UPDATE payment_setup_tokens SET expires_at = 0 WHERE actor_id = 'attach-bad'").run();
    const expired = await post("/v1/hotel-ea/payment-methods/attach", attachBody(token), { apiKey: null });
    expect(expired.status).toBe(401);
    expect(expired.json.message).toBe("portalToken is invalid, expired or already used");
  });

  it("serves the card-setup page from snippet/ for a live link", async () => {
    const page = await call("GET", `/card-setup?token=${await setupToken("attach-page")}`, undefined, { apiKey: null });
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="card-number"');
    const script = await call("GET", "/card-setup.js", undefined, { apiKey: null });
    expect(script.text).toContain("/v1/hotel-ea/payment-methods/attach");
  });
});

describe("chat rate limit", () => {
  it("counts chat calls per partner at its connection's rate and answers 429 in the chat body", async () => {
    await env.DB.prepare(
      "UPDATE connections SET rate_limit = 3, rate_limit_window_ms = 600000 WHERE partner_id = 'other'",
    ).run();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await chat("GET", `/sessions/cs_${"b".repeat(32)}`, undefined, { key: OTHER_KEY });
      statuses.push(last.status);
    }
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect(last!.status).toBe(429);
    expect(last!.json).toMatchObject({ success: false, error: "Rate limit exceeded", code: "rate_limit_exceeded" });
    expect(last!.headers.get("x-ratelimit-limit")).toBe("3");
    expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(last!.headers.get("x-partner-id")).toBe("other");
    // The demo partner has its own budget.
    expect((await chat("GET", `/sessions/cs_${"b".repeat(32)}`)).status).toBe(404);
    expect(CHAT).toBe("/api/partner/v1/core-chat");
  });
});

describe("chat without a connection in use", () => {
  it("answers error in plain words and books nothing", async () => {
    const id = await startSession("no-connection-actor");
    await env.DB.prepare("UPDATE connections SET current_in_use = 0 WHERE partner_id = 'demo'").run();
    try {
      const res = await chat("POST", "/events", { sessionId: id, text: NEW_YORK });
      expect(res.status).toBe(200);
      expect(res.json.data.result.status).toBe("error");
      expect(res.json.data.result.message.text).toMatch(/no connection in use/);
      expect(res.headers.get("x-ratelimit-limit")).toBe("600");
    } finally {
      await env.DB.prepare("UPDATE connections SET current_in_use = 1 WHERE partner_id = 'demo'").run();
    }
  });
});

describe("OpenAPI", () => {
  it("documents the chat routes, their three key headers and the attach endpoint", async () => {
    const doc = (await call("GET", "/openapi.json")).json;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        `${CHAT}/sessions`,
        `${CHAT}/events`,
        `${CHAT}/sessions/{sessionId}`,
        "/v1/hotel-ea/payment-methods/attach",
        "/chat/accommodations/{code}",
        "/chat/bookings/{bookingReference}",
      ]),
    );
    expect(doc.paths[`${CHAT}/events`].post.security).toEqual([{ ChatApiKey: [] }, { ChatBearer: [] }, { ApiKey: [] }]);
    expect(doc.components.securitySchemes.ChatApiKey).toEqual({
      type: "apiKey",
      in: "header",
      name: "x-partner-api-key",
    });
    expect(doc.paths[`${CHAT}/sessions`].post.responses["201"]).toBeDefined();
  });
});

describe("retention", () => {
  describe("session retention", () => {
    it("keeps a session used within the retention period and deletes an idle one with its events", async () => {
      const id = await startSession("retention-actor");
      await chat("POST", "/events", { sessionId: id, text: "I need a hotel" });
      const stub = env.CHAT_SESSION.getByName(id);
      expect(
        await env.DB.prepare("select actor_id from chat_session_actors where session_id = ?").bind(id).first(),
      ).toEqual({ actor_id: "retention-actor" });
      const alarmAt = await runInDurableObject(stub, (_instance: ChatSession, state) => state.storage.getAlarm());
      expect(alarmAt).toBeGreaterThan(Date.now() + SESSION_RETENTION_MS - 60_000);

      // The alarm fires while the session is still fresh: it is kept and the alarm moves on.
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect((await chat("GET", `/sessions/${id}`)).status).toBe(200);

      // Idle past the retention period: deleted, with its history.
      await runInDurableObject(stub, (_instance: ChatSession, state) => {
        state.storage.sql.exec("UPDATE session SET touched_at = ?", Date.now() - SESSION_RETENTION_MS - 1);
      });
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      const gone = await chat("GET", `/sessions/${id}`);
      expect(gone.status).toBe(404);
      expect(gone.json.error).toBe("session_not_found");
      // The erasure index forgets it too.
      expect(
        await env.DB.prepare("select 1 from chat_session_actors where session_id = ?").bind(id).first(),
      ).toBeNull();
    });
  });
});

describe("upstream", () => {
  // Chat books through the partner's preferred in-use connection. With 1001 out of use, that is 1002,
  // served by the sandbox Hotel-X supplier (an auxiliary worker behind the HOTELX_SANDBOX binding).
  beforeAll(async () => {
    await seedSandboxHotels(env.DB);
    await env.DB.prepare("UPDATE connections SET current_in_use = 0 WHERE code = 1001").run();
  });

  const STAY = `from ${inDays(30)} to ${inDays(32)} for 2 adults`;
  const bookingOf = (sessionId: string) =>
    env.DB.prepare(
      "SELECT reference, status, supplier, accommodation_code FROM bookings WHERE partner_reference LIKE ?",
    )
      .bind(`chat-${sessionId}-%`)
      .first<{ reference: string; status: string; supplier: string; accommodation_code: string }>();
  /** The booking page behind a confirmationUrl (with its signed token), as a traveller's browser gets it. */
  const pageOf = (confirmationUrl: string) => {
    const url = new URL(confirmationUrl);
    return call("GET", url.pathname + url.search, undefined, { apiKey: null });
  };
  const upstreamBooking = async (hotelCode: string, clientReference: string) => {
    const access = sandboxAccess(await demoUpstreamUrl(), "test");
    return bookingByClientReference(
      access,
      { hotelCode, currency: "EUR", accessCode: "sandbox", clientReference },
      { deadlineMs: 5_000 },
    );
  };

  describe("a chat booking on connection 1002 (the sandbox upstream)", () => {
    it("finds the upstream's hotel by name, books it upstream under our reference and says Booked!", async () => {
      const id = await startSession("traveller-upstream");
      const list = await say(id, `Stay at the Hotel Sandbox Lisbon ${STAY}`);
      expect(list.result.status).toBe("shortlist");
      expect(list.result.artifacts.shortlist[0]).toMatchObject({ name: "Hotel Sandbox Lisbon", currency: "EUR" });
      expect((await say(id, "Book the first one")).result.status).toBe("guest_name_required");
      const setup = await say(id, "The guest is Ada Lovelace");
      expect(setup.result.status).toBe("payment_setup_required");
      const attached = await attachCard(setup.result.artifacts.payment.setupUrl);
      expect(attached.status).toBe(200);
      expect((await say(id, "Done, card added")).result.status).toBe("payment_confirmation_required");
      const booked = await say(id, "yes");
      expect(booked.result.status).toBe("booked");
      expect(booked.result.message.text).toMatch(/^Booked! Hotel Sandbox Lisbon/);
      const row = (await bookingOf(id))!;
      expect(row).toMatchObject({
        status: "success",
        supplier: "hotelx-1002",
        accommodation_code: "HX003",
      });
      expect(await upstreamBooking("HX003", row.reference)).toMatchObject({ found: true, booking: { status: "OK" } });
    });

    it("an upstream that refuses the searched price without naming a new one: chat says it could not book, never asks to confirm a price it does not know", async () => {
      const id = await startSession("traveller-upstream"); // the card saved above
      const list = await say(id, `Stay at the Sandbox Scenario HXQUOTEPRICE ${STAY}`);
      expect(list.result.artifacts.shortlist?.[0], JSON.stringify(list.result)).toMatchObject({
        name: "Sandbox scenario HXQUOTEPRICE",
      });
      expect((await say(id, "Book the first one")).result.status).toBe("guest_name_required");
      expect((await say(id, "The guest is Ada Lovelace")).result.status).toBe("payment_confirmation_required");
      const answer = await say(id, "yes");
      expect(answer.result).toMatchObject({
        status: "error",
        artifacts: { error: { code: "price_changed", message: "Price changed" } },
      });
      expect(answer.result.message.text).toContain("I could not book Sandbox scenario HXQUOTEPRICE: Price changed");
      expect(await bookingOf(id)).toBeNull();
    });

    it("a booking whose upstream answer is late is 'being confirmed' in chat and on its page (never Booked!, cancelled or already confirmed), and 'not booked' once settled failed", async () => {
      // The chat gives its suppliers no deadline, so the default applies (3 s here, SUPPLIER_TIMEOUT_MS;
      // 8 s in a deploy): this hotel books, then answers after 10 s.
      const id = await startSession("traveller-upstream"); // the card saved above
      const list = await say(id, `Stay at the Sandbox Scenario HXLOST10000 ${STAY}`);
      expect(list.result.artifacts.shortlist?.[0], JSON.stringify(list.result)).toMatchObject({
        name: "Sandbox scenario HXLOST10000",
      });
      expect((await say(id, "Book the first one")).result.status).toBe("guest_name_required");
      expect((await say(id, "The guest is Ada Lovelace")).result.status).toBe("payment_confirmation_required");
      const answer = await say(id, "yes");
      const row = (await bookingOf(id))!;
      expect(row.status).toBe("pending");
      expect(answer.result.message.text).not.toContain("Booked!");
      expect(answer.result.message.text).toContain(`is being confirmed by the supplier. Reference ${row.reference}`);
      expect(await upstreamBooking("HXLOST10000", row.reference)).toMatchObject({
        found: true,
        booking: { status: "OK" },
      });
      expect(answer.result.artifacts.booking).toMatchObject({ bookingId: row.reference, status: "pending" });

      // Its page and a second "yes" say the same: being confirmed, neither cancelled nor confirmed.
      const page = await pageOf(answer.result.artifacts.booking.confirmationUrl);
      expect(page.status).toBe(200);
      expect(page.text).toContain("<h1>Booking being confirmed</h1>");
      expect(page.text).toContain("please do not book again");
      expect(page.text).not.toMatch(/cancelled|Booking confirmed/i);
      const again = await say(id, "Yes");
      expect(again.result.status).toBe("booked");
      expect(again.result.message.text).toBe(
        `Your booking ${row.reference} at Sandbox scenario HXLOST10000 is being confirmed by the supplier. The supplier has not answered yet and may still confirm it: please do not book again meanwhile.`,
      );
      // Asked to cancel it meanwhile: the cancel service refuses a pending booking, and chat says why in the same words.
      const cancelAsk = await say(id, "Please cancel my booking");
      expect(cancelAsk.result).toMatchObject({ status: "error", artifacts: { error: { code: "booking_pending" } } });
      expect(cancelAsk.result.message.text).toBe(
        `I could not cancel ${row.reference} yet. Your booking ${row.reference} at Sandbox scenario HXLOST10000 is being confirmed by the supplier. The supplier has not answered yet and may still confirm it: please do not book again meanwhile. Ask me again once it is confirmed.`,
      );
      expect((await bookingOf(id))!.status).toBe("pending");

      // The upstream drops it (cancelled there) and upkeep settles it `failed`: "not booked" in both places.
      const access = sandboxAccess(await demoUpstreamUrl(), "test");
      const dropped = await cancel(
        access,
        { hotelCode: "HXLOST10000", accessCode: "sandbox", clientReference: row.reference },
        { deadlineMs: 5_000 },
      );
      expect(dropped.outcome).toBe("cancelled");
      expect(await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000))).toBe(1);
      expect((await bookingOf(id))!.status).toBe("failed");
      const failedPage = await pageOf(answer.result.artifacts.booking.confirmationUrl);
      expect(failedPage.text).toContain("<h1>Not booked</h1>");
      expect(failedPage.text).toContain("Nothing was booked or charged");
      expect(failedPage.text).not.toMatch(/cancelled|being confirmed|Booking confirmed/i);
      const afterFailure = await say(id, "Yes");
      expect(afterFailure.result.status).toBe("error");
      expect(afterFailure.result.message.text).toBe(
        `Your booking ${row.reference} at Sandbox scenario HXLOST10000 was not booked: the supplier did not confirm it. Nothing was booked or charged; you can book again.`,
      );
    });
  });

  describe("the sandbox's price hotels in chat (issue 27): all-in prices, fees due at the hotel, USD, no GBP rate, no package rate, pay at the hotel", () => {
    beforeAll(async () => {
      // USD has a rate (0.8 EUR per USD), GBP none.
      const rates = await call("PUT", "/api/operator/exchange-rates", { base: "EUR", rates: { USD: 1.25 } }, OPERATOR);
      expect(rates.status).toBe(200);
    });
    const paymentOf = (sessionId: string) =>
      env.DB.prepare(
        "SELECT reference, status, charge_total, payment_type, payment_card FROM bookings WHERE partner_reference LIKE ?",
      )
        .bind(`chat-${sessionId}-%`)
        .first<{
          reference: string;
          status: string;
          charge_total: number;
          payment_type: string;
          payment_card: string | null;
        }>();

    it("HXFEES: the shortlist shows the all-in price and the resort fee due at the hotel; the card is charged only what is charged at booking", async () => {
      const id = await startSession("traveller-fees");
      const list = await say(id, `Stay at the Sandbox Resort Hotel ${STAY}`);
      expect(list.result.status, list.result.message.text).toBe("shortlist");
      // 100 EUR a night (a 4.50 city tax inside) charged at booking, a 25 EUR resort fee a night paid at the hotel.
      expect(list.result.artifacts.shortlist).toEqual([
        expect.objectContaining({
          accommodationCode: "HXFEES",
          name: "Sandbox resort hotel",
          currency: "EUR",
          pricePerNight: 125,
          totalPrice: 250,
          chargedAtBooking: 200,
          dueAtHotel: { amount: 50, currency: "EUR" },
          paymentType: "MerchantPay",
        }),
      ]);
      expect(list.result.message.text).toContain("Here is 1 option in Sandbox Resort Hotel for ");
      expect(list.result.message.text).toContain(
        "1. Sandbox resort hotel (4 stars): 125.00 EUR per night, 250.00 EUR in total (50.00 EUR of it payable at the hotel), refundable",
      );
      const picked = await say(id, "Book the first one");
      expect(picked.result.message.text).toContain(
        "Good choice: Sandbox resort hotel, 250.00 EUR in total (50.00 EUR of it payable at the hotel) for ",
      );
      const setup = await say(id, "The guest is Ada Lovelace");
      expect(setup.result.status).toBe("payment_setup_required");
      expect((await attachCard(setup.result.artifacts.payment.setupUrl)).status).toBe(200);
      const confirm = await say(id, "Done");
      expect(confirm.result.status).toBe("payment_confirmation_required");
      expect(confirm.result.message.text).toContain(
        "250.00 EUR in total: 200.00 EUR charged to your visa card ending 4242 at booking and 50.00 EUR payable at the hotel",
      );
      const booked = await say(id, "yes");
      expect(booked.result.status, booked.result.message.text).toBe("booked");
      expect(booked.result.message.text).toContain(
        "250.00 EUR in total: 200.00 EUR charged at booking and 50.00 EUR payable at the hotel",
      );
      expect(booked.result.artifacts.booking).toMatchObject({ totalPrice: 200, currency: "EUR" });
      expect(await paymentOf(id)).toMatchObject({
        status: "success",
        charge_total: 20000, // minor units: 200.00 EUR
        payment_type: "MerchantPay",
        payment_card: null,
      });
    });

    it("HXUSD: the dollar supplier is shown converted at the operator's rate", async () => {
      const id = await startSession("traveller-usd");
      const list = await say(id, `Stay at the Sandbox Dollar Hotel ${STAY}`);
      expect(list.result.status, list.result.message.text).toBe("shortlist");
      // The cheapest: the non-refundable room at 135 USD a night, two nights at 0.8 EUR per USD.
      expect(list.result.artifacts.shortlist).toEqual([
        expect.objectContaining({
          accommodationCode: "HXUSD",
          currency: "EUR",
          pricePerNight: 108,
          totalPrice: 216,
          chargedAtBooking: 216,
          dueAtHotel: { amount: 0, currency: "USD" },
          refundable: false,
        }),
      ]);
    });

    it("HXGBP: without a GBP rate the traveller is told why, never an empty shortlist or 'no rooms'", async () => {
      const id = await startSession("traveller-gbp");
      const list = await say(id, `Stay at the Sandbox Pound Hotel ${STAY}`);
      expect(list.result.status).toBe("needs_input");
      expect(list.result.artifacts.shortlist).toBeUndefined();
      expect(list.result.message.text).not.toContain("no available rooms");
      expect(list.result.message.text).toContain(
        "Sandbox pound hotel is priced in GBP, which I cannot convert to EUR right now, so I cannot offer it.",
      );
      expect(list.result.artifacts.warnings).toEqual([
        expect.objectContaining({
          code: "currency_not_convertible",
          currency: "GBP",
          requestedCurrency: "EUR",
          accommodationCodes: ["HXGBP"],
        }),
      ]);
      // Beside hotels it can offer ("Sandbox P" names the package, pound and two pay-at-hotel hotels
      // and Hotel Sandbox Paris), the shortlist says which one it leaves out and why.
      const mixed = await say(id, `Stay at the Sandbox P ${STAY}`);
      expect(mixed.result.status, mixed.result.message.text).toBe("shortlist");
      expect(mixed.result.artifacts.shortlist.map((e: any) => e.accommodationCode).sort()).toEqual([
        "HX004",
        "HXDIRECT",
        "HXDIRECTFEE",
        "HXPACKAGE",
      ]);
      expect(mixed.result.message.text).toContain(
        "\nSandbox pound hotel is priced in GBP, which I cannot convert to EUR right now, so I cannot offer it.\nWhich one would you like to book?",
      );
      expect(mixed.result.artifacts.warnings).toEqual([
        expect.objectContaining({ code: "currency_not_convertible", accommodationCodes: ["HXGBP"] }),
      ]);
    });

    it("HXPACKAGE: the package-only rate (the cheapest) and the app-only rate are never offered in chat", async () => {
      const id = await startSession("traveller-package");
      const list = await say(id, `Stay at the Sandbox Package Hotel ${STAY}`);
      expect(list.result.status, list.result.message.text).toBe("shortlist");
      const [entry] = list.result.artifacts.shortlist;
      // The package rate (DBL-PKG, 80 EUR a night) is the cheapest; chat sells no package, so the cheapest
      // public rate is STD-NR at 85 a night (the mobile rate, 88, is for apps only).
      expect(entry).toMatchObject({ accommodationCode: "HXPACKAGE", totalPrice: 170, refundable: false });
      const planOf = async (optionId: string) =>
        (await readOptionId(keyring(env.PAGE_TOKEN_SECRET), optionId, "demo", Date.now())).ratePlanCode;
      expect(await planOf(entry.optionId)).toBe("STD-NR-RO");
      // Refundable only: the public DBL (100 a night), never the refundable package rate at 80.
      const refundable = await say(id, `Refundable only please, at the Sandbox Package Hotel ${STAY}`);
      const [flexible] = refundable.result.artifacts.shortlist ?? [];
      expect(flexible, refundable.result.message.text).toMatchObject({ totalPrice: 200, refundable: true });
      expect(await planOf(flexible.optionId)).toBe("DBL-RO");
    });

    it("HXDIRECT: a pay-at-the-hotel option keeps the card step as the guarantee and charges 0 at booking", async () => {
      const id = await startSession("traveller-direct");
      const list = await say(id, `Stay at the Sandbox Pay-at-hotel Hotel ${STAY}`);
      expect(list.result.status, list.result.message.text).toBe("shortlist");
      // The cheapest: STD-NR at 75 EUR a night, all of it paid at the hotel.
      expect(list.result.artifacts.shortlist).toEqual([
        expect.objectContaining({
          accommodationCode: "HXDIRECT",
          currency: "EUR",
          totalPrice: 150,
          chargedAtBooking: 0,
          dueAtHotel: { amount: 150, currency: "EUR" },
          paymentType: "PayAtProperty",
        }),
      ]);
      expect(list.result.message.text).toContain("150.00 EUR in total (all of it payable at the hotel)");
      await say(id, "Book the first one");
      const setup = await say(id, "The guest is Ada Lovelace");
      expect(setup.result.status).toBe("payment_setup_required");
      const attached = await attachCard(setup.result.artifacts.payment.setupUrl, {
        cardBrand: "mastercard",
        cardLast4: "4444",
      });
      expect(attached.status).toBe(200);
      const confirm = await say(id, "Done");
      expect(confirm.result.status).toBe("payment_confirmation_required");
      expect(confirm.result.message.text).toContain(
        "150.00 EUR in total, all payable at the hotel: nothing is charged at booking, your mastercard card ending 4444 guarantees the booking",
      );
      const booked = await say(id, "yes");
      expect(booked.result.status, booked.result.message.text).toBe("booked");
      expect(booked.result.message.text).toContain(
        "150.00 EUR in total, all payable at the hotel: nothing was charged",
      );
      const row = (await paymentOf(id))!;
      expect(row).toMatchObject({ status: "success", charge_total: 0, payment_type: "PayAtProperty" });
      expect(JSON.parse(row.payment_card!)).toEqual({
        paymentMethodId: attached.json.data.paymentMethod.paymentMethodId,
        brand: "mastercard",
        last4: "4444",
      });
      expect(await upstreamBooking("HXDIRECT", row.reference)).toMatchObject({
        found: true,
        booking: { status: "OK" },
      });
      expect(booked.result.artifacts.booking).toMatchObject({
        totalPrice: 0,
        totalStayPrice: 150,
        dueAtHotel: { amount: 150, currency: "EUR" },
        paymentType: "PayAtProperty",
      });
      // Its page: nothing charged, the room rate due at the hotel, the all-in price.
      const page = await pageOf(booked.result.artifacts.booking.confirmationUrl);
      expect(page.status).toBe(200);
      expect(page.text).toContain("<dt>Charged at booking</dt><dd>0.00 EUR</dd>");
      expect(page.text).toContain("<dt>Due at the hotel</dt><dd>Room rate: 150.00 EUR</dd>");
      expect(page.text).toContain("<dt>All-in price</dt><dd>150.00 EUR</dd>");
      expect(page.text).not.toContain("<dt>Total</dt>");
    });
  });
});
