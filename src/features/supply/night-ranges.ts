// Raw SQL: an operator's date range (up to 367 nights) is upserted in one statement over json_each.
import type { Db } from "../../platform/db/client";

/**
 * What an operator changes over a range; a field left out keeps each stored night's value.
 * `priceMinor`: whole minor units of the accommodation's currency (USD cents); null restores the derived price.
 */
type RangeChange = { allotment?: number; priceMinor?: number | null; stopSell?: boolean };

/**
 * Room nights `nights` of one room type: new rows take `defaultAllotment` unless the change sets
 * one. Lowering allotment below rooms already sold breaks the CHECK and changes nothing.
 */
export const upsertRoomNightRange = (
  db: Db,
  accommodationCode: string,
  roomCode: string,
  nights: string[],
  change: RangeChange,
  defaultAllotment: number,
) => {
  const sets = [
    change.allotment !== undefined ? "allotment = excluded.allotment" : null,
    change.stopSell !== undefined ? "stop_sell = excluded.stop_sell" : null,
    change.priceMinor !== undefined ? "price_minor = excluded.price_minor" : null,
  ].filter(Boolean);
  return db.$client
    .prepare(
      `INSERT INTO room_nights (accommodation_code, room_code, night, allotment, sold, stop_sell, price_minor)
       SELECT ?1, ?2, value, ?3, 0, ?4, ?5 FROM json_each(?6) WHERE true
       ON CONFLICT (accommodation_code, room_code, night) DO UPDATE SET ${sets.join(", ")}`,
    )
    .bind(
      accommodationCode,
      roomCode,
      change.allotment ?? defaultAllotment,
      change.stopSell ? 1 : 0,
      change.priceMinor ?? null,
      JSON.stringify(nights),
    )
    .run();
};

/** Rate-plan nights `nights` of one rate plan (stop-sell and an absolute nightly price). */
export const upsertRatePlanNightRange = (
  db: Db,
  accommodationCode: string,
  ratePlanCode: string,
  nights: string[],
  change: Omit<RangeChange, "allotment">,
) => {
  const sets = [
    change.stopSell !== undefined ? "stop_sell = excluded.stop_sell" : null,
    change.priceMinor !== undefined ? "price_minor = excluded.price_minor" : null,
  ].filter(Boolean);
  return db.$client
    .prepare(
      `INSERT INTO rate_plan_nights (accommodation_code, rate_plan_code, night, stop_sell, price_minor)
       SELECT ?1, ?2, value, ?3, ?4 FROM json_each(?5) WHERE true
       ON CONFLICT (accommodation_code, rate_plan_code, night) DO UPDATE SET ${sets.join(", ")}`,
    )
    .bind(accommodationCode, ratePlanCode, change.stopSell ? 1 : 0, change.priceMinor ?? null, JSON.stringify(nights))
    .run();
};
