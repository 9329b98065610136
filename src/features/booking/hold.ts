import { and, asc, eq, lte } from "drizzle-orm";
import { ApiError } from "../../platform/http/api-error";
import { success } from "../../platform/http/envelope";
import { withIdempotency } from "../../platform/idempotency/idempotency";
import {
  hasLocalWrites,
  SupplierFailure,
  type ProviderTransaction,
  type Supplier,
  type SupplierBooking,
  callSupplier,
  supplierFailureError,
  type SupplyOptions,
} from "../supply";
import type { CoreConnection } from "../connections";
import { resultOf, type BookResult } from "./book";
import { bookedRate, isLiveRoom } from "./booked-rate";
import { logBookingChange } from "./booking-events";
import { applyChange, holdCommittedWrites, holdExpiredWrites, withEvent } from "./booking-writes";
import { bookingByReference, partnerBooking } from "./bookings";
import {
  bookedStayOf,
  bookingKeptChanging,
  bookingLookupOf,
  CHANGE_ATTEMPTS,
  heldCountRelease,
  roomRelease,
  supplierOfBooking,
} from "./cancel";
import { logHoldOutcome } from "./hold-limits";
import { bookingDeps, type BookingDeps } from "./deps";
import { type BookingRecord, bookingColumns } from "./record";
import { bookings } from "./tables";

const holdExpired = (booking: BookingRecord) =>
  new ApiError("hold_expired", `The hold expired at ${booking.holdExpiresAt}: its rooms were given back. Book again`, {
    holdExpiresAt: booking.holdExpiresAt,
  });

/** A hold that ran out, whether or not its alarm has given the rooms back yet. */
const isPastHold = (booking: BookingRecord, at: number) =>
  booking.status === "expired" ||
  (booking.status === "held" && booking.holdExpiresAt !== null && Date.parse(booking.holdExpiresAt) <= at);

/**
 * POST /api/bookings/:ref/commit: a hold becomes `success`, charged its held rate (what the hold
 * answer showed as `rate`, and no other price), through the connection that made it (another
 * connection of the partner: 404, as Hotel-X cancel answers). A supplier outside our D1 commits
 * first (Hotel-X `commit`), once however many commits run in parallel (`commitUpstreamOnce`); a
 * failure there leaves the hold as it was. A hold already committed answers again as it was
 * committed (a retry); an expired one is 409 `hold_expired`, anything else 409 `booking_not_held`.
 */
export const commitHold = async (
  deps: BookingDeps,
  connection: Pick<CoreConnection, "id" | "code" | "partnerId">,
  bookingReference: string,
  meta: { requestId: string; startedAt: number },
  options: SupplyOptions = {},
  now = Date.now(),
): Promise<BookResult> => {
  const db = deps.db;
  const transactions = options.includeProviderTransactions ? ([] as ProviderTransaction[]) : undefined;
  const answer = (row: BookingRecord) => {
    const result = resultOf(row, meta);
    return transactions ? { ...result, providerTransactions: transactions } : result;
  };
  for (let attempt = 1; attempt <= CHANGE_ATTEMPTS; attempt++) {
    const booking = await partnerBooking(db, connection.partnerId, bookingReference);
    // A hold is the connection's that made it: committed through another, it is not found there.
    if (booking.connectionId !== connection.id)
      throw new ApiError(
        "booking_not_found",
        `Booking not found with bookingReference: ${bookingReference} through connection ${connection.code}`,
      );
    if (booking.status === "success" && booking.holdExpiresAt !== null) return answer(booking);
    if (isPastHold(booking, now)) throw holdExpired(booking);
    if (booking.status !== "held")
      throw new ApiError("booking_not_held", `Booking is not held. Current status: ${booking.status}`);
    const supplier = await supplierOfBooking(deps, booking.supplier);
    if (!hasLocalWrites(supplier)) {
      const committed = await commitUpstreamOnce(deps, booking, supplier, options, transactions, now);
      // Null: another commit did it (or the hold moved on meanwhile): the booking is read again.
      if (committed) return answer(committed);
      continue;
    }
    const after = await recordCommit(deps, supplier, booking, booking, now);
    if (after) return answer(after);
  }
  throw bookingKeptChanging();
};

/**
 * The commit written in D1 under the version read: `success`, charged the held rate, with what the
 * supplier answered (`booked`; the booking itself on the embedded inventory), the hold's counts given
 * back in the same batch. Null when the row moved on.
 */
