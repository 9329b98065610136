import { itemizedRate, type Rate } from "../supply";
import type { BookingRecord, StoredRoom } from "./record";

export type { StoredRoom } from "./record";

/**
 * The rate a booking was charged, itemized as it was booked (a booking made before rates were
 * itemized gets a breakdown derived from its stored totals: supply's itemizedRate).
 */
export const bookedRate = (booking: Pick<BookingRecord, "rate" | "checkIn" | "checkOut">): Rate =>
  itemizedRate(booking.rate, booking.checkIn, booking.checkOut);

/** A room not cancelled yet: it shares the booking's status. */
export const isLiveRoom = (room: StoredRoom) => room.cancelledAt === undefined;

/** Each room with its itemized rate and its own status: `cancelled` once cancelled, else the booking's. */
export const bookedRooms = (
  booking: Pick<BookingRecord, "rooms" | "checkIn" | "checkOut" | "status" | "currency" | "cancelledAt">,
) =>
  booking.rooms.map(({ cancelledAt, cancelPrice, ...room }) => {
    // A booking cancelled before rooms kept their own cancellation: its rooms went with it.
    const cancelled = cancelledAt !== undefined || booking.status === "cancelled";
    return {
      ...room,
      rate: itemizedRate(room.rate, booking.checkIn, booking.checkOut),
      status: cancelled ? ("cancelled" as const) : booking.status,
      cancelledAt: cancelledAt ?? (cancelled ? booking.cancelledAt : null),
      cancelPrice: cancelPrice === undefined ? null : { currency: booking.currency, amount: cancelPrice },
    };
  });
