/** The sandbox's own small inventory, and the scenario hotels chosen by code (README.md). */
export type SandboxRoom = {
  code: string;
  /** The supplier's rate the room is sold at, when a room code has several (a supplier's table: board and refundability). */
  rate?: string;
  description: string;
  board: string;
  nightly: number;
  refundable: boolean;
  /** Hotel-X `RateRulesType` names the option carries; none when absent. */
  rateRules?: string[];
  /** Hotel-X `surcharges`, per room and night in the hotel's currency; an `INCLUDE` one is part of `nightly`. */
  surcharges?: SandboxSurcharge[];
  /** Hotel-X `cancelPenalties` as stated (hours before check-in); the standard policy when absent. */
  penalties?: SandboxPenalty[];
};
export type SandboxSurcharge = {
  code: string;
  description: string;
  chargeType: "INCLUDE" | "EXCLUDE";
  mandatory: boolean;
  nightly: number;
  /** Its own currency (a local fee); the hotel's when absent. */
  currency?: string;
};
export type SandboxPenalty = { hoursBefore: number; penaltyType: "NIGHTS" | "PERCENT" | "IMPORT"; value: number };
/**
 * `paymentType`: Hotel-X's `PaymentType` of every option of the hotel; `MERCHANT` when absent.
 * `season`: a factor on `nightly` by month of the night (January first); none when absent.
 */
export type SandboxHotel = {
  code: string;
  name: string;
  currency: string;
  rooms: SandboxRoom[];
  paymentType?: string;
  season?: number[];
};

/** What tells a room's options apart in an optionRefId: its code, and its rate when it has one. */
export const roomKey = (room: SandboxRoom) => (room.rate ? `${room.code}~${room.rate}` : room.code);

/** Where a generated hotel stands, so content rows made for it (the bench's) agree with its name. */
export type SandboxCity = { name: string; country: string; latitude: number; longitude: number; timezone: string };

const standardRooms = (base: number): SandboxRoom[] => [
  { code: "DBL", description: "Double room", board: "RO", nightly: base, refundable: true },
  { code: "DBL-BB", description: "Double room with breakfast", board: "BB", nightly: base + 18, refundable: true },
  { code: "STD-NR", description: "Standard room, non-refundable", board: "RO", nightly: base - 15, refundable: false },
];

const HOTELS: SandboxHotel[] = [
  { code: "HX001", name: "Hotel Sandbox Barcelona", currency: "EUR", rooms: standardRooms(120) },
  { code: "HX002", name: "Hotel Sandbox Madrid", currency: "EUR", rooms: standardRooms(95) },
  { code: "HX003", name: "Hotel Sandbox Lisbon", currency: "EUR", rooms: standardRooms(80) },
  { code: "HX004", name: "Hotel Sandbox Paris", currency: "EUR", rooms: standardRooms(160) },
  { code: "HX005", name: "Hotel Sandbox Rome", currency: "EUR", rooms: standardRooms(110) },
];

/** Hotels whose rates carry Hotel-X rate rules (README.md, "Rate rules"); searchable like the scenario hotels. */
const RULED_HOTELS: SandboxHotel[] = [
  {
    code: "HXPACKAGE",
    name: "Sandbox package hotel",
    currency: "EUR",
    rooms: [
      ...standardRooms(100),
      {
        code: "DBL-PKG",
        description: "Double room, sold only with a flight",
        board: "RO",
        nightly: 80,
        refundable: true,
        rateRules: ["PACKAGE"],
      },
      {
        code: "DBL-MOB",
        description: "Double room, mobile rate",
        board: "RO",
        nightly: 88,
        refundable: false,
        rateRules: ["MOBILE", "NON_REFUNDABLE"],
      },
      {
        code: "DBL-WAR",
        description: "Double room with cancellation warranty",
        board: "RO",
        nightly: 104,
        refundable: true,
        rateRules: ["WARRANTY"],
      },
    ],
  },
  // Paid at the hotel (Hotel-X `DIRECT`): Edgestay sells it PayAtProperty.
  {
    code: "HXDIRECT",
    name: "Sandbox pay-at-hotel hotel",
    currency: "EUR",
    rooms: standardRooms(90),
    paymentType: "DIRECT",
  },
  // Paid at the hotel, priced in EUR, with a resort fee the hotel states in USD.
  {
    code: "HXDIRECTFEE",
    name: "Sandbox pay-at-hotel resort",
    currency: "EUR",
    paymentType: "DIRECT",
    rooms: [
      {
        code: "DBL",
        description: "Double room",
        board: "RO",
        nightly: 100,
        refundable: true,
        surcharges: [
          {
            code: "RESORT",
            description: "Resort fee",
            chargeType: "EXCLUDE",
            mandatory: true,
            nightly: 20,
            currency: "USD",
          },
        ],
      },
    ],
  },
];

