import { randomToken } from "../../platform/crypto/digest";
import { catalogueFor, nightFactors, round2, roomNightPrice, type AccommodationCatalogue, type NightFactors, type RatePlan, type RoomType } from "./catalogue";
import type { AccommodationSelection, BookedStay, CancelPolicy, Offer, OfferRef, OfferRoom, Rate, Stay, Supplier, SupplyAccommodation, WriteGuard } from "./supplier";
import { SupplierRefusal } from "./supplier";
import { addDays, localDate, stayNights, zonedTimeToUtc } from "./zoned-time";

export const CURRENCY = "USD";
/** Sales tax and fees added on top of the room price. */
export const TAX_RATE = 0.12;
/** Local time on the deadline day until which a refundable plan cancels free. */
export const FREE_CANCELLATION_LOCAL_TIME = "15:00";

type RoomNightRow = { accommodation_code: string; room_code: string; night: string; allotment: number; sold: number; stop_sell: number; price: number | null };
type PlanNightRow = { accommodation_code: string; rate_plan_code: string; night: string; stop_sell: number; price: number | null };

/** One accommodation's stored exceptions to the derived defaults, by `room|night` and `plan|night`. */
type NightOverrides = { rooms: Map<string, RoomNightRow>; plans: Map<string, PlanNightRow> };

const nightKey = (product: string, night: string) => `${product}|${night}`;

// `codes` is a subquery yielding accommodation codes; its parameters come first, then the dates.
const roomNightsSql = (codes: string, params: number) =>
  `SELECT accommodation_code, room_code, night, allotment, sold, stop_sell, price FROM room_nights WHERE accommodation_code IN (${codes}) AND night >= ?${params + 1} AND night < ?${params + 2}`;
const planNightsSql = (codes: string, params: number) =>
  `SELECT accommodation_code, rate_plan_code, night, stop_sell, price FROM rate_plan_nights WHERE accommodation_code IN (${codes}) AND night >= ?${params + 1} AND night < ?${params + 2}`;

const overrideStatements = (d1: D1Database, selection: Pick<AccommodationSelection, "codesSql" | "params">, stay: Stay) => [
  d1.prepare(roomNightsSql(selection.codesSql, selection.params.length)).bind(...selection.params, stay.checkIn, stay.checkOut),
  d1.prepare(planNightsSql(selection.codesSql, selection.params.length)).bind(...selection.params, stay.checkIn, stay.checkOut),
];

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
  return { adults, children: ages.length - adults, count: ages.length, payingChildren: ages.filter((a) => a >= 2 && a < 18).length };
};

/** Whether one room of this type can hold these guests. */
const fits = (room: RoomType, g: Guests) => g.adults >= 1 && g.adults <= room.maxAdults && g.children <= room.maxChildren && g.count <= room.maxOccupancy;

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
  /** Only a check-in today or tomorrow (UTC) can already be past on a hotel's own calendar. */
  nearToday: boolean;
  bookedAt: string;
  freeCancellationDeadline: (freeDays: number, timeZone: string) => string;
};

const stayPricing = (stay: Stay, now: number): StayPricing => {
  const nights = stayNights(stay.checkIn, stay.checkOut);
  const guests = stay.rooms.map(guestsOf);
  // One search has one check-in: its deadlines differ only by zone and days before.
  const deadlinesByZone = new Map<string, string[]>();
  return {
    stay,
    now,
    nights,
    nightFactors: nights.map(nightFactors),
    guests,
    occupancyFactors: guests.map(occupancyFactor),
    nearToday: stay.checkIn <= addDays(new Date(now).toISOString().slice(0, 10), 1),
    bookedAt: new Date(now).toISOString(),
    freeCancellationDeadline: (freeDays, timeZone) => {
      let byDays = deadlinesByZone.get(timeZone);
      if (!byDays) deadlinesByZone.set(timeZone, (byDays = []));
      return (byDays[freeDays] ??= freeCancellationDeadline(stay.checkIn, freeDays, timeZone));
    },
  };
};

const rateOf = (baseRate: number): Rate => {
  const base = round2(baseRate);
  const taxesAndFees = round2(base * TAX_RATE);
  return { currency: CURRENCY, baseRate: base, taxesAndFees, chargeTotal: round2(base + taxesAndFees) };
};

const sumRates = (rates: Rate[]): Rate => {
  let baseRate = 0;
  let taxesAndFees = 0;
  for (const r of rates) {
    baseRate += r.baseRate;
    taxesAndFees += r.taxesAndFees;
  }
  baseRate = round2(baseRate);
  taxesAndFees = round2(taxesAndFees);
  return { currency: CURRENCY, baseRate, taxesAndFees, chargeTotal: round2(baseRate + taxesAndFees) };
};

