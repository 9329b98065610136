import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { chatEventScope } from "../chat/personal-data";
import { checkBody, humanSignals, runCheckCall, sendSignals, unique } from "../../../test/support/radar";
import { post, call } from "../../../test/support/api";
import { act, attachBody, chat, startSession } from "../../../test/support/chat";
import { database } from "../../platform/db/client";
import { signingKeys } from "../../platform/config/secrets";
import { signToken } from "../../platform/crypto/signed-token";
import { sha256Hex } from "../../platform/crypto/digest";
import { issueSetupToken } from "./service";

const ATTACH = "/v1/hotel-ea/payment-methods/attach";
const written = [
  "4242.4242.4242.4242",
  "4242 - 4242 - 4242 - 4242",
  "４２４２４２４２４２４２４２４２",
  "５５５５　５５５５　５５５５　４４４４",
];

describe("card numbers with separators or full-width digits are refused over HTTP", () => {
  it.each(written)("chat text %s", async (pan) => {
    const id = await startSession(`card-sep-${pan.length}`);
    const res = await chat("POST", "/events", { sessionId: id, text: `my card is ${pan} exp 12/30` });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("raw_card_data_refused");
    expect(res.text).not.toContain(pan);
    expect((await chat("GET", `/sessions/${id}`)).json.data.events).toEqual([]);
  });

  it("chat payload values at any depth and payload keys", async () => {
    const id = await startSession("card-in-keys");
    for (const [payload, field] of [
      [{ paymentMethodId: "pm_x", note: { deeper: ["4242.4242.4242.4242"] } }, "payload.note.deeper[0]"],
      [{ paymentMethodId: "pm_x", "4242 4242 4242 4242": "x" }, "payload.<key>"],
      [{ paymentMethodId: "pm_x", "４２４２４２４２４２４２４２４２": 1 }, "payload.<key>"],
    ] as const) {
      const res = await act(id, "action_confirm_payment_card", payload, "k-card");
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("raw_card_data_refused");
      expect(res.json.details).toEqual({ field });
      expect(res.text).not.toMatch(/4242 4242|４２４２/);
    }
  });

  it.each(written)("attach body %s", async (pan) => {
    const res = await post(ATTACH, attachBody("any-token", { note: pan }), { apiKey: null });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("raw_card_data_refused");
    expect(res.json.details).toEqual({ field: "note" });
  });
});

/** Every string in a JSON value: its path as the guard names it (`a.b[0]`) and the value with that string replaced. */
const everyStringOf = (body: unknown, replacement: string) => {
  const found: Array<{ field: string; body: unknown }> = [];
  const walk = (node: unknown, path: Array<string | number>) => {
    if (typeof node === "string") {
      const copy = structuredClone(body) as Record<string | number, any>;
      const parent = path.slice(0, -1).reduce<any>((at, key) => at[key], copy);
      parent[path.at(-1)!] = replacement;
      const field = path.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("");
      found.push({ field, body: copy });
    } else if (node && typeof node === "object") {
      for (const [key, inner] of Object.entries(node)) walk(inner, [...path, Array.isArray(node) ? Number(key) : key]);
    }
  };
  walk(body, []);
  return found;
};

const PAN_IN_TEXT = "ref 4242-4242-4242-4242 x";
const countOf = async (sql: string, ...binds: unknown[]) =>
  (await env.DB.prepare(sql)
    .bind(...binds)
    .first<number>("n"))!;

