import { and, eq, exists, sql } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { bookings } from "./tables";

/** The guard of the inventory's give-back: the booking is still live (not cancelled by a concurrent request). */
export const stillLive = (db: Db, reference: string) =>
  exists(
    db
      .select({ live: sql`1` })
      .from(bookings)
      .where(and(eq(bookings.reference, reference), eq(bookings.status, "success"))),
  );

/** Cancels a live booking; changes no row when it is no longer live (the batch's last statement). */
export const markCancelled = (db: Db, reference: string, cancelledAt: string, cancelPrice: number) =>
  db
    .update(bookings)
    .set({ status: "cancelled", cancelledAt, cancelPrice })
    .where(and(eq(bookings.reference, reference), eq(bookings.status, "success")))
    .returning({ reference: bookings.reference });
