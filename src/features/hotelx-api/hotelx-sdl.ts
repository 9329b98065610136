import { buildHotelxSchema } from "../../../sandbox/hotelx/src/schema";
import { staticData } from "../../platform/static-data";

/**
 * The Hotel-X SDL of POST /api/graphql as a static asset (`npm run assets` writes it: hotelx-api-sdl.ts,
 * a supplier's schema of sandbox/hotelx/src/schema.ts plus the public schema's fields): kept out of the bundle.
 */
export const HOTELX_SDL_ASSET = "/_data/hotelx.graphql";

/** Read and built once per isolate: parsing the SDL is the costly part. */
export const hotelxSchema = staticData(HOTELX_SDL_ASSET, async (res) => buildHotelxSchema(await res.text()));
