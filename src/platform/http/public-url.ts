import { isLocal } from "../environment";

/**
 * The origin of links the Worker hands out (setupUrl, detailsUrl, confirmationUrl): the configured
 * PUBLIC_BASE_URL, never the request's Host header, which the caller controls. Only local
 * development may fall back to the request's origin; elsewhere a missing setting is an error, not a
 * guess.
 */
export const publicBaseUrl = (env: { PUBLIC_BASE_URL?: string; ENVIRONMENT?: string }, requestUrl: string): string => {
  const configured = env.PUBLIC_BASE_URL?.trim();
  if (configured) return new URL(configured).origin;
  if (isLocal(env)) return new URL(requestUrl).origin;
  throw new Error(
    "PUBLIC_BASE_URL is not set: the Worker cannot build links to its pages (set it in wrangler.toml [vars])",
  );
};
