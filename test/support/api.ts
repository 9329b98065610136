import { exports } from "cloudflare:workers";
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
