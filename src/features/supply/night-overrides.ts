// Raw SQL: stored nights and fee schedules are read in the same statement as the search's raw accommodation selection (one round trip, one walk).
import type { Db } from "../../platform/db/client";
import { HIT_COLUMNS, accommodationOfRow, type HitRow, type SqlSelection } from "./accommodations";
import type { SqlRow } from "../../platform/db/sql-row";
import { storedFeeSchedulesSql } from "../content";
import type { Stay, SupplyAccommodation } from "./supplier";
import type { ratePlanNights, roomNights } from "./tables";

export type RoomNightRow = SqlRow<typeof roomNights>;
export type PlanNightRow = SqlRow<typeof ratePlanNights>;

const ROOM_NIGHT_COLUMNS = [
  "accommodation_code",
  "room_code",
  "night",
  "allotment",
  "sold",
  "stop_sell",
  "price_minor",
] as const;
const PLAN_NIGHT_COLUMNS = ["accommodation_code", "rate_plan_code", "night", "stop_sell", "price_minor"] as const;

// `codes` is a subquery yielding accommodation codes; ?from and ?to are the stay's dates.
const nightsSql = (table: string, columns: readonly string[], codes: string, from: number) =>
  `SELECT ${columns.join(", ")} FROM ${table} WHERE accommodation_code IN (${codes}) AND night >= ?${from} AND night < ?${from + 1}`;

/** The stored room nights, then the stored rate-plan nights, of one accommodation during the stay. */
export const nightOverrideReads = (db: Db, code: string, stay: Pick<Stay, "checkIn" | "checkOut">) => [
  db.$client.prepare(nightsSql("room_nights", ROOM_NIGHT_COLUMNS, "?1", 2)).bind(code, stay.checkIn, stay.checkOut),
  db.$client
    .prepare(nightsSql("rate_plan_nights", PLAN_NIGHT_COLUMNS, "?1", 2))
    .bind(code, stay.checkIn, stay.checkOut),
];

// One compound statement; the first column says which part a row belongs to, the second orders the hits.
const HIT = 0;
const ROOM_NIGHT = 1;
const PLAN_NIGHT = 2;
const FEES = 3;
// The operator's fee schedules (content's SQL, read in this statement); most accommodations have none.
const FEE_COLUMNS = ["accommodation_code", "schedule"] as const;
const WIDTH = Math.max(HIT_COLUMNS.length, ROOM_NIGHT_COLUMNS.length, PLAN_NIGHT_COLUMNS.length, FEE_COLUMNS.length);
const padded = (columns: readonly string[]) => [...columns, ...Array(WIDTH - columns.length).fill("NULL")].join(", ");

const searchSql = (selection: SqlSelection) => {
  const dates = selection.params.length + 1;
  const nights = (part: number, table: string, columns: readonly string[]) =>
    nightsSql(table, [String(part), "NULL", padded(columns)], "SELECT code FROM hits", dates);
  return `${selection.hits} SELECT ${HIT}, seq, ${padded(HIT_COLUMNS)} FROM hits
    UNION ALL ${nights(ROOM_NIGHT, "room_nights", ROOM_NIGHT_COLUMNS)}
    UNION ALL ${nights(PLAN_NIGHT, "rate_plan_nights", PLAN_NIGHT_COLUMNS)}
    UNION ALL ${storedFeeSchedulesSql("SELECT code FROM hits", `${FEES}, NULL, `, WIDTH - FEE_COLUMNS.length)}
    ORDER BY 1, 2`;
};

const rowOf = <Row>(columns: readonly string[], values: unknown[]): Row => {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) row[columns[i]!] = values[i + 2];
  return row as Row;
};

export type SearchRead = {
  accommodations: SupplyAccommodation[];
  rooms: RoomNightRow[];
  plans: PlanNightRow[];
  /** The stored fee schedule (JSON) of each accommodation that has one. */
  fees: Map<string, string>;
};

/**
 * The selected accommodations in answer order and their stored nights during the stay, in one
 * statement: the selection (a geo walk, say) runs once, and nights are read for its hits only.
 */
export const searchRead = async (
  db: Db,
  selection: SqlSelection,
  stay: Pick<Stay, "checkIn" | "checkOut">,
): Promise<SearchRead> => {
  const rows = await db.$client
    .prepare(searchSql(selection))
    .bind(...selection.params, stay.checkIn, stay.checkOut)
    .raw<unknown[]>();
  const read: SearchRead = { accommodations: [], rooms: [], plans: [], fees: new Map() };
  for (const values of rows) {
    if (values[0] === HIT) read.accommodations.push(accommodationOfRow(rowOf<HitRow>(HIT_COLUMNS, values)));
    else if (values[0] === ROOM_NIGHT) read.rooms.push(rowOf<RoomNightRow>(ROOM_NIGHT_COLUMNS, values));
    else if (values[0] === PLAN_NIGHT) read.plans.push(rowOf<PlanNightRow>(PLAN_NIGHT_COLUMNS, values));
    else read.fees.set(values[2] as string, values[3] as string);
  }
  return read;
};
