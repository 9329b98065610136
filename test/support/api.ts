import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import type { paths } from "../../examples/generated/edgestay-api";
import { createApp } from "../../src/app";
import { DEMO, OTHER } from "./accounts";
import { assertDocumented, type Sent } from "./openapi-conformance";

export const DEMO_KEY: string = DEMO.apiKey.key;
export const OTHER_KEY: string = OTHER.apiKey.key;

type CallOptions = { headers?: Record<string, string>; apiKey?: string | null; raw?: string };

/** One call through the Worker's own fetch handler, the way a partner's server makes it. */
export const call = async (method: string, path: string, body?: unknown, options: CallOptions = {}) => {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== null) headers["api-key"] = options.apiKey ?? DEMO_KEY;
  let payload: string | undefined = options.raw;
  if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["content-type"] ??= "application/json";
  }
  const request = new Request(`https://edgestay.test${path}`, { method, headers, body: payload });
  return readResponse(await exports.default.fetch(request), request);
};

let appForEnv: ReturnType<typeof createApp> | undefined;
/** One call to the app under other bindings (`vars`): the Worker as deployed with other secrets or settings. */
export const callWithEnv = async (
  vars: Env,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
) => {
  appForEnv ??= createApp();
  const init = {
    method,
    headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  };
  return readResponse(await appForEnv.request(path, init, vars), { method, url: path });
};

/**
 * Status, headers, text and (when it parses) JSON of a response, for assertions; throws when the
 * response is not what /openapi.json documents for the request that got it (`sent`).
 */
export const readResponse = async (response: Response, sent: Sent) => {
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  const answer = { status: response.status, headers: response.headers, json, text };
  await assertDocumented(sent, answer);
  return answer;
};

/** The body without its random request id, so a "no data leaked" check never matches a UUID by chance. */
export const textWithoutRequestId = (res: { text: string; json: any }) =>
  res.json && typeof res.json === "object" ? JSON.stringify({ ...res.json, requestId: undefined }) : res.text;

export const post = (path: string, body?: unknown, options?: CallOptions) => call("POST", path, body, options);

// The typed client: requests and answers typed from the contract's generated types
// (examples/generated/edgestay-api.d.ts, made from /openapi.json by `npm run openapi:types`).
type Method = "get" | "post" | "put" | "delete";
/** The paths of /openapi.json that document `method`. */
type PathsFor<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];
type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : unknown;
type RequestOf<O> = O extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
/** One documented answer per status: once `status` is narrowed (answered()), `json` has that status's type. */
export type Answer<O> = O extends { responses: infer R }
  ? { [S in keyof R & number]: { status: S; headers: Headers; text: string; json: JsonOf<R[S]> } }[keyof R & number]
  : never;
type TypedOptions = CallOptions & { params?: Record<string, string> };

const typedCall = async <O>(method: string, template: string, body: unknown, options: TypedOptions = {}) => {
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = options.params?.[name];
    if (value === undefined) throw new Error(`${template}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  return (await call(method, path, body, options)) as unknown as Answer<O>;
};

/**
 * `call` for a documented operation: the path is one of /openapi.json's (path parameters in
 * `params`), the body its request type, the answer typed by status. Hostile or malformed bodies
 * go through `call`/`post`, which take anything.
 */
export const api = {
  get: <P extends PathsFor<"get">>(path: P, options?: TypedOptions) =>
    typedCall<paths[P]["get"]>("GET", path, undefined, options),
  post: <P extends PathsFor<"post">>(path: P, body: RequestOf<paths[P]["post"]>, options?: TypedOptions) =>
    typedCall<paths[P]["post"]>("POST", path, body, options),
  put: <P extends PathsFor<"put">>(path: P, body: RequestOf<paths[P]["put"]>, options?: TypedOptions) =>
    typedCall<paths[P]["put"]>("PUT", path, body, options),
  delete: <P extends PathsFor<"delete">>(path: P, options?: TypedOptions) =>
    typedCall<paths[P]["delete"]>("DELETE", path, undefined, options),
};

/** Expects the status (the body in the message) and narrows the answer to it, typing its `json`. */
export const answered = <A extends { status: number; text: string }, S extends A["status"]>(res: A, status: S) => {
  expect(res.status, res.text).toBe(status);
  return res as Extract<A, { status: S }>;
};
