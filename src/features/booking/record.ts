import { z } from "zod";
import { toMinor } from "../../platform/money";
import { CHARGE_TYPES, convertPolicy, convertRate, type RateTotals } from "../supply";
import type { BookingRow, bookings } from "./tables";

/**
 * A booking as the code reads it: the `bookings` row with its JSON columns decoded, each with zod,
 * once per read, here and nowhere else, and its money columns as integer minor units of `currency`
 * (`chargeTotalMinor`, ...). Writes go back through `bookingColumns`. A row that does not decode is
 * a server fault that names the booking and column (`DamagedBookingRecord`), never a cast.
 *
 * Format versions: version 1 is the bare value as it always was; a later form is stored as an object
 * `{ "v": <n>, ... }`, and `FORMATS` of the column has a decoder per version into the record's form,
 * so rows of every version are read alongside. `rate`, `rooms` and `cancelPolicy` are version 2
 * since issue 38 (their amounts in integer minor units, as the record holds them); their version 1
 * (major units) is read into minor units here, the one reader of that old form.
 */

const penalty = z.object({
  penaltyType: z.string(),
  currency: z.string(),
  deadline: z.string(),
  value: z.number(),
  supplierPenalty: z
    .object({
      penaltyType: z.string(),
      value: z.number(),
      currency: z.string(),
      hoursBefore: z.number().optional(),
      deadline: z.string().optional(),
    })
    .optional(),
});
// Key order is the order the code writes (supply's cancelPolicy, rate-lines.ts rateOfLines): a
// decoded record serializes as it was stored, so the answers built from it are unchanged.
const cancelPolicyV1 = z.object({ refundable: z.boolean(), cancelPenalties: z.array(penalty) });

const chargeType = z.enum(CHARGE_TYPES);
/** A rate as stored: every itemized rate, or a rate stored before issue 27 (its four totals). */
const rateV1 = z.object({
  currency: z.string(),
  baseRate: z.number(),
  taxesAndFees: z.number(),
  chargeTotal: z.number(),
  charges: z
    .array(
      z.object({
        type: chargeType,
        code: z.string(),
        description: z.string(),
        amount: z.number(),
        included: z.boolean(),
      }),
    )
    .optional(),
  dueAtProperty: z
    .object({
      amount: z.number(),
      currency: z.string(),
      amountInRateCurrency: z.number().optional(),
      charges: z.array(
        z.object({
          type: chargeType,
          code: z.string(),
          description: z.string(),
          amount: z.number(),
          currency: z.string(),
        }),
      ),
    })
    .optional(),
  totalStayPrice: z.number().optional(),
  // A PayAtProperty rate's nights carry the property's currency (issue 38); rates stored before do not.
  nights: z
    .array(
      z.object({ date: z.string(), baseRate: z.number(), taxesAndFees: z.number(), currency: z.string().optional() }),
    )
    .optional(),
  exchange: z.object({ currency: z.string(), rate: z.number() }).optional(),
});

/**
 * One room as `bookings.rooms` keeps it: its own rate as booked, and once cancelled (alone or with
 * the booking) when and at what penalty (its share of the booking's, cancel.ts; in the booking's currency).
 */
const roomV1 = z.object({
  occupancyRefId: z.number(),
  code: z.string(),
  description: z.string(),
  rate: rateV1,
  cancelledAt: z.string().optional(),
  cancelPrice: z.number().optional(),
});

type RateShape = z.infer<typeof rateV1>;
type RoomShape = z.infer<typeof roomV1>;
type PolicyShape = z.infer<typeof cancelPolicyV1>;

// Readers of version 1 (major units, stored before issue 38): each amount once into minor units of its currency.
const rateOfV1 = (rate: RateShape): RateShape => convertRate(rate, toMinor);
const roomOfV1 = (room: RoomShape): RoomShape => ({
  ...room,
  rate: rateOfV1(room.rate),
  // A room's penalty is in the booking's currency, its rate's.
  ...(room.cancelPrice === undefined ? {} : { cancelPrice: toMinor(room.cancelPrice, room.rate.currency) }),
});
const policyOfV1 = (policy: PolicyShape): PolicyShape => convertPolicy(policy, toMinor);

/** Version 2 of `rate`, `rooms` and `cancelPolicy`: the value (an array under `rooms`) and `v: 2`, amounts in minor units. */
const STORED_VERSION = 2;
const versioned = <T extends z.ZodRawShape>(shape: T) => z.object({ v: z.literal(STORED_VERSION), ...shape });
const rateV2 = versioned(rateV1.shape).transform(({ v: _, ...rate }) => rate);
const roomsV2 = versioned({ rooms: z.array(roomV1) }).transform(({ rooms }) => rooms);
const cancelPolicyV2 = versioned(cancelPolicyV1.shape).transform(({ v: _, ...policy }) => policy);

