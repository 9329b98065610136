import { chatEventScope } from "../chat/personal-data";
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/seed";
import { call, DEMO_KEY, OTHER_KEY } from "../../../test/support/api";
import type { ChatSession } from "../chat/chat-session";
import { NEW_YORK, say, startSession, attachCard } from "../../../test/support/chat";
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
