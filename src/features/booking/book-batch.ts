// Raw SQL: a booking row of the embedded inventory shares one D1 batch (one transaction) with its raw allotment writes
import { database } from "../../platform/db/client";
import { bookings } from "./tables";

/** The insert of one booking row as a D1 statement (drizzle writes its SQL), to run in a batch with raw writes. */
export const bookingInsert = (d1: D1Database, row: typeof bookings.$inferInsert): D1PreparedStatement => {
  const query = database(d1).insert(bookings).values(row).toSQL();
  return d1.prepare(query.sql).bind(...query.params);
};
