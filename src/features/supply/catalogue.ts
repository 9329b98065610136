import { toMinor } from "../../platform/money";
import { fnv1a, prng, seededOrder } from "../../platform/seeded-random";
import { type RateRule, type Visibility, visibilityOf } from "./rate-rules";
import type { PaymentType } from "./supplier";
/**
 * Room types and rate plans of the embedded supply, derived deterministically from the
 * accommodation's code and star rating. Nothing is stored per accommodation until a night
 * differs from these defaults (room_nights / rate_plan_nights), so 100,000 accommodations
 * cost no rows at all.
 */

export type BoardCode = "RO" | "BB" | "HB";

export type RoomType = {
  code: string;
  name: string;
  maxAdults: number;
  maxChildren: number;
  maxOccupancy: number;
  /** Rooms of this type for sale each night unless a room_nights row says otherwise. */
  defaultAllotment: number;
  /** Multiplier over the accommodation's base nightly price. */
  priceFactor: number;
  /** The beds the room type has (Hotel-X `Bed`: its type and how many). */
  beds: RoomBed[];
};
export type RoomBed = { type: "QUEEN" | "KING" | "TWIN" | "SOFA_BED"; count: number };

/** Cancellation rule: free until `freeDays` days before check-in at 15:00 local, then the penalty. */
export type CancellationRule =
  | { refundable: false }
  | { refundable: true; freeDays: number; penalty: "FIRST_NIGHT" | "FULL_STAY" };

export type RatePlan = {
  code: string;
  roomCode: string;
  boardCode: BoardCode;
  boardName: string;
  priceFactor: number;
  cancellation: CancellationRule;
  /** The plan's own rules (`NON_REFUNDABLE` follows from its cancellation); empty for a public plan. */
  rateRules: RateRule[];
  visibility: Visibility;
  paymentType: PaymentType;
};

export type AccommodationCatalogue = {
  basePrice: number;
  rooms: RoomType[];
  ratePlans: RatePlan[];
  /** Every rate plan with its room type, in rate-plan order. */
  products: Array<{ room: RoomType; plan: RatePlan }>;
};

export const BOARD_NAMES: Record<BoardCode, string> = { RO: "Room Only", BB: "Bed and Breakfast", HB: "Half Board" };

const ROOM_TEMPLATES: Array<Omit<RoomType, "defaultAllotment">> = [
  {
    code: "STD",
    name: "Standard Queen Room",
    maxAdults: 2,
    maxChildren: 1,
    maxOccupancy: 3,
    priceFactor: 1,
    beds: [{ type: "QUEEN", count: 1 }],
  },
  {
    code: "TWN",
    name: "Superior Twin Room",
    maxAdults: 2,
    maxChildren: 0,
    maxOccupancy: 2,
    priceFactor: 1.1,
    beds: [{ type: "TWIN", count: 2 }],
  },
  {
    code: "DLX",
    name: "Deluxe King Room",
    maxAdults: 2,
    maxChildren: 2,
    maxOccupancy: 4,
    priceFactor: 1.3,
    beds: [
      { type: "KING", count: 1 },
      { type: "SOFA_BED", count: 1 },
    ],
  },
  {
    code: "FAM",
    name: "Family Suite",
    maxAdults: 4,
    maxChildren: 3,
    maxOccupancy: 6,
    priceFactor: 1.75,
    beds: [
      { type: "QUEEN", count: 2 },
      { type: "SOFA_BED", count: 1 },
    ],
  },
  {
    code: "STE",
    name: "Junior Suite",
    maxAdults: 3,
    maxChildren: 2,
    maxOccupancy: 4,
    priceFactor: 2.1,
    beds: [
      { type: "KING", count: 1 },
      { type: "SOFA_BED", count: 1 },
    ],
  },
];

/** The beds of a room type of the embedded catalogue, by its code; [] for a code it does not have (an upstream's). */
export const roomBeds = (roomCode: string): RoomBed[] => ROOM_TEMPLATES.find((t) => t.code === roomCode)?.beds ?? [];

