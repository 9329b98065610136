import type { GraphQLFieldResolver, GraphQLObjectType, GraphQLSchema } from "graphql";
import { type CoreConnection, readAccessById } from "../connections";
import { INVENTORY_SUPPLIER, roomBeds } from "../supply";
import type { GraphqlCall } from "./hotelx-graphql";
import { BOOKING_CONNECTION, BOOKING_SUPPLIER, type BookingSupplier } from "./tgx-answers";
import { TGX_SUPPLIER_CODE } from "./tgx-search";

/**
 * The public schema's fields that POST /api/graphql answers from what the Hotel-X answer already
 * holds (hotelx-api-sdl.ts; docs/api-decisions.md, "Issue 40: the public schema's fields"): the
 * connection's markup, the room catalogue's beds, the deprecated date names, the supplier's codes
 * (ours, unless an answer names the supplier's own), Edgestay's nothing as [] (supplements,
 * promotions). GraphQL alone asks for them, so the REST routes' answers do not carry them.
 */

type Source = Record<string, unknown>;
type Resolver = GraphQLFieldResolver<Source, GraphqlCall>;

/**
 * Records that `value` (an answer, and every object inside it) was made on `connection`, so a field
 * below it reads that connection (its markup, its code) whichever access of a search it came from.
 */
export const answeredOn = (call: GraphqlCall, value: unknown, connection: CoreConnection | undefined) => {
  if (!connection || !value || typeof value !== "object") return;
  call.owners ??= new WeakMap();
  call.owners.set(value, connection);
  for (const child of Object.values(value)) answeredOn(call, child, connection);
};

/** The connection a booking read was made on (the caller's: the read checked the partner), from the booking's own. */
export const connectionOfBooking = async (call: GraphqlCall, booking: object) => {
  const id = (booking as { [BOOKING_CONNECTION]?: string })[BOOKING_CONNECTION];
  if (!id) return undefined;
  const access = await readAccessById(call.routing.db, id);
  const found = "found" in access ? access.found : null;
  return found && found.partnerId === call.routing.partnerId ? found : undefined;
};

/** Hotel-X `PaymentCardType`: a card guarantee (DIRECT) is taken of any brand. */
const CARD_TYPES = [
  "VI",
  "AX",
  "BC",
  "CA",
  "CB",
  "CU",
  "DS",
  "DC",
  "T",
  "R",
  "N",
  "L",
  "E",
  "JC",
  "TO",
  "S",
  "EC",
  "EU",
  "TP",
  "OP",
  "ER",
  "XS",
  "O",
];

/** Whether the field being resolved sits under a field of this name (a surcharge's price, say). */
const under = (path: { key: string | number; prev: unknown } | undefined, name: string): boolean =>
  path ? path.key === name || under(path.prev as typeof path | undefined, name) : false;

type Penalty = { deadline: string | null; penaltyType: string; currency: string; value: number };
/** A cancel policy in words, from its penalties. */
const policyText = (policy: { refundable: boolean; cancelPenalties?: Penalty[] | null }) => {
  if (!policy.refundable) return "Non-refundable: cancelling costs the whole price";
  const penalties = policy.cancelPenalties ?? [];
  if (!penalties.length) return "Free cancellation";
  return penalties
    .map((p) => {
      const fee = p.penaltyType === "PERCENT" ? `${p.value}% of the price` : `${p.value} ${p.currency}`;
      return p.deadline ? `From ${p.deadline}, cancelling costs ${fee}` : `Cancelling costs ${fee}`;
    })
    .join("; ");
};

/** The supplier's own value when the answer names it, else ours (Edgestay's codes are the supplier's). */
/** Who holds a booking, from its detail (tgx-answers.ts `bookingDetailOf`). */
const heldBy = (detail: object) => (detail as { [BOOKING_SUPPLIER]?: BookingSupplier })[BOOKING_SUPPLIER];

