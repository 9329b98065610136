import { base, en, en_US, Faker } from "@faker-js/faker";
import { createRequire } from "node:module";
import type { AccommodationContent } from "../../src/features/content/schemas";
import { haversineKm } from "../../src/features/supply/accommodations";
import { seededRandom } from "../../src/platform/seeded-random";

/** Generated accommodation: the content document plus the columns search indexes. */
export type DemoAccommodation = {
  code: string;
  name: string;
  type: AccommodationContent["type"];
  country: string;
  state: string;
  city: string;
  latitude: number;
  longitude: number;
  starRating: number;
  timezone: string;
  content: AccommodationContent;
};

type City = { city: string; lat: number; lng: number; pop: number; iso2: string; state_ansi: string; timezone: string };

// Real US cities with coordinates, IANA zones and populations (city-timezones, Natural Earth data).
// Loaded by require, not imported: the type-check would otherwise type all 88,000 lines of it.
const cityMap = createRequire(import.meta.url)("city-timezones/data/cityMap.json") as City[];
const usCities = cityMap
  .filter((c) => c.iso2 === "US" && c.state_ansi && c.timezone && c.pop > 0)
  .sort((a, b) => a.city.localeCompare(b.city) || a.state_ansi.localeCompare(b.state_ansi));

// Bigger cities get more hotels (weight ~ population^0.75), so dense downtowns exist for geo search.
const cumulativeWeights = (() => {
  let total = 0;
  return usCities.map((c) => (total += c.pop ** 0.75));
})();

const TYPES: Array<[AccommodationContent["type"], number]> = [
  ["hotel", 70],
  ["motel", 10],
  ["resort", 8],
  ["apartment", 6],
  ["hostel", 3],
  ["guesthouse", 3],
];
const NAME_STEMS = [
  "Grand",
  "Parkside",
  "Harborview",
  "Summit",
  "Maple",
  "Lakeside",
  "Riverside",
  "Heritage",
  "Sunset",
  "Union",
  "Liberty",
  "Cedar",
  "Bayfront",
  "Highland",
  "Midtown",
  "Ironwood",
  "Copper",
  "Silver Creek",
  "Oak Hollow",
  "Beacon",
  "Northstar",
  "Magnolia",
  "Canyon",
  "Prairie",
  "Harbor Lights",
  "Juniper",
  "Redwood",
  "Gateway",
  "Meridian",
  "Willow",
];
const NAME_SUFFIX: Record<AccommodationContent["type"], string[]> = {
  hotel: ["Hotel", "Inn & Suites", "Suites", "Hotel & Conference Center", "Boutique Hotel", "Plaza Hotel"],
  motel: ["Motor Inn", "Motel", "Motor Lodge"],
  resort: ["Resort & Spa", "Resort", "Golf Resort"],
  apartment: ["Residences", "Apartments", "Extended Stay"],
  hostel: ["Hostel", "Backpackers"],
  guesthouse: ["Guest House", "Bed & Breakfast"],
};
const STARS: Record<AccommodationContent["type"], number[]> = {
  hotel: [2, 2.5, 3, 3, 3.5, 3.5, 4, 4, 4.5, 5],
  motel: [1, 1.5, 2, 2, 2.5],
  resort: [3.5, 4, 4, 4.5, 5, 5],
  apartment: [2.5, 3, 3, 3.5, 4],
  hostel: [1, 1.5, 2],
  guesthouse: [2.5, 3, 3.5, 4],
};
const AMENITIES = [
  "Free WiFi",
  "Parking",
  "Outdoor pool",
  "Indoor pool",
  "Fitness center",
  "Restaurant",
  "Bar",
  "Spa",
  "Airport shuttle",
  "Pet friendly",
  "Business center",
  "Room service",
  "24-hour front desk",
  "Laundry",
  "Air conditioning",
  "EV charging",
  "Breakfast available",
  "Meeting rooms",
  "Kitchenette",
  "Wheelchair accessible",
];

/**
 * Hotel chains (fictional brands): a brand has several hotels in a city, told apart by a location
 * qualifier, as real chains are ("Stayford Inn & Suites Chicago Downtown" and "... Riverfront"),
 * so a supplier's list meets real look-alikes a few hundred metres apart (issue 39 item 6).
 * `parent` is the "by ..." a brand's full name carries and suppliers often drop.
 */
