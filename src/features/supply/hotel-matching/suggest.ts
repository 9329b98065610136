import type { Db } from "../../../platform/db/client";
import { accommodationsToMatch } from "../../content";
import { accommodationsInCells, gridCellsWithin, haversineKm } from "../accommodations";
import {
  CANDIDATE_RADIUS_METRES,
  type CandidateHotel,
  type HotelMatch,
  matchHotels,
  type SupplierHotel,
} from "./matcher";

/**
 * Suggestions for a supplier's hotel list: the accommodations within the candidate radius of each
 * hotel, read for the whole list in two statements (the grid cells' index, then the candidates'
 * names and addresses), judged by the matcher.
 */
export const suggestHotelMatches = async (db: Db, hotels: SupplierHotel[]): Promise<HotelMatch[]> => {
  const radiusKm = CANDIDATE_RADIUS_METRES / 1000;
  const cellsOf = hotels.map((h) => gridCellsWithin(h.latitude, h.longitude, radiusKm));
  const inCells = new Map<number, Array<{ code: string; latitude: number; longitude: number }>>();
  for (const hit of await accommodationsInCells(db, cellsOf.flat()))
    inCells.set(hit.geo_cell!, [...(inCells.get(hit.geo_cell!) ?? []), hit]);
  const nearCodes = hotels.map((hotel, i) =>
    cellsOf[i]!.flatMap((cell) => inCells.get(cell) ?? [])
      .filter(
        (a) => haversineKm(hotel.latitude, hotel.longitude, a.latitude, a.longitude) * 1000 <= CANDIDATE_RADIUS_METRES,
      )
      .map((a) => a.code),
  );
  const details = new Map<string, CandidateHotel>(
    (await accommodationsToMatch(db, nearCodes.flat())).map((a) => [a.code, a]),
  );
  const nearOf = new Map(
    hotels.map((hotel, i) => [hotel, nearCodes[i]!.map((code) => details.get(code)!).filter(Boolean)]),
  );
  return matchHotels(hotels, (hotel) => nearOf.get(hotel)!);
};
