import { itemizedRate, type Rate, type RateTotals } from "../supply";
import type { BookingRow } from "./tables";

/**
 * The rate a booking was charged, itemized as it was booked (a booking made before rates were
 * itemized gets a breakdown derived from its stored totals: supply's itemizedRate).
 */
export const bookedRate = (row: Pick<BookingRow, "rate" | "checkIn" | "checkOut">): Rate =>
  itemizedRate(JSON.parse(row.rate) as RateTotals, row.checkIn, row.checkOut);

type BookedRoom = { occupancyRefId: number; code: string; description: string };
export const bookedRooms = (row: Pick<BookingRow, "rooms" | "checkIn" | "checkOut">) =>
  (JSON.parse(row.rooms) as Array<BookedRoom & { rate: RateTotals }>).map((room) => ({
    ...room,
    rate: itemizedRate(room.rate, row.checkIn, row.checkOut),
  }));
