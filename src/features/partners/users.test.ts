import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, DEMO_KEY, post } from "../../../test/support/api";
import {
  asBearer,
  bearer,
  createUser,
  demoAdminToken,
  loginAs,
  md5,
  OPERATOR,
  otherAdminToken,
} from "../../../test/support/sessions";
import { database } from "../../platform/db/client";
import { deletePartnerUser } from "./users";
import { DEMO, OTHER } from "../../../test/support/accounts";

let admin: string;
let otherAdmin: string;
let plainUser: { token: string; id: string };

beforeAll(async () => {
  admin = await demoAdminToken();
  otherAdmin = await otherAdminToken();
  const { profile, password } = await createUser(admin, "plain@demo.test");
  plainUser = { id: profile.id, token: await loginAs("plain@demo.test", password) };
});

/** A fresh partner (onboarded by the operator) with its first admin and a second one, both logged in. */
const partnerWithTwoAdmins = async (id: string) => {
  const password = await md5(`${id}-first`);
  const onboarded = await call(
    "POST",
    "/api/partners",
    { id, name: id, admin: { email: `first@${id}.test`, password } },
    OPERATOR,
  );
  expect(onboarded.status, onboarded.text).toBe(201);
  const firstToken = await loginAs(`first@${id}.test`, password);
  const second = await createUser(firstToken, `second@${id}.test`, "admin");
  return {
    id,
    first: { id: onboarded.json.data.admin.id as string, email: `first@${id}.test`, token: firstToken },
    second: {
      id: second.profile.id as string,
      email: `second@${id}.test`,
      token: await loginAs(`second@${id}.test`, second.password),
    },
  };
};

const activeAdmins = async (partnerId: string) =>
  (
    await env.DB.prepare("select id from users where partner_id = ? and role = 'admin' and is_active = 1 order by id")
      .bind(partnerId)
      .all<{ id: string }>()
  ).results.map((r) => r.id);

const PROFILE_KEYS = [
  "createdAt",
  "email",
  "firstName",
  "id",
  "isActive",
  "lastName",
  "partnerId",
  "phoneNumber",
  "role",
  "updatedAt",
];

describe("GET /api/users/me", () => {
  it("returns the caller's profile, without any password field", async () => {
    const res = await asBearer(admin).get("/api/users/me");
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.data).sort()).toEqual(PROFILE_KEYS);
    expect(res.json.data).toMatchObject({
      id: DEMO.admin.id,
      partnerId: "demo",
      email: DEMO.admin.email,
      role: "admin",
      isActive: true,
    });
    expect(res.text).not.toMatch(/password|pbkdf2/i);
  });

  it("works for a role user too", async () => {
    const res = await asBearer(plainUser.token).get("/api/users/me");
    expect(res.json.data).toMatchObject({ id: plainUser.id, role: "user" });
  });
});

describe("GET /api/users", () => {
  it("lists the users of the caller's partner only, never hashes", async () => {
    const res = await asBearer(plainUser.token).get("/api/users");
    expect(res.status).toBe(200);
    const emails = res.json.data.map((u: { email: string }) => u.email);
    expect(emails).toContain(DEMO.admin.email);
    expect(emails).toContain("plain@demo.test");
    expect(emails).not.toContain(OTHER.admin.email);
    expect(res.json.data.every((u: { partnerId: string }) => u.partnerId === "demo")).toBe(true);
    expect(res.text).not.toMatch(/password|pbkdf2/i);
  });
});