export const CHAINS: Array<{
  brand: string;
  parent?: string;
  variants: Partial<Record<AccommodationContent["type"], string[]>>;
}> = [
  { brand: "Stayford", variants: { hotel: ["Hotel", "Inn & Suites"], motel: ["Inn"] } },
  { brand: "Crestmark", variants: { hotel: ["Hotel", "Grand Hotel"], resort: ["Resort"] } },
  { brand: "Lumen Suites", parent: "Crestmark", variants: { hotel: [""], apartment: ["Extended Stay"] } },
  { brand: "Northwind", variants: { hotel: ["Inn", "Inn Express"], motel: ["Motor Inn"] } },
  { brand: "Aurelia", variants: { hotel: ["Hotel", "Collection Hotel"], resort: ["Resort & Spa"] } },
  { brand: "Keystone Lodge", variants: { hotel: [""], motel: [""] } },
  { brand: "Harbourline", variants: { hotel: ["Hotel", "Suites"] } },
  { brand: "Bellhaven", variants: { hotel: ["Hotel"], apartment: ["Residences"] } },
  { brand: "TrueNorth Suites", parent: "Stayford", variants: { hotel: [""], apartment: [""] } },
  { brand: "Solenne", variants: { hotel: ["Hotel", "Boutique Hotel"], resort: ["Beach Resort"] } },
];
export const CHAIN_QUALIFIERS = [
  "Downtown",
  "Midtown",
  "Riverfront",
  "Airport",
  "Convention Center",
  "Old Town",
  "Uptown",
  "Waterfront",
  "University Area",
  "Medical Center",
  "Financial District",
  "Arts District",
  "Stadium",
  "North",
  "South",
  "East",
  "West",
  "Central",
];

/** A chain hotel's name: brand, variant, "by parent", city, qualifier. */
export const chainHotelName = (chain: (typeof CHAINS)[number], variant: string, city: string, qualifier: string) =>
  [chain.brand, variant, chain.parent ? `by ${chain.parent}` : "", city, qualifier].filter(Boolean).join(" ");

type ChainHotel = { latitude: number; longitude: number; chain: number; variant: string; qualifier: string };

/**
 * Which chain, if any, the n-th hotel belongs to: decided by its own seeded draws (not faker's, so
 * every other hotel keeps its fields) and the chain hotels before it in its city: near one (within
 * 1 km) it mostly joins that brand, in a city with chains it sometimes joins one, else it sometimes
 * starts one. Its qualifier is one its brand does not use yet in the city.
 */
const chainOf = (
  seed: number,
  n: number,
  type: AccommodationContent["type"],
  at: { latitude: number; longitude: number },
  inCity: ChainHotel[],
): ChainHotel | null => {
  const random = seededRandom(`chain:${seed}:${n}`);
  const fits = (chain: number) => (CHAINS[chain]!.variants[type]?.length ?? 0) > 0;
  const nearest = inCity
    .map((h) => ({ h, km: haversineKm(at.latitude, at.longitude, h.latitude, h.longitude) }))
    .filter(({ h, km }) => km <= 1 && fits(h.chain))
    .sort((a, b) => a.km - b.km)[0];
  let chain: number | undefined;
  const roll = random();
  if (nearest && roll < 0.8) chain = nearest.h.chain;
  else if (!nearest && inCity.length > 0 && roll < 0.15) chain = inCity[Math.floor(random() * inCity.length)]!.chain;
  else if (roll > 0.9) chain = Math.floor(random() * CHAINS.length);
  if (chain === undefined || !fits(chain)) return null;
  const used = new Set(inCity.filter((h) => h.chain === chain).map((h) => h.qualifier));
  const free = CHAIN_QUALIFIERS.filter((q) => !used.has(q));
  if (free.length === 0) return null;
  const variants = CHAINS[chain]!.variants[type]!;
  return {
    ...at,
    chain,
    variant: variants[Math.floor(random() * variants.length)]!,
    qualifier: free[Math.floor(random() * free.length)]!,
  };
};

export const DEMO_SEED = 20261121;
const pad = (n: number) => String(n).padStart(6, "0");
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** Code of the n-th generated accommodation (1-based), in the order the content export serves them. */
export const accommodationCode = (n: number) => `US${pad(n)}`;

/**
 * Deterministic demo accommodations: the same seed and count give the same data.
 * Yields one at a time so 100,000 can be written without holding them all.
 */