/** 15:00 hotel time `freeDays` before check-in, as a UTC instant (zoned-time remembers the conversions). */
const freeCancellationDeadline = (checkIn: string, freeDays: number, timeZone: string): string =>
  zonedTimeToUtc(addDays(checkIn, -freeDays), FREE_CANCELLATION_LOCAL_TIME, timeZone).toISOString();

/** Cancellation policy with deadlines as UTC instants computed in the accommodation's own zone. */
export const cancelPolicyFor = (
  plan: RatePlan,
  accommodation: SupplyAccommodation,
  checkIn: string,
  rate: Rate,
  firstNightTotal: number,
  /** Now, as an ISO timestamp: a non-refundable plan's penalty applies from the moment of booking. */
  bookedAt: string,
  /** The free-cancellation deadline when the caller has it already. */
  deadline = plan.cancellation.refundable ? freeCancellationDeadline(checkIn, plan.cancellation.freeDays, accommodation.timezone) : bookedAt,
): CancelPolicy => {
  if (!plan.cancellation.refundable) {
    return { refundable: false, cancelPenalties: [{ penaltyType: "NON_REFUNDABLE", currency: CURRENCY, deadline: bookedAt, value: rate.chargeTotal }] };
  }
  const value = plan.cancellation.penalty === "FIRST_NIGHT" ? firstNightTotal : rate.chargeTotal;
  return { refundable: true, cancelPenalties: [{ penaltyType: plan.cancellation.penalty, currency: CURRENCY, deadline, value }] };
};

/** Prices one rate plan for a stay from the derived defaults and the stored overrides; null if not sellable. */
const priceOffer = (
  accommodation: SupplyAccommodation,
  catalogue: AccommodationCatalogue,
  room: RoomType,
  plan: RatePlan,
  pricing: StayPricing,
  overrides: NightOverrides | undefined,
): Offer | null => {
  // Loops rather than every/map: this runs for every rate plan of every hotel searched.
  const { stay, nights, guests, occupancyFactors } = pricing;
  for (const g of guests) if (!fits(room, g)) return null;
  const nightly: number[] = [];
  for (let i = 0; i < nights.length; i++) {
    const roomNight = overrides?.rooms.get(nightKey(room.code, nights[i]!));
    const planNight = overrides?.plans.get(nightKey(plan.code, nights[i]!));
    const allotment = roomNight?.allotment ?? room.defaultAllotment;
    const sold = roomNight?.sold ?? 0;
    if (roomNight?.stop_sell || planNight?.stop_sell) return null;
    if (allotment - sold < stay.rooms.length) return null;
    const roomPrice = roomNight?.price ?? roomNightPrice(catalogue, room, pricing.nightFactors[i]!);
    nightly.push(planNight?.price ?? roomPrice * plan.priceFactor);
  }
  const rooms: OfferRoom[] = [];
  const rates: Rate[] = [];
  let firstNight = 0;
  for (let i = 0; i < occupancyFactors.length; i++) {
    const factor = occupancyFactors[i]!;
    let total = 0;
    for (let n = 0; n < nightly.length; n++) total += nightly[n]! * factor;
    const rate = rateOf(total);
    rates.push(rate);
    rooms.push({ occupancyRefId: i + 1, code: room.code, description: room.name, rate });
    firstNight += nightly[0]! * factor;
  }
  const rate = sumRates(rates);
  const refundable = plan.cancellation.refundable;
  const deadline = refundable ? pricing.freeCancellationDeadline(plan.cancellation.freeDays, accommodation.timezone) : pricing.bookedAt;
  return {
    roomCode: room.code,
    ratePlanCode: plan.code,
    roomName: room.name,
    boardCode: plan.boardCode,
    boardName: plan.boardName,
    isRefundable: refundable,
    rateRules: refundable ? [] : ["NON_REFUNDABLE"],
    status: "OK",
    rate,
    cancelPolicy: cancelPolicyFor(plan, accommodation, stay.checkIn, rate, round2(firstNight * (1 + TAX_RATE)), pricing.bookedAt, deadline),
    rooms,
  };
};

/** Whether the check-in date is already behind the hotel's own calendar (only near today is it worth asking). */
const checkInPassed = (accommodation: SupplyAccommodation, pricing: StayPricing) =>
  pricing.nearToday && localDate(pricing.now, accommodation.timezone) > pricing.stay.checkIn;

const offersFor = (accommodation: SupplyAccommodation, pricing: StayPricing, overrides: NightOverrides | undefined): Offer[] => {
  if (checkInPassed(accommodation, pricing)) return [];
  const catalogue = catalogueFor(accommodation.code, accommodation.starRating);
  const offers: Offer[] = [];
  for (const { room, plan } of catalogue.products) {
    const offer = priceOffer(accommodation, catalogue, room, plan, pricing, overrides);
    if (offer) offers.push(offer);
  }
  return offers;
};

