import { isCheckViolation } from "../../platform/db/constraint";
import { ApiError } from "../../platform/http/api-error";
import { catalogueFor, defaultRoomNightPrice, round2 } from "./catalogue";
import { addDays, isCalendarDate, stayNights } from "./zoned-time";

type AccommodationRow = { code: string; star_rating: number };

const MAX_RANGE_NIGHTS = 366;
const MAX_VIEW_NIGHTS = 62;

const accommodation = async (d1: D1Database, code: string) => {
  const row = await d1
    .prepare("SELECT code, star_rating FROM accommodations WHERE code = ?")
    .bind(code)
    .first<AccommodationRow>();
  if (!row) throw new ApiError("accommodation_not_found", "Accommodation not found");
  return { row, catalogue: catalogueFor(row.code, row.star_rating) };
};

/** Nights `from` to `to`, both included, within the sold horizon. */
const nightsBetween = (from: string, to: string, max: number, now: number): string[] => {
  if (!isCalendarDate(from) || !isCalendarDate(to))
    throw new ApiError("invalid_dates", "from and to must be dates YYYY-MM-DD");
  if (to < from) throw new ApiError("invalid_dates", "to must not be before from");
  const today = new Date(now).toISOString().slice(0, 10);
  if (from < addDays(today, -1) || to > addDays(today, 366))
    throw new ApiError("invalid_dates", "Dates must lie within the next 365 days");
  const nights = stayNights(from, addDays(to, 1));
  if (nights.length > max) throw new ApiError("invalid_dates", `At most ${max} nights per request`);
  return nights;
};

export type RoomNightChange = {
  from: string;
  to: string;
  allotment?: number;
  price?: number | null;
  stopSell?: boolean;
};
export type RatePlanNightChange = { from: string; to: string; price?: number | null; stopSell?: boolean };

const requireChange = (change: { allotment?: unknown; price?: unknown; stopSell?: unknown }) => {
  if (change.allotment === undefined && change.price === undefined && change.stopSell === undefined) {
    throw new ApiError("nothing_to_change", "Give at least one of allotment, price, stopSell");
  }
};

/**
 * Operator: sets allotment, nightly room price (null restores the derived price) and stop-sell for a
 * date range of one room type, in one statement. Lowering allotment below rooms already sold is refused.
 */
export const setRoomNights = async (
  d1: D1Database,
  code: string,
  roomCode: string,
  change: RoomNightChange,
  now = Date.now(),
) => {
  requireChange(change);
  const { catalogue } = await accommodation(d1, code);
  const room = catalogue.rooms.find((r) => r.code === roomCode);
  if (!room) throw new ApiError("room_type_not_found", "Room type not found");
  const nights = nightsBetween(change.from, change.to, MAX_RANGE_NIGHTS, now);
  const sets = [
    change.allotment !== undefined ? "allotment = excluded.allotment" : null,
    change.stopSell !== undefined ? "stop_sell = excluded.stop_sell" : null,
    change.price !== undefined ? "price = excluded.price" : null,
  ].filter(Boolean);
  try {
    await d1
      .prepare(
        `INSERT INTO room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell, price)
         SELECT ?1, ?2, value, ?3, 0, ?4, ?5 FROM json_each(?6) WHERE true
         ON CONFLICT (accommodation_code, room_code, night) DO UPDATE SET ${sets.join(", ")}`,
      )
      .bind(
        code,
        roomCode,
        change.allotment ?? room.defaultAllotment,
        change.stopSell ? 1 : 0,
        change.price ?? null,
        JSON.stringify(nights),
      )
      .run();
  } catch (error) {
    if (isCheckViolation(error)) {
      throw new ApiError("allotment_below_sold", "Allotment cannot be set below the rooms already sold");
    }
    throw error;
  }
  return viewInventory(
    d1,
    code,
    change.from,
    nights.length > MAX_VIEW_NIGHTS ? addDays(change.from, MAX_VIEW_NIGHTS - 1) : change.to,
    now,
  );
};

