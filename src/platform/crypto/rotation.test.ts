import { env } from "cloudflare:test";
import { verify } from "hono/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { callWithEnv, DEMO_KEY } from "../../../test/support/api";
import { quoteBody, searchBody } from "../../../test/support/booking";
import { loginBody } from "../../../test/support/sessions";
import { DEMO } from "../../../test/support/accounts";
import { keyring } from "./keyring";
import { openToken } from "./signed-token";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 10 });
});

const OLD = "old-secret-used-before-the-rotation-000";
const NEW = "new-secret-set-by-the-rotation-11111111";

/** The three moments of a rotation, for one secret: before, during (previous kept), after. */
const stages = (name: "JWT_SECRET" | "PAGE_TOKEN_SECRET") => ({
  before: { ...env, [name]: OLD } as Env,
  during: { ...env, [name]: NEW, [`${name}_PREVIOUS`]: OLD } as Env,
  after: { ...env, [name]: NEW } as Env,
});

const API_KEY = { "api-key": DEMO_KEY };

describe("JWT_SECRET rotation", () => {
  const { before, during, after } = stages("JWT_SECRET");
  const login = async (vars: Env) =>
    (await callWithEnv(vars, "POST", "/api/auth/login", {}, loginBody(DEMO.admin.email, DEMO.admin.passwordMd5))).json
      .data.token.accessToken as string;
  const me = (vars: Env, token: string) =>
    callWithEnv(vars, "GET", "/api/users/me", { authorization: `Bearer ${token}` });

  it("keeps tokens issued before the rotation working, signs new ones with the new secret", async () => {
    const issuedBefore = await login(before);
    expect((await me(during, issuedBefore)).status).toBe(200);

    const issuedDuring = await login(during);
    await expect(verify(issuedDuring, NEW, "HS256")).resolves.toMatchObject({ sub: DEMO.admin.id });
    await expect(verify(issuedDuring, OLD, "HS256")).rejects.toThrow();

    // Once the previous secret is dropped, only the new tokens work.
    const refused = await me(after, issuedBefore);
    expect(refused.status).toBe(401);
    expect(refused.json.message).toBe("Invalid or expired token");
    expect((await me(after, issuedDuring)).status).toBe(200);
  });

  it("does not stretch the life of an expired old token", async () => {
    const { sign } = await import("hono/jwt");
    const past = Math.floor(Date.now() / 1000) - 7200;
    const expired = await sign(
      { sub: DEMO.admin.id, pid: "demo", iss: "edgestay", iat: past, exp: past + 3600 },
      OLD,
      "HS256",
    );
    expect((await me(during, expired)).status).toBe(401);
  });
});

describe("PAGE_TOKEN_SECRET rotation", () => {
  const { before, during, after } = stages("PAGE_TOKEN_SECRET");
  const CONTENT = "/api/v1/content/accommodations";

  it("keeps content page tokens working across the rotation; new tokens use the new secret", async () => {
    const first = await callWithEnv(before, "POST", CONTENT, API_KEY, { size: 2 });
    const issuedBefore = first.json.data.nextPageToken as string;

    const second = await callWithEnv(during, "POST", CONTENT, API_KEY, { pageToken: issuedBefore });
    expect(second.status).toBe(200);
    expect(second.json.data.accommodations[0].code > first.json.data.accommodations[1].code).toBe(true);
    const issuedDuring = second.json.data.nextPageToken as string;
    expect((await openToken(keyring(NEW), "content-page", issuedDuring, Date.now())).kind).toBe("ok");
    expect((await openToken(keyring(OLD), "content-page", issuedDuring, Date.now())).kind).toBe("bad_signature");

    const refused = await callWithEnv(after, "POST", CONTENT, API_KEY, { pageToken: issuedBefore });
    expect(refused.status).toBe(401);
    expect(refused.json.message).toBe("Invalid pageToken signature");
    expect((await callWithEnv(after, "POST", CONTENT, API_KEY, { pageToken: issuedDuring })).status).toBe(200);
  });

  it("keeps option ids from a search before the rotation quotable", async () => {
    const search = async (vars: Env) => {
      const res = await callWithEnv(
        vars,
        "POST",
        "/api/search",
        API_KEY,
        searchBody({ destinations: { accommodations: [{ code: "US000003" }] } }),
      );
      expect(res.status).toBe(200);
      const body = searchBody({});
      return {
        accommodationCode: "US000003",
        option: res.json.data.accommodations[0].options[0],
        checkIn: body.searchCriteria.checkIn,
        checkOut: body.searchCriteria.checkOut,
        occupancies: body.searchCriteria.occupancies,
      };
    };
    const searchedBefore = await search(before);
    expect((await callWithEnv(during, "POST", "/api/quote", API_KEY, quoteBody(searchedBefore))).status).toBe(200);

    const searchedDuring = await search(during);
    const refused = await callWithEnv(after, "POST", "/api/quote", API_KEY, quoteBody(searchedBefore));
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe("Option reference expired or invalid");
    expect((await callWithEnv(after, "POST", "/api/quote", API_KEY, quoteBody(searchedDuring))).status).toBe(200);
  });
});
