import { and, desc, eq, gte, lt, lte, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { addDays } from "../../platform/time/zoned-time";
import { bookedRate, bookedRooms } from "./booked-rate";
import { findBookingByPartnerReference } from "./book";
import { type BookingRecord, bookingRecord } from "./record";
import { bookings } from "./tables";
import { amountJson, bookedRoomsJson, policyJson, rateJson } from "./wire";

/** A booking as the partner reads it (GET /api/bookings/{bookingReference}); amounts in major units, as the JSON carries them. */
export const bookingView = (row: BookingRecord) => ({
  bookingReference: row.reference,
  partnerReference: row.partnerReference,
  status: row.status,
  accommodation: { code: row.accommodationCode, name: row.accommodationName },
  checkIn: row.checkIn,
  checkOut: row.checkOut,
  boardCode: row.boardCode,
  paymentType: row.paymentType,
  paymentCard: row.paymentCard,
  rate: rateJson(bookedRate(row)),
  rooms: bookedRoomsJson(bookedRooms(row)),
  cancelPolicy: row.cancelPolicy === null ? null : policyJson(row.cancelPolicy),
  holder: row.holder,
  occupancies: row.occupancies,
  chargeTotal: amountJson(row.chargeTotalMinor, row.currency),
  hotelConfirmationNumber: row.hotelConfirmationNumber,
  supplierCode: row.supplier,
  supplierHotelCode: row.supplierHotelCode,
  createdAt: row.createdAt,
  cancelledAt: row.cancelledAt,
  cancelPrice:
    row.cancelPriceMinor === null
      ? null
      : { currency: row.currency, amount: amountJson(row.cancelPriceMinor, row.currency) },
  holdExpiresAt: row.holdExpiresAt,
  modifiedAt: row.modifiedAt,
  version: row.version,
});

/** The partner's booking by reference. Another partner's reads as not found: its existence is not disclosed. */
export const partnerBooking = async (db: Db, partnerId: string, bookingReference: string): Promise<BookingRecord> => {
  const row = await db
    .select()
    .from(bookings)
    .where(and(eq(bookings.reference, bookingReference), eq(bookings.partnerId, partnerId)))
    .get();
  if (!row) throw new ApiError("booking_not_found", `Booking not found with bookingReference: ${bookingReference}`);
  return bookingRecord(row);
};

/** The partner's booking the supplier knows by `supplierReference` (Hotel-X's reference.supplier), or null. */
export const bookingBySupplierReference = async (
  db: Db,
  partnerId: string,
  supplierReference: string,
): Promise<BookingRecord | null> => {
  const row = await db
    .select()
    .from(bookings)
    .where(and(eq(bookings.partnerId, partnerId), eq(bookings.supplierReference, supplierReference)))
    .get();
  return row ? bookingRecord(row) : null;
};

/**
 * A booking by reference, whoever's it is, or null: for a reader that proved its right some other
 * way (chat's booking page, by its signed link).
 */
export const bookingByReference = async (db: Db, bookingReference: string): Promise<BookingRecord | null> => {
  const row = await db.select().from(bookings).where(eq(bookings.reference, bookingReference)).get();
  return row ? bookingRecord(row) : null;
};

export const readBooking = async (db: Db, partnerId: string, bookingReference: string) =>
  bookingView(await partnerBooking(db, partnerId, bookingReference));

export const readBookingByPartnerReference = async (db: Db, partnerId: string, partnerReference: string) => {
  const row = await findBookingByPartnerReference(db, partnerId, partnerReference);
  if (!row) throw new ApiError("booking_not_found", `Booking not found with partnerReference: ${partnerReference}`);
  return bookingView(row);
};

/**
 * Data-subject erasure of the bookings a chat session made (partner reference `chat-<session>-<n>`):
 * the holder's names become [erased]; reference, amounts and stay stay for accounting.
 */
export const eraseChatBookingHolders = async (db: Db, chatSessionIds: string[]): Promise<number> => {
  if (chatSessionIds.length === 0) return 0;
  const { meta } = await db
    .update(bookings)
    .set({ holder: sql`json_object('name', '[erased]', 'surName', '[erased]')` })
    .where(
      sql`EXISTS (SELECT 1 FROM json_each(${JSON.stringify(chatSessionIds)}) WHERE ${bookings.partnerReference} LIKE 'chat-' || json_each.value || '-%')`,
    )
    .run();
  return meta.changes ?? 0;
};

/** Whether any booking names a supplier (such a supplier is deactivated, never erased, so they still cancel). */
export const supplierHasBookings = async (db: Db, supplierCode: string): Promise<boolean> =>
  (await db.select({ one: sql`1` }).from(bookings).where(eq(bookings.supplier, supplierCode)).limit(1)).length > 0;

/**
 * The partner's bookings arriving (`ARRIVAL`: check-in) or made (`BOOKING`: creation, UTC days)
 * from `start` to `end` inclusive, newest first, at most `limit`; on one connection when
 * `connectionId` is given (the Hotel-X booking query by dates).
 */
export const bookingsByDates = async (
  db: Db,
  partnerId: string,
  dates: { dateType: "ARRIVAL" | "BOOKING"; start: string; end: string; connectionId?: string },
  limit: number,
): Promise<BookingRecord[]> => {
  const { dateType, start, end, connectionId } = dates;
  const within: SQL =
    dateType === "ARRIVAL"
      ? and(gte(bookings.checkIn, start), lte(bookings.checkIn, end))!
      : and(
          gte(bookings.createdAt, `${start}T00:00:00.000Z`),
          lt(bookings.createdAt, `${addDays(end, 1)}T00:00:00.000Z`),
        )!;
  const conditions = [eq(bookings.partnerId, partnerId), within];
  if (connectionId !== undefined) conditions.push(eq(bookings.connectionId, connectionId));
  const rows = await db
    .select()
    .from(bookings)
    .where(and(...conditions))
    .orderBy(desc(bookings.createdAt), desc(bookings.reference))
    .limit(limit);
  return rows.map(bookingRecord);
};