const ownOr =
  (field: string, ours: string): Resolver =>
  (source) =>
    source[field] ?? source[ours] ?? null;

const RESOLVERS: Record<string, Record<string, Resolver>> = {
  Price: {
    // The partner's price already has the connection's markup on it: the markup says so, and by how much.
    markups: (price, _, call, info) => {
      const connection = call.owners?.get(price);
      const percent = connection?.netMarkups;
      if (!connection || !percent || under(info.path, "surcharges") || under(info.path, "supplements")) return [];
      const { currency, binding, net, gross, exchange } = price;
      const code = String(connection.code);
      return [
        {
          channel: code,
          currency,
          binding,
          net,
          gross,
          exchange,
          rules: [{ id: `connection-${code}`, name: "Connection markup", type: "PERCENT", value: percent }],
        },
      ];
    },
  },
  HotelOptionSearch: { supplements: () => [] },
  Room: {
    descriptionSupplier: ownOr("descriptionSupplier", "description"),
    beds: (room) =>
      roomBeds(String(room.code)).map((bed) => ({
        ...bed,
        description: `${bed.count} ${bed.type.toLowerCase().replace("_", " ")}${bed.count > 1 ? "s" : ""}`,
        shared: false,
      })),
    promotions: () => [],
  },
  RatePlan: { effectiveDate: ownOr("effectiveDate", "start"), expireDate: ownOr("expireDate", "end") },
  HotelOptionQuote: {
    // Edgestay charges a MERCHANT option to the partner's account: no card; a DIRECT one is guaranteed by a card of any brand.
    cardTypes: (quote) => (quote.paymentType === "DIRECT" ? CARD_TYPES : []),
  },
  CancelPolicy: {
    description: (policy) =>
      policy.description ?? policyText(policy as { refundable: boolean; cancelPenalties?: Penalty[] }),
  },
  HotelBookingDetail: {
    // The supplier holding it by its Edgestay code, EDGESTAY for the embedded inventory (as search options name it).
    supplierCode: (booking) => {
      const supplier = heldBy(booking);
      return (
        booking.supplierCode ?? (supplier && supplier.code !== INVENTORY_SUPPLIER ? supplier.code : TGX_SUPPLIER_CODE)
      );
    },
    accessCode: (booking, _, call) => {
      const connection = call.owners?.get(booking);
      return booking.accessCode ?? (connection ? String(connection.code) : null);
    },
  },
  BookingHotel: {
    creationDate: ownOr("creationDate", "bookingDate"),
    checkIn: ownOr("checkIn", "start"),
    checkOut: ownOr("checkOut", "end"),
    // The supplier's own hotel code when it has one (its hotel map); its board code is not kept: ours.
    hotelCodeSupplier: (hotel) => hotel.hotelCodeSupplier ?? heldBy(hotel)?.hotelCode ?? hotel.hotelCode ?? null,
    boardCodeSupplier: ownOr("boardCodeSupplier", "boardCode"),
  },
  BookingRoom: { descriptionSupplier: ownOr("descriptionSupplier", "description") },
};

const resolved = new WeakSet<GraphQLSchema>();
/** The schema with these fields' resolvers set (once per schema: it is built once per isolate). */
export const withPublicFields = (schema: GraphQLSchema): GraphQLSchema => {
  if (resolved.has(schema)) return schema;
  for (const [typeName, fields] of Object.entries(RESOLVERS)) {
    const type = schema.getType(typeName) as GraphQLObjectType | undefined;
    if (!type) throw new Error(`The Hotel-X API SDL has no type ${typeName}`);
    for (const [name, resolve] of Object.entries(fields)) {
      const field = type.getFields()[name];
      if (!field) throw new Error(`The Hotel-X API SDL has no field ${typeName}.${name}`);
      field.resolve = resolve as GraphQLFieldResolver<unknown, unknown>;
    }
  }
  resolved.add(schema);
  return schema;
};