/**
 * A guest as the partner sent it (names and whatever else it gave, in its order, echoed by the
 * booking read): an object with a numeric age. Checked as it is, so its keys keep their order.
 */
const paxV1 = z.custom<Record<string, unknown> & { age: number }>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v) && "age" in v && typeof v.age === "number",
  "a guest has a numeric age",
);
const occupancyV1 = z.object({ occupancyId: z.number(), paxes: z.array(paxV1) });
const holderV1 = z.object({ name: z.string(), surName: z.string() });
/** The guaranteeing saved card of a PayAtProperty booking, masked; never card data. */
const paymentCardV1 = z.object({ paymentMethodId: z.string(), brand: z.string(), last4: z.string() });

export type StoredRoom = z.infer<typeof roomV1>;
export type StoredOccupancy = z.infer<typeof occupancyV1>;
export type BookingHolder = z.infer<typeof holderV1>;
export type StoredCancelPolicy = z.infer<typeof cancelPolicyV1>;

const fullRateV1 = rateV1.required({ charges: true, dueAtProperty: true, totalStayPrice: true, nights: true });

/**
 * Each JSON column's value as the record holds it (amounts in minor units), for a stored record that
 * carries some of them inside its own version (a quote, a preview).
 */
export const bookingJson = {
  rate: rateV1,
  /** A rate with its whole breakdown (every rate priced since issue 27). */
  fullRate: fullRateV1,
  rooms: z.array(roomV1),
  cancelPolicy: cancelPolicyV1,
  holder: holderV1,
  occupancies: z.array(occupancyV1),
};

/** The same values as stored before issue 38 (major units), read into the record's (minor units). */
export const bookingJsonV1 = {
  rate: rateV1.transform(rateOfV1),
  fullRate: fullRateV1.transform((rate) => rateOfV1(rate) as z.infer<typeof fullRateV1>),
  rooms: z.array(roomV1).transform((rooms) => rooms.map(roomOfV1)),
  cancelPolicy: cancelPolicyV1.transform(policyOfV1),
};

/** The decoders of each JSON column, by format version (version 1: the bare value). */
const FORMATS = {
  rate: { 1: bookingJsonV1.rate, 2: rateV2 },
  rooms: { 1: bookingJsonV1.rooms, 2: roomsV2 },
  cancelPolicy: { 1: bookingJsonV1.cancelPolicy, 2: cancelPolicyV2 },
  holder: { 1: bookingJson.holder },
  occupancies: { 1: bookingJson.occupancies },
  paymentCard: { 1: paymentCardV1 },
};

/** `rate`, `rooms` and `cancelPolicy` as stored: version 2 (`{ "v": 2, ... }`, amounts in minor units). */
export const storedRate = (rate: RateTotals) => ({ v: STORED_VERSION, ...rate });
export const storedRooms = (rooms: StoredRoom[]) => ({ v: STORED_VERSION, rooms });
export const storedPolicy = (policy: StoredCancelPolicy) => ({ v: STORED_VERSION, ...policy });
type Formats<T> = Readonly<Record<number, z.ZodType<T>>>;

/**
 * A stored record that does not decode: a server fault, never the partner's, logged with this
 * message (what it is: the booking and column) and answered 500 with no part of the record.
 */
export class DamagedRecord extends Error {
  constructor(what: string, why: string) {
    super(`${what} does not decode: ${why}`);
    this.name = "DamagedRecord";
  }
}

const versionOf = (value: unknown): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value) && "v" in value ? value.v : 1;

/** What zod found wrong, path by path. */
const issuesOf = (error: z.ZodError) =>
  error.issues.map((i) => `${i.path.join(".") || "(value)"}: ${i.message}`).join("; ");

/** A stored JSON text (`what` names it in the error) decoded by the format of its version. */
export const decodeStored = <T>(what: string, text: string, formats: Formats<T>): T => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DamagedRecord(what, "not JSON");
  }
  const version = versionOf(value);
  const format = typeof version === "number" ? formats[version] : undefined;
  if (!format) throw new DamagedRecord(what, `unknown format version ${String(version)}`);
  const decoded = format.safeParse(value);
  if (!decoded.success) throw new DamagedRecord(what, issuesOf(decoded.error));
  return decoded.data;
};

