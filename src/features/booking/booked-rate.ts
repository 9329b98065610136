import { itemizedRate, type Rate, type RateTotals } from "../supply";
import type { BookingRow } from "./tables";

/**
 * The rate a booking was charged, itemized as it was booked (a booking made before rates were
 * itemized gets a breakdown derived from its stored totals: supply's itemizedRate).
 */
export const bookedRate = (row: Pick<BookingRow, "rate" | "checkIn" | "checkOut">): Rate =>
  itemizedRate(JSON.parse(row.rate) as RateTotals, row.checkIn, row.checkOut);

/**
 * One room of a booking as `bookings.rooms` keeps it: its own rate as booked, and once cancelled
 * (alone or with the booking) when and at what penalty (its share of the booking's, cancel.ts).
 */
export type StoredRoom = {
  occupancyRefId: number;
  code: string;
  description: string;
  rate: RateTotals;
  cancelledAt?: string;
  cancelPrice?: number;
};

export const storedRooms = (row: Pick<BookingRow, "rooms">): StoredRoom[] => JSON.parse(row.rooms) as StoredRoom[];

/** A room not cancelled yet: it shares the booking's status. */
export const isLiveRoom = (room: StoredRoom) => room.cancelledAt === undefined;

/** Each room with its itemized rate and its own status: `cancelled` once cancelled, else the booking's. */
export const bookedRooms = (
  row: Pick<BookingRow, "rooms" | "checkIn" | "checkOut" | "status" | "currency" | "cancelledAt">,
) =>
  storedRooms(row).map(({ cancelledAt, cancelPrice, ...room }) => {
    // A booking cancelled before rooms kept their own cancellation: its rooms went with it.
    const cancelled = cancelledAt !== undefined || row.status === "cancelled";
    return {
      ...room,
      rate: itemizedRate(room.rate, row.checkIn, row.checkOut),
      status: cancelled ? ("cancelled" as const) : row.status,
      cancelledAt: cancelledAt ?? (cancelled ? row.cancelledAt : null),
      cancelPrice: cancelPrice === undefined ? null : { currency: row.currency, amount: cancelPrice },
    };
  });
