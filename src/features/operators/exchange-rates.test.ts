import { describe, expect, it, beforeAll } from "vitest";
import { call, post, DEMO_KEY, OTHER_KEY } from "../../../test/support/api";
import { demoAdminToken, OPERATOR, asBearer, loginAs, md5, loginBody } from "../../../test/support/sessions";
import {
  env,
  runInDurableObject,
  createExecutionContext,
  createScheduledController,
  waitOnExecutionContext,
} from "cloudflare:test";
import { OTHER, DEMO } from "../../../test/support/accounts";
import { LOGIN_LOCKOUT } from "../partners/login";
import { chatEventScope } from "../chat/personal-data";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import type { ChatSession } from "../chat/chat-session";
import { NEW_YORK, say, startSession, attachCard, chat } from "../../../test/support/chat";
import { checkBody, runCheckCall, unique } from "../../../test/support/radar";
import { expectLogs } from "../../../test/support/expected-logs";
import worker from "../../index";
import { deleteInBatches, runUpkeep, type UpkeepTask } from "../../platform/upkeep";
import { upkeepTasks } from "../../upkeep";

const PATH = "/api/operator/exchange-rates";

describe("/api/operator/exchange-rates", () => {
  it("reads nothing before a PUT, then the set in force; a PUT replaces the whole set", async () => {
    const empty = await call("GET", PATH, undefined, OPERATOR);
    expect(empty.status).toBe(200);
    expect(empty.json).toEqual({ data: { base: null, rates: {}, updatedAt: null }, message: "success" });

    const put = await call("PUT", PATH, { base: "USD", rates: { EUR: 0.92, GBP: 0.79, USD: 1 } }, OPERATOR);
    expect(put.status).toBe(200);
    expect(put.json.data).toMatchObject({
      base: "USD",
      rates: { EUR: 0.92, GBP: 0.79 },
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect((await call("GET", PATH, undefined, OPERATOR)).json.data).toEqual(put.json.data);

    const replaced = await call("PUT", PATH, { base: "EUR", rates: { USD: 1.087 } }, OPERATOR);
    expect(replaced.json.data).toMatchObject({ base: "EUR", rates: { USD: 1.087 } });
    expect((await call("GET", PATH, undefined, OPERATOR)).json.data.rates).toEqual({ USD: 1.087 });
  });

  it("stores the largest set whole (300 rates and the base, more than one insert can bind)", async () => {
    const letter = (n: number) => String.fromCharCode(65 + n);
    const rates = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [`X${letter(Math.floor(i / 26))}${letter(i % 26)}`, i + 1]),
    );
    const put = await call("PUT", PATH, { base: "USD", rates }, OPERATOR);
    expect(put.status).toBe(200);
    expect((await call("GET", PATH, undefined, OPERATOR)).json.data).toMatchObject({ base: "USD", rates });
  });

  it.each([
    ["a lower-case code", { base: "usd", rates: {} }],
    ["a code of 4 letters", { base: "USD", rates: { EURO: 0.9 } }],
    ["a lower-case rate code", { base: "USD", rates: { eur: 0.9 } }],
    ["a zero rate", { base: "USD", rates: { EUR: 0 } }],
    ["a negative rate", { base: "USD", rates: { EUR: -1 } }],
    ["a rate as a string", { base: "USD", rates: { EUR: "0.92" } }],
    ["no base", { rates: { EUR: 0.92 } }],
    ["no rates", { base: "USD" }],
    ["rates as a list", { base: "USD", rates: [0.92] }],
  ])("%s: 400, nothing changed", async (_name, body) => {
    await call("PUT", PATH, { base: "USD", rates: { EUR: 0.92 } }, OPERATOR);
    const res = await call("PUT", PATH, body, OPERATOR);
    expect(res.status).toBe(400);
    expect((await call("GET", PATH, undefined, OPERATOR)).json.data.rates).toEqual({ EUR: 0.92 });
  });

  describe("bounds: every rate from 1e-6 to 1e6, finite (issue 25)", () => {
    const BOUNDS = "must be a finite number from 0.000001 to 1000000 (1e-6 to 1e6)";
    const refused = async (res: Awaited<ReturnType<typeof call>>) => {
      expect(res.status).toBe(400);
      expect(res.json.message).toBe(`rates.EUR: ${BOUNDS}`);
      expect((await call("GET", PATH, undefined, OPERATOR)).json.data.rates).toEqual({ GBP: 0.79 });
    };

    it.each([
      ["1e308", 1e308],
      ["1e-300", 1e-300],
      ["zero", 0],
      ["a negative rate", -0.92],
      ["just below the bound", 9.99e-7],
      ["just above the bound", 1_000_001],
      ["the string Infinity", "Infinity"],
      ["the string NaN", "NaN"],
      ["a number as a string", "0.92"],
      ["null", null],
      ["true", true],
      ["an object", { value: 0.92 }],
    ])("%s: 400 naming the field and the bounds, nothing changed", async (_name, rate) => {
      await call("PUT", PATH, { base: "USD", rates: { GBP: 0.79 } }, OPERATOR);
      await refused(await call("PUT", PATH, { base: "USD", rates: { GBP: 0.79, EUR: rate } }, OPERATOR));
    });

    it("a number too large for a double in the JSON text (Infinity once parsed) is refused the same way", async () => {
      await call("PUT", PATH, { base: "USD", rates: { GBP: 0.79 } }, OPERATOR);
      for (const raw of ['{"base":"USD","rates":{"EUR":1e400}}', '{"base":"USD","rates":{"EUR":-1e400}}'])
        await refused(
          await call("PUT", PATH, undefined, {
            ...OPERATOR,
            raw,
            headers: { ...OPERATOR.headers, "content-type": "application/json" },
          }),
        );
    });

    it("the bounds themselves are rates", async () => {
      const put = await call("PUT", PATH, { base: "USD", rates: { EUR: 1e-6, JPY: 1e6 } }, OPERATOR);
      expect(put.status).toBe(200);
      expect(put.json.data.rates).toEqual({ EUR: 1e-6, JPY: 1e6 });
    });
  });

  it("the base's own rate must be 1; malformed JSON is 400", async () => {
    const base = await call("PUT", PATH, { base: "USD", rates: { USD: 2 } }, OPERATOR);
    expect(base.status).toBe(400);
    expect(base.json.message).toBe("The rate of the base currency itself must be 1");
    const malformed = await call("PUT", PATH, undefined, {
      ...OPERATOR,
      raw: '{"base":',
      headers: { ...OPERATOR.headers, "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
  });

  it("needs the operator token: none 401, a wrong one, a partner's bearer token or API key 403/401", async () => {
    const token = await demoAdminToken();
    for (const method of ["GET", "PUT"]) {
      const body = method === "PUT" ? { base: "USD", rates: {} } : undefined;
      expect((await call(method, PATH, body, { apiKey: null })).status).toBe(401);
      expect((await call(method, PATH, body, { apiKey: null, headers: { authorization: "Bearer nope" } })).status).toBe(
        403,
      );
      expect(
        (await call(method, PATH, body, { apiKey: null, headers: { authorization: `Bearer ${token}` } })).status,
      ).toBe(403);
      expect((await call(method, PATH, body)).status).toBe(401);
    }
  });

  it("is described in /openapi.json", async () => {
    const doc = await call("GET", "/openapi.json");
    expect(Object.keys(doc.json.paths[PATH])).toEqual(expect.arrayContaining(["get", "put"]));
  });
});

describe("onboarding", () => {
  const op = (method: string, path: string, body?: unknown) => call(method, path, body, OPERATOR);
  const sha256 = async (text: string) =>
    [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");

  describe("POST /api/partners", () => {
    it("onboards a partner with its admin, first API key and collector key, shown once, stored hashed", async () => {
      const password = await md5("acme-password");
      const res = await op("POST", "/api/partners", {
        id: "acme",
        name: "Acme Travel",
        admin: { email: "Boss@Acme.test", password, firstName: "Ada" },
        apiKeyName: "server",
      });
      expect(res.status).toBe(201);
      const { partner, admin, apiKey, collectorKey } = res.json.data;
      expect(partner).toMatchObject({ id: "acme", name: "Acme Travel", isActive: true });
      expect(admin).toMatchObject({
        partnerId: "acme",
        email: "boss@acme.test",
        role: "admin",
        isActive: true,
        firstName: "Ada",
      });
      expect(apiKey).toMatchObject({ name: "server", revokedAt: null });
      expect(apiKey.apiKey).toMatch(/^esk_[\w-]{32}$/);
      expect(collectorKey).toMatch(/^esc_[\w-]{32}$/);
      expect(res.text).not.toMatch(/pbkdf2|passwordHash/);

      const stored = await env.DB.prepare("select collector_key_hash from partners where id = 'acme'").first<{
        collector_key_hash: string;
      }>();
      expect(stored!.collector_key_hash).toBe(await sha256(collectorKey));
      const key = await env.DB.prepare("select key_hash from api_keys where id = ?")
        .bind(apiKey.id)
        .first<{ key_hash: string }>();
      expect(key!.key_hash).toBe(await sha256(apiKey.apiKey));

      // The new admin logs in and sees its own partner; the key calls content.
      const token = await loginAs("boss@acme.test", password);
      expect((await asBearer(token).get("/api/users")).json.data.map((u: { email: string }) => u.email)).toEqual([
        "boss@acme.test",
      ]);
      expect((await post("/api/v1/content/accommodations", { size: 1 }, { apiKey: apiKey.apiKey })).status).toBe(200);
      // The list of keys shows it masked only.
      const keys = await asBearer(token).get("/api/partner/api-keys");
      expect(keys.text).not.toContain(apiKey.apiKey);
    });

    it("generates an id when none is given", async () => {
      const res = await op("POST", "/api/partners", {
        name: "No Id Ltd",
        admin: { email: "a@noid.test", password: await md5("x") },
      });
      expect(res.status).toBe(201);
      expect(res.json.data.partner.id).toMatch(/^ptn_[0-9a-f]{16}$/);
    });

    it("409 for an existing partner id or admin e-mail, writing nothing (one batch)", async () => {
      const password = await md5("x");
      const dupId = await op("POST", "/api/partners", {
        id: "demo",
        name: "Again",
        admin: { email: "fresh@x.test", password },
      });
      expect(dupId.status).toBe(409);
      expect(dupId.json.message).toBe("Partner already exists");
      expect(await env.DB.prepare("select id from users where email = 'fresh@x.test'").first()).toBeNull();

      const dupEmail = await op("POST", "/api/partners", {
        id: "newco",
        name: "New Co",
        admin: { email: OTHER.admin.email, password },
      });
      expect(dupEmail.status).toBe(409);
      expect(dupEmail.json.message).toBe("Conflict");
      expect(await env.DB.prepare("select id from partners where id = 'newco'").first()).toBeNull();
      expect(await env.DB.prepare("select id from api_keys where partner_id = 'newco'").first()).toBeNull();
    });

    it.each([
      ["name", { id: "x1", admin: { email: "a@x1.test", password: "0".repeat(32) } }],
      ["admin", { id: "x2", name: "X" }],
      ["admin.email", { id: "x3", name: "X", admin: { email: "nope", password: "0".repeat(32) } }],
      ["admin.password", { id: "x4", name: "X", admin: { email: "a@x4.test", password: "plain" } }],
      ["id", { id: "Bad Id!", name: "X", admin: { email: "a@x5.test", password: "0".repeat(32) } }],
    ])("rejects a bad or missing %s with 400", async (field, body) => {
      const res = await op("POST", "/api/partners", body);
      expect(res.status).toBe(400);
      expect(res.json.message).toContain(field);
    });

    it("needs the operator token; a partner admin's bearer token is refused", async () => {
      const body = { name: "Sneaky", admin: { email: "s@sneaky.test", password: await md5("x") } };
      const partnerToken = await loginAs(OTHER.admin.email, OTHER.admin.passwordMd5);
      for (const headers of [{}, { authorization: `Bearer ${partnerToken}` }] as Record<string, string>[]) {
        const res = await call("POST", "/api/partners", body, { apiKey: null, headers });
        expect([401, 403]).toContain(res.status);
      }
      expect(await env.DB.prepare("select id from partners where name = 'Sneaky'").first()).toBeNull();
    });
  });

  describe("GET /api/partners", () => {
    it("pages the partners with items + pagination, never secrets", async () => {
      const res = await op("GET", "/api/partners?size=1");
      expect(res.status).toBe(200);
      expect(res.json.data.items).toHaveLength(1);
      expect(Object.keys(res.json.data.items[0]).sort()).toEqual(["createdAt", "id", "isActive", "name", "updatedAt"]);
      const total = (await env.DB.prepare("select count(*) n from partners").first<{ n: number }>())!.n;
      expect(res.json.data.pagination).toEqual({ page: 1, size: 1, total, totalPages: total });
      expect((await call("GET", "/api/partners", undefined, { apiKey: null })).status).toBe(401);
      expect((await op("GET", "/api/partners?size=500")).status).toBe(400);
    });
  });
});

describe("housekeeping", () => {
  const PURGE = "/api/operator/login-failures/purge";
  const fail = async (email: string) => post("/api/auth/login", loginBody(email, await md5("wrong")), { apiKey: null });

  describe("POST /api/operator/login-failures/purge", () => {
    it("unlocks one account at once", async () => {
      for (let i = 0; i < LOGIN_LOCKOUT.maxFailures; i++) await fail(DEMO.admin.email);
      expect(
        (await post("/api/auth/login", loginBody(DEMO.admin.email, DEMO.admin.passwordMd5), { apiKey: null })).status,
      ).toBe(429);
      const res = await call("POST", PURGE, { email: "ADMIN@demo.test" }, OPERATOR);
      expect(res.status).toBe(200);
      // Its counters from every IP and from all IPs together.
      expect(res.json.data).toEqual({ deleted: 2 });
      expect(
        (await post("/api/auth/login", loginBody(DEMO.admin.email, DEMO.admin.passwordMd5), { apiKey: null })).status,
      ).toBe(200);
    });

    it("purges only counters whose window and lock have run out", async () => {
      await fail("stale@nowhere.test");
      await fail("fresh@nowhere.test");
      await env.DB.prepare("update login_failure_counters set window_started_at = ? where email = 'stale@nowhere.test'")
        .bind(Date.now() - LOGIN_LOCKOUT.windowMs - 1)
        .run();
      const res = await call("POST", PURGE, {}, OPERATOR);
      expect(res.json.data).toEqual({ deleted: 2 });
      const left = await env.DB.prepare("select email from login_failure_counters").all<{ email: string }>();
      expect(left.results.map((r) => r.email)).toEqual(["fresh@nowhere.test", "fresh@nowhere.test"]);
    });

    it("needs the operator token and a valid e-mail", async () => {
      expect((await call("POST", PURGE, {}, { apiKey: null })).status).toBe(401);
      expect((await call("POST", PURGE, { email: "nope" }, OPERATOR)).status).toBe(400);
    });
  });
});

describe("data-subjects", () => {
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
});

describe("upkeep", () => {
  const NOW = Date.parse("2026-06-01T12:00:00Z");
  const MINUTE = 60_000;

  const seed = async () => {
    await env.DB.batch([
      env.DB.prepare("DELETE FROM login_failure_counters"),
      env.DB.prepare("DELETE FROM payment_setup_tokens"),
      env.DB.prepare("DELETE FROM radar_signals"),
      env.DB.prepare("DELETE FROM quotes"),
      env.DB.prepare(
        "INSERT INTO quotes (id, partner_id, expires_at, body) VALUES ('q-expired', 'demo', ?, '{}'), ('q-live', 'demo', ?, '{}')",
      ).bind(NOW, NOW + MINUTE),
      // Window and lock both over: removed. Lock still running, or window still open: kept.
      env.DB.prepare(
        "INSERT INTO login_failure_counters (email, scope, attempt_id, failures, window_started_at, locked_until) VALUES (?, 'ip:192.0.2.1', 'attempt', 2, ?, NULL)",
      ).bind("stale@x.test", NOW - LOGIN_LOCKOUT.windowMs - 1),
      env.DB.prepare(
        "INSERT INTO login_failure_counters (email, scope, attempt_id, failures, window_started_at, locked_until) VALUES (?, 'ip:192.0.2.1', 'attempt', 5, ?, ?)",
      ).bind("unlocked@x.test", NOW - 2 * LOGIN_LOCKOUT.windowMs, NOW - 1),
      env.DB.prepare(
        "INSERT INTO login_failure_counters (email, scope, attempt_id, failures, window_started_at, locked_until) VALUES (?, 'ip:192.0.2.1', 'attempt', 5, ?, ?)",
      ).bind("locked@x.test", NOW - LOGIN_LOCKOUT.windowMs - 1, NOW + 5 * MINUTE),
      env.DB.prepare(
        "INSERT INTO login_failure_counters (email, scope, attempt_id, failures, window_started_at, locked_until) VALUES (?, 'ip:192.0.2.1', 'attempt', 1, ?, NULL)",
      ).bind("fresh@x.test", NOW - MINUTE),
      ...[
        ["expired", NOW - MINUTE, null],
        ["expired-used", NOW - 1, NOW - 10 * MINUTE],
        ["at-now", NOW, null],
        ["live", NOW + MINUTE, null],
        ["live-used", NOW + MINUTE, NOW - MINUTE],
      ].map(([hash, expiresAt, usedAt]) =>
        env.DB.prepare(
          "INSERT INTO payment_setup_tokens (token_hash, partner_id, actor_id, session_id, expires_at, used_at) VALUES (?, 'demo', 'a', 's', ?, ?)",
        ).bind(hash, expiresAt, usedAt),
      ),
      ...[
        ["sess-expired", NOW - 1],
        ["sess-live", NOW + MINUTE],
      ].map(([session, expiresAt]) =>
        env.DB.prepare(
          "INSERT INTO radar_signals (partner_id, session_id, signals, received_at, expires_at_ms) VALUES ('demo', ?, '{}', '2026-05-31T12:00:00Z', ?)",
        ).bind(session, expiresAt),
      ),
    ]);
  };

  const remaining = async () => ({
    loginFailures: (
      await env.DB.prepare("SELECT email FROM login_failure_counters ORDER BY email").all<{ email: string }>()
    ).results.map((r) => r.email),
    setupTokens: (
      await env.DB.prepare("SELECT token_hash FROM payment_setup_tokens ORDER BY token_hash").all<{
        token_hash: string;
      }>()
    ).results.map((r) => r.token_hash),
    radarSignals: (
      await env.DB.prepare("SELECT session_id FROM radar_signals ORDER BY session_id").all<{ session_id: string }>()
    ).results.map((r) => r.session_id),
    quotes: (await env.DB.prepare("SELECT id FROM quotes ORDER BY id").all<{ id: string }>()).results.map((r) => r.id),
  });

  const KEPT = {
    loginFailures: ["fresh@x.test", "locked@x.test"],
    setupTokens: ["live", "live-used"],
    radarSignals: ["sess-live"],
    quotes: ["q-live"],
  };

  // Every upkeep run logs a line per task; each test expects its lines (and errors) and reads them.
  const lines = (logged: string[]) => logged.map((line) => JSON.parse(line));

  describe("scheduled upkeep", () => {
    it("the Cron Trigger's handler removes expired rows as of the scheduled time and keeps the rest", async () => {
      const logs = expectLogs("log");
      const errors = expectLogs("error");
      await seed();
      const ctx = createExecutionContext();
      await worker.scheduled(createScheduledController({ scheduledTime: NOW, cron: "17 * * * *" }), env, ctx);
      await waitOnExecutionContext(ctx);
      expect(await remaining()).toEqual(KEPT);
      expect(lines(logs)).toEqual([
        { level: "info", event: "upkeep", task: "expired-quotes", removed: 1, durationMs: expect.any(Number) },
        { level: "info", event: "upkeep", task: "stale_login_failures", removed: 2, durationMs: expect.any(Number) },
        {
          level: "info",
          event: "upkeep",
          task: "expired_card_setup_tokens",
          removed: 3,
          durationMs: expect.any(Number),
        },
        { level: "info", event: "upkeep", task: "expired_radar_signals", removed: 1, durationMs: expect.any(Number) },
        { level: "info", event: "upkeep", task: "radar-pii-retention", removed: 0, durationMs: expect.any(Number) },
        { level: "info", event: "upkeep", task: "webhook-reenqueue", removed: 0, durationMs: expect.any(Number) },
        { level: "info", event: "upkeep", task: "expired-events", removed: 0, durationMs: expect.any(Number) },
        { level: "info", event: "upkeep", task: "expired-idempotency", removed: 0, durationMs: expect.any(Number) },
        { level: "info", event: "upkeep", task: "settle-pending-bookings", removed: 0, durationMs: expect.any(Number) },
        { level: "info", event: "upkeep", task: "expired-holds", removed: 0, durationMs: expect.any(Number) },
        {
          level: "info",
          event: "upkeep",
          task: "expired-modification-previews",
          removed: 0,
          durationMs: expect.any(Number),
        },
        { level: "info", event: "upkeep", task: "past-night-holds", removed: 0, durationMs: expect.any(Number) },
      ]);
      expect(errors).toEqual([]);
    });

    it("removes nothing more on a second run", async () => {
      expectLogs("log");
      await seed();
      await runUpkeep(upkeepTasks, env, new Date(NOW));
      expect(await runUpkeep(upkeepTasks, env, new Date(NOW))).toEqual(
        upkeepTasks.map((t) => ({ task: t.name, removed: 0 })),
      );
      expect(await remaining()).toEqual(KEPT);
    });

    it("a failing task is logged with its stack and does not stop the others", async () => {
      expectLogs("log");
      const errors = expectLogs("error");
      await seed();
      const broken: UpkeepTask = {
        name: "broken_table",
        run: async (e) => (await e.DB.prepare("DELETE FROM no_such_table").run()).meta.changes,
      };
      const outcomes = await runUpkeep([broken, ...upkeepTasks], env, new Date(NOW));
      expect(outcomes[0]).toEqual({ task: "broken_table", failed: expect.stringContaining("no such table") });
      expect(outcomes.slice(1)).toEqual([
        { task: "expired-quotes", removed: 1 },
        { task: "stale_login_failures", removed: 2 },
        { task: "expired_card_setup_tokens", removed: 3 },
        { task: "expired_radar_signals", removed: 1 },
        { task: "radar-pii-retention", removed: 0 },
        { task: "webhook-reenqueue", removed: 0 },
        { task: "expired-events", removed: 0 },
        { task: "expired-idempotency", removed: 0 },
        { task: "settle-pending-bookings", removed: 0 },
        { task: "expired-holds", removed: 0 },
        { task: "expired-modification-previews", removed: 0 },
        { task: "past-night-holds", removed: 0 },
      ]);
      expect(await remaining()).toEqual(KEPT);
      expect(lines(errors)).toEqual([
        {
          level: "error",
          event: "upkeep_failed",
          task: "broken_table",
          error: expect.stringContaining("no such table"),
          durationMs: expect.any(Number),
        },
      ]);
    });

    const backlog = async () => {
      await env.DB.prepare("DELETE FROM payment_setup_tokens").run();
      const rows = Array.from({ length: 2_500 }, (_, i) => i);
      // One JSON parameter per statement: D1 allows at most 100 bound parameters.
      await env.DB.prepare(
        "INSERT INTO payment_setup_tokens (token_hash, partner_id, actor_id, session_id, expires_at) SELECT 'old-' || value, 'demo', 'a', 's', ? FROM json_each(?)",
      )
        .bind(NOW - MINUTE, JSON.stringify(rows))
        .run();
      await env.DB.prepare(
        "INSERT INTO payment_setup_tokens (token_hash, partner_id, actor_id, session_id, expires_at) VALUES ('live', 'demo', 'a', 's', ?)",
      )
        .bind(NOW + MINUTE)
        .run();
    };

    it("deletes a backlog larger than one batch", async () => {
      await backlog();
      const cardTokens = upkeepTasks.find((t) => t.name === "expired_card_setup_tokens")!;
      expect(await cardTokens.run(env, new Date(NOW))).toBe(2_500);
      expect((await remaining()).setupTokens).toEqual(["live"]);
    });

    it("stops after maxBatches statements; the next run takes the rest", async () => {
      await backlog();
      const expired = () =>
        deleteInBatches(env.DB, "payment_setup_tokens", "expires_at <= ?", [NOW], { batch: 1_000, maxBatches: 2 });
      expect(await expired()).toBe(2_000);
      expect(await expired()).toBe(500);
      expect((await remaining()).setupTokens).toEqual(["live"]);
    });
  });
});
