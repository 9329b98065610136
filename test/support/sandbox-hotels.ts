import { generatedHotel, generatedHotelCity } from "../../sandbox/hotelx/src/inventory";
import { insertContentRows, sandboxHotelContentRow } from "./seed";

/** Our content row of the sandbox's i-th generated hotel: its name and city, as the sandbox answers them. */
const contentRow = (i: number) => {
  const hotel = generatedHotel(i);
  const city = generatedHotelCity(i);
  // A few hundred metres apart around the city centre, by number.
  const latitude = Math.round((city.latitude + ((i % 7) - 3) * 0.003) * 1e6) / 1e6;
  const longitude = Math.round((city.longitude + ((i % 11) - 5) * 0.003) * 1e6) / 1e6;
  return sandboxHotelContentRow({
    code: hotel.code,
    name: hotel.name,
    city: { ...city, latitude, longitude },
    starRating: 3 + (i % 3) * 0.5,
  });
};

/**
 * Accommodation rows (our content index) for the sandbox Hotel-X supplier's generated hotels, so a
 * search on connection 1002 can resolve their codes as it resolves any other. Outside the US, so
 * the content pull (US only) never serves them. Rows already present are kept.
 */
export const seedSandboxHotelContent = (d1: D1Database, hotels: number[]) =>
  insertContentRows(d1, hotels.map(contentRow));