/** Hotels that price in another currency, or with surcharges and penalties of every kind (README.md, "Prices"). */
const PRICED_HOTELS: SandboxHotel[] = [
  { code: "HXUSD", name: "Sandbox dollar hotel", currency: "USD", rooms: standardRooms(150) },
  { code: "HXGBP", name: "Sandbox pound hotel", currency: "GBP", rooms: standardRooms(90) },
  {
    code: "HXFEES",
    name: "Sandbox resort hotel",
    currency: "EUR",
    rooms: [
      {
        code: "DBL",
        description: "Double room",
        board: "RO",
        nightly: 100,
        refundable: true,
        surcharges: [
          { code: "CITYTAX", description: "City tax", chargeType: "INCLUDE", mandatory: true, nightly: 4.5 },
          { code: "RESORT", description: "Resort fee", chargeType: "EXCLUDE", mandatory: true, nightly: 25 },
          { code: "PARKING", description: "Parking", chargeType: "EXCLUDE", mandatory: false, nightly: 15 },
        ],
        penalties: [
          { hoursBefore: 336, penaltyType: "IMPORT", value: 50 },
          { hoursBefore: 168, penaltyType: "NIGHTS", value: 1 },
          { hoursBefore: 48, penaltyType: "PERCENT", value: 100 },
        ],
      },
    ],
  },
];

/**
 * Generated normal hotels `HX1000`..`HX1999`, for searches by many codes (the bench prices 100).
 * Four digits, so no generated code is one of the hotels or scenario codes above (`HX500` is).
 * Name, city and price follow from the number alone: the same code always answers the same.
 */
export const GENERATED_HOTELS = { first: 1_000, count: 1_000 } as const;
export const SANDBOX_CITIES: SandboxCity[] = [
  { name: "Barcelona", country: "ES", latitude: 41.3874, longitude: 2.1686, timezone: "Europe/Madrid" },
  { name: "Madrid", country: "ES", latitude: 40.4168, longitude: -3.7038, timezone: "Europe/Madrid" },
  { name: "Lisbon", country: "PT", latitude: 38.7223, longitude: -9.1393, timezone: "Europe/Lisbon" },
  { name: "Paris", country: "FR", latitude: 48.8566, longitude: 2.3522, timezone: "Europe/Paris" },
  { name: "Rome", country: "IT", latitude: 41.9028, longitude: 12.4964, timezone: "Europe/Rome" },
];

export const generatedHotelCode = (i: number) => `HX${GENERATED_HOTELS.first + i}`;

/** The i-th generated hotel's number (0-based), or null for any other code. */
const generatedIndex = (code: string): number | null => {
  const match = /^HX(\d{4})$/.exec(code);
  const i = match ? Number(match[1]) - GENERATED_HOTELS.first : -1;
  return i >= 0 && i < GENERATED_HOTELS.count ? i : null;
};

export const generatedHotelCity = (i: number): SandboxCity => SANDBOX_CITIES[i % SANDBOX_CITIES.length]!;

export const generatedHotel = (i: number): SandboxHotel => ({
  code: generatedHotelCode(i),
  name: `Hotel Sandbox ${generatedHotelCity(i).name} ${GENERATED_HOTELS.first + i}`,
  currency: "EUR",
  // 70..199 EUR a night for the double room, spread by a fixed stride.
  rooms: standardRooms(70 + ((i * 37) % 130)),
});

