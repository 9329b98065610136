import { and, eq, exists, gt, isNull, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../platform/db/client";
import type { AllotmentWrite } from "../supply";
import type { BookingRecord } from "./record";
import { bookingModifications, bookings } from "./tables";

/** Columns of a row as a change writes them (record.ts bookingColumns encodes a record's fields). */
type Columns = Partial<typeof bookings.$inferInsert>;
type Versioned = Pick<BookingRecord, "reference" | "version">;

/**
 * Every change of a stored booking, as the statements of its one D1 batch (one transaction), here
 * and nowhere else: a booking made or held, a hold answered by its supplier, rooms cancelled, a hold
 * committed or expired. A change of an existing row is guarded on the version it was computed from,
 * and so is every write beside it (rooms given back): of two changes computed from one version, one
 * applies and the other changes nothing and is computed again. Another write that belongs to a
 * change (an event, say) joins its `statements`; `change` stays the statement that tells whether it applied.
 */
export type ChangeBatch = {
  statements: BatchItem<"sqlite">[];
  /** The row's update, returning its reference: one row back means the change applied. */
  change: BatchItem<"sqlite">;
};

/** Gives rooms back, each write applied only while `guard` holds (supply's cancelWrites). */
export type RoomRelease = (guard: SQL) => AllotmentWrite[];

/** The row is still at the version the change was computed from. */
export const atVersion = (db: Db, booking: Versioned) =>
  exists(
    db
      .select({ one: sql`1` })
      .from(bookings)
      .where(and(eq(bookings.reference, booking.reference), eq(bookings.version, booking.version))),
  );

const sameVersion = (booking: Versioned) =>
  and(eq(bookings.reference, booking.reference), eq(bookings.version, booking.version));

const changeOf = (statements: BatchItem<"sqlite">[], change: BatchItem<"sqlite">): ChangeBatch => ({
  statements: [...statements, change],
  change,
});

/**
 * The change with the writes of its event (booking-events.ts `logBookingChange`) right after the
 * row's update, which is how the event is appended only when the update changed the row.
 */
export const withEvent = ({ statements, change }: ChangeBatch, eventWrites: BatchItem<"sqlite">[]): ChangeBatch => {
  if (statements.at(-1) !== change) throw new Error("a change's event follows its row update");
  return { statements: [...statements, ...eventWrites], change };
};

/** Runs a change's batch; whether the row changed (false: it had moved on, nothing was written). */
export const applyChange = async (db: Db, { statements, change }: ChangeBatch): Promise<boolean> => {
  const results = await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return (results[statements.indexOf(change)] as unknown[]).length === 1;
};

/**
 * A booking made on the embedded inventory (`success`) or held there (`held`): the row first (its
 * unique partnerReference settles parallel retries), then the rooms it takes (their CHECK an oversale).
 */
export const bookedWrites = (
  db: Db,
  row: typeof bookings.$inferInsert,
  eventWrites: BatchItem<"sqlite">[],
  takes: AllotmentWrite[],
) => {
  const insert = db.insert(bookings).values(row);
  // The event right after the insert it reports (it is appended only when that statement changed a row).
  return [insert, ...eventWrites, ...takes] as [typeof insert, ...BatchItem<"sqlite">[]];
};

/** A remote supplier held the rooms of a booking reserved as pending before it was asked. */
export const holdAnsweredWrites = (
  db: Db,
  reference: string,
  booked: Pick<BookingRecord, "supplierReference" | "hotelConfirmationNumber" | "upstreamBookingId">,
): ChangeBatch =>
  changeOf(
    [],
    db
      .update(bookings)
      .set({ status: "held", chargeTotal: 0, ...booked })
      .where(and(eq(bookings.reference, reference), eq(bookings.status, "pending")))
      .returning({ reference: bookings.reference }),
  );

/**
 * Rooms cancelled, some or every one (`change` says which: the rooms, and the remaining rate or the
 * status `cancelled`): their rooms go back, then the row changes.
 */
export const roomsCancelledWrites = (
  db: Db,
  booking: Versioned,
  change: Columns,
  release: RoomRelease | null,
): ChangeBatch =>
  changeOf(
    release ? release(atVersion(db, booking)) : [],
    db
      .update(bookings)
      .set({ ...change, version: booking.version + 1 })
      .where(sameVersion(booking))
      .returning({ reference: bookings.reference }),
  );

/**
 * A hold committed: `success`, charged its held rate. Only while still held and before its end (an
 * expired hold is never committed, even before its alarm ran).
 */
export const holdCommittedWrites = (
  db: Db,
  booking: Versioned,
  committed: Columns,
  at: number,
  /** The hold's count for its partner given back (its rooms stay sold), under the same condition as the commit. */
  unheld: RoomRelease | null = null,
): ChangeBatch => {
  const committable = and(
    sameVersion(booking),
    eq(bookings.status, "held"),
    gt(bookings.holdExpiresAt, new Date(at).toISOString()),
  );
  return changeOf(
    unheld ? unheld(exists(db.select({ one: sql`1` }).from(bookings).where(committable))) : [],
    db
      .update(bookings)
      .set({ status: "success", ...committed, version: booking.version + 1 })
      .where(committable)
      .returning({ reference: bookings.reference }),
  );
};

/**
 * A hold expired: its rooms go back, the booking is `expired` (nothing was charged). `status` is the
 * one it was read in: `held`, or `pending` for a hold whose answer was lost. A settle or a book
 * answer changes a pending row without bumping its version, so the status is guarded too.
 */
export const holdExpiredWrites = (
  db: Db,
  booking: Versioned & { status: "held" | "pending" },
  release: RoomRelease | null,
): ChangeBatch =>
  changeOf(
    release ? release(atVersion(db, booking)) : [],
    db
      .update(bookings)
      .set({ status: "expired", chargeTotal: 0, version: booking.version + 1 })
      .where(and(sameVersion(booking), eq(bookings.status, booking.status)))
      .returning({ reference: bookings.reference }),
  );

/**
 * A stay changed (modification.ts): the booked rooms go back, the changed stay's rooms are taken
 * (`takes`, built under `atVersion`, so nothing is taken unless the change applies; their CHECK
 * refuses the last room twice and rolls the whole batch back), the preview is used once, then the row.
 */
export const stayChangedWrites = (
  db: Db,
  booking: Versioned,
  previewId: string,
  change: Columns,
  release: RoomRelease,
  takes: AllotmentWrite[],
): ChangeBatch =>
  changeOf(
    [
      ...release(atVersion(db, booking)),
      ...takes,
      db
        .update(bookingModifications)
        .set({ committedAt: change.modifiedAt })
        .where(
          and(eq(bookingModifications.id, previewId), isNull(bookingModifications.committedAt), atVersion(db, booking)),
        ),
    ],
    db
      .update(bookings)
      .set({ ...change, version: booking.version + 1 })
      .where(and(sameVersion(booking), eq(bookings.status, "success")))
      .returning({ reference: bookings.reference }),
  );
