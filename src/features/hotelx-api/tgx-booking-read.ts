import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import {
  bookingBySupplierReference,
  type BookingRecord,
  bookingsByDates,
  findBookingByPartnerReference,
  partnerBooking,
} from "../booking";
import { accessIdOf, type HotelxRouting } from "./hotelx-access";
import { type BookingNames, bookingDetailOf, namesBooking } from "./tgx-answers";
import type { TgxError } from "./tgx-schemas";

/** At most this many bookings answer one search by dates (newest first); a warning says when more matched. */
export const MAX_BOOKINGS_BY_DATES = 200;

/** The connection an accessCode names (`accessIdOf`). */
type Access = string | null | undefined;

/** Hotel-X `HotelCriteriaBookingInput`, as GraphQL coerced it. */
export type BookingCriteria = {
  accessCode?: string;
  language?: string;
  typeSearch?: "DATES" | "REFERENCES";
  references?: { hotelCode: string; currency: string; references: NonNullable<BookingNames["reference"]>[] };
  dates?: { dateType: "ARRIVAL" | "BOOKING"; start: string; end: string };
  bookingID?: string;
};

const notFound = (what: string): TgxError => ({
  code: "BOOKING_NOT_FOUND",
  type: "CLIENT",
  description: `Booking not found with ${what}`,
});

/** The partner's booking each reference names (by client reference, else by supplier reference), all its names matching. */
const byReferences = async (db: Db, partnerId: string, accessId: Access, criteria: BookingCriteria) => {
  const { hotelCode, references } = criteria.references!;
  const found: BookingRecord[] = [];
  for (const reference of references) {
    const booking = reference.client
      ? await findBookingByPartnerReference(db, partnerId, reference.client)
      : reference.supplier
        ? await bookingBySupplierReference(db, partnerId, reference.supplier)
        : null;
    if (booking && namesBooking(booking, accessId, { accessCode: criteria.accessCode, hotelCode, reference }))
      found.push(booking);
  }
  return found;
};

/** The partner's bookings in the criteria's dates, newest first; an access names a connection (none of the partner's: none). */
const byDates = async (db: Db, partnerId: string, accessId: Access, criteria: BookingCriteria) => {
  if (accessId === null) return [];
  return bookingsByDates(
    db,
    partnerId,
    { ...criteria.dates!, ...(accessId === undefined ? {} : { connectionId: accessId }) },
    MAX_BOOKINGS_BY_DATES + 1,
  );
};

/**
 * Hotel-X's `booking` query (`HotelBooking`): the partner's bookings by `bookingID`, by
 * `references` (each by client or supplier reference at `references.hotelCode`) or by `dates`
 * (`ARRIVAL`: check-in, `BOOKING`: creation day, both inclusive), each as `HotelBookingDetail`.
 */
export const readBookingsTgx = async (routing: HotelxRouting, criteria: BookingCriteria) => {
  const { db, partnerId } = routing;
  const accessId = await accessIdOf(routing, criteria.accessCode);
  const warnings: TgxError[] = [];
  if (criteria.bookingID !== undefined) {
    const row = await partnerBooking(db, partnerId, criteria.bookingID).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === "booking_not_found") return null;
      throw error;
    });
    const named =
      row &&
      namesBooking(row, accessId, { accessCode: criteria.accessCode, hotelCode: criteria.references?.hotelCode });
    return named
      ? { bookings: [bookingDetailOf(row)], errors: [], warnings }
      : { bookings: [], errors: [notFound(`bookingID: ${criteria.bookingID}`)], warnings };
  }
  const searchBy = criteria.typeSearch ?? (criteria.references ? "REFERENCES" : criteria.dates ? "DATES" : undefined);
  if (searchBy === "REFERENCES" && criteria.references) {
    const rows = await byReferences(db, partnerId, accessId, criteria);
    return rows.length
      ? { bookings: rows.map(bookingDetailOf), errors: [], warnings }
      : { bookings: [], errors: [notFound(`these references at hotel ${criteria.references.hotelCode}`)], warnings };
  }
  if (searchBy === "DATES" && criteria.dates) {
    const rows = await byDates(db, partnerId, accessId, criteria);
    if (rows.length > MAX_BOOKINGS_BY_DATES)
      warnings.push({
        code: "TOO_MANY_BOOKINGS",
        type: "CLIENT",
        description: `Only the newest ${MAX_BOOKINGS_BY_DATES}: narrow the dates (GET /api/bookings pages through all)`,
      });
    return { bookings: rows.slice(0, MAX_BOOKINGS_BY_DATES).map(bookingDetailOf), errors: [], warnings };
  }
  throw new ApiError(
    "invalid_request",
    "criteria.bookingID, criteria.references (typeSearch REFERENCES) or criteria.dates (typeSearch DATES) is required",
  );
};
