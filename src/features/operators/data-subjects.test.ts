import { chatEventScope } from "../chat/personal-data";
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, DEMO_KEY, OTHER_KEY } from "../../../test/support/api";
import type { ChatSession } from "../chat/chat-session";
import { NEW_YORK, say, startSession, attachCard, chat } from "../../../test/support/chat";
import { OPERATOR } from "../../../test/support/sessions";
import { checkBody, runCheckCall, unique } from "../../../test/support/radar";

const ERASE = "/api/operator/data-subjects/erase";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
});

/** A chat from search to a booking for guest `guest`; returns the session id and booking reference. */
const chatBooking = async (actorId: string, guest: string) => {
  const sessionId = await startSession(actorId);
  await say(sessionId, NEW_YORK);
  await say(sessionId, "book the first one");
  // Sent with idempotency keys, so their answers are stored (and must be erased too).
  const setup = await say(sessionId, guest, { idempotencyKey: `${sessionId}-guest` });
  expect((await attachCard(setup.result.artifacts.payment.setupUrl)).status).toBe(200);
  await say(sessionId, "Done");
  const booked = await say(sessionId, "Yes", { idempotencyKey: `${sessionId}-yes` });
  expect(booked.result.status).toBe("booked");
  return { sessionId, reference: booked.result.artifacts.booking.bookingId as string };
};

const radarRow = (id: string) => env.DB.prepare("select * from radar_checks where id = ?").bind(id).first<any>();
const bookingRow = (reference: string) =>
  env.DB.prepare("select * from bookings where reference = ?").bind(reference).first<any>();
/** The session's Durable Object state, and the stored answers of its idempotent events (D1). */
const sessionStorage = async (sessionId: string) => {
  const session = await runInDurableObject(
    env.CHAT_SESSION.getByName(sessionId),
    (_i: ChatSession, state) =>
      state.storage.sql.exec<{ record: string; state: string }>("select record, state from session").toArray()[0]!,
  );
  const { results } = await env.DB.prepare("select answer from idempotency_keys where scope = ?")
    .bind(chatEventScope(sessionId))
    .all<{ answer: string | null }>();
  return { ...session, responses: results.map((r) => r.answer ?? "").join("\n") };
};

