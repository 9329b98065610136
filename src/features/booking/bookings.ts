import { ApiError } from "../../platform/http/api-error";
import { findBookingByPartnerReference, type RawBooking } from "./book";

export const bookingView = (row: RawBooking) => ({
  bookingReference: row.reference,
  partnerReference: row.partner_reference,
  status: row.status,
  accommodation: { code: row.accommodation_code, name: row.accommodation_name },
  checkIn: row.check_in,
  checkOut: row.check_out,
  boardCode: row.board_code,
  rate: JSON.parse(row.rate),
  rooms: JSON.parse(row.rooms),
  cancelPolicy: row.cancel_policy ? JSON.parse(row.cancel_policy) : null,
  holder: JSON.parse(row.holder),
  occupancies: JSON.parse(row.occupancies),
  chargeTotal: row.charge_total,
  hotelConfirmationNumber: row.hotel_confirmation_number,
  createdAt: row.created_at,
  cancelledAt: row.cancelled_at,
  cancelPrice: row.cancel_price === null ? null : { currency: row.currency, amount: row.cancel_price },
});

/** Another partner's booking reads as not found: its existence is not disclosed. */
export const readBooking = async (d1: D1Database, partnerId: string, bookingReference: string) => {
  const row = await d1
    .prepare("SELECT * FROM bookings WHERE reference = ? AND partner_id = ?")
    .bind(bookingReference, partnerId)
    .first<RawBooking>();
  if (!row) throw new ApiError("booking_not_found", `Booking not found with bookingReference: ${bookingReference}`);
  return bookingView(row);
};

export const readBookingByPartnerReference = async (d1: D1Database, partnerId: string, partnerReference: string) => {
  const row = await findBookingByPartnerReference(d1, partnerId, partnerReference);
  if (!row) throw new ApiError("booking_not_found", `Booking not found with partnerReference: ${partnerReference}`);
  return bookingView(row);
};

/**
 * Data-subject erasure of the bookings a chat session made (partner reference `chat-<session>-<n>`):
 * the holder's names become [erased]; reference, amounts and stay stay for accounting.
 */
export const eraseChatBookingHolders = async (d1: D1Database, chatSessionIds: string[]): Promise<number> => {
  if (chatSessionIds.length === 0) return 0;
  const { meta } = await d1
    .prepare(
      `UPDATE bookings SET holder = json_object('name', '[erased]', 'surName', '[erased]')
       WHERE EXISTS (SELECT 1 FROM json_each(?) WHERE bookings.partner_reference LIKE 'chat-' || json_each.value || '-%')`,
    )
    .bind(JSON.stringify(chatSessionIds))
    .run();
  return meta.changes ?? 0;
};