/** Operator: nightly price (absolute, before occupancy; null restores the derived price) and stop-sell of one rate plan. */
export const setRatePlanNights = async (
  d1: D1Database,
  code: string,
  ratePlanCode: string,
  change: RatePlanNightChange,
  now = Date.now(),
) => {
  requireChange(change);
  const { catalogue } = await accommodation(d1, code);
  if (!catalogue.ratePlans.some((p) => p.code === ratePlanCode))
    throw new ApiError("rate_plan_not_found", "Rate plan not found");
  const nights = nightsBetween(change.from, change.to, MAX_RANGE_NIGHTS, now);
  const sets = [
    change.stopSell !== undefined ? "stop_sell = excluded.stop_sell" : null,
    change.price !== undefined ? "price = excluded.price" : null,
  ].filter(Boolean);
  await d1
    .prepare(
      `INSERT INTO rate_plan_nights (accommodation_code, rate_plan_code, night, stop_sell, price)
       SELECT ?1, ?2, value, ?3, ?4 FROM json_each(?5) WHERE true
       ON CONFLICT (accommodation_code, rate_plan_code, night) DO UPDATE SET ${sets.join(", ")}`,
    )
    .bind(code, ratePlanCode, change.stopSell ? 1 : 0, change.price ?? null, JSON.stringify(nights))
    .run();
  return viewInventory(
    d1,
    code,
    change.from,
    nights.length > MAX_VIEW_NIGHTS ? addDays(change.from, MAX_VIEW_NIGHTS - 1) : change.to,
    now,
  );
};

type RoomNight = {
  room_code: string;
  night: string;
  allotment: number;
  sold: number;
  stop_sell: number;
  price: number | null;
};
type PlanNight = { rate_plan_code: string; night: string; stop_sell: number; price: number | null };

/** Operator view: room types, rate plans and the effective state of every night in the range. */
export const viewInventory = async (d1: D1Database, code: string, from: string, to: string, now = Date.now()) => {
  const { catalogue } = await accommodation(d1, code);
  const nights = nightsBetween(from, to, MAX_VIEW_NIGHTS, now);
  const end = addDays(to, 1);
  const [rooms, plans] = await d1.batch<RoomNight | PlanNight>([
    d1
      .prepare(
        "SELECT room_code, night, allotment, sold, stop_sell, price FROM room_nights WHERE accommodation_code = ? AND night >= ? AND night < ?",
      )
      .bind(code, from, end),
    d1
      .prepare(
        "SELECT rate_plan_code, night, stop_sell, price FROM rate_plan_nights WHERE accommodation_code = ? AND night >= ? AND night < ?",
      )
      .bind(code, from, end),
  ]);
  const roomRows = new Map((rooms!.results as RoomNight[]).map((r) => [`${r.room_code}|${r.night}`, r]));
  const planRows = new Map((plans!.results as PlanNight[]).map((r) => [`${r.rate_plan_code}|${r.night}`, r]));
  return {
    accommodationCode: code,
    currency: "USD",
    rooms: catalogue.rooms.map((room) => ({
      code: room.code,
      name: room.name,
      maxAdults: room.maxAdults,
      maxChildren: room.maxChildren,
      maxOccupancy: room.maxOccupancy,
      defaultAllotment: room.defaultAllotment,
      nights: nights.map((night) => {
        const row = roomRows.get(`${room.code}|${night}`);
        const allotment = row?.allotment ?? room.defaultAllotment;
        const sold = row?.sold ?? 0;
        return {
          night,
          allotment,
          sold,
          available: allotment - sold,
          stopSell: Boolean(row?.stop_sell),
          price: row?.price ?? defaultRoomNightPrice(catalogue, room, night),
          stored: Boolean(row),
        };
      }),
      ratePlans: catalogue.ratePlans
        .filter((p) => p.roomCode === room.code)
        .map((plan) => ({
          code: plan.code,
          boardCode: plan.boardCode,
          boardName: plan.boardName,
          cancellation: plan.cancellation,
          nights: nights.map((night) => {
            const row = planRows.get(`${plan.code}|${night}`);
            const roomPrice =
              roomRows.get(`${room.code}|${night}`)?.price ?? defaultRoomNightPrice(catalogue, room, night);
            return {
              night,
              stopSell: Boolean(row?.stop_sell),
              price: row?.price ?? round2(roomPrice * plan.priceFactor),
            };
          }),
        })),
    })),
  };
};