type PlanTemplate = Omit<
  RatePlan,
  "code" | "roomCode" | "cancellation" | "rateRules" | "visibility" | "paymentType"
> & {
  suffix: string;
  cancellation: (r: () => number) => CancellationRule;
};

const PLAN_TEMPLATES: PlanTemplate[] = [
  {
    suffix: "RO-NRF",
    boardCode: "RO",
    boardName: BOARD_NAMES.RO,
    priceFactor: 0.9,
    cancellation: () => ({ refundable: false }),
  },
  {
    suffix: "RO-FLX",
    boardCode: "RO",
    boardName: BOARD_NAMES.RO,
    priceFactor: 1,
    cancellation: (r) => ({ refundable: true, freeDays: [1, 2, 3][Math.floor(r() * 3)]!, penalty: "FIRST_NIGHT" }),
  },
  {
    suffix: "BB-FLX",
    boardCode: "BB",
    boardName: BOARD_NAMES.BB,
    priceFactor: 1.12,
    cancellation: (r) => ({ refundable: true, freeDays: [2, 3, 7][Math.floor(r() * 3)]!, penalty: "FIRST_NIGHT" }),
  },
  {
    suffix: "HB-FLX",
    boardCode: "HB",
    boardName: BOARD_NAMES.HB,
    priceFactor: 1.35,
    cancellation: (r) => ({ refundable: true, freeDays: [3, 7, 14][Math.floor(r() * 3)]!, penalty: "FULL_STAY" }),
  },
];

/**
 * Restricted plans of the standard room (section "Issue 27: restricted rates" of
 * docs/api-decisions.md): every accommodation sells a cheaper package rate, about half a
 * non-refundable mobile rate, about a quarter a senior (65+) rate and about a quarter a government
 * (public servant) rate. Hidden unless the search may see them, so a default search is unchanged.
 */
type RestrictedTemplate = {
  suffix: string;
  priceFactor: number;
  rateRules: RateRule[];
  share: number;
  refundable: boolean;
};
const RESTRICTED_TEMPLATES: RestrictedTemplate[] = [
  { suffix: "RO-PKG", priceFactor: 0.8, rateRules: ["PACKAGE"], share: 1, refundable: true },
  { suffix: "RO-MOB", priceFactor: 0.85, rateRules: ["MOBILE"], share: 0.5, refundable: false },
  { suffix: "RO-SNR", priceFactor: 0.88, rateRules: ["OLDER65"], share: 0.25, refundable: true },
  { suffix: "RO-GOV", priceFactor: 0.92, rateRules: ["PUBLIC_SERVANT"], share: 0.25, refundable: true },
];

/** The share of accommodations that sell `STD-RO-PAH`, paid at the property. */
const PAY_AT_PROPERTY_SHARE = 1 / 3;

const cache = new Map<string, AccommodationCatalogue>();

