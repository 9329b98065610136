import { ApiError } from "../../platform/http/api-error";
import type { ErrorCode } from "../../platform/http/errors";
import { type CancelPolicy, DEFAULT_SUPPLIER_TIMEOUT_MS, type ProviderTransaction, supplyOptionsOf } from "../supply";
import { bookedRate, bookedRooms, type BookingRecord, policyJson, rateJson } from "../booking";
import type { TgxBookingDetail } from "./tgx-flow-schemas";
import type { TgxError } from "./tgx-schemas";
import { ENGLISH, penaltyOf, priceOf } from "./tgx-search";

/**
 * What the Hotel-X shaped quote, book and cancel share: their settings read as supply options,
 * core refusals as Hotel-X `errors`, and a booking as a Hotel-X `HotelBookingDetail`.
 */

type FlowSettings = {
  timeout?: unknown;
  operationTimeout?: number;
  includeProviderTransactions?: boolean;
  auditTransactions?: boolean;
};

/** The supplier deadline and exchanges a request asks for, read as /api/search/tgx reads them. */
export const flowSupplyOf = (settings: FlowSettings) => {
  const supply = supplyOptionsOf({
    timeout: settings.timeout,
    // Hotel-X's name for the same thing: the supplier exchanges, answered as auditData.
    includeProviderTransactions: settings.includeProviderTransactions === true || settings.auditTransactions === true,
  });
  const cap = settings.operationTimeout;
  return cap === undefined
    ? supply
    : { ...supply, timeoutMs: Math.min(supply.timeoutMs ?? DEFAULT_SUPPLIER_TIMEOUT_MS, cap) };
};

/** Hotel-X `AuditData` of the supplier exchanges, when the request asked for them. */
export const auditDataOf = (transactions: ProviderTransaction[] | undefined, startedAt: number) => {
  if (!transactions) return {};
  const sentAt = new Date(startedAt).toISOString();
  return {
    auditData: {
      transactions: transactions.map((t) => ({ request: t.request, response: t.response, timeStamp: sentAt })),
      timeStamp: sentAt,
      processTime: Math.max(0, Date.now() - startedAt),
    },
  };
};

/** Every text we hold is English: another language asked for is a warning, as on /api/search/tgx. */
export const languageWarnings = (language: string | undefined): TgxError[] =>
  language && !ENGLISH.test(language)
    ? [
        {
          code: "LANGUAGE_NOT_AVAILABLE",
          type: "CONTENT",
          description: `Texts are in English; ${language} was requested`,
        },
      ]
    : [];

/**
 * The core errors that are an operation's outcome: the option, the quote, the booking or its
 * supplier said no. They are answered inside the operation's payload as Hotel-X `errors`, with
 * HTTP 200, as Hotel-X does; `code` is the core code in capitals unless named here. Every other
 * error (the request's shape, credentials, the connection, a rate limit, the Idempotency-Key, a
 * fault) keeps the API's own error envelope and status.
 */
const OUTCOMES: Partial<Record<ErrorCode, { type: "CLIENT" | "SUPPLIER"; code?: string }>> = {
  invalid_dates: { type: "CLIENT" },
  invalid_occupancy: { type: "CLIENT" },
  option_expired_or_invalid: { type: "CLIENT" },
  option_invalid: { type: "CLIENT" },
  quote_expired_or_invalid: { type: "CLIENT" },
  occupancy_mismatch: { type: "CLIENT" },
  occupancy_not_found: { type: "CLIENT" },
  currency_mismatch: { type: "CLIENT" },
  payment_card_required: { type: "CLIENT" },
  missing_rate_snapshot: { type: "CLIENT" },
  missing_supplier_metadata: { type: "CLIENT" },
  partner_reference_conflict: { type: "CLIENT", code: "DUPLICATED_CLIENT_REFERENCE" },
  accommodation_not_found: { type: "CLIENT", code: "HOTEL_NOT_FOUND" },
  room_unavailable: { type: "SUPPLIER" },
  price_changed: { type: "SUPPLIER" },
  booking_failed: { type: "SUPPLIER" },
  currency_not_convertible: { type: "SUPPLIER" },
  supplier_error: { type: "SUPPLIER" },
  supplier_unavailable: { type: "SUPPLIER" },
  supplier_timeout: { type: "SUPPLIER" },
  booking_not_found: { type: "CLIENT" },
  // Another partner's booking is not found: its existence is not disclosed.
  booking_not_owned: { type: "CLIENT", code: "BOOKING_NOT_FOUND" },
  booking_not_cancellable: { type: "CLIENT" },
  booking_pending: { type: "CLIENT" },
  booking_already_cancelled: { type: "CLIENT" },
  after_check_in: { type: "CLIENT" },
  cancel_policy_not_found: { type: "CLIENT" },
  not_refundable: { type: "CLIENT" },
  // A Hotel-X commit (POST /api/graphql) of a booking that is not a live hold.
  booking_not_held: { type: "CLIENT" },
  hold_expired: { type: "CLIENT" },
};

