import { and, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import { randomToken } from "../../platform/crypto/digest";
import type { Db } from "../../platform/db/client";
import { isCheckViolation } from "../../platform/db/constraint";
import {
  type AllotmentWrite,
  allotmentGiveBacks,
  allotmentTakes,
  guardedAllotmentTakes,
  heldNightGiveBacks,
  heldNightTakes,
  type HoldTaker,
} from "./allotment";
import {
  catalogueFor,
  nightFactors,
  roomNightPrice,
  type AccommodationCatalogue,
  type NightFactors,
  type RatePlan,
  type RoomType,
} from "./catalogue";
import { nightOverrideReads, searchRead, type PlanNightRow, type RoomNightRow } from "./night-overrides";
import { sumMinor } from "../../platform/money";
import { feeScheduleOf, feeSchedulesOf, type FeeSchedule } from "../content";
import { CURRENCY, feePlanOf, roomLines, type FeePlan, type NetNight } from "./inventory-price";
import { addLines, payAtPropertyLines, rateOfLines, type RateLines } from "./rate-lines";
import type { SellingTerms } from "./selling-price";
import { byCodes, sqlSelectionOf } from "./accommodations";
import {
  type BookedStay,
  type CancelPolicy,
  type Offer,
  type OfferRef,
  type OfferRoom,
  type Rate,
  type Stay,
  type Supplier,
  type SupplierBooking,
  type SupplierCall,
  type SupplierCapabilities,
  type SupplyAccommodation,
  MIXED_PRODUCT_SEPARATOR,
  SupplierRefusal,
} from "./supplier";
import { maySell, rateRulesOf, type RateAccess, type RateRule } from "./rate-rules";
import { ratePlanNights } from "./tables";
import { addDays, localDate, stayNights, zonedTimeToUtc } from "../../platform/time/zoned-time";

/** Local time on the deadline day until which a refundable plan cancels free. */
export const FREE_CANCELLATION_LOCAL_TIME = "15:00";

/** One accommodation's stored exceptions to the derived defaults, by `room|night` and `plan|night`. */
type NightOverrides = { rooms: Map<string, RoomNightRow>; plans: Map<string, PlanNightRow> };

const nightKey = (product: string, night: string) => `${product}|${night}`;

/** Most accommodations have no stored night at all; only those that do get an entry. */
const overridesOf = (rooms: RoomNightRow[], plans: PlanNightRow[]): Map<string, NightOverrides> => {
  const byCode = new Map<string, NightOverrides>();
  const entry = (code: string) => {
    let found = byCode.get(code);
    if (!found) byCode.set(code, (found = { rooms: new Map(), plans: new Map() }));
    return found;
  };
  for (const row of rooms) entry(row.accommodation_code).rooms.set(nightKey(row.room_code, row.night), row);
  for (const row of plans) entry(row.accommodation_code).plans.set(nightKey(row.rate_plan_code, row.night), row);
  return byCode;
};

type Guests = { adults: number; children: number; count: number; payingChildren: number };

const guestsOf = (ages: number[]): Guests => {
  const adults = ages.filter((a) => a >= 18).length;
  return {
    adults,
    children: ages.length - adults,
    count: ages.length,
    payingChildren: ages.filter((a) => a >= 2 && a < 18).length,
  };
};

/** Whether one room of this type can hold these guests. */
const fits = (room: RoomType, g: Guests) =>
  g.adults >= 1 && g.adults <= room.maxAdults && g.children <= room.maxChildren && g.count <= room.maxOccupancy;

/** Occupancy pricing: two adults included; each extra adult +25 %, each child 2-17 +15 %, infants free. */
const occupancyFactor = (g: Guests) => 1 + 0.25 * Math.max(0, g.adults - 2) + 0.15 * g.payingChildren;

/**
 * What every offer of one stay shares, worked out once per search rather than once per offer:
 * a 1,000-hotel search prices about 6,000 offers, and date parsing per offer and night was most
 * of its CPU.
 */
type StayPricing = {
  stay: Stay;
  now: number;
  nights: string[];
  nightFactors: NightFactors[];
  guests: Guests[];
  occupancyFactors: number[];
  /** Several rooms whose guests differ: each may be best served by another room type. */
  mixable: boolean;
  /** Only a check-in today or tomorrow (UTC) can already be past on a hotel's own calendar. */
  nearToday: boolean;
  bookedAt: string;
  freeCancellationDeadline: (freeDays: number, timeZone: string) => string;
  terms: SellingTerms;
};

const stayPricing = (stay: Stay, now: number, terms: SellingTerms): StayPricing => {
  const nights = stayNights(stay.checkIn, stay.checkOut);
  const guests = stay.rooms.map(guestsOf);
  const alike = new Set(stay.rooms.map((ages) => [...ages].sort((a, b) => a - b).join("."))).size === 1;
  // One search has one check-in: its deadlines differ only by zone and days before.
  const deadlinesByZone = new Map<string, string[]>();
  return {
    stay,
    now,
    nights,
    nightFactors: nights.map(nightFactors),
    guests,
    occupancyFactors: guests.map(occupancyFactor),
    mixable: !alike,
    nearToday: stay.checkIn <= addDays(new Date(now).toISOString().slice(0, 10), 1),
    bookedAt: new Date(now).toISOString(),
    freeCancellationDeadline: (freeDays, timeZone) => {
      let byDays = deadlinesByZone.get(timeZone);
      if (!byDays) deadlinesByZone.set(timeZone, (byDays = []));
      return (byDays[freeDays] ??= freeCancellationDeadline(stay.checkIn, freeDays, timeZone));
    },
    terms,
  };
};

/** What the partner is charged at booking for night `n` (its base and included charges). */
const nightCharge = (lines: RateLines, n: number) => lines.base[n]! + lines.taxes[n]!;
const stayCharge = (lines: RateLines) => sumMinor(lines.base) + sumMinor(lines.taxes);

/** 15:00 hotel time `freeDays` before check-in, as a UTC instant (zoned-time remembers the conversions). */
const freeCancellationDeadline = (checkIn: string, freeDays: number, timeZone: string): string =>
  zonedTimeToUtc(addDays(checkIn, -freeDays), FREE_CANCELLATION_LOCAL_TIME, timeZone).toISOString();

/** Cancellation policy with deadlines as UTC instants computed in the accommodation's own zone, in the rate's currency. */
export const cancelPolicyFor = (
  plan: RatePlan,
  accommodation: SupplyAccommodation,
  checkIn: string,
  rate: Pick<Rate, "currency" | "chargeTotal">,
  firstNightTotal: number,
  /** Now, as an ISO timestamp: a non-refundable plan's penalty applies from the moment of booking. */
  bookedAt: string,
  /** The free-cancellation deadline when the caller has it already. */
  deadline = plan.cancellation.refundable
    ? freeCancellationDeadline(checkIn, plan.cancellation.freeDays, accommodation.timezone)
    : bookedAt,
): CancelPolicy => {
  const currency = rate.currency;
  if (!plan.cancellation.refundable) {
    return {
      refundable: false,
      cancelPenalties: [{ penaltyType: "NON_REFUNDABLE", currency, deadline: bookedAt, value: rate.chargeTotal }],
    };
  }
  const value = plan.cancellation.penalty === "FIRST_NIGHT" ? firstNightTotal : rate.chargeTotal;
  return { refundable: true, cancelPenalties: [{ penaltyType: plan.cancellation.penalty, currency, deadline, value }] };
};

/** One room type and rate plan chosen for one occupancy. */
type RoomPick = { room: RoomType; plan: RatePlan };

/**
 * Net nightly prices (whole minor units of the hotel currency, each with the rate plan's factor
 * still to apply, rounded once with the occupancy's: inventory-price.ts) of a room type and plan
 * for the stay, or null when a night is stopped or has fewer than `rooms` rooms left. A night
 * the operator priced for the plan is that price as it is (factor 1).
 */
const nightlyNet = (
  catalogue: AccommodationCatalogue,
  { room, plan }: RoomPick,
  pricing: StayPricing,
  overrides: NightOverrides | undefined,
  rooms: number,
): NetNight[] | null => {
  const nights = pricing.nights;
  const nightly: NetNight[] = [];
  for (let i = 0; i < nights.length; i++) {
    const roomNight = overrides?.rooms.get(nightKey(room.code, nights[i]!));
    const planNight = overrides?.plans.get(nightKey(plan.code, nights[i]!));
    const allotment = roomNight?.allotment ?? room.defaultAllotment;
    const sold = roomNight?.sold ?? 0;
    if (roomNight?.stop_sell || planNight?.stop_sell) return null;
    if (allotment - sold < rooms) return null;
    if (planNight?.price_minor != null) nightly.push({ minor: planNight.price_minor, factor: 1 });
    else
      nightly.push({
        minor: roomNight?.price_minor ?? roomNightPrice(catalogue, room, pricing.nightFactors[i]!),
        factor: plan.priceFactor,
      });
  }
  return nightly;
};

/**
 * An offer from the picks of every occupancy (the same pick repeated for a single room type) and
 * their net nightly prices. Each night is sold per room with the connection's markup, in the
 * currency asked for (selling-price.ts), its taxes and fees computed per room and night; the
 * offer's rate is the sum of its rooms' rates (charges merged by code), to the minor unit.
 */
const assembleOffer = (
  accommodation: SupplyAccommodation,
  picks: RoomPick[],
  nightlies: NetNight[][],
  pricing: StayPricing,
  fees: FeePlan,
): Offer => {
  const { occupancyFactors } = pricing;
  const rooms: OfferRoom[] = [];
  const roomPenalties: Array<{ deadline: string; minor: number }> = [];
  const parts: RateLines[] = [];
  let firstNightTotal = 0;
  let stayTotal = 0;
  // Paid at the hotel: the rate moves to what is due there; the penalties stay on the stay's value.
  const paymentType = picks[0]!.plan.paymentType;
  const sold = paymentType === "PayAtProperty" ? payAtPropertyLines : (lines: RateLines) => lines;
  for (let i = 0; i < picks.length; i++) {
    const { room, plan } = picks[i]!;
    const lines = roomLines(nightlies[i]!, occupancyFactors[i]!, pricing.nights, pricing.terms, fees);
    stayTotal += stayCharge(lines);
    const roomSold = sold(lines);
    parts.push(roomSold);
    rooms.push({ occupancyRefId: i + 1, code: room.code, description: room.name, rate: rateOfLines(roomSold) });
    const first = nightCharge(lines, 0);
    firstNightTotal += first;
    if (plan.cancellation.refundable) {
      const deadline = pricing.freeCancellationDeadline(plan.cancellation.freeDays, accommodation.timezone);
      roomPenalties.push({
        deadline,
        minor: plan.cancellation.penalty === "FIRST_NIGHT" ? first : stayCharge(lines),
      });
    }
  }
  // One room: the offer's rate is that room's (the same object, built once).
  const rate = rooms.length === 1 ? rooms[0]!.rate : rateOfLines(addLines(parts));
  const lead = picks[0]!;
  const single = picks.every((p) => p.room === lead.room);
  const refundable = lead.plan.cancellation.refundable;
  const deadlines = new Set(roomPenalties.map((p) => p.deadline));
  const cancelPolicy: CancelPolicy =
    deadlines.size <= 1
      ? cancelPolicyFor(
          lead.plan,
          accommodation,
          pricing.stay.checkIn,
          { currency: rate.currency, chargeTotal: stayTotal },
          firstNightTotal,
          pricing.bookedAt,
          roomPenalties[0]?.deadline ?? pricing.bookedAt,
        )
      : mixedCancelPolicy(lead.plan, roomPenalties, pricing);
  return {
    roomCode: single ? lead.room.code : picks.map((p) => p.room.code).join(MIXED_PRODUCT_SEPARATOR),
    ratePlanCode: single ? lead.plan.code : picks.map((p) => p.plan.code).join(MIXED_PRODUCT_SEPARATOR),
    roomName: single ? lead.room.name : picks.map((p) => p.room.name).join(" + "),
    boardCode: lead.plan.boardCode,
    boardName: lead.plan.boardName,
    isRefundable: refundable,
    rateRules: offerRules(lead.plan),
    visibility: lead.plan.visibility,
    paymentType,
    status: "OK",
    rate,
    cancelPolicy,
    rooms,
  };
};

/** An offer's rules: its plan's own, and `NON_REFUNDABLE` when it cannot be cancelled free. */
const offerRules = (plan: RatePlan): RateRule[] => {
  if (plan.cancellation.refundable) return [...plan.rateRules];
  return plan.rateRules.length ? rateRulesOf([...plan.rateRules, "NON_REFUNDABLE"]) : ["NON_REFUNDABLE"];
};

/**
 * Rooms of a mixed offer whose free-cancellation deadlines differ: one penalty per deadline, each
 * the sum of the penalties of every room whose deadline has passed by then, so that "the highest
 * penalty whose deadline has passed" is what cancelling costs at any moment.
 */
const mixedCancelPolicy = (
  plan: RatePlan,
  roomPenalties: Array<{ deadline: string; minor: number }>,
  pricing: StayPricing,
): CancelPolicy => {
  const sorted = [...roomPenalties].sort((a, b) => a.deadline.localeCompare(b.deadline));
  const penaltyType = plan.cancellation.refundable ? plan.cancellation.penalty : "NON_REFUNDABLE";
  const cancelPenalties: CancelPolicy["cancelPenalties"] = [];
  let running = 0;
  for (let i = 0; i < sorted.length; i++) {
    running += sorted[i]!.minor;
    if (sorted[i + 1]?.deadline === sorted[i]!.deadline) continue;
    cancelPenalties.push({
      penaltyType,
      currency: pricing.terms.currency,
      deadline: sorted[i]!.deadline,
      value: running,
    });
  }
  return { refundable: true, cancelPenalties };
};

/** Prices one rate plan of one room type for every occupancy of the stay; null if not sellable. */
const priceOffer = (
  accommodation: SupplyAccommodation,
  catalogue: AccommodationCatalogue,
  pick: RoomPick,
  pricing: StayPricing,
  overrides: NightOverrides | undefined,
  fees: FeePlan,
): Offer | null => {
  const { stay, guests } = pricing;
  // Loops rather than every/map: this runs for every rate plan of every hotel searched.
  for (const g of guests) if (!fits(pick.room, g)) return null;
  const nightly = nightlyNet(catalogue, pick, pricing, overrides, stay.rooms.length);
  if (!nightly) return null;
  return assembleOffer(
    accommodation,
    stay.rooms.map(() => pick),
    stay.rooms.map(() => nightly),
    pricing,
    fees,
  );
};

/** The plan template of a rate plan (`RO-FLX` of `STD-RO-FLX`): what mixed rooms must share. */
const planKind = (plan: RatePlan) => plan.code.slice(plan.roomCode.length + 1);

/** Rooms of a type left on every night of the stay (0 when a night is stopped). */
const roomsLeft = (room: RoomType, pricing: StayPricing, overrides: NightOverrides | undefined) => {
  let left = Infinity;
  for (const night of pricing.nights) {
    const row = overrides?.rooms.get(nightKey(room.code, night));
    if (row?.stop_sell) return 0;
    left = Math.min(left, (row?.allotment ?? room.defaultAllotment) - (row?.sold ?? 0));
  }
  return left;
};

/**
 * Mixed offers for rooms whose guests differ: per plan template (board and cancellation terms),
 * each occupancy in turn gets the cheapest room type that fits it and still has a room left.
 * Offered only when that mixes room types; a single type is already offered on its own.
 */
const mixedOffers = (
  accommodation: SupplyAccommodation,
  catalogue: AccommodationCatalogue,
  pricing: StayPricing,
  overrides: NightOverrides | undefined,
  fees: FeePlan,
): Offer[] => {
  const offers: Offer[] = [];
  const left = new Map(catalogue.rooms.map((room) => [room.code, roomsLeft(room, pricing, overrides)]));
  const nightlyByPlan = new Map<string, NetNight[] | null>();
  const kinds = [...new Set(catalogue.ratePlans.map(planKind))];
  for (const kind of kinds) {
    const used = new Map<string, number>();
    const picks: RoomPick[] = [];
    const nightlies: NetNight[][] = [];
    for (let i = 0; i < pricing.guests.length; i++) {
      let best: { pick: RoomPick; nightly: NetNight[]; price: number } | null = null;
      for (const room of catalogue.rooms) {
        if (!fits(room, pricing.guests[i]!) || (left.get(room.code) ?? 0) - (used.get(room.code) ?? 0) < 1) continue;
        const plan = catalogue.ratePlans.find((p) => p.roomCode === room.code && planKind(p) === kind);
        if (!plan) continue;
        if (!nightlyByPlan.has(plan.code))
          nightlyByPlan.set(plan.code, nightlyNet(catalogue, { room, plan }, pricing, overrides, 1));
        const nightly = nightlyByPlan.get(plan.code);
        if (!nightly) continue;
        // Compared, not charged: the unrounded net is fine for choosing the cheaper room.
        const price = nightly.reduce((sum, n) => sum + n.minor * n.factor, 0);
        if (!best || price < best.price) best = { pick: { room, plan }, nightly, price };
      }
      if (!best) break;
      picks.push(best.pick);
      nightlies.push(best.nightly);
      used.set(best.pick.room.code, (used.get(best.pick.room.code) ?? 0) + 1);
    }
    if (picks.length !== pricing.guests.length || picks.every((p) => p.room === picks[0]!.room)) continue;
    offers.push(assembleOffer(accommodation, picks, nightlies, pricing, fees));
  }
  return offers;
};

/** The picks a product names, one per occupancy for a mixed product; null when it names no such product. */
const picksOf = (catalogue: AccommodationCatalogue, ref: OfferRef, rooms: number): RoomPick[] | null => {
  const roomCodes = ref.roomCode.split(MIXED_PRODUCT_SEPARATOR);
  const planCodes = ref.ratePlanCode.split(MIXED_PRODUCT_SEPARATOR);
  if (roomCodes.length !== planCodes.length || (roomCodes.length > 1 && roomCodes.length !== rooms)) return null;
  const picks: RoomPick[] = [];
  for (let i = 0; i < roomCodes.length; i++) {
    const room = catalogue.rooms.find((r) => r.code === roomCodes[i]);
    const plan = catalogue.ratePlans.find((p) => p.code === planCodes[i] && p.roomCode === roomCodes[i]);
    if (!room || !plan) return null;
    picks.push({ room, plan });
  }
  return picks;
};

/** How many rooms of each type a product takes. */
const roomsByType = (roomCode: string, roomCount: number): Map<string, number> => {
  const codes = roomCode.split(MIXED_PRODUCT_SEPARATOR);
  return codes.length === 1 ? new Map([[codes[0]!, roomCount]]) : countsOf(codes);
};

/** Rooms by type from one code per room. */
const countsOf = (roomCodes: readonly string[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const code of roomCodes) counts.set(code, (counts.get(code) ?? 0) + 1);
  return counts;
};

/** A mixed product priced now for the stay, with the same picks; null if not sellable. */
const priceMixed = (
  accommodation: SupplyAccommodation,
  catalogue: AccommodationCatalogue,
  picks: RoomPick[],
  pricing: StayPricing,
  overrides: NightOverrides | undefined,
  fees: FeePlan,
): Offer | null => {
  const counts = roomsByType(picks.map((p) => p.room.code).join(MIXED_PRODUCT_SEPARATOR), picks.length);
  const nightlies: NetNight[][] = [];
  for (let i = 0; i < picks.length; i++) {
    const pick = picks[i]!;
    if (!fits(pick.room, pricing.guests[i]!) || planKind(pick.plan) !== planKind(picks[0]!.plan)) return null;
    const nightly = nightlyNet(catalogue, pick, pricing, overrides, counts.get(pick.room.code)!);
    if (!nightly) return null;
    nightlies.push(nightly);
  }
  return assembleOffer(accommodation, picks, nightlies, pricing, fees);
};

/** Whether the check-in date is already behind the hotel's own calendar (only near today is it worth asking). */
const checkInPassed = (accommodation: SupplyAccommodation, pricing: StayPricing) =>
  pricing.nearToday && localDate(pricing.now, accommodation.timezone) > pricing.stay.checkIn;

/**
 * `access`: what the caller may sell; a restricted plan it may not is not even priced, unless no
 * other plan has an offer: then those are priced too, so that the caller (which drops them) can
 * tell a hotel it may not sell from one without availability (booking's per-hotel statuses).
 */
const offersFor = (
  accommodation: SupplyAccommodation,
  pricing: StayPricing,
  overrides: NightOverrides | undefined,
  schedule: FeeSchedule,
  access: RateAccess | undefined,
): Offer[] => {
  if (checkInPassed(accommodation, pricing)) return [];
  const catalogue = catalogueFor(accommodation.code, accommodation.starRating);
  const fees = feePlanOf(schedule, pricing.terms);
  const offers: Offer[] = [];
  let withheld = false;
  for (const pick of catalogue.products) {
    if (access && !maySell(pick.plan, access)) {
      withheld = true;
      continue;
    }
    const offer = priceOffer(accommodation, catalogue, pick, pricing, overrides, fees);
    if (offer) offers.push(offer);
  }
  // Only rooms whose guests differ can be served better by mixing; the common search never gets here.
  if (pricing.mixable)
    for (const offer of mixedOffers(accommodation, catalogue, pricing, overrides, fees)) offers.push(offer);
  if (offers.length === 0 && withheld) return offersFor(accommodation, pricing, overrides, schedule, undefined);
  return offers;
};

/**
 * What only a supplier keeping its inventory in our own D1 can offer: the writes that take or give
 * back a stay's rooms, so the caller runs them in one batch (one transaction) with its own writes.
 */
export type LocalWrites = {
  /**
   * The writes that take the rooms of every night, and the booking they make once committed. Throws
   * SupplierRefusal when nothing can be taken; a batch that breaks the allotment CHECK
   * (`isCheckViolation`) took nothing either and is a refusal too.
   */
  bookWrites(
    accommodation: SupplyAccommodation,
    ref: OfferRef,
    stay: Stay,
    /** Takes applied only while this holds (a booking changed under its version): supply's guardedAllotmentTakes. */
    guard?: SQL,
    /** A hold: its rooms are counted for its partner too, within the partner's share of each night. */
    heldBy?: HoldTaker,
  ): Promise<{ writes: AllotmentWrite[]; booking: SupplierBooking }>;
  /**
   * The writes that give a stay back, each applied only while `guard` (a condition over the caller's
   * tables) holds: every room of it, or with `roomCodes` one room of each code listed (some rooms of a booking).
   */
  cancelWrites(stay: BookedStay, guard: SQL, roomCodes?: readonly string[]): AllotmentWrite[];
  /**
   * The writes that end a hold's count of its partner's held rooms (every room, or one of each code
   * listed), each applied only while `guard` holds; a hold cancelled or expired runs them beside
   * `cancelWrites`, a hold committed alone (its rooms stay sold).
   */
  unholdWrites(stay: BookedStay, partnerId: string, guard: SQL, roomCodes?: readonly string[]): AllotmentWrite[];
};

/** Whether a supplier's rooms are taken in our own D1 batch (its `localWrites` capability), with the writes that do it. */
export const hasLocalWrites = (supplier: Supplier): supplier is Supplier & { localWrites: LocalWrites } =>
  supplier.capabilities.localWrites && typeof (supplier as { localWrites?: unknown }).localWrites === "object";

/** The embedded inventory does everything: its writes are ours. */
export const EMBEDDED_CAPABILITIES: SupplierCapabilities = {
  localWrites: true,
  twoStepBooking: true,
  modifications: true,
};

/** The built-in supplier's code (bookings made before issue 39 name it `inventory`: migrated). */
export const INVENTORY_SUPPLIER = "embedded";

/** The embedded default supply: derived room types and rate plans over sparse per-night rows in D1. */
export const inventorySupplier = (db: Db): Supplier & { localWrites: LocalWrites } => {
  // A mixed offer booked several room types: each gives its rooms back.
  const cancelWrites = (stay: BookedStay, guard?: SQL, roomCodes?: readonly string[]) =>
    allotmentGiveBacks(db, stay, roomCodes ? countsOf(roomCodes) : roomsByType(stay.roomCode, stay.roomCount), guard);
  const unholdWrites: LocalWrites["unholdWrites"] = (stay, partnerId, guard, roomCodes) =>
    heldNightGiveBacks(
      db,
      partnerId,
      stay,
      roomCodes ? countsOf(roomCodes) : roomsByType(stay.roomCode, stay.roomCount),
      guard,
    );
  const bookWrites: LocalWrites["bookWrites"] = async (accommodation, ref, stay, guard, heldBy) => {
    const catalogue = catalogueFor(accommodation.code, accommodation.starRating);
    const picks = picksOf(catalogue, ref, stay.rooms.length);
    if (!picks) throw new SupplierRefusal("unavailable");
    const nights = stayNights(stay.checkIn, stay.checkOut);
    // Rate-plan stop-sell is read first; room-level stop-sell and allotment are enforced by the batch itself.
    const p = ratePlanNights;
    const planCodes = picks.map((pick) => pick.plan.code);
    const planStops = await db
      .select({ night: p.night })
      .from(p)
      .where(
        and(
          eq(p.accommodationCode, accommodation.code),
          inArray(p.ratePlanCode, planCodes),
          gte(p.night, stay.checkIn),
          lt(p.night, stay.checkOut),
          eq(p.stopSell, true),
        ),
      )
      .limit(1);
    if (planStops.length) throw new SupplierRefusal("unavailable");
    // One batch is one transaction: every night of every room type or none. A night that would sell past
    // its allotment, or is stopped, breaks the CHECK (sold <= allotment) and rolls the whole batch back,
    // so a mixed booking and a single-type booking can never both take the last room of a type.
    const rooms = [...roomsByType(ref.roomCode, stay.rooms.length)].map(([roomCode, count]) => {
      const room = picks.find((pick) => pick.room.code === roomCode)!.room;
      return { roomCode, count, defaultAllotment: room.defaultAllotment };
    });
    const takes = guard
      ? guardedAllotmentTakes(db, accommodation.code, rooms, nights, guard)
      : allotmentTakes(db, accommodation.code, rooms, nights);
    return {
      // A hold's share first: past it the refusal says so, whatever else the night has left.
      writes: heldBy ? [...heldNightTakes(db, heldBy, accommodation.code, rooms, nights), ...takes] : takes,
      booking: {
        supplierReference: `INV-${randomToken(9)}`,
        hotelConfirmationNumber: randomToken(6).replace(/[-_]/g, "X").toUpperCase(),
      },
    };
  };
  /** The offers of every accommodation of one search read (searchRead), in our codes. */
  const priceRead = (
    { accommodations, rooms, plans, fees }: Awaited<ReturnType<typeof searchRead>>,
    stay: Stay,
    now: number,
    terms: SellingTerms,
    call: SupplierCall | undefined,
  ) => {
    const overrides = overridesOf(rooms, plans);
    const pricing = stayPricing(stay, now, terms);
    const offers = new Map<string, Offer[]>();
    for (const accommodation of accommodations) {
      const priced = offersFor(
        accommodation,
        pricing,
        overrides.get(accommodation.code),
        feeScheduleOf(accommodation, fees.get(accommodation.code)),
        call?.rateAccess,
      );
      if (priced.length) offers.set(accommodation.code, priced);
    }
    return { accommodations, offers };
  };
  return {
    name: INVENTORY_SUPPLIER,
    currency: CURRENCY,
    remote: false,
    // A hold is a booking row with status held: the rooms are taken in the same batch as any booking.
    capabilities: EMBEDDED_CAPABILITIES,

    async search(ask, stay, now, terms, call) {
      if (ask.accommodations.length === 0) return { accommodations: [], offers: new Map() };
      // The search resolved them already; their stored nights and fees are one statement.
      const codes = ask.accommodations.map((a) => a.code);
      return priceRead(await searchRead(db, byCodes(codes), stay), stay, now, terms, call);
    },

    async searchSelection(selection, stay, now, terms, call) {
      // The hotels of the selection, their stored nights and fees: one statement.
      return priceRead(await searchRead(db, sqlSelectionOf(selection), stay), stay, now, terms, call);
    },

    async quote(accommodation, ref: OfferRef, stay, now, terms) {
      const catalogue = catalogueFor(accommodation.code, accommodation.starRating);
      const picks = picksOf(catalogue, ref, stay.rooms.length);
      if (!picks) return null;
      const pricing = stayPricing(stay, now, terms);
      if (checkInPassed(accommodation, pricing)) return null;
      const [[rooms, plans], schedules] = await Promise.all([
        db.$client.batch<unknown>(nightOverrideReads(db, accommodation.code, stay)),
        feeSchedulesOf(db, [accommodation]),
      ]);
      const overrides = overridesOf(rooms!.results as RoomNightRow[], plans!.results as PlanNightRow[]).get(
        accommodation.code,
      );
      const fees = feePlanOf(schedules.get(accommodation.code)!, terms);
      return picks.length === 1
        ? priceOffer(accommodation, catalogue, picks[0]!, pricing, overrides, fees)
        : priceMixed(accommodation, catalogue, picks, pricing, overrides, fees);
    },

    async book(accommodation, ref, stay) {
      const { writes, booking } = await bookWrites(accommodation, ref, stay);
      try {
        await db.batch(writes as [AllotmentWrite, ...AllotmentWrite[]]);
      } catch (error) {
        if (isCheckViolation(error)) throw new SupplierRefusal("unavailable");
        throw error;
      }
      // One D1 batch either commits or fails here: the answer is never unknown, so no look-up by client reference is needed.
      return { status: "confirmed", ...booking };
    },

    async cancel(stay) {
      await db.batch(cancelWrites(stay) as [AllotmentWrite, ...AllotmentWrite[]]);
    },

    localWrites: { bookWrites, cancelWrites, unholdWrites },
  };
};
