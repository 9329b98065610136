import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env";
import { ApiError } from "./api-error";

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting a body may have; real requests of this API need fewer than ten levels. */
export const MAX_BODY_DEPTH = 64;
export const CONTENT_TYPE_MESSAGE = "Content-Type must be application/json";
export const CHARSET_MESSAGE = "Content-Type charset must be utf-8 (or left out): JSON is read as UTF-8";
const jsonType = /^application\/([\w.-]+\+)?json$/i;
// JSON is UTF-8 (RFC 8259) and the body is decoded as such: a body labelled with another charset
// would be read as other text than its sender meant, so it is refused rather than guessed at.
const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;
const isUtf8Label = (charset: string) => /^utf-?8$/i.test(charset);

const limitOf = (maxBytes: number) =>
  bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError("body_too_large", `Request body too large: the limit is ${maxBytes} bytes`);
    },
  });
const limit = limitOf(MAX_BODY_BYTES);

/**
 * How deeply a parsed JSON value nests (a scalar is 0, `[1]` is 1), counted without recursion and
 * stopping at `limit + 1`, so a hostile body costs at most one pass over its nodes.
 */
export const deepestNesting = (value: unknown, limit: number): number => {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== "object") continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const inner of Array.isArray(node) ? node : Object.values(node)) {
      if (inner !== null && typeof inner === "object") pending.push([inner, level]);
    }
  }
  return deepest;
};

/**
 * Every body is JSON, at most MAX_BODY_BYTES (a route that takes a supplier's whole list says its
 * own larger limit, `maxBytes`), and checked here so that a wrong content type
 * or malformed JSON is a 400 before any route runs (the text and the parsed value stay cached
 * for the route's validator). An empty body reads as `{}` so that schema validation names the
 * missing fields.
 */
export const jsonBody = (maxBytes = MAX_BODY_BYTES): MiddlewareHandler<AppEnv> => {
  const within = maxBytes === MAX_BODY_BYTES ? limit : limitOf(maxBytes);
  return async function jsonBody(c, next) {
    if (c.req.method !== "POST" && c.req.method !== "PUT" && c.req.method !== "PATCH") return next();
    return within(c, async () => {
      // Bytes, not c.req.text(): workerd warns when a body of a non-text type is read as text,
      // and a form or binary body is refused below anyway.
      const text = new TextDecoder().decode(await c.req.arrayBuffer());
      const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim();
      // Hono keeps body promises in bodyCache at runtime (its type says values). The parsed body is
      // kept too: c.req.json() would otherwise parse the text again for every reader.
      const cache = c.req.bodyCache as Record<string, unknown>;
      cache.text = Promise.resolve(text);
      if (text.length === 0) {
        cache.text = Promise.resolve("{}");
        cache.json = Promise.resolve({});
        return next();
      }
      if (!jsonType.test(mediaType)) {
        throw new ApiError("unsupported_content_type", CONTENT_TYPE_MESSAGE);
      }
      const charset = charsetParameter.exec(c.req.header("content-type") ?? "")?.[1];
      if (charset !== undefined && !isUtf8Label(charset)) {
        throw new ApiError("unsupported_content_type", CHARSET_MESSAGE);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiError("malformed_json", "Malformed JSON in request body");
      }
      // Validators, guards and hashes walk the body; a deep one must never reach them.
      if (deepestNesting(parsed, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
        throw new ApiError("body_too_deep", "Request body nests too deeply");
      }
      cache.json = Promise.resolve(parsed);
      await next();
    });
  };
};