type PriceChange = { previousTotal: number; currentTotal: number; currency: string };
/** The two totals of a `price_changed` refusal, when it names them. */
export const priceChangeOf = (error: ApiError): PriceChange | null => {
  const d = error.details as Partial<PriceChange> | undefined;
  return error.code === "price_changed" &&
    typeof d?.previousTotal === "number" &&
    typeof d.currentTotal === "number" &&
    typeof d.currency === "string"
    ? { previousTotal: d.previousTotal, currentTotal: d.currentTotal, currency: d.currency }
    : null;
};

const descriptionOf = (error: ApiError) => {
  if (error.code === "booking_not_owned") return "Booking not found";
  const change = priceChangeOf(error);
  if (change) return `${error.message}: from ${change.previousTotal} to ${change.currentTotal} ${change.currency}`;
  const reason = error.details?.reason;
  return typeof reason === "string" ? `${error.message} (${reason})` : error.message;
};

/** A core refusal as a Hotel-X `Error`; null for an error that is not an operation's outcome. */
export const hotelxErrorOf = (error: unknown): TgxError | null => {
  if (!(error instanceof ApiError)) return null;
  const outcome = OUTCOMES[error.code as ErrorCode];
  if (!outcome) return null;
  // Hotel-X's name for a booking refused for want of rooms.
  const soldOut = error.code === "booking_failed" && error.details?.reason === "unavailable";
  return {
    code: soldOut ? "SOLD_OUT" : (outcome.code ?? error.code.toUpperCase()),
    type: outcome.type,
    description: descriptionOf(error),
  };
};

/** A core cancel policy as a Hotel-X `CancelPolicy`, penalties as /api/search/tgx states them (`penaltyOf`). */
export const cancelPolicyOf = (policy: CancelPolicy, checkIn: string) => {
  const checkInMs = Date.parse(`${checkIn}T00:00:00Z`);
  return {
    refundable: policy.refundable,
    cancelPenalties: policy.cancelPenalties.map((p) => penaltyOf(p, checkInMs)),
  };
};

/**
 * Hotel-X `BookStatusType` of a booking: a pending one is `UNKNOWN` while the supplier's answer is
 * missing (lost, late) and `ON_REQUEST` once the upstream gave it a booking id without confirming;
 * a hold is `PENDING_COMMIT`, a lapsed hold `CANCELLED`.
 */
const statusOf = (row: BookingRecord): TgxBookingDetail["status"] => {
  switch (row.status) {
    case "success":
      return "OK";
    // A hold waits for its commit (Hotel-X's two-step booking); one that lapsed was given back.
    case "held":
      return "PENDING_COMMIT";
    case "cancelled":
    case "expired":
      return "CANCELLED";
    case "failed":
      return "KO";
    default:
      return row.upstreamBookingId ? "ON_REQUEST" : "UNKNOWN";
  }
};

/** Hotel-X `payable`: who the stay is paid to (Edgestay charges a MerchantPay booking; the hotel collects a PayAtProperty one). */
const payableTo = (row: BookingRecord) => (row.paymentType === "PayAtProperty" ? row.accommodationName : "Edgestay");

/**
 * The booking's connection id on its Hotel-X detail, as a symbol: not part of any answer (JSON drops
 * it), read by POST /api/graphql to answer the connection's own fields (hotelx-fields.ts).
 */
