import type { MiddlewareHandler } from "hono";

export const VERSION_HEADER = "x-edgestay-version";

/** The deployed Worker version's id (CF_VERSION_METADATA), or "local" where there is none. */
export const deployedVersion = (env: Env): string => env.CF_VERSION_METADATA?.id || "local";

/**
 * Every response says which deployed version answered (x-edgestay-version), errors and the assets
 * the Worker serves included (every HTML page: wrangler.toml's run_worker_first), so a report or a
 * log line can be matched to a deploy and its source maps.
 */
export const versionHeader = (): MiddlewareHandler<{ Bindings: Env }> => async (c, next) => {
  await next();
  if (c.res.status === 101) return; // a WebSocket upgrade's response cannot be copied
  const version = deployedVersion(c.env);
  try {
    c.res.headers.set(VERSION_HEADER, version);
  } catch {
    // A fetched response (static assets) has immutable headers: copy it once.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set(VERSION_HEADER, version);
  }
};
