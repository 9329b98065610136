import { buildHotelxSchema } from "../../../sandbox/hotelx/src/schema";
import { staticData } from "../../platform/static-data";

/** The Hotel-X SDL as a static asset (`npm run assets` writes it from sandbox/hotelx/src/schema.ts): kept out of the bundle. */
export const HOTELX_SDL_ASSET = "/_data/hotelx.graphql";

/** Read and built once per isolate: parsing the SDL is the costly part. */
export const hotelxSchema = staticData(HOTELX_SDL_ASSET, async (res) => buildHotelxSchema(await res.text()));
