import { env } from "cloudflare:test";
import { database } from "../../platform/db/client";
import { describe, expect, it } from "vitest";
import { call, post } from "../../../test/support/api";
import { signingKeys } from "../../platform/config/secrets";
import { signToken } from "../../platform/crypto/signed-token";
import { sha256Hex } from "../../platform/crypto/digest";
import { issueSetupToken } from "./service";

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