const recordCommit = async (
  deps: BookingDeps,
  supplier: Supplier,
  booking: BookingRecord,
  booked: SupplierBooking,
  now: number,
) => {
  const committed = {
    chargeTotalMinor: bookedRate(booking).chargeTotal,
    supplierReference: booked.supplierReference,
    hotelConfirmationNumber: booked.hotelConfirmationNumber,
    upstreamBookingId: booked.upstreamBookingId ?? booking.upstreamBookingId,
  };
  const after: BookingRecord = { ...booking, ...committed, status: "success", version: booking.version + 1 };
  const logged = logBookingChange(deps.db, "booking.committed", after, now);
  const unheld = heldCountRelease(deps.db, supplier, booking, booking.rooms.filter(isLiveRoom), "committed");
  const writes = withEvent(
    holdCommittedWrites(deps.db, booking, bookingColumns(committed), now, unheld),
    logged.writes,
  );
  if (!(await applyChange(deps.db, writes))) return null;
  await logged.announce(deps);
  await logHoldOutcome(deps.db, booking.partnerId, booking.reference, "committed");
  return after;
};

/** Parallel commits of one upstream hold: the one that claimed it answers; the others retry in a second. */
const COMMIT_CLAIM = { scope: "hold_commit", keyName: "bookingReference" } as const;

/**
 * A hold of a supplier outside our D1 committed there exactly once. The commit is claimed in D1
 * first, in the idempotency table (one atomic insert per booking, scope `hold_commit`, a 60 s lease
 * should the Worker die): of parallel commits one calls the supplier; the others get 409
 * `idempotency_key_in_use` (Retry-After: 1) while it runs, and once it is done read the booking
 * again (null). A supplier failure releases the claim, so a retry commits afresh. Answers the
 * committed row, or null when the booking is to be read again.
 */
const commitUpstreamOnce = async (
  deps: BookingDeps,
  booking: BookingRecord,
  supplier: Supplier,
  options: SupplyOptions,
  transactions: ProviderTransaction[] | undefined,
  now: number,
): Promise<BookingRecord | null> => {
  const commit = supplier.commit;
  // A supplier that holds commits; one that cannot never took a hold (book refused it first).
  if (!commit) throw new Error(`${supplier.name} holds no bookings to commit`);
  let failure: unknown = null;
  let committed: BookingRecord | null = null;
  await withIdempotency(
    deps.db,
    { ...COMMIT_CLAIM, partnerId: booking.partnerId, key: booking.reference, request: booking.reference, now },
    async () => {
      try {
        const booked = await callSupplier(supplier, options, transactions, (call) =>
          commit.call(supplier, bookedStayOf(booking), call),
        );
        committed = await recordUpstreamCommit(deps, supplier, booking.reference, booked, now);
        return { status: 200, body: null };
      } catch (error) {
        // Not stored: the claim is released and the error answered below.
        failure = error;
        return { status: 500, body: null };
      }
    },
  );
  if (failure instanceof SupplierFailure) throw supplierFailureError(failure);
  if (failure) throw failure;
  return committed;
};

/**
 * The supplier committed: written on the hold as it is now (a room cancelled meanwhile moved its
 * version). A hold that ended meanwhile is left alone and logged: the supplier's booking is the
 * operator's to reconcile.
 */
const recordUpstreamCommit = async (
  deps: BookingDeps,
  supplier: Supplier,
  reference: string,
  booked: SupplierBooking,
  now: number,
): Promise<BookingRecord | null> => {
  for (let attempt = 1; attempt <= CHANGE_ATTEMPTS; attempt++) {
    const booking = await bookingByReference(deps.db, reference);
    if (booking?.status !== "held" || isPastHold(booking, now)) {
      console.error(
        JSON.stringify({ level: "warn", event: "upstream_commit_not_recorded", reference, status: booking?.status }),
      );
      return null;
    }
    const after = await recordCommit(deps, supplier, booking, booked, now);
    if (after) return after;
  }
  throw bookingKeptChanging();
};

/** POST /api/bookings/:ref/commit under an optional Idempotency-Key (the idempotency module of book and cancel). */
export const commitOnce = (
  deps: BookingDeps,
  connection: Pick<CoreConnection, "id" | "code" | "partnerId">,
  bookingReference: string,
  meta: { requestId: string; startedAt: number },
  options: SupplyOptions,
  idempotency: { key: string | undefined; request: unknown },
) =>
  withIdempotency(
    deps.db,
    {
      scope: "commit",
      partnerId: connection.partnerId,
      key: idempotency.key,
      request: [bookingReference, idempotency.request],
    },
    async () => ({ status: 200, body: success(await commitHold(deps, connection, bookingReference, meta, options)) }),
  );