describe("every string of a chat or radar body is checked for card data; nothing is stored", () => {
  const refused = (res: { status: number; json: any; text: string }, field: string) => {
    expect(res.status, field).toBe(400);
    expect(res.json.code, field).toBe("raw_card_data_refused");
    expect(res.json.details).toMatchObject({ field });
    expect(res.text).not.toContain("4242-4242");
  };

  it("a chat session body: actor.actorId, channel.workspaceId, conversation.* and the rest", async () => {
    const body = {
      actor: { actorId: "card-fields-actor", timezoneOffsetMinutes: -300 },
      channel: { workspaceId: "ws-1" },
      conversation: { id: "conv-1", channelId: "chan-1", threadTs: "1700000000.000100" },
    };
    const cases = everyStringOf(body, PAN_IN_TEXT);
    expect(cases.map((c) => c.field)).toEqual([
      "actor.actorId",
      "channel.workspaceId",
      "conversation.id",
      "conversation.channelId",
      "conversation.threadTs",
    ]);
    const sessionsBefore = await countOf("SELECT count(*) AS n FROM chat_session_actors");
    for (const { field, body: withPan } of cases) {
      const res = await chat("POST", "/sessions", withPan);
      refused(res, field);
      expect(res.json.error).toMatch(/^Raw card data \(card number or security code\) must never be sent/);
    }
    expect(await countOf("SELECT count(*) AS n FROM chat_session_actors")).toBe(sessionsBefore);
    // The body without card data is a session.
    expect((await chat("POST", "/sessions", body)).status).toBe(201);
  });

  it("a chat event body: actor.actorId, idempotencyKey, text, payload and sessionId", async () => {
    const sessionId = await startSession("card-fields-events");
    const body = {
      sessionId,
      actor: { actorId: "card-fields-events" },
      kind: "action_confirm_payment_card",
      payload: { paymentMethodId: "pm_x" },
      idempotencyKey: "key-1",
    };
    const cases = everyStringOf(body, PAN_IN_TEXT);
    expect(cases.map((c) => c.field)).toEqual([
      "sessionId",
      "actor.actorId",
      "kind",
      "payload.paymentMethodId",
      "idempotencyKey",
    ]);
    for (const { field, body: withPan } of cases) refused(await chat("POST", "/events", withPan), field);
    refused(await chat("POST", "/events", { sessionId, text: PAN_IN_TEXT }), "text");
    // Nothing reached the session or the idempotency store.
    expect((await chat("GET", `/sessions/${sessionId}`)).json.data.events).toEqual([]);
    expect(await countOf("SELECT count(*) AS n FROM idempotency_keys WHERE scope = ?", chatEventScope(sessionId))).toBe(
      0,
    );
  });

  it("a radar check body: booker, guest, context, billing address, extras and inventory fields", async () => {
    const body = checkBody({ inventory_id: "inv-1", inventory_country: "US" });
    const cases = everyStringOf(body, PAN_IN_TEXT);
    expect(cases.map((c) => c.field)).toEqual(
      expect.arrayContaining([
        "booker.first_name",
        "booker.phone",
        "extras.channel",
        "inventory_id",
        "context.user_id",
      ]),
    );
    expect(cases.length).toBe(19);
    const checksBefore = await countOf("SELECT count(*) AS n FROM radar_checks");
    for (const { field, body: withPan } of cases) refused(await runCheckCall(withPan), field);
    expect(await countOf("SELECT count(*) AS n FROM radar_checks")).toBe(checksBefore);
    expect((await runCheckCall(body)).status).toBe(200);
  });

  it("a radar signals body: page and referrer URLs, user agent, device and fingerprint", async () => {
    const body = humanSignals();
    const cases = everyStringOf(body, PAN_IN_TEXT);
    expect(cases.map((c) => c.field)).toEqual([
      "page_url",
      "referrer",
      "user_agent",
      "language",
      "timezone",
      "device.platform",
      "fingerprint.visitor_id",
    ]);
    const sessionId = unique("card-fields-signals-");
    for (const { field, body: withPan } of cases) refused(await sendSignals(withPan, { sessionId }), field);
    expect(await countOf("SELECT count(*) AS n FROM radar_signals WHERE session_id = ?", sessionId)).toBe(0);
    expect((await sendSignals(body, { sessionId })).status).toBe(202);
  });
});