export const BOOKING_CONNECTION = Symbol("bookingConnection");

/**
 * The supplier that holds the booking and its hotel code there, likewise as a symbol on the detail
 * (the REST shape has no such fields): GraphQL answers the public schema's `supplierCode` and
 * `hotelCodeSupplier` from it.
 */
export const BOOKING_SUPPLIER = Symbol("bookingSupplier");
export type BookingSupplier = { code: string; hotelCode: string | null };

/** A booking as Hotel-X's `HotelBookingDetail`: the booking read of /api/bookings, in Hotel-X's names. */
export const bookingDetailOf = (row: BookingRecord): TgxBookingDetail => {
  const { holder, cancelPolicy: policy } = row;
  const detail: TgxBookingDetail = {
    reference: {
      client: row.partnerReference,
      supplier: row.supplierReference || null,
      hotel: row.hotelConfirmationNumber,
      bookingID: row.reference,
    },
    holder: { name: holder.name, surname: holder.surName },
    hotel: {
      bookingDate: row.createdAt.slice(0, 10),
      start: row.checkIn,
      end: row.checkOut,
      hotelCode: row.accommodationCode,
      hotelName: row.accommodationName,
      boardCode: row.boardCode,
      occupancies: row.occupancies.map((o) => ({
        id: o.occupancyId,
        paxes: o.paxes.map((p) => ({ age: p.age })),
      })),
      rooms: bookedRooms(row).map((room) => ({
        occupancyRefId: room.occupancyRefId,
        code: room.code,
        description: room.description,
        price: priceOf(rateJson(room.rate), row.paymentType),
      })),
    },
    price: priceOf(rateJson(bookedRate(row)), row.paymentType),
    quotePrice: null,
    cancelPolicy: policy ? cancelPolicyOf(policyJson(policy), row.checkIn) : null,
    remarks: row.remarks,
    payable: payableTo(row),
    status: statusOf(row),
  };
  // Not enumerable: no answer, comparison or copy sees it.
  Object.defineProperty(detail, BOOKING_CONNECTION, { value: row.connectionId, enumerable: false });
  const supplier: BookingSupplier = { code: row.supplier, hotelCode: row.supplierHotelCode };
  Object.defineProperty(detail, BOOKING_SUPPLIER, { value: supplier, enumerable: false });
  if (detail.hotel) Object.defineProperty(detail.hotel, BOOKING_SUPPLIER, { value: supplier, enumerable: false });
  return detail;
};

/** How Hotel-X names a booking besides its bookingID (HotelCancelInput, HotelCriteriaBookingInput). */
export type BookingNames = {
  accessCode?: string;
  hotelCode?: string;
  reference?: {
    client?: string;
    supplier?: string;
    hotel?: string;
    dates?: { start?: string; end?: string; creation?: string };
  };
};

/**
 * Whether every name sent is the booking's: `accessCode` names the connection it was made on
 * (`accessId`: the id of the partner's connection the code names, `accessIdOf`; null: none of
 * theirs); hotel, client, supplier and hotel references and dates are its own.
 */
export const namesBooking = (row: BookingRecord, accessId: string | null | undefined, names: BookingNames) => {
  const ref = names.reference;
  return [
    names.accessCode === undefined || (typeof accessId === "string" && row.connectionId === accessId),
    names.hotelCode === undefined || names.hotelCode === row.accommodationCode,
    ref?.client === undefined || ref.client === row.partnerReference,
    ref?.supplier === undefined || ref.supplier === row.supplierReference,
    ref?.hotel === undefined || ref.hotel === row.hotelConfirmationNumber,
    ref?.dates?.start === undefined || ref.dates.start === row.checkIn,
    ref?.dates?.end === undefined || ref.dates.end === row.checkOut,
    ref?.dates?.creation === undefined || ref.dates.creation === row.createdAt.slice(0, 10),
  ].every(Boolean);
};

/** A Hotel-X payload's outcome for usage: success, else its first error's code in lower case. */
export const tgxOutcome = (done: boolean, errors: readonly { code: string }[] | null | undefined) =>
  done ? "success" : (errors?.[0]?.code.toLowerCase() ?? "success");
