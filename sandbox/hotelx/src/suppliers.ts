import albionHotels from "../fixtures/albion/hotels.json";
import iberbedsHotels from "../fixtures/iberbeds/hotels.json";
import roomnexusHotels from "../fixtures/roomnexus/hotels.json";
import type { SandboxHotel } from "./inventory";

/**
 * The three suppliers the sandbox serves at `/suppliers/<code>/graphql` (README.md, "Three
 * suppliers"), each from its own committed tables (fixtures/<code>/hotels.json): its own hotel,
 * room and board codes, names and coordinates as it writes them, its currency and its rate table.
 */

/** One row of a supplier's hotel list (fixtures/README.md): its rate table is nightly, per room, board and refundability. */
export type SupplierHotelRow = {
  code: string;
  name: string;
  address: string;
  postalCode: string | null;
  city: string;
  countryCode: string;
  latitude: number;
  longitude: number;
  category: string;
  rooms: { code: string; name: string; rates: { board: string; refundable: boolean; nightly: number }[] }[];
};

export type SandboxSupplier = {
  /** Its code in the path, and the code the demo seeds it under in Edgestay. */
  code: string;
  /** Hotel-X's `supplierCode` and `accessCode` of its options. */
  hotelxSupplierCode: string;
  accessCode: string;
  currency: string;
  /** Its booking ids and supplier references: `<prefix>` and a number of its own. */
  bookingPrefix: string;
  /** Nightly prices by month of the night (January first): each supplier's own seasons. */
  season: number[];
  hotels: SupplierHotelRow[];
};

export const SANDBOX_SUPPLIERS: SandboxSupplier[] = [
  {
    code: "iberbeds",
    hotelxSupplierCode: "IBB",
    accessCode: "ibb-es-01",
    currency: "EUR",
    bookingPrefix: "IB",
    season: [0.9, 0.9, 0.95, 1.05, 1.1, 1.25, 1.35, 1.4, 1.15, 1, 0.9, 1.05],
    hotels: iberbedsHotels,
  },
  {
    code: "roomnexus",
    hotelxSupplierCode: "RNX",
    accessCode: "rnx-us-77",
    currency: "USD",
    bookingPrefix: "RNX",
    season: [0.95, 1, 1.1, 1.1, 1.05, 1.15, 1.2, 1.2, 1.05, 1.05, 1, 1.15],
    hotels: roomnexusHotels,
  },
  {
    code: "albion",
    hotelxSupplierCode: "ALB",
    accessCode: "alb-uk-3",
    currency: "GBP",
    bookingPrefix: "ALB",
    season: [0.85, 0.85, 0.9, 1, 1, 1.1, 1.2, 1.2, 1, 0.95, 1, 1.3],
    hotels: albionHotels,
  },
];

export const supplierNamed = (code: string): SandboxSupplier | null =>
  SANDBOX_SUPPLIERS.find((s) => s.code === code) ?? null;

/** Rooms of a supplier hotel as the sandbox sells them: one per room and rate, told apart by `rate`. */
const hotels = new Map<string, Map<string, SandboxHotel>>();
export const supplierHotel = (supplier: SandboxSupplier, code: string): SandboxHotel | null => {
  let byCode = hotels.get(supplier.code);
  if (!byCode) {
    byCode = new Map(
      supplier.hotels.map((h) => [
        h.code,
        {
          code: h.code,
          name: h.name,
          currency: supplier.currency,
          season: supplier.season,
          rooms: h.rooms.flatMap((room) =>
            room.rates.map((rate) => ({
              code: room.code,
              rate: `${rate.board}${rate.refundable ? "" : "-NR"}`,
              description: room.name,
              board: rate.board,
              nightly: rate.nightly,
              refundable: rate.refundable,
            })),
          ),
        },
      ]),
    );
    hotels.set(supplier.code, byCode);
  }
  return byCode.get(code) ?? null;
};
