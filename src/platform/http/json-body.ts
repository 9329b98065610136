import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env";
import { ApiError } from "./api-error";

export const MAX_BODY_BYTES = 1024 * 1024;
export const CONTENT_TYPE_MESSAGE = "Content-Type must be application/json";
const jsonType = /^application\/([\w.-]+\+)?json$/i;

const limit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError(413, `Request body too large: the limit is ${MAX_BODY_BYTES} bytes`, "body_too_large");
  },
});

/**
 * Every body is JSON, at most MAX_BODY_BYTES, and checked here so that a wrong content type
 * or malformed JSON is a 400 before any route runs (the text and the parsed value stay cached
 * for the route's validator). An empty body reads as `{}` so that schema validation names the
 * missing fields.
 */
export const jsonBody = (): MiddlewareHandler<AppEnv> =>
  async function jsonBody(c, next) {
    if (c.req.method !== "POST" && c.req.method !== "PUT" && c.req.method !== "PATCH") return next();
    return limit(c, async () => {
      const text = await c.req.text();
      const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim();
      // Hono keeps body promises in bodyCache at runtime (its type says values). The parsed body is
      // kept too: c.req.json() would otherwise parse the text again for every reader.
      const cache = c.req.bodyCache as Record<string, unknown>;
      if (text.length === 0) {
        cache.text = Promise.resolve("{}");
        cache.json = Promise.resolve({});
        return next();
      }
      if (!jsonType.test(mediaType)) {
        throw new ApiError(400, CONTENT_TYPE_MESSAGE, "unsupported_content_type");
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiError(400, "Malformed JSON in request body", "malformed_json");
      }
      cache.json = Promise.resolve(parsed);
      await next();
    });
  };
