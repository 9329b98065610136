import { expect } from "vitest";
import { DEMO, DEMO_OPERATOR_TOKEN, OTHER } from "./accounts";
import { call, post } from "./api";

/** MD5 hex of a password, as a client sends it at login. */
export const md5 = async (text: string) => {
  const digest = await crypto.subtle.digest("MD5", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
};

export const loginBody = (email: string, password: string) => ({ accountType: "email", accountValue: email, password });

/** Logs in through the API and returns the access token. */
export const loginAs = async (email: string, passwordMd5: string): Promise<string> => {
  const res = await post("/api/auth/login", loginBody(email, passwordMd5), { apiKey: null });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.data.token.accessToken;
};

export const demoAdminToken = () => loginAs(DEMO.admin.email, DEMO.admin.passwordMd5);
export const otherAdminToken = () => loginAs(OTHER.admin.email, OTHER.admin.passwordMd5);

/** Call options for a bearer-token request (no API key). */
export const bearer = (token: string, headers: Record<string, string> = {}) => ({
  apiKey: null,
  headers: { authorization: `Bearer ${token}`, ...headers },
});

export const OPERATOR = { apiKey: null, headers: { authorization: `Bearer ${DEMO_OPERATOR_TOKEN}` } } as const;

export const asBearer = (token: string) => ({
  get: (path: string) => call("GET", path, undefined, bearer(token)),
  post: (path: string, body?: unknown) => call("POST", path, body, bearer(token)),
  put: (path: string, body?: unknown) => call("PUT", path, body, bearer(token)),
  del: (path: string) => call("DELETE", path, undefined, bearer(token)),
});

/** Creates a user through the API as `adminToken` and returns its profile and MD5 password. */
export const createUser = async (adminToken: string, email: string, role: "admin" | "user" = "user") => {
  const password = await md5(`${email}-secret`);
  const res = await asBearer(adminToken).post("/api/users", { email, password, role, firstName: "Test" });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { profile: res.json.data, password };
};
