// Raw SQL: stored nights are read in one D1 batch with the search's raw accommodation selection (one round trip).
import type { SqlSelection } from "../booking/accommodation-lookup";
import type { SqlRow } from "../../platform/db/sql-row";
import type { Stay } from "./supplier";
import type { ratePlanNights, roomNights } from "./tables";

// `stop_sell` arrives as D1's 0 or 1 (SqlRow types it as drizzle's boolean): it is only ever read for truth.
export type RoomNightRow = SqlRow<typeof roomNights>;
export type PlanNightRow = SqlRow<typeof ratePlanNights>;

// `codes` is a subquery yielding accommodation codes; its parameters come first, then the dates.
const roomNightsSql = (codes: string, params: number) =>
  `SELECT accommodation_code, room_code, night, allotment, sold, stop_sell, price FROM room_nights WHERE accommodation_code IN (${codes}) AND night >= ?${params + 1} AND night < ?${params + 2}`;
const planNightsSql = (codes: string, params: number) =>
  `SELECT accommodation_code, rate_plan_code, night, stop_sell, price FROM rate_plan_nights WHERE accommodation_code IN (${codes}) AND night >= ?${params + 1} AND night < ?${params + 2}`;

/** The stored room nights, then the stored rate-plan nights, of the selected accommodations during the stay. */
export const nightOverrideReads = (
  d1: D1Database,
  selection: Pick<SqlSelection, "codesSql" | "params">,
  stay: Pick<Stay, "checkIn" | "checkOut">,
) => [
  d1
    .prepare(roomNightsSql(selection.codesSql, selection.params.length))
    .bind(...selection.params, stay.checkIn, stay.checkOut),
  d1
    .prepare(planNightsSql(selection.codesSql, selection.params.length))
    .bind(...selection.params, stay.checkIn, stay.checkOut),
];

/** One D1 round trip whatever the selector and count: the accommodations and their stored nights together. */
export const searchReads = (d1: D1Database, selection: SqlSelection, stay: Pick<Stay, "checkIn" | "checkOut">) => [
  d1.prepare(selection.sql).bind(...selection.params),
  ...nightOverrideReads(d1, selection, stay),
];
