import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import {
  type CoreConnection,
  coreConnection,
  readAccess,
  readAccessById,
  searchConnection,
  tgxConnections,
} from "../connections";
import {
  accessOfOptionId,
  type BookingDeps,
  findBookingByPartnerReference,
  partnerBooking,
  storedQuote,
} from "../booking";

/**
 * The connection a Hotel-X request runs on (issue 40), chosen the Hotel-X way: Edgestay's own
 * name for it (`settings.access.code`, or the `access-code` header, a shortcut) when sent; else what
 * the request itself names: a search's `filterSearch.access.includes` (none: every in-use `tgx`
 * connection of the partner, as Hotel-X runs every configured access), the access an option id
 * carries, a quote's or a booking's own connection, a cancel's or booking read's `accessCode`.
 * Whatever names a connection, it is judged as `settings.access.code` is: another partner's is refused.
 */
export type HotelxRouting = {
  db: Db;
  partnerId: string;
  /** Edgestay's name for the connection (settings.access.code or the access-code header); undefined: none. */
  named: unknown;
};

/** A code judged as quote, book and cancel judge `settings.access.code` (one 403 for all that is not the caller's). */
const judged = async (routing: HotelxRouting, code: unknown) =>
  coreConnection(await readAccess(routing.db, code), routing.partnerId);

const noConnection = () => new ApiError("invalid_connection_code", "Invalid connection code.");

type AccessFilter = { includes?: (string | number)[]; excludes?: (string | number)[] } | undefined;

/** Whether a search's `access` filter leaves a connection to search. */
export const accessKeeps = (access: AccessFilter, connection: CoreConnection) => {
  const code = String(connection.code);
  return (
    (!access?.includes || access.includes.map(String).includes(code)) && !access?.excludes?.map(String).includes(code)
  );
};

/**
 * The connections a search runs on: the one Edgestay's name gives, else those `access.includes`
 * lists, else every in-use `tgx` connection of the partner; then whatever `access` leaves (an
 * Edgestay code outside `includes`, or in `excludes`, leaves nothing). Each named code is judged
 * as /api/search judges one (its four messages).
 */
export const searchConnections = async (routing: HotelxRouting, access: AccessFilter): Promise<CoreConnection[]> => {
  const includes = access?.includes?.map(String);
  const judge = async (code: unknown) => searchConnection(await readAccess(routing.db, code), routing.partnerId);
  const candidates =
    routing.named !== undefined
      ? [await judge(routing.named)]
      : includes
        ? await Promise.all([...new Set(includes)].map(judge))
        : await tgxConnections(routing.db, routing.partnerId);
  return candidates.filter((c) => accessKeeps(access, c));
};

/** A quote's connection: Edgestay's name, else the access its option id carries (`hotelxOptionId`). */
export const quoteConnection = async (routing: HotelxRouting, optionRefId: string): Promise<CoreConnection> => {
  const code = routing.named ?? accessOfOptionId(optionRefId);
  if (code === undefined) throw noConnection();
  return judged(routing, code);
};

/** Quote ids (`newQuoteId`) start so; a search option id never does. */
export const isQuoteId = (optionRefId: string) => optionRefId.startsWith("qt_");

/**
 * A book's connection: Edgestay's name; else the quote's own connection (once the quote expired,
 * that of the booking a retry under the same clientReference finds); else the access a search
 * option's id carries.
 */
export const bookConnection = async (
  deps: Pick<BookingDeps, "db" | "quotes">,
  routing: HotelxRouting,
  input: { optionRefId: string; clientReference: string },
  now = Date.now(),
): Promise<CoreConnection> => {
  if (routing.named !== undefined) return judged(routing, routing.named);
  if (!isQuoteId(input.optionRefId)) return quoteConnection(routing, input.optionRefId);
  const stored = await storedQuote(deps, input.optionRefId, now);
  const connectionId =
    stored?.connectionId ??
    (await findBookingByPartnerReference(deps.db, routing.partnerId, input.clientReference))?.connectionId;
  if (connectionId === undefined)
    throw new ApiError("quote_expired_or_invalid", "Quote reference expired or invalid. Please quote again.");
  return coreConnection(await readAccessById(routing.db, connectionId), routing.partnerId);
};

/**
 * The id of the partner's connection an `accessCode` names (any of its connections, in use or not:
 * a booking made on one is still found through it); null when it names none of the partner's.
 */
export const accessIdOf = async (routing: HotelxRouting, accessCode: string | undefined) => {
  if (accessCode === undefined) return undefined;
  const access = await readAccess(routing.db, accessCode);
  return "found" in access && access.found?.partnerId === routing.partnerId ? access.found.id : null;
};

/**
 * The connection a call about one booking is counted on: Edgestay's name, else the one `accessCode`
 * names, else the booking's own (`connectionId`, found by the caller); judged as any other.
 */
export const bookingCallConnection = async (
  routing: HotelxRouting,
  accessCode: string | undefined,
  bookingConnectionId: string | undefined,
): Promise<CoreConnection> => {
  const code = routing.named ?? accessCode;
  if (code !== undefined) return judged(routing, code);
  if (bookingConnectionId === undefined) throw noConnection();
  return coreConnection(await readAccessById(routing.db, bookingConnectionId), routing.partnerId);
};

/** The connection a Hotel-X cancel is counted on: Edgestay's name, its accessCode's, else its booking's own. */
export const cancelConnection = async (
  routing: HotelxRouting,
  input: { bookingID?: string; accessCode?: string },
): Promise<CoreConnection> => {
  const { db, partnerId } = routing;
  const booking = input.bookingID ? await partnerBooking(db, partnerId, input.bookingID).catch(() => null) : null;
  return bookingCallConnection(routing, input.accessCode, booking?.connectionId);
};
