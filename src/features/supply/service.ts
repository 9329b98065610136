import { and, eq, gte, lt } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { isCheckViolation } from "../../platform/db/constraint";
import { accommodationFacts } from "../content";
import { ApiError } from "../../platform/http/api-error";
import { scaleMinor, toMajor, toMinor } from "../../platform/money";
import { catalogueFor, defaultRoomNightPrice } from "./catalogue";
import { CURRENCY } from "./inventory-price";
import { upsertRatePlanNightRange, upsertRoomNightRange } from "./night-ranges";
import { ratePlanNights, roomNights } from "./tables";
import { addDays, stayNights } from "../../platform/time/zoned-time";

const MAX_RANGE_NIGHTS = 366;
const MAX_VIEW_NIGHTS = 62;

const accommodation = async (db: Db, code: string) => {
  const row = await accommodationFacts(db, code);
  if (!row) throw new ApiError("accommodation_not_found", "Accommodation not found");
  return { row, catalogue: catalogueFor(row.code, row.starRating) };
};

/** Nights `from` to `to`, both included, within the sold horizon. */
const nightsBetween = (from: string, to: string, max: number, now: number): string[] => {
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

/** A price as the operator sends it (USD, at most 2 decimals: the route refuses more) as stored: whole cents; null stays null. */
const priceChange = (change: { price?: number | null }) => ({
  priceMinor: change.price == null ? change.price : toMinor(change.price, CURRENCY),
});
/** A night's price in whole cents: the stored one, or the derived one when the night keeps it. */
const nightMinor = (row: { priceMinor: number | null } | undefined, derived: () => number) =>
  row?.priceMinor ?? derived();
/** A price as the operator reads it (USD, major units). */
const priceJson = (minor: number) => toMajor(minor, CURRENCY);

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
  db: Db,
  code: string,
  roomCode: string,
  change: RoomNightChange,
  now = Date.now(),
) => {
  requireChange(change);
  const { catalogue } = await accommodation(db, code);
  const room = catalogue.rooms.find((r) => r.code === roomCode);
  if (!room) throw new ApiError("room_type_not_found", "Room type not found");
  const nights = nightsBetween(change.from, change.to, MAX_RANGE_NIGHTS, now);
  try {
    await upsertRoomNightRange(
      db,
      code,
      roomCode,
      nights,
      { ...change, ...priceChange(change) },
      room.defaultAllotment,
    );
  } catch (error) {
    if (isCheckViolation(error)) {
      throw new ApiError("allotment_below_sold", "Allotment cannot be set below the rooms already sold");
    }
    throw error;
  }
  return viewInventory(
    db,
    code,
    change.from,
    nights.length > MAX_VIEW_NIGHTS ? addDays(change.from, MAX_VIEW_NIGHTS - 1) : change.to,
    now,
  );
};

/** Operator: nightly price (absolute, before occupancy; null restores the derived price) and stop-sell of one rate plan. */
export const setRatePlanNights = async (
  db: Db,
  code: string,
  ratePlanCode: string,
  change: RatePlanNightChange,
  now = Date.now(),
) => {
  requireChange(change);
  const { catalogue } = await accommodation(db, code);
  if (!catalogue.ratePlans.some((p) => p.code === ratePlanCode))
    throw new ApiError("rate_plan_not_found", "Rate plan not found");
  const nights = nightsBetween(change.from, change.to, MAX_RANGE_NIGHTS, now);
  await upsertRatePlanNightRange(db, code, ratePlanCode, nights, { ...change, ...priceChange(change) });
  return viewInventory(
    db,
    code,
    change.from,
    nights.length > MAX_VIEW_NIGHTS ? addDays(change.from, MAX_VIEW_NIGHTS - 1) : change.to,
    now,
  );
};

/** Operator view: room types, rate plans and the effective state of every night in the range. */
export const viewInventory = async (db: Db, code: string, from: string, to: string, now = Date.now()) => {
  const { catalogue } = await accommodation(db, code);
  const nights = nightsBetween(from, to, MAX_VIEW_NIGHTS, now);
  const end = addDays(to, 1);
  const [rooms, plans] = await db.batch([
    db
      .select()
      .from(roomNights)
      .where(and(eq(roomNights.accommodationCode, code), gte(roomNights.night, from), lt(roomNights.night, end))),
    db
      .select()
      .from(ratePlanNights)
      .where(
        and(eq(ratePlanNights.accommodationCode, code), gte(ratePlanNights.night, from), lt(ratePlanNights.night, end)),
      ),
  ]);
  const roomRows = new Map(rooms.map((r) => [`${r.roomCode}|${r.night}`, r]));
  const planRows = new Map(plans.map((r) => [`${r.ratePlanCode}|${r.night}`, r]));
  return {
    accommodationCode: code,
    currency: CURRENCY,
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
          stopSell: Boolean(row?.stopSell),
          price: priceJson(nightMinor(row, () => defaultRoomNightPrice(catalogue, room, night))),
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
            const roomPrice = () =>
              nightMinor(roomRows.get(`${room.code}|${night}`), () => defaultRoomNightPrice(catalogue, room, night));
            return {
              night,
              stopSell: Boolean(row?.stopSell),
              // Derived as a search prices it (inventory-price.ts): the room's night times the plan's factor, rounded once.
              price: priceJson(nightMinor(row, () => scaleMinor(roomPrice(), plan.priceFactor))),
            };
          }),
        })),
    })),
  };
};
