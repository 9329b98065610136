import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { keyedHash } from "../../platform/crypto/digest";
import { database } from "../../platform/db/client";
import { hashOldRadarPii, radarPiiRetention, retentionDays } from "./personal-data";
import { checkBody, unique } from "../../../test/support/radar";
import { checkRequestSchema } from "./schemas";
import { runCheck } from "./service";

const DAY = 24 * 60 * 60_000;
const db = database(env.DB);
const check = (body: Record<string, unknown>, now: number) =>
  runCheck(db, {
    assets: env.ASSETS,
    partnerId: "demo",
    sessionId: unique("s"),
    idempotencyKey: null,
    piiKey: env.PII_HASH_SECRET,
    request: checkRequestSchema.parse(body),
    now,
  });
const stored = (id: string) => env.DB.prepare("select * from radar_checks where id = ?").bind(id).first<any>();

describe("radar-pii-retention upkeep task", () => {
  it("after RADAR_RETENTION_DAYS replaces e-mail, phone, IP, address and names with keyed hashes; newer checks keep theirs", async () => {
    const now = Date.UTC(2026, 10, 24, 3, 0, 0);
    const email = `${unique("old")}@example.com`;
    const old = await check(
      checkBody({ booker: { first_name: "Jane", last_name: "Roe", email, phone: "+12025550199" } }),
      now - 91 * DAY,
    );
    const recent = await check(
      checkBody({ booker: { first_name: "Jane", last_name: "Roe", email, phone: "+12025550199" } }),
      now - 89 * DAY,
    );
    const before = await stored(old.check.check_id);

    expect(radarPiiRetention.name).toBe("radar-pii-retention");
    expect(await radarPiiRetention.run(env, new Date(now))).toBe(1);

    const after = await stored(old.check.check_id);
    const inputs = JSON.parse(after.inputs);
    for (const value of [
      inputs.request.booker.email,
      inputs.request.booker.phone,
      inputs.request.booker.first_name,
      inputs.request.context.ip,
      inputs.request.payment.billing_address.line1,
      inputs.request.payment.billing_address.postal_code,
    ]) {
      expect(value).toMatch(/^hmac:[0-9a-f]{64}$/);
    }
    expect(inputs.request.booker.email).toBe(`hmac:${await keyedHash(env.PII_HASH_SECRET, email)}`);
    for (const raw of [email, "+12025550199", "Jane", "1 Main St", JSON.parse(before.inputs).request.context.ip])
      expect(after.inputs).not.toContain(raw);
    expect(inputs.request.payment.billing_address.country).toBe("US");
    // Decision, score and the identity hashes the velocity rules use are unchanged.
    expect(after).toMatchObject({
      decision: before.decision,
      score: before.score,
      email_hash: before.email_hash,
      ip_hash: before.ip_hash,
      input_digest: before.input_digest,
    });
    expect(after.pii_removed_at).toBe(now);
    expect((await stored(recent.check.check_id)).inputs).toContain(email);

    // A second run has nothing left to do.
    expect(await radarPiiRetention.run(env, new Date(now))).toBe(0);
  });

  it("velocity rules still match checks whose personal data is hashed", async () => {
    const t = Date.UTC(2026, 10, 24, 5, 0, 0);
    const email = `${unique("vel")}@example.com`;
    for (let i = 0; i < 5; i++) await check(checkBody({ booker: { email } }), t + i);
    await hashOldRadarPii(db, env.PII_HASH_SECRET, 0, t + 10);
    const rows = await env.DB.prepare("select inputs from radar_checks where checked_at_ms between ? and ?")
      .bind(t, t + 4)
      .all<{ inputs: string }>();
    expect(rows.results.every((r) => !r.inputs.includes(email))).toBe(true);
    const sixth = await check(checkBody({ booker: { email } }), t + 20);
    expect(sixth.check.reasons.map((r) => r.code)).toContain("email_velocity");
  });

  it("reads RADAR_RETENTION_DAYS, 90 by default", () => {
    expect(retentionDays({})).toBe(90);
    expect(retentionDays({ RADAR_RETENTION_DAYS: "30" })).toBe(30);
    expect(retentionDays({ RADAR_RETENTION_DAYS: "soon" })).toBe(90);
    expect(retentionDays(env)).toBe(90);
  });
});