/** One JSON column's text as the record's value, whatever format version it was stored in. */
export const decodeColumn = <T>(reference: string, column: string, text: string, formats: Formats<T>): T =>
  decodeStored(`booking ${reference}: column ${column}`, text, formats);

const MONEY_AND_JSON = [
  "rate",
  "rooms",
  "cancelPolicy",
  "holder",
  "occupancies",
  "paymentCard",
  "chargeTotal",
  "cancelPrice",
  "modificationFees",
] as const;

export type BookingRecord = Omit<BookingRow, (typeof MONEY_AND_JSON)[number]> & {
  rate: RateTotals;
  rooms: StoredRoom[];
  cancelPolicy: StoredCancelPolicy | null;
  holder: BookingHolder;
  occupancies: StoredOccupancy[];
  paymentCard: z.infer<typeof paymentCardV1> | null;
  /** What was charged at booking, in minor units of `currency` (0 for a hold and a PayAtProperty booking). */
  chargeTotalMinor: number;
  /** The penalties of its cancellations so far, in minor units of `currency`; null until cancelled. */
  cancelPriceMinor: number | null;
  /** The fees of its changes so far, in minor units of `currency`. */
  modificationFeesMinor: number;
};

/** A stored row as its record (the one decoding of its JSON columns). */
export const bookingRecord = (row: BookingRow): BookingRecord => {
  const { chargeTotal, cancelPrice, modificationFees, paymentCard, cancelPolicy, ...plain } = row;
  return {
    ...plain,
    rate: decodeColumn(row.reference, "rate", row.rate, FORMATS.rate),
    rooms: decodeColumn(row.reference, "rooms", row.rooms, FORMATS.rooms),
    cancelPolicy:
      cancelPolicy === null ? null : decodeColumn(row.reference, "cancelPolicy", cancelPolicy, FORMATS.cancelPolicy),
    holder: decodeColumn(row.reference, "holder", row.holder, FORMATS.holder),
    occupancies: decodeColumn(row.reference, "occupancies", row.occupancies, FORMATS.occupancies),
    paymentCard:
      paymentCard === null ? null : decodeColumn(row.reference, "paymentCard", paymentCard, FORMATS.paymentCard),
    chargeTotalMinor: chargeTotal,
    cancelPriceMinor: cancelPrice,
    modificationFeesMinor: modificationFees,
  };
};

type BookingColumns = Partial<typeof bookings.$inferInsert>;

/** The columns that store (some fields of) a record: JSON columns in their current format, money as minor units. */
export const bookingColumns = (fields: Partial<BookingRecord>): BookingColumns => {
  const {
    rate,
    rooms,
    cancelPolicy,
    holder,
    occupancies,
    paymentCard,
    chargeTotalMinor,
    cancelPriceMinor,
    modificationFeesMinor,
    ...plain
  } = fields;
  const json = (value: unknown) => JSON.stringify(value);
  return {
    ...plain,
    ...(rate !== undefined ? { rate: json(storedRate(rate)) } : {}),
    ...(rooms !== undefined ? { rooms: json(storedRooms(rooms)) } : {}),
    ...(cancelPolicy !== undefined
      ? { cancelPolicy: cancelPolicy === null ? null : json(storedPolicy(cancelPolicy)) }
      : {}),
    ...(holder !== undefined ? { holder: json(holder) } : {}),
    ...(occupancies !== undefined ? { occupancies: json(occupancies) } : {}),
    ...(paymentCard !== undefined ? { paymentCard: paymentCard === null ? null : json(paymentCard) } : {}),
    ...(chargeTotalMinor !== undefined ? { chargeTotal: chargeTotalMinor } : {}),
    ...(cancelPriceMinor !== undefined ? { cancelPrice: cancelPriceMinor } : {}),
    ...(modificationFeesMinor !== undefined ? { modificationFees: modificationFeesMinor } : {}),
  };
};

type BookingInsert = typeof bookings.$inferInsert;
/** A booking about to be stored: its record fields without those the table fills (version, cancellation, change). */
export type NewBooking = Omit<BookingInsert, (typeof MONEY_AND_JSON)[number]> &
  Pick<
    BookingRecord,
    "rate" | "rooms" | "cancelPolicy" | "holder" | "occupancies" | "paymentCard" | "chargeTotalMinor"
  >;

/** The row that stores a new booking: a NewBooking has every column a row needs, so `bookingColumns` writes them all. */
export const newBookingColumns = (booking: NewBooking): BookingInsert => bookingColumns(booking) as BookingInsert;
