import { randomToken } from "../../platform/crypto/digest";
import { catalogueFor, defaultRoomNightPrice, round2, type AccommodationCatalogue, type RatePlan, type RoomType } from "./catalogue";
import type { CancelPolicy, Offer, OfferRef, OfferRoom, Rate, Stay, Supplier, SupplyAccommodation } from "./supplier";
import { SupplierRefusal } from "./supplier";
import { addDays, localDate, stayNights, zonedTimeToUtc } from "./zoned-time";

export const CURRENCY = "USD";
/** Sales tax and fees added on top of the room price. */
export const TAX_RATE = 0.12;
/** Local time on the deadline day until which a refundable plan cancels free. */
export const FREE_CANCELLATION_LOCAL_TIME = "15:00";

type RoomNightRow = { accommodation_code: string; room_code: string; night: string; allotment: number; sold: number; stop_sell: number; price: number | null };
type PlanNightRow = { accommodation_code: string; rate_plan_code: string; night: string; stop_sell: number; price: number | null };

/** The stored exceptions to the derived defaults for some accommodations and nights. */
type NightOverrides = { rooms: Map<string, RoomNightRow>; plans: Map<string, PlanNightRow> };

const roomKey = (code: string, room: string, night: string) => `${code}|${room}|${night}`;

const ROOM_NIGHTS_SQL =
  "SELECT accommodation_code, room_code, night, allotment, sold, stop_sell, price FROM room_nights WHERE accommodation_code IN (SELECT value FROM json_each(?1)) AND night >= ?2 AND night < ?3";
const PLAN_NIGHTS_SQL =
  "SELECT accommodation_code, rate_plan_code, night, stop_sell, price FROM rate_plan_nights WHERE accommodation_code IN (SELECT value FROM json_each(?1)) AND night >= ?2 AND night < ?3";

/** One D1 round trip for any number of accommodations: the codes travel as one JSON parameter. */
const loadOverrides = async (d1: D1Database, codes: string[], checkIn: string, checkOut: string): Promise<NightOverrides> => {
  const json = JSON.stringify(codes);
  const [rooms, plans] = await d1.batch<RoomNightRow | PlanNightRow>([
    d1.prepare(ROOM_NIGHTS_SQL).bind(json, checkIn, checkOut),
    d1.prepare(PLAN_NIGHTS_SQL).bind(json, checkIn, checkOut),
  ]);
  const overrides: NightOverrides = { rooms: new Map(), plans: new Map() };
  for (const row of rooms!.results as RoomNightRow[]) overrides.rooms.set(roomKey(row.accommodation_code, row.room_code, row.night), row);
  for (const row of plans!.results as PlanNightRow[]) overrides.plans.set(roomKey(row.accommodation_code, row.rate_plan_code, row.night), row);
  return overrides;
};

const ageGroups = (ages: number[]) => {
  const adults = ages.filter((a) => a >= 18).length;
  return { adults, children: ages.length - adults };
};

/** Whether one room of this type can hold these guests. */
export const roomFits = (room: RoomType, ages: number[]): boolean => {
  const { adults, children } = ageGroups(ages);
  return adults >= 1 && adults <= room.maxAdults && children <= room.maxChildren && ages.length <= room.maxOccupancy;
};

/** Occupancy pricing: two adults included; each extra adult +25 %, each child 2-17 +15 %, infants free. */
const occupancyFactor = (ages: number[]) => {
  const { adults } = ageGroups(ages);
  const payingChildren = ages.filter((a) => a >= 2 && a < 18).length;
  return 1 + 0.25 * Math.max(0, adults - 2) + 0.15 * payingChildren;
};

const rateOf = (baseRate: number): Rate => {
  const base = round2(baseRate);
  const taxesAndFees = round2(base * TAX_RATE);
  return { currency: CURRENCY, baseRate: base, taxesAndFees, chargeTotal: round2(base + taxesAndFees) };
};

const sumRates = (rates: Rate[]): Rate => {
  const baseRate = round2(rates.reduce((s, r) => s + r.baseRate, 0));
  const taxesAndFees = round2(rates.reduce((s, r) => s + r.taxesAndFees, 0));
  return { currency: CURRENCY, baseRate, taxesAndFees, chargeTotal: round2(baseRate + taxesAndFees) };
};

/** Cancellation policy with deadlines as UTC instants computed in the accommodation's own zone. */
export const cancelPolicyFor = (
  plan: RatePlan,
  accommodation: SupplyAccommodation,
  checkIn: string,
  rate: Rate,
  firstNightTotal: number,
  now: number,
): CancelPolicy => {
  if (!plan.cancellation.refundable) {
    return { refundable: false, cancelPenalties: [{ penaltyType: "NON_REFUNDABLE", currency: CURRENCY, deadline: new Date(now).toISOString(), value: rate.chargeTotal }] };
  }
  const deadline = zonedTimeToUtc(addDays(checkIn, -plan.cancellation.freeDays), FREE_CANCELLATION_LOCAL_TIME, accommodation.timezone);
  const value = plan.cancellation.penalty === "FIRST_NIGHT" ? firstNightTotal : rate.chargeTotal;
  return { refundable: true, cancelPenalties: [{ penaltyType: plan.cancellation.penalty, currency: CURRENCY, deadline: deadline.toISOString(), value }] };
};

