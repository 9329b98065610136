import { drizzle } from "drizzle-orm/d1";
import { generatedHotel, generatedHotelCity } from "../../sandbox/hotelx/src/inventory";
import type { AccommodationContent } from "../../src/features/content/schemas";
import { accommodations } from "../../src/platform/db/schema";

// D1 allows 100 bound parameters per statement: 11 columns, so 9 rows per insert.
const ROWS_PER_INSERT = 9;

/** Our content row of the sandbox's i-th generated hotel: its name and city, as the sandbox answers them. */
const contentRow = (i: number) => {
  const hotel = generatedHotel(i);
  const city = generatedHotelCity(i);
  // A few hundred metres apart around the city centre, by number.
  const latitude = Math.round((city.latitude + ((i % 7) - 3) * 0.003) * 1e6) / 1e6;
  const longitude = Math.round((city.longitude + ((i % 11) - 5) * 0.003) * 1e6) / 1e6;
  const starRating = 3 + (i % 3) * 0.5;
  const content: AccommodationContent = {
    code: hotel.code,
    location: [longitude, latitude],
    images: [],
    contact: { phone: "", fax: "", email: "" },
    address: { address: "", city: city.name, state: "", country: city.country, postalCode: "" },
    localizedName: [{ language: "en", region: "GB", locale: "en-GB", content: hotel.name }],
    localizedDescription: [],
    type: "hotel",
    amenities: [],
    timezone: city.timezone,
    checkInPolicy: {
      checkInFrom: "15:00", checkInUntil: "23:59", checkOutFrom: "06:00", checkOutUntil: "11:00", minAge: 18,
      checkinInstructions: [], checkinSpecialInstructions: [], checkoutSpecialInstructions: [],
    },
    starRating,
  };
  return {
    code: hotel.code, name: hotel.name, type: "hotel", country: city.country, state: "", city: city.name,
    latitude, longitude, starRating, timezone: city.timezone, content: JSON.stringify(content),
  };
};

/**
 * Accommodation rows (our content index) for the sandbox Hotel-X supplier's generated hotels, so a
 * search on connection 1002 can resolve their codes as it resolves any other. Outside the US, so
 * the content pull (US only) never serves them. Rows already present are kept.
 */
export const seedSandboxHotelContent = async (d1: D1Database, hotels: number[]) => {
  const db = drizzle(d1);
  const rows = hotels.map(contentRow);
  const inserts = [];
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
    inserts.push(db.insert(accommodations).values(rows.slice(at, at + ROWS_PER_INSERT)).onConflictDoNothing());
  }
  if (inserts.length) await db.batch(inserts as [(typeof inserts)[0], ...typeof inserts]);
};