export type HoldOutcome = "expired" | "not_held" | "not_yet";

/**
 * Ends a hold whose time has come (`at`): its rooms go back and it becomes `expired`. A hold whose
 * book answer was lost (`pending`, its end on the row) ends so too: its supplier may hold it. A hold
 * committed, released or settled meanwhile is left alone (`not_held`); one not due yet too
 * (`not_yet`). A supplier outside our D1 is told first (its booking waiting for a commit is
 * cancelled); when that fails this throws, and the caller (the hold's alarm, a settle timer, or
 * upkeep) tries again later.
 */
export const expireHold = async (deps: BookingDeps, reference: string, at: number): Promise<HoldOutcome> => {
  const db = deps.db;
  for (let attempt = 1; attempt <= CHANGE_ATTEMPTS; attempt++) {
    const booking = await bookingByReference(db, reference);
    if (!booking || booking.holdExpiresAt === null) return "not_held";
    const status = booking.status;
    if (status !== "held" && status !== "pending") return "not_held";
    if (Date.parse(booking.holdExpiresAt) > at) return "not_yet";
    const supplier = await supplierOfBooking(deps, booking.supplier);
    if (!hasLocalWrites(supplier)) await cancelUpstreamHold(supplier, booking);
    const rooms = booking.rooms.filter(isLiveRoom);
    // Nothing was charged: a lost answer's row carries the rate the booking would have charged.
    const expired = { ...booking, status: "expired" as const, chargeTotalMinor: 0 };
    const logged = logBookingChange(db, "booking.hold_expired", expired, at);
    const release = roomRelease(db, supplier, booking, rooms);
    const writes = withEvent(holdExpiredWrites(db, { ...booking, status }, release), logged.writes);
    if (await applyChange(db, writes)) {
      await logged.announce(deps);
      await logHoldOutcome(db, booking.partnerId, booking.reference, "expired");
      return "expired";
    }
  }
  throw bookingKeptChanging();
};

/**
 * A hold's booking at a supplier outside our D1, cancelled there. A cancel refused while the
 * supplier has no such booking (not found, or cancelled already) is done: a hold whose answer was
 * lost may never have reached it, and one cancelled by an earlier try (its row made `held` by a
 * settler meanwhile, so that try wrote nothing) is not cancelled twice. Throws while the supplier
 * may still hold it.
 */
const cancelUpstreamHold = async (supplier: Supplier, booking: BookingRecord) => {
  try {
    await callSupplier(supplier, {}, undefined, (call) => supplier.cancel(bookedStayOf(booking), call));
  } catch (error) {
    if (await supplierHasNone(supplier, booking)) return;
    throw error;
  }
};

/** The supplier says it has no live booking under our reference; false when it cannot say. */
const supplierHasNone = async (supplier: Supplier, booking: BookingRecord) => {
  const lookup = supplier.bookingByReference;
  if (!lookup) return false;
  try {
    const found = await callSupplier(supplier, {}, undefined, (call) =>
      lookup.call(supplier, booking.reference, call, bookingLookupOf(booking)),
    );
    return found.status === "not_found" || found.status === "cancelled";
  } catch {
    return false;
  }
};

/** Holds past their end by this much are ended by upkeep: their alarm should have run by then. */
export const EXPIRED_HOLD_GRACE_MS = 60_000;
const EXPIRE_BATCH = 50;

/**
 * Upkeep: ends holds whose alarm did not (a Durable Object that could not be reached, say). The
 * alarm is the way holds end within the minute; this only keeps a lost alarm from keeping rooms.
 */
export const expiredHoldsTask = {
  name: "expired-holds",
  run: async (env: Env, now: Date): Promise<number> => {
    const deps = bookingDeps(env);
    const due = await deps.db
      .select({ reference: bookings.reference })
      .from(bookings)
      .where(
        and(
          eq(bookings.status, "held"),
          lte(bookings.holdExpiresAt, new Date(now.getTime() - EXPIRED_HOLD_GRACE_MS).toISOString()),
        ),
      )
      .orderBy(asc(bookings.holdExpiresAt))
      .limit(EXPIRE_BATCH);
    let expired = 0;
    for (const { reference } of due) {
      try {
        if ((await expireHold(deps, reference, now.getTime())) === "expired") expired += 1;
      } catch (error) {
        console.error(JSON.stringify({ level: "warn", event: "hold_not_expired", reference, error: String(error) }));
      }
    }
    return expired;
  },
};