/** Prices one rate plan for a stay from the derived defaults and the stored overrides; null if not sellable. */
const priceOffer = (
  accommodation: SupplyAccommodation,
  catalogue: AccommodationCatalogue,
  room: RoomType,
  plan: RatePlan,
  stay: Stay,
  nights: string[],
  overrides: NightOverrides,
  now: number,
): Offer | null => {
  if (!stay.rooms.every((ages) => roomFits(room, ages))) return null;
  if (checkInPassed(accommodation, stay.checkIn, now)) return null;
  const nightly: number[] = [];
  for (const night of nights) {
    const roomNight = overrides.rooms.get(roomKey(accommodation.code, room.code, night));
    const planNight = overrides.plans.get(roomKey(accommodation.code, plan.code, night));
    const allotment = roomNight?.allotment ?? room.defaultAllotment;
    const sold = roomNight?.sold ?? 0;
    if (roomNight?.stop_sell || planNight?.stop_sell) return null;
    if (allotment - sold < stay.rooms.length) return null;
    const roomPrice = roomNight?.price ?? defaultRoomNightPrice(catalogue, room, night);
    nightly.push(planNight?.price ?? roomPrice * plan.priceFactor);
  }
  const rooms: OfferRoom[] = stay.rooms.map((ages, i) => ({
    occupancyRefId: i + 1,
    code: room.code,
    description: room.name,
    rate: rateOf(nightly.reduce((s, p) => s + p * occupancyFactor(ages), 0)),
  }));
  const rate = sumRates(rooms.map((r) => r.rate));
  const firstNight = round2(stay.rooms.reduce((s, ages) => s + nightly[0]! * occupancyFactor(ages), 0) * (1 + TAX_RATE));
  return {
    roomCode: room.code,
    ratePlanCode: plan.code,
    roomName: room.name,
    boardCode: plan.boardCode,
    boardName: plan.boardName,
    isRefundable: plan.cancellation.refundable,
    rateRules: plan.cancellation.refundable ? [] : ["NON_REFUNDABLE"],
    status: "OK",
    rate,
    cancelPolicy: cancelPolicyFor(plan, accommodation, stay.checkIn, rate, firstNight, now),
    rooms,
  };
};

/** Whether the check-in date is already behind the hotel's own calendar (only near today is it worth asking). */
const checkInPassed = (accommodation: SupplyAccommodation, checkIn: string, now: number) =>
  checkIn <= addDays(new Date(now).toISOString().slice(0, 10), 1) && localDate(now, accommodation.timezone) > checkIn;

const offersFor = (accommodation: SupplyAccommodation, stay: Stay, nights: string[], overrides: NightOverrides, now: number): Offer[] => {
  const catalogue = catalogueFor(accommodation.code, accommodation.starRating);
  const offers: Offer[] = [];
  for (const plan of catalogue.ratePlans) {
    const room = catalogue.rooms.find((r) => r.code === plan.roomCode)!;
    const offer = priceOffer(accommodation, catalogue, room, plan, stay, nights, overrides, now);
    if (offer) offers.push(offer);
  }
  return offers;
};

const isCheckFailure = (error: unknown) => error instanceof Error && /CHECK constraint failed/i.test(error.message);

/** The embedded default supply: derived room types and rate plans over sparse per-night rows in D1. */
export const inventorySupplier = (d1: D1Database): Supplier => ({
  name: "inventory",

  async search(accommodations, stay, now) {
    const result = new Map<string, Offer[]>();
    if (accommodations.length === 0) return result;
    const nights = stayNights(stay.checkIn, stay.checkOut);
    const overrides = await loadOverrides(d1, accommodations.map((a) => a.code), stay.checkIn, stay.checkOut);
    for (const accommodation of accommodations) {
      const offers = offersFor(accommodation, stay, nights, overrides, now);
      if (offers.length) result.set(accommodation.code, offers);
    }
    return result;
  },

  async quote(accommodation, ref: OfferRef, stay, now) {
    const catalogue = catalogueFor(accommodation.code, accommodation.starRating);
    const plan = catalogue.ratePlans.find((p) => p.code === ref.ratePlanCode && p.roomCode === ref.roomCode);
    const room = catalogue.rooms.find((r) => r.code === ref.roomCode);
    if (!plan || !room) return null;
    const nights = stayNights(stay.checkIn, stay.checkOut);
    const overrides = await loadOverrides(d1, [accommodation.code], stay.checkIn, stay.checkOut);
    return priceOffer(accommodation, catalogue, room, plan, stay, nights, overrides, now);
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
    const nights = stayNights(stay.checkIn, stay.checkOut);
    const release = d1.prepare("UPDATE room_nights SET sold = sold - ?4 WHERE accommodation_code = ?1 AND room_code = ?2 AND night = ?3");
    await d1.batch(nights.map((night) => release.bind(stay.accommodationCode, stay.roomCode, night, stay.roomCount)));
  },
});