export const catalogueFor = (code: string, starRating: number): AccommodationCatalogue => {
  const key = `${code}:${starRating}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const random = prng(fnv1a(code));
  const basePrice = Math.round((30 + 32 * starRating) * (0.85 + random() * 0.3));
  const roomCount = 2 + Math.floor(random() * 3); // 2 to 4
  // STD always, then a deterministic choice of the others.
  const others = seededOrder(ROOM_TEMPLATES.slice(1), random);
  const templates = [ROOM_TEMPLATES[0]!, ...others.slice(0, roomCount - 1)];
  const rooms: RoomType[] = templates.map((t) => ({ ...t, defaultAllotment: 2 + Math.floor(random() * 9) }));
  const ratePlans: RatePlan[] = [];
  for (const room of rooms) {
    const planCount = 1 + Math.floor(random() * 3); // 1 to 3
    // Every room sells at least one refundable room-only plan, so refundable stock exists everywhere.
    const extra = seededOrder([PLAN_TEMPLATES[0]!, PLAN_TEMPLATES[2]!, PLAN_TEMPLATES[3]!], random);
    for (const plan of [PLAN_TEMPLATES[1]!, ...extra.slice(0, planCount - 1)]) {
      const { suffix, cancellation, ...rest } = plan;
      ratePlans.push({
        ...rest,
        code: `${room.code}-${suffix}`,
        roomCode: room.code,
        cancellation: cancellation(random),
        rateRules: [],
        visibility: "PUBLIC",
        paymentType: "MerchantPay",
      });
    }
  }
  // A generator of its own, so the public plans above stay exactly what they were.
  const restrictedRandom = prng(fnv1a(`${code}:restricted`));
  const standard = rooms[0]!;
  for (const template of RESTRICTED_TEMPLATES) {
    const draw = restrictedRandom();
    const freeDays = [1, 2, 3][Math.floor(restrictedRandom() * 3)]!;
    if (draw >= template.share) continue;
    ratePlans.push({
      code: `${standard.code}-${template.suffix}`,
      roomCode: standard.code,
      boardCode: "RO",
      boardName: BOARD_NAMES.RO,
      priceFactor: template.priceFactor,
      cancellation: template.refundable
        ? { refundable: true, freeDays, penalty: "FIRST_NIGHT" }
        : { refundable: false },
      rateRules: template.rateRules,
      visibility: visibilityOf(template.rateRules),
      paymentType: "MerchantPay",
    });
  }
  // About a third of the accommodations also sell the standard room paid at the hotel
  // (`STD-RO-PAH`: the room-only flexible price, nothing charged at booking; its own generator,
  // so every plan above stays what it was).
  const payAtPropertyRandom = prng(fnv1a(`${code}:pay-at-property`));
  if (payAtPropertyRandom() < PAY_AT_PROPERTY_SHARE) {
    ratePlans.push({
      code: `${standard.code}-RO-PAH`,
      roomCode: standard.code,
      boardCode: "RO",
      boardName: BOARD_NAMES.RO,
      priceFactor: 1,
      cancellation: {
        refundable: true,
        freeDays: [1, 2, 3][Math.floor(payAtPropertyRandom() * 3)]!,
        penalty: "FIRST_NIGHT",
      },
      rateRules: [],
      visibility: "PUBLIC",
      paymentType: "PayAtProperty",
    });
  }
  const products = ratePlans.map((plan) => ({ room: rooms.find((r) => r.code === plan.roomCode)!, plan }));
  const catalogue = { basePrice, rooms, ratePlans, products };
  if (cache.size > 5_000) cache.clear();
  cache.set(key, catalogue);
  return catalogue;
};

/** Season by month (1-12) and weekend uplift on Friday and Saturday nights. */
const SEASON: number[] = [0.85, 0.85, 0.95, 1, 1.05, 1.2, 1.25, 1.25, 1.05, 1, 0.95, 1.2];

/** What a night's date does to every default price: its season and its weekend uplift. */
export type NightFactors = { season: number; weekend: number };

export const nightFactors = (night: string): NightFactors => {
  const date = new Date(`${night}T00:00:00Z`);
  const weekday = date.getUTCDay();
  return { season: SEASON[date.getUTCMonth()]!, weekend: weekday === 5 || weekday === 6 ? 1.15 : 1 };
};

/**
 * Default nightly price of a room type (before board and occupancy) on a night of these factors:
 * the demo's price list, made from its USD base price by its factors and written in whole US cents.
 */
export const roomNightPrice = (catalogue: AccommodationCatalogue, room: RoomType, night: NightFactors): number =>
  toMinor(catalogue.basePrice * room.priceFactor * night.season * night.weekend, "USD");

export const defaultRoomNightPrice = (catalogue: AccommodationCatalogue, room: RoomType, night: string): number =>
  roomNightPrice(catalogue, room, nightFactors(night));