const isCheckFailure = (error: unknown) => error instanceof Error && /CHECK constraint failed/i.test(error.message);

/** The embedded default supply: derived room types and rate plans over sparse per-night rows in D1. */
export const inventorySupplier = (d1: D1Database): Supplier => {
  const cancelWrites = (stay: BookedStay, guard: WriteGuard) => [
    // Every night of the stay in one statement (book wrote a row for each); the guard's `?`s number on from ?6.
    d1
      .prepare(`UPDATE room_nights SET sold = sold - ?5 WHERE accommodation_code = ?1 AND room_code = ?2 AND night >= ?3 AND night < ?4 AND (${guard.sql})`)
      .bind(stay.accommodationCode, stay.roomCode, stay.checkIn, stay.checkOut, stay.roomCount, ...guard.params),
  ];
  /** One D1 round trip whatever the selector and count: the accommodations and their stored nights together. */
  const searchReads = (selection: AccommodationSelection, stay: Stay) => [
    d1.prepare(selection.sql).bind(...selection.params),
    ...overrideStatements(d1, selection, stay),
  ];
  return {
    name: "inventory",


    async search(selection, stay, now) {
      const [found, rooms, plans] = await d1.batch<unknown>(searchReads(selection, stay));
      const accommodations = selection.finish(found!.results);
      const overrides = overridesOf(rooms!.results as RoomNightRow[], plans!.results as PlanNightRow[]);
      const pricing = stayPricing(stay, now);
      const offers = new Map<string, Offer[]>();
      for (const accommodation of accommodations) {
        const priced = offersFor(accommodation, pricing, overrides.get(accommodation.code));
        if (priced.length) offers.set(accommodation.code, priced);
      }
      return { accommodations, offers };
    },

    async quote(accommodation, ref: OfferRef, stay, now) {
      const catalogue = catalogueFor(accommodation.code, accommodation.starRating);
      const plan = catalogue.ratePlans.find((p) => p.code === ref.ratePlanCode && p.roomCode === ref.roomCode);
      const room = catalogue.rooms.find((r) => r.code === ref.roomCode);
      if (!plan || !room) return null;
      const pricing = stayPricing(stay, now);
      if (checkInPassed(accommodation, pricing)) return null;
      const [rooms, plans] = await d1.batch<unknown>(overrideStatements(d1, { codesSql: "?1", params: [accommodation.code] }, stay));
      const overrides = overridesOf(rooms!.results as RoomNightRow[], plans!.results as PlanNightRow[]);
      return priceOffer(accommodation, catalogue, room, plan, pricing, overrides.get(accommodation.code));
    },

    async book(accommodation, ref, stay) {
      const catalogue = catalogueFor(accommodation.code, accommodation.starRating);
      const room = catalogue.rooms.find((r) => r.code === ref.roomCode);
      if (!room) throw new SupplierRefusal("unavailable");
      const nights = stayNights(stay.checkIn, stay.checkOut);
      // Rate-plan stop-sell is read first; room-level stop-sell and allotment are enforced by the batch itself.
      const { results: planStops } = await d1
        .prepare("SELECT night FROM rate_plan_nights WHERE accommodation_code = ?1 AND rate_plan_code = ?2 AND night >= ?3 AND night < ?4 AND stop_sell = 1 LIMIT 1")
        .bind(accommodation.code, ref.ratePlanCode, stay.checkIn, stay.checkOut)
        .all();
      if (planStops.length) throw new SupplierRefusal("unavailable");
      const count = stay.rooms.length;
      // One batch is one transaction: every night's increment or none. A night that would sell past its
      // allotment, or is stopped, breaks the CHECK (sold <= allotment) and rolls the whole batch back.
      const take = d1.prepare(
        `INSERT INTO room_nights (accommodation_code, room_code, night, allotment, sold) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (accommodation_code, room_code, night) DO UPDATE SET
           sold = CASE WHEN room_nights.stop_sell = 1 THEN room_nights.allotment + 1 ELSE room_nights.sold + excluded.sold END`,
      );
      try {
        await d1.batch(nights.map((night) => take.bind(accommodation.code, room.code, night, room.defaultAllotment, count)));
      } catch (error) {
        if (isCheckFailure(error)) throw new SupplierRefusal("unavailable");
        throw error;
      }
      return { supplierReference: `INV-${randomToken(9)}`, hotelConfirmationNumber: randomToken(6).replace(/[-_]/g, "X").toUpperCase() };
    },

    async cancel(stay) {
      await d1.batch(cancelWrites(stay, { sql: "1", params: [] }));
    },

    cancelWrites,
  };
};
