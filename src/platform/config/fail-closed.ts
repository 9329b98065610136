import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError } from "../http/api-error";
import { secretProblems, type SecretProblem } from "./secrets";

/** One verdict per env object: once per isolate in production, once per env a test passes. */
const verdicts = new WeakMap<object, SecretProblem[]>();

const verdictFor = (env: Env): SecretProblem[] => {
  let problems = verdicts.get(env);
  if (problems === undefined) {
    problems = secretProblems(env);
    verdicts.set(env, problems);
    if (problems.length > 0) {
      // Names and the kind of problem only, never a value; logged once, not per request.
      console.error(JSON.stringify({ level: "error", event: "misconfigured", secrets: problems }));
    }
  }
  return problems;
};

/** The one route that answers while misconfigured, so a deploy's health can still be checked. */
export const servesWhileMisconfigured = (method: string, path: string) =>
  path === "/health" && (method === "GET" || method === "HEAD");

/**
 * Fail closed: with a secret missing, too short or a demo value, every route but `GET /health`
 * answers 503, so a half-configured deploy serves nothing it could get wrong. Thrown, so the
 * answer is shaped as every other error of that path is (the chat API has its own body).
 */
export const failClosed = (): MiddlewareHandler<AppEnv> =>
  async function failClosed(c, next) {
    if (verdictFor(c.env).length > 0 && !servesWhileMisconfigured(c.req.method, c.req.path)) {
      throw new ApiError("misconfigured", "Service misconfigured");
    }
    await next();
  };
