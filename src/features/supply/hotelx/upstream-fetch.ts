import { isLocal } from "../../../platform/environment";
import type { HotelxAccess } from "./client";

type SandboxBinding = { ENVIRONMENT?: string; HOTELX_SANDBOX?: Fetcher; HOTELX_SANDBOX_URL?: string };

/**
 * The fetch for an upstream URL. The workerd tests run the sandbox supplier as an auxiliary worker
 * bound as HOTELX_SANDBOX, with HOTELX_SANDBOX_URL its local address (the URL connection 1002 is
 * seeded with): in local development only, a request to that origin takes the binding. Everything
 * else, and every deploy, goes to the network (undefined = the global fetch).
 */
export const upstreamFetch = (env: object, url: string): HotelxAccess["fetch"] => {
  const vars = env as SandboxBinding;
  const sandbox = vars.HOTELX_SANDBOX;
  if (!isLocal(vars) || !sandbox || !vars.HOTELX_SANDBOX_URL) return undefined;
  return new URL(url).origin === new URL(vars.HOTELX_SANDBOX_URL).origin
    ? (request) => sandbox.fetch(request)
    : undefined;
};
