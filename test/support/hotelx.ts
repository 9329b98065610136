import { env } from "cloudflare:test";
import type { HotelxAccess } from "../../src/features/supply/hotelx/client";

/** The sandbox Hotel-X supplier as the client reaches it: a real Worker-to-Worker hop to the auxiliary worker. */
export const sandboxAccess = (url = "https://hotelx-sandbox.test/graphql", client = "edgestay"): HotelxAccess => ({
  url,
  client,
  context: "SANDBOX",
  apiKey: env.HOTELX_SANDBOX_API_KEY,
  fetch: (request) => env.HOTELX_SANDBOX.fetch(request),
});

/** The upstream URL the demo connection 1002 (`con_demo_hotelx`) is configured with. */
export const demoUpstreamUrl = async () =>
  (await env.DB.prepare("SELECT url FROM connection_upstreams WHERE connection_id = 'con_demo_hotelx'").first<string>(
    "url",
  ))!;
