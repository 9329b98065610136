/**
 * Local development marks itself with `ENVIRONMENT=local` in `.dev.vars` (never in wrangler.toml),
 * so a deploy can never fall into local-only behaviour by a missing variable.
 */
export const isLocal = (env: { ENVIRONMENT?: string }): boolean => env.ENVIRONMENT === "local";