describe("setup-token", () => {
  const ATTACH = "/v1/hotel-ea/payment-methods/attach";
  const keys = () => signingKeys(env, "PAGE_TOKEN_SECRET");
  const card = { paymentMethodId: "pm_setup_token", cardBrand: "visa", cardLast4: "4242", expMonth: 12, expYear: 2099 };
  const owner = (n: string) => ({ partnerId: "demo", actorId: `setup-token-${n}`, sessionId: `s-${n}` });
  const attach = (portalToken: string) => post(ATTACH, { portalToken, ...card }, { apiKey: null });
  const page = (token: string) =>
    call("GET", `/card-setup?token=${encodeURIComponent(token)}`, undefined, { apiKey: null });

  describe("card-setup links are signed tokens (purpose card-setup), one-time through D1", () => {
    it("a link we issued opens the form and attaches once", async () => {
      const { token } = await issueSetupToken(database(env.DB), keys(), owner("once"));
      expect(token).toMatch(/^pst_[\w-]+\.[\w-]+$/);
      expect((await page(token)).status).toBe(200);
      expect((await attach(token)).status).toBe(200);
      expect((await attach(token)).status).toBe(401);
    });

    it("an altered or forged link is refused before any row is consulted, even with a row for it", async () => {
      const { token } = await issueSetupToken(database(env.DB), keys(), owner("forged"));
      const altered = `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}`;
      // A row for the altered token, as if someone could write one: the signature still refuses it.
      await env.DB.prepare(
        "INSERT INTO payment_setup_tokens (token_hash, partner_id, actor_id, session_id, expires_at) VALUES (?, 'demo', 'x', 'y', ?)",
      )
        .bind(await sha256Hex(altered), Date.now() + 60_000)
        .run();
      const res = await attach(altered);
      expect(res.status).toBe(401);
      expect(res.json.message).toBe("portalToken is invalid, expired or already used");
      expect((await page(altered)).status).toBe(404);
    });

    it("a token signed for another purpose (a page token) is not a setup link", async () => {
      const other = `pst_${await signToken(keys(), "content-page", "x", Date.now() + 60_000)}`;
      expect((await attach(other)).status).toBe(401);
      expect((await page(other)).status).toBe(404);
    });
  });
});

describe("book and modification bodies are checked for card data, dotted forms too (issue 37)", () => {
  const DOTTED = ["4242.424242424242", "4242424242424242.0"];
  const book = {
    bookCriteria: {
      quoteId: "q-card-fields",
      accommodation: { code: "US000001" },
      occupancies: [{ occupancyId: 1, paxes: [{ age: 30, name: "Ada", surName: "Lovelace" }] }],
      partnerReference: "card-fields-ref",
      holder: { name: "Ada", surName: "Lovelace" },
      checkIn: "2027-03-10",
      checkOut: "2027-03-12",
    },
    settings: { access: { code: 1001 } },
  };

  it.each(DOTTED)("POST /api/book refuses %s in every free-text field; nothing is booked", async (pan) => {
    const cases = everyStringOf(book, pan);
    expect(cases.map((c) => c.field)).toEqual(
      expect.arrayContaining([
        "bookCriteria.occupancies[0].paxes[0].name",
        "bookCriteria.occupancies[0].paxes[0].surName",
        "bookCriteria.partnerReference",
        "bookCriteria.holder.name",
        "bookCriteria.holder.surName",
      ]),
    );
    const before = await countOf("SELECT count(*) AS n FROM bookings");
    for (const { field, body } of cases) {
      const res = await post("/api/book", body);
      expect([field, res.status, res.json.code, res.json.details]).toEqual([
        field,
        400,
        "raw_card_data_refused",
        { field },
      ]);
      expect(res.text).not.toContain(pan);
    }
    expect(await countOf("SELECT count(*) AS n FROM bookings")).toBe(before);
  });

  it.each(DOTTED)("a modification preview and commit refuse %s in the holder and pax names", async (pan) => {
    const change = {
      change: {
        holder: { name: "Ada", surName: "Byron" },
        occupancies: [{ paxes: [{ age: 30, name: "Ada", surName: "Byron" }] }],
      },
    };
    const previewsBefore = await countOf("SELECT count(*) AS n FROM booking_modifications");
    for (const { field, body } of everyStringOf(change, pan)) {
      const res = await post("/api/bookings/BKCARDFIELDS0001/modifications/preview", body);
      expect([field, res.status, res.json.code]).toEqual([field, 400, "raw_card_data_refused"]);
    }
    const commit = await post("/api/bookings/BKCARDFIELDS0001/modifications", { previewId: `mp_${pan}` });
    expect([commit.status, commit.json.code]).toEqual([400, "raw_card_data_refused"]);
    expect(await countOf("SELECT count(*) AS n FROM booking_modifications")).toBe(previewsBefore);
  });

  it.each(DOTTED)("chat text %s is refused (the same guard)", async (pan) => {
    const id = await startSession(`card-dotted-${pan.length}`);
    const res = await chat("POST", "/events", { sessionId: id, text: pan });
    expect([res.status, res.json.code]).toEqual([400, "raw_card_data_refused"]);
  });
});