describe("POST /api/operator/data-subjects/erase", () => {
  it("erases one person from radar checks of every partner, their chat sessions and the bookings those made", async () => {
    const email = `${unique("ada")}@example.com`;
    const userId = unique("user");
    const booker = { first_name: "Ada", last_name: "Lovelace", email, phone: "+442071234567" };
    const demoCheck = await runCheckCall(checkBody({ booker, context: { user_id: userId, ip: "198.51.100.23" } }));
    const otherCheck = await runCheckCall(checkBody({ booker: { ...booker, email: email.toUpperCase() } }), {
      apiKey: OTHER_KEY,
    });
    const bystanderCheck = await runCheckCall(
      checkBody({ booker: { first_name: "Bea", last_name: "Bystander", email: `${unique("bea")}@example.com` } }),
    );
    const before = await radarRow(demoCheck.json.data.check_id);

    // Her sessions: one whose actor is her e-mail, one under the partner's user id from her radar check.
    const byEmail = await chatBooking(email, "Ada Lovelace");
    const byUserId = await chatBooking(userId, "Ada Byron");
    const bystander = await chatBooking(unique("someone"), "Bea Bystander");
    const bookingBefore = await bookingRow(byEmail.reference);

    const res = await call("POST", ERASE, { email: email.toUpperCase() }, OPERATOR);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ erased: { radarChecks: 2, chatSessions: 2, bookings: 2 } });

    // Radar: names [erased], contact data gone; decision, score and references stay.
    for (const id of [demoCheck.json.data.check_id, otherCheck.json.data.check_id]) {
      const row = await radarRow(id);
      const inputs = JSON.parse(row.inputs);
      expect(inputs.request.booker).toEqual({ first_name: "[erased]", last_name: "[erased]" });
      expect(inputs.request.context.ip).toBeUndefined();
      expect(inputs.request.payment.billing_address).toEqual({ country: "US" });
      expect(row.inputs.toLowerCase()).not.toContain(email);
      expect(row.inputs).not.toContain("+442071234567");
      expect(row.inputs).not.toContain("Lovelace");
      expect(row.email_hash).toBeNull();
      expect(row.ip_hash).toBeNull();
    }
    expect(await radarRow(demoCheck.json.data.check_id)).toMatchObject({
      id: before.id,
      decision: before.decision,
      score: before.score,
      partner_id: "demo",
      session_id: before.session_id,
    });

    // Bookings: holder [erased]; reference and amounts stay.
    for (const { reference } of [byEmail, byUserId]) {
      const row = await bookingRow(reference);
      expect(JSON.parse(row.holder)).toEqual({ name: "[erased]", surName: "[erased]" });
    }
    expect(await bookingRow(byEmail.reference)).toMatchObject({
      reference: bookingBefore.reference,
      charge_total: bookingBefore.charge_total,
      currency: bookingBefore.currency,
      status: "success",
    });
    expect(
      (await call("GET", `/api/bookings/${byEmail.reference}`, undefined, { apiKey: DEMO_KEY })).json.data.holder,
    ).toEqual({ name: "[erased]", surName: "[erased]" });

    // Chat sessions: no trace of the names in state or stored answers; the session still reads.
    for (const { sessionId } of [byEmail, byUserId]) {
      const stored = await sessionStorage(sessionId);
      expect(JSON.parse(stored.state).guest).toEqual({ firstName: "[erased]", lastName: "[erased]" });
      for (const name of ["Lovelace", "Byron"]) {
        expect(stored.state).not.toContain(name);
        expect(stored.responses).not.toContain(name);
      }
    }

    // Everyone else is untouched.
    expect((await radarRow(bystanderCheck.json.data.check_id)).inputs).toContain("Bystander");
    expect(JSON.parse((await bookingRow(bystander.reference)).holder)).toEqual({ name: "Bea", surName: "Bystander" });
    expect(JSON.parse((await sessionStorage(bystander.sessionId)).state).guest).toEqual({
      firstName: "Bea",
      lastName: "Bystander",
    });
    // Stored answers do carry names, so their absence above means they were erased.
    expect((await sessionStorage(bystander.sessionId)).responses).toContain("Bystander");
  });

  it("replaces the actor id of the person's sessions: still readable by its partner, the e-mail nowhere, no more events", async () => {
    const email = `${unique("grace")}@example.com`;
    const userId = unique("user");
    await runCheckCall(
      checkBody({ booker: { first_name: "Grace", last_name: "Hopper", email }, context: { user_id: userId } }),
    );
    // Actor is the e-mail (one label repeats it in another case); actor is the partner's user id for her.
    const created = await chat("POST", "/sessions", {
      actor: { actorId: email, timezoneOffsetMinutes: -300 },
      conversation: { id: email.toUpperCase(), channelId: `dm ${email}`, threadTs: "1700000000.000100" },
      channel: { workspaceId: "ws-1" },
    });
    expect(created.status).toBe(201);
    const byEmail = created.json.data.sessionId as string;
    const byUserId = await startSession(userId);
    const bystander = await startSession(unique("someone"));
    for (const id of [byEmail, byUserId, bystander]) await say(id, NEW_YORK, { idempotencyKey: `${id}-search` });
    const before = (await chat("GET", `/sessions/${byEmail}`)).json.data;

    const res = await call("POST", ERASE, { email }, OPERATOR);
    expect(res.json.data.erased.chatSessions).toBe(2);

    const actorIds = new Set<string>();
    for (const [id, oldActor] of [
      [byEmail, email],
      [byUserId, userId],
    ] as const) {
      // The partner still reads the session and its history; the actor id is a fresh pseudonym.
      const read = await chat("GET", `/sessions/${id}`);
      expect(read.status).toBe(200);
      const actorId = read.json.data.actor.actorId as string;
      expect(actorId).toMatch(/^erased:[A-Za-z0-9_-]{16}$/);
      actorIds.add(actorId);
      expect(read.json.data.events.map((e: { kind: string }) => e.kind)).toEqual(["search_query"]);
      expect(read.text.toLowerCase()).not.toContain(email);
      expect(read.text).not.toContain(oldActor);
      // Nor in the Durable Object's storage or the session index, which follows the new actor id.
      const stored = await sessionStorage(id);
      expect(`${stored.record}${stored.state}`.toLowerCase()).not.toContain(email);
      expect(stored.record).not.toContain(oldActor);
      const index = await env.DB.prepare("SELECT actor_id FROM chat_session_actors WHERE session_id = ?")
        .bind(id)
        .first<string>("actor_id");
      expect(index).toBe(actorId);
      // No more events, from the old actor or without one: nothing new about her enters the session.
      for (const extra of [{ actor: { actorId: oldActor } }, {}]) {
        const event = await chat("POST", "/events", { sessionId: id, text: NEW_YORK, ...extra });
        expect([event.status, event.json.code]).toEqual([409, "session_erased"]);
      }
      // A replayed idempotency key of an earlier event answers the same 409 (its stored answer is gone).
      const replay = await chat("POST", "/events", { sessionId: id, text: NEW_YORK, idempotencyKey: `${id}-search` });
      expect(replay.status).toBe(409);
    }
    expect(actorIds.size).toBe(2);
    const erased = (await chat("GET", `/sessions/${byEmail}`)).json.data;
    expect(erased.conversation).toEqual({ id: "[erased]", channelId: "dm [erased]", threadTs: "1700000000.000100" });
    expect(erased).toMatchObject({ sessionId: before.sessionId, createdAt: before.createdAt, status: before.status });

    // Repeating the erasure finds nothing more under her e-mail; the bystander is untouched.
    expect((await call("POST", ERASE, { email }, OPERATOR)).json.data.erased.chatSessions).toBe(0);
    expect((await chat("GET", `/sessions/${bystander}`)).json.data.actor.actorId).toMatch(/^someone/);
    expect((await say(bystander, "the first one")).result.status).toBe("guest_name_required");
  });

  it("answers zeros for someone it does not know", async () => {
    const res = await call("POST", ERASE, { email: "nobody-at-all@example.com" }, OPERATOR);
    expect(res.json.data).toEqual({ erased: { radarChecks: 0, chatSessions: 0, bookings: 0 } });
  });

  it("needs the operator token and a valid e-mail (clear 400s, never a 5xx)", async () => {
    expect((await call("POST", ERASE, { email: "a@example.com" }, { apiKey: null })).status).toBe(401);
    expect((await call("POST", ERASE, { email: "a@example.com" }, { apiKey: DEMO_KEY })).status).toBe(401);
    for (const body of [{}, { email: "not-an-email" }, { email: 42 }, []]) {
      const res = await call("POST", ERASE, body, OPERATOR);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const malformed = await call("POST", ERASE, undefined, {
      ...OPERATOR,
      raw: '{"email":',
      headers: { ...OPERATOR.headers, "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
  });
});