describe("POST /api/users", () => {
  it("creates a user (201) who can then log in; the e-mail is stored lower-cased", async () => {
    const password = await md5("fresh-secret");
    const res = await asBearer(admin).post("/api/users", {
      email: "New.Person@Demo.Test",
      password,
      role: "user",
      firstName: "New",
      lastName: "Person",
      phoneNumber: "+1 555 010 0000",
    });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({
      email: "new.person@demo.test",
      partnerId: "demo",
      role: "user",
      isActive: true,
      firstName: "New",
      phoneNumber: "+1 555 010 0000",
    });
    expect(res.json.data.id).toMatch(/^usr_[0-9a-f]{32}$/);
    expect(res.text).not.toMatch(/password|pbkdf2/i);
    expect(await loginAs("new.person@demo.test", password)).toBeTruthy();
  });

  it("can create another admin", async () => {
    const { profile, password } = await createUser(admin, "second-admin@demo.test", "admin");
    expect(profile.role).toBe("admin");
    const token = await loginAs("second-admin@demo.test", password);
    expect(
      (await asBearer(token).post("/api/users", { email: "made-by-second@demo.test", password, role: "user" })).status,
    ).toBe(201);
  });

  it("needs the admin role: 403 Require partner admin role", async () => {
    const res = await asBearer(plainUser.token).post("/api/users", {
      email: "x@demo.test",
      password: await md5("x"),
      role: "user",
    });
    expect(res.status).toBe(403);
    expect(res.json.message).toBe("Require partner admin role");
  });

  it("409 Conflict for a duplicate e-mail (any case), decided by the unique index", async () => {
    const body = { email: "dup@demo.test", password: await md5("x"), role: "user" };
    expect((await asBearer(admin).post("/api/users", body)).status).toBe(201);
    const again = await asBearer(admin).post("/api/users", { ...body, email: "DUP@demo.test" });
    expect(again.status).toBe(409);
    expect(again.json.message).toBe("Conflict");
  });

  it("lets exactly one of two concurrent creations of one e-mail win", async () => {
    const body = { email: "race@demo.test", password: await md5("x"), role: "user" };
    const results = await Promise.all([
      asBearer(admin).post("/api/users", body),
      asBearer(admin).post("/api/users", body),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it("409 Conflict for an e-mail already used under another partner (e-mails are global login names)", async () => {
    const res = await asBearer(admin).post("/api/users", {
      email: OTHER.admin.email,
      password: await md5("x"),
      role: "user",
    });
    expect(res.status).toBe(409);
    expect(res.json.message).toBe("Conflict");
    const row = await env.DB.prepare("select count(*) n from users where email = ?")
      .bind(OTHER.admin.email)
      .first<{ n: number }>();
    expect(row!.n).toBe(1);
  });

  it.each([
    ["an invalid e-mail", { email: "not-an-email", role: "user" }, "email"],
    ["a password that is not MD5", { email: "p@demo.test", password: "plaintext", role: "user" }, "password"],
    ["an unknown role", { email: "r@demo.test", role: "owner" }, "role"],
    ["a missing role", { email: "r@demo.test" }, "role"],
    ["a missing e-mail", { role: "user" }, "email is required"],
    ["a numeric e-mail", { email: 42, role: "user" }, "email"],
    ["an array body", [], "Request body"],
  ])("rejects %s with 400", async (_name, partial, text) => {
    const body = Array.isArray(partial) ? partial : { password: "0123456789abcdef0123456789abcdef", ...partial };
    const res = await asBearer(admin).post("/api/users", body);
    expect(res.status).toBe(400);
    expect(res.json.message).toContain(text);
  });

  it("rejects malformed JSON with 400 and a huge body with 413", async () => {
    const malformed = await call("POST", "/api/users", undefined, {
      ...bearer(admin),
      raw: '{"email":',
      headers: { ...bearer(admin).headers, "content-type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    const huge = await asBearer(admin).post("/api/users", {
      email: "a@demo.test",
      role: "user",
      password: "x".repeat(2 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
  });
});

describe("DELETE /api/users/:id", () => {
  it("deletes a user of the same partner; the user disappears from the list", async () => {
    const { profile } = await createUser(admin, "to-delete@demo.test");
    const res = await asBearer(admin).del(`/api/users/${profile.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: {}, message: "success" });
    const list = await asBearer(admin).get("/api/users");
    expect(list.json.data.map((u: { id: string }) => u.id)).not.toContain(profile.id);
    const again = await asBearer(admin).del(`/api/users/${profile.id}`);
    expect(again.status).toBe(404);
    expect(again.json.message).toBe("User not found");
  });

  it("403 Cannot delete user from another partner, and the user survives", async () => {
    const res = await asBearer(otherAdmin).del(`/api/users/${plainUser.id}`);
    expect(res.status).toBe(403);
    expect(res.json.message).toBe("Cannot delete user from another partner");
    expect((await asBearer(plainUser.token).get("/api/users/me")).status).toBe(200);
  });

  it("refuses to delete oneself (400) and needs the admin role (403)", async () => {
    const self = await asBearer(admin).del(`/api/users/${DEMO.admin.id}`);
    expect(self.status).toBe(400);
    expect(self.json.message).toBe("Cannot delete your own user");
    const byUser = await asBearer(plainUser.token).del(`/api/users/${DEMO.admin.id}`);
    expect(byUser.status).toBe(403);
    expect(byUser.json.message).toBe("Require partner admin role");
  });

  it("deletes another admin of the same partner (the contract asks only 'same partner'); its token stops at once", async () => {
    const { profile, password } = await createUser(admin, "admin-deletable@demo.test", "admin");
    const secondAdmin = await loginAs("admin-deletable@demo.test", password);
    const res = await asBearer(admin).del(`/api/users/${profile.id}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: {}, message: "success" });
    expect((await asBearer(secondAdmin).get("/api/users/me")).status).toBe(401);
    const list = await asBearer(admin).get("/api/users");
    expect(list.json.data.map((u: { id: string }) => u.id)).not.toContain(profile.id);
  });

  it("lets a newer admin delete the partner's first admin, then refuses to delete itself, the last", async () => {
    const partner = await partnerWithTwoAdmins("admins-swap");
    const res = await asBearer(partner.second.token).del(`/api/users/${partner.first.id}`);
    expect(res.status).toBe(200);
    expect(await activeAdmins(partner.id)).toEqual([partner.second.id]);
    const self = await asBearer(partner.second.token).del(`/api/users/${partner.second.id}`);
    expect(self.status).toBe(400);
    expect(self.json).toMatchObject({ code: "cannot_delete_self", message: "Cannot delete your own user" });
  });

  it("two admins deleting each other at the same moment (5 partners at once): each partner keeps exactly one admin", async () => {
    const partners = await Promise.all([1, 2, 3, 4, 5].map((n) => partnerWithTwoAdmins(`admins-race-${n}`)));
    const answers = await Promise.all(
      partners.flatMap((partner) => [
        asBearer(partner.first.token).del(`/api/users/${partner.second.id}`),
        asBearer(partner.second.token).del(`/api/users/${partner.first.id}`),
      ]),
    );
    for (const [i, partner] of partners.entries()) {
      const pair = answers.slice(2 * i, 2 * i + 2);
      expect(pair.filter((r) => r.status === 200)).toHaveLength(1);
      // The loser was refused by the delete's guard (409 last_admin) when it got past its own token
      // check in time, else by that check (401: it was already deleted). Which one is the request
      // order's; the test below holds the first case open.
      const refused = pair.find((r) => r.status !== 200)!;
      if (refused.status === 409)
        expect(refused.json).toMatchObject({
          code: "last_admin",
          message: "Cannot delete the partner's last active admin",
        });
      else expect(refused.json).toMatchObject({ code: "invalid_token" });
      expect(await activeAdmins(partner.id)).toHaveLength(1);
    }
  });

  it("the guard is the delete's own condition: with both callers past their checks, exactly one delete happens", async () => {
    // The window the race above aims at, held open: both admins already authenticated, neither deleted yet.
    const partner = await partnerWithTwoAdmins("admins-window");
    const caller = (who: { id: string; email: string }) => ({
      userId: who.id,
      partnerId: partner.id,
      email: who.email,
      role: "admin" as const,
    });
    const db = database(env.DB);
    const outcomes = await Promise.allSettled([
      deletePartnerUser(db, caller(partner.first), partner.second.id),
      deletePartnerUser(db, caller(partner.second), partner.first.id),
    ]);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    const [refused] = outcomes.filter((o) => o.status === "rejected");
    expect((refused as PromiseRejectedResult).reason).toMatchObject({ code: "last_admin" });
    expect(await activeAdmins(partner.id)).toHaveLength(1);
  });

  it("404 User not found for an unknown id", async () => {
    const res = await asBearer(admin).del("/api/users/usr_nope");
    expect(res.status).toBe(404);
    expect(res.json.message).toBe("User not found");
  });
});

describe("POST /api/users/:id/active-status", () => {
  it("deactivates and reactivates a role user, whose token follows at once", async () => {
    const { profile, password } = await createUser(admin, "toggle@demo.test");
    const token = await loginAs("toggle@demo.test", password);
    const off = await asBearer(admin).post(`/api/users/${profile.id}/active-status`, { isActive: false });
    expect(off.status).toBe(200);
    expect(off.json.data).toMatchObject({ id: profile.id, isActive: false });
    expect((await asBearer(token).get("/api/users/me")).status).toBe(401);
    const on = await asBearer(admin).post(`/api/users/${profile.id}/active-status`, { isActive: true });
    expect(on.json.data.isActive).toBe(true);
    expect((await asBearer(token).get("/api/users/me")).status).toBe(200);
  });

  it("400 Can only update user role status, not admin: deactivating an admin stays refused", async () => {
    const { profile } = await createUser(admin, "admin-target@demo.test", "admin");
    const res = await asBearer(admin).post(`/api/users/${profile.id}/active-status`, { isActive: false });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: "target_is_admin", message: "Can only update user role status, not admin" });
    expect(await activeAdmins("demo")).toContain(profile.id);
    const self = await asBearer(admin).post(`/api/users/${DEMO.admin.id}/active-status`, { isActive: false });
    expect(self.status).toBe(400);
  });

  it("403 Cannot update user from another partner; 403 for a role user; 404 for unknown", async () => {
    const other = await asBearer(otherAdmin).post(`/api/users/${plainUser.id}/active-status`, { isActive: false });
    expect(other.status).toBe(403);
    expect(other.json.message).toBe("Cannot update user from another partner");
    expect((await asBearer(plainUser.token).get("/api/users/me")).status).toBe(200);
    const byUser = await asBearer(plainUser.token).post(`/api/users/${plainUser.id}/active-status`, {
      isActive: false,
    });
    expect(byUser.status).toBe(403);
    expect(byUser.json.message).toBe("Require partner admin role");
    const missing = await asBearer(admin).post("/api/users/usr_nope/active-status", { isActive: false });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe("User not found");
  });

  it.each([[{}], [{ isActive: "false" }], [{ isActive: 0 }], [{ isActive: null }]])(
    "rejects %j with 400",
    async (body) => {
      const res = await asBearer(admin).post(`/api/users/${plainUser.id}/active-status`, body);
      expect(res.status).toBe(400);
      expect(res.json.message).toContain("isActive");
    },
  );
});

/** The partner's API keys (they need the same partner users and tokens as the user routes above). */
describe("/api/partner/api-keys", () => {
  const KEYS = "/api/partner/api-keys";
  const content = (apiKey: string) => post("/api/v1/content/accommodations", { size: 1 }, { apiKey });

  let admin: string;
  let userToken: string;

  beforeAll(async () => {
    admin = await demoAdminToken();
    const { password } = await createUser(admin, "keys-user@demo.test");
    userToken = await loginAs("keys-user@demo.test", password);
  });

  describe("GET /api/partner/api-keys", () => {
    it("lists the partner's keys masked, for any user of the partner", async () => {
      const res = await asBearer(userToken).get(KEYS);
      expect(res.status).toBe(200);
      const demoKey = res.json.data.find((k: { id: string }) => k.id === "key_demo");
      expect(demoKey).toEqual({
        id: "key_demo",
        name: "Demo key",
        apiKey: "demo-par…",
        createdAt: expect.any(String),
        revokedAt: null,
      });
      expect(res.text).not.toContain(DEMO_KEY);
      expect(res.text).not.toMatch(/keyHash|key_hash/);
      expect(res.json.data.map((k: { id: string }) => k.id)).not.toContain("key_other");
    });
  });

  describe("POST /api/partner/api-keys", () => {
    it("creates a key shown once in full; only its SHA-256 is stored; it works for content at once", async () => {
      const res = await asBearer(admin).post(KEYS, { name: "booking server" });
      expect(res.status).toBe(201);
      const { id, apiKey, name } = res.json.data;
      expect(apiKey).toMatch(/^esk_[A-Za-z0-9_-]{32}$/);
      expect(name).toBe("booking server");

      const row = await env.DB.prepare("select * from api_keys where id = ?").bind(id).first<Record<string, string>>();
      expect(JSON.stringify(row)).not.toContain(apiKey);
      const digest = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(apiKey)))]
        .map((b) => b.toString(16).padStart(2, "0"))
        .join("");
      expect(row!.key_hash).toBe(digest);

      const listed = (await asBearer(admin).get(KEYS)).json.data.find((k: { id: string }) => k.id === id);
      expect(listed.apiKey).toBe(`${apiKey.slice(0, 12)}…`);

      const call = await content(apiKey);
      expect(call.status).toBe(200);
    });

    it("accepts an empty body (no name)", async () => {
      const res = await asBearer(admin).post(KEYS);
      expect(res.status).toBe(201);
      expect(res.json.data.name).toBeNull();
    });

    it("needs the admin role", async () => {
      const res = await asBearer(userToken).post(KEYS, { name: "mine" });
      expect(res.status).toBe(403);
      expect(res.json.message).toBe("Require partner admin role");
    });

    it.each([[{ name: 5 }], [{ name: "" }], [{ name: "x".repeat(101) }]])("rejects %j with 400", async (body) => {
      const res = await asBearer(admin).post(KEYS, body);
      expect(res.status).toBe(400);
      expect(res.json.message).toContain("name");
    });
  });

  describe("DELETE /api/partner/api-keys/:id", () => {
    it("revokes a key: its very next call gets 401 Invalid API key; revoking again keeps the first time", async () => {
      const created = (await asBearer(admin).post(KEYS, { name: "short-lived" })).json.data;
      expect((await content(created.apiKey)).status).toBe(200);
      const res = await asBearer(admin).del(`${KEYS}/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.json.data).toMatchObject({ id: created.id, revokedAt: expect.any(String) });
      expect(res.json.data.apiKey).not.toBe(created.apiKey);
      const next = await content(created.apiKey);
      expect(next.status).toBe(401);
      expect(next.json.message).toBe("Invalid API key");
      const again = await asBearer(admin).del(`${KEYS}/${created.id}`);
      expect(again.json.data.revokedAt).toBe(res.json.data.revokedAt);
    });

    it("needs the admin role, and leaves the key working", async () => {
      const res = await asBearer(userToken).del(`${KEYS}/key_demo`);
      expect(res.status).toBe(403);
      expect(res.json.message).toBe("Require partner admin role");
      expect((await content(DEMO_KEY)).status).toBe(200);
    });

    it("404 for an unknown key and for another partner's key (which keeps working)", async () => {
      const unknown = await asBearer(admin).del(`${KEYS}/key_nope`);
      expect(unknown.status).toBe(404);
      expect(unknown.json.message).toBe("API key not found");
      const foreign = await asBearer(await otherAdminToken()).del(`${KEYS}/key_demo`);
      expect(foreign.status).toBe(404);
      expect((await content(DEMO_KEY)).status).toBe(200);
    });
  });
});