export function* generateAccommodations(count: number, seed = DEMO_SEED): Generator<DemoAccommodation> {
  const faker = new Faker({ locale: [en_US, en, base] });
  faker.seed(seed);
  const total = cumulativeWeights[cumulativeWeights.length - 1]!;
  const chainHotels = new Map<string, ChainHotel[]>();

  for (let n = 1; n <= count; n++) {
    const target = faker.number.float({ min: 0, max: total });
    const city = usCities[cumulativeWeights.findIndex((w) => w >= target)]!;
    const type = faker.helpers.weightedArrayElement(TYPES.map(([value, weight]) => ({ value, weight })));
    const independentName = `${faker.helpers.arrayElement(NAME_STEMS)} ${city.city} ${faker.helpers.arrayElement(NAME_SUFFIX[type])}`;
    const starRating = faker.helpers.arrayElement(STARS[type]);
    // Spread around the city centre: most within ~5 km, a few out to ~15 km.
    const spreadKm = faker.number.float({ min: 0, max: 1 }) ** 2 * 15;
    const bearing = faker.number.float({ min: 0, max: 2 * Math.PI });
    const latitude = round6(city.lat + (spreadKm * Math.cos(bearing)) / 111);
    const longitude = round6(city.lng + (spreadKm * Math.sin(bearing)) / (111 * Math.cos((city.lat * Math.PI) / 180)));
    const amenities = faker.helpers.arrayElements(AMENITIES, { min: 4, max: 12 });
    const street = faker.location.streetAddress();
    const postalCode = faker.location.zipCode({ state: city.state_ansi });
    const phone = faker.phone.number({ style: "national" });
    const fax = faker.phone.number({ style: "national" });
    const imageCount = faker.number.int({ min: 3, max: 8 });
    const minAge = faker.helpers.arrayElement([18, 18, 21]);
    const checkInFrom = faker.helpers.arrayElement(["14:00", "15:00", "16:00"]);
    const checkOutUntil = faker.helpers.arrayElement(["10:00", "11:00", "12:00"]);
    const floors = faker.number.int({ min: 2, max: 30 });
    const rooms = faker.number.int({ min: 12, max: 600 });
    const landmark = faker.location.street();
    const chef = faker.person.fullName();
    // Chains are decided after faker's draws, which stay the same for every hotel.
    const cityKey = `${city.city}|${city.state_ansi}`;
    const inCity = chainHotels.get(cityKey) ?? [];
    const chain = chainOf(seed, n, type, { latitude, longitude }, inCity);
    if (chain) chainHotels.set(cityKey, [...inCity, chain]);
    const name = chain
      ? chainHotelName(CHAINS[chain.chain]!, chain.variant, city.city, chain.qualifier)
      : independentName;

    const code = accommodationCode(n);
    const slug = name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/(^-|-$)/g, "");
    const content: AccommodationContent = {
      code,
      location: [longitude, latitude],
      images: Array.from({ length: imageCount }, (_, i) => ({
        priority: i + 1,
        thumbnail: `https://images.example.com/accommodations/${code}/${i + 1}-thumb.jpg`,
        url: `https://images.example.com/accommodations/${code}/${i + 1}.jpg`,
      })),
      contact: { phone, fax, email: `reservations@${slug}.example.com` },
      address: { address: street, city: city.city, state: city.state_ansi, country: "US", postalCode },
      localizedName: [{ language: "en", region: "US", locale: "en-US", content: name }],
      localizedDescription: [
        {
          language: "en",
          region: "US",
          locale: "en-US",
          content: [
            {
              type: "GENERAL",
              content: `<p>${name} is a ${starRating}-star ${type} in ${city.city}, ${city.state_ansi}, with ${rooms} rooms over ${floors} floors.</p>`,
            },
            {
              type: "LOCATION",
              content: `<p>Set ${spreadKm.toFixed(1)} km from downtown ${city.city}, close to ${landmark}.</p>`,
            },
            {
              type: "ROOM",
              content: `<p>Rooms offer:</p><ul>${amenities
                .slice(0, 3)
                .map((a) => `<li>${a}</li>`)
                .join("")}</ul>`,
            },
            {
              type: "RESTAURANT",
              content: amenities.includes("Restaurant")
                ? `<p>The on-site restaurant, led by chef ${chef}, serves breakfast, lunch and dinner.</p>`
                : `<p>Restaurants are within walking distance.</p>`,
            },
            {
              type: "ADDITIONAL",
              content: `<p><strong>Please note:</strong> guests must be ${minAge} or older to check in. Photo ID and a credit card are required.</p>`,
            },
          ],
        },
      ],
      type,
      amenities,
      timezone: city.timezone,
      checkInPolicy: {
        checkInFrom,
        checkInUntil: "23:59",
        checkOutFrom: "06:00",
        checkOutUntil,
        minAge,
        checkinInstructions: [
          {
            language: "en",
            region: "US",
            locale: "en-US",
            content: `<p>Check in at the front desk from ${checkInFrom}.</p>`,
          },
        ],
        checkinSpecialInstructions: [
          { language: "en", content: "Late arrivals after 23:00 should contact the property in advance." },
        ],
        checkoutSpecialInstructions: [
          { language: "en", content: `Please return keys at the front desk by ${checkOutUntil}.` },
        ],
      },
      starRating,
    };
    yield {
      code,
      name,
      type,
      country: "US",
      state: city.state_ansi,
      city: city.city,
      latitude,
      longitude,
      starRating,
      timezone: city.timezone,
      content,
    };
  }
}