export type Scenario =
  | { kind: "normal" }
  | { kind: "slow"; delayMs: number }
  | { kind: "http_500" }
  | { kind: "bad_json" }
  | { kind: "graphql_errors" }
  | { kind: "bad_shape" }
  | { kind: "price_up" }
  | { kind: "sold_out" }
  /** Search and book answer; quote is refused with error `code`. */
  | { kind: "quote_refused"; code: string; description: string }
  | { kind: "refused" }
  /** Book answers `PENDING_COMMIT`: booked, waiting for a commit (two-step book). */
  | { kind: "pending_commit" }
  | { kind: "answer_lost"; delayMs: number }
  /** Answers `status` with `Location: /redirected` (every operation, or book only). */
  | { kind: "redirect"; status: 302 | 307; operations: "all" | "book" };

/** Longest delay a code may ask for, so a typo cannot hold a request for hours. */
const MAX_DELAY_MS = 60_000;
const FIXED: Record<string, Scenario> = {
  HX500: { kind: "http_500" },
  HXBADJSON: { kind: "bad_json" },
  HXGQLERR: { kind: "graphql_errors" },
  HXBADSHAPE: { kind: "bad_shape" },
  HXPRICEUP: { kind: "price_up" },
  HXSOLDOUT: { kind: "sold_out" },
  HXQUOTESOLDOUT: { kind: "quote_refused", code: "SOLD_OUT", description: "No rooms left for this option" },
  HXQUOTENOAVAIL: { kind: "quote_refused", code: "NO_AVAILABILITY", description: "No availability for this option" },
  HXQUOTEGONE: { kind: "quote_refused", code: "OPTION_NOT_FOUND", description: "The option is no longer offered" },
  HXQUOTEPRICE: {
    kind: "quote_refused",
    code: "PRICE_CHANGED",
    description: "Not sold at its searched price any more",
  },
  // A code no client knows: an error, not a refusal.
  HXQUOTEERROR: { kind: "quote_refused", code: "RATE_ENGINE_FAILURE", description: "The rate engine failed" },
  HXREFUSE: { kind: "refused" },
  HXCOMMIT: { kind: "pending_commit" },
  HX302: { kind: "redirect", status: 302, operations: "all" },
  HXBOOK307: { kind: "redirect", status: 307, operations: "book" },
};

export const scenarioOf = (code: string): Scenario => {
  const fixed = FIXED[code];
  if (fixed) return fixed;
  const delayed = /^HX(SLOW|LOST)(\d{1,5})$/.exec(code);
  if (delayed) {
    const delayMs = Math.min(Number(delayed[2]), MAX_DELAY_MS);
    return delayed[1] === "SLOW" ? { kind: "slow", delayMs } : { kind: "answer_lost", delayMs };
  }
  return { kind: "normal" };
};

/** A scenario code as a hotel (100 a night in `currency`) so it can be searched; null for any other code. */
export const scenarioHotel = (code: string, currency = "EUR"): SandboxHotel | null =>
  scenarioOf(code).kind === "normal"
    ? null
    : { code, name: `Sandbox scenario ${code}`, currency, rooms: standardRooms(100) };

/** Inventory and generated hotels, and every scenario code as a hotel too (100 EUR a night) so it can be searched. */
export const hotelFor = (code: string): SandboxHotel | null => {
  const listed = [...HOTELS, ...RULED_HOTELS, ...PRICED_HOTELS].find((h) => h.code === code);
  if (listed) return listed;
  const generated = generatedIndex(code);
  if (generated !== null) return generatedHotel(generated);
  return scenarioHotel(code);
};

export const inventoryCodes = () => HOTELS.map((h) => h.code);

/** The sandbox's own hotel list (the `hotels` content query at its own path): the inventory, in its cities. */
export const inventoryList = () => HOTELS.map((hotel, i) => ({ hotel, city: SANDBOX_CITIES[i]! }));
