import { z } from "zod";
import { and, eq, lte } from "drizzle-orm";
import { randomToken } from "../../platform/crypto/digest";
import { database } from "../../platform/db/client";
import { isCheckViolation } from "../../platform/db/constraint";
import { ApiError } from "../../platform/http/api-error";
import type { ErrorCode } from "../../platform/http/errors";
import { success } from "../../platform/http/envelope";
import { withIdempotency } from "../../platform/idempotency/idempotency";
import { toMinor } from "../../platform/money";
import type { CoreConnection } from "../connections";
import {
  accommodationByCode,
  type CancelPolicy,
  hasLocalWrites,
  isSellable,
  MIXED_PRODUCT_SEPARATOR,
  needsExchangeRates,
  readExchangeTable,
  sellingTermsFor,
  sellingTotal,
  unmetAgeRule,
} from "../supply";
import { bookedRate, isLiveRoom, type StoredRoom } from "./booked-rate";
import { logBookingChange } from "./booking-events";
import { applyChange, atVersion, stayChangedWrites, withEvent } from "./booking-writes";
import { bookingView, partnerBooking } from "./bookings";
import {
  bookedStayOf,
  bookingKeptChanging,
  CHANGE_ATTEMPTS,
  cancelPenaltyAt,
  isOnOrAfterCheckIn,
  supplierOfBooking,
} from "./cancel";
import type { BookingDeps } from "./deps";
import {
  type BookingRecord,
  bookingColumns,
  bookingJson,
  bookingJsonV1,
  decodeColumn,
  decodeStored,
  type StoredOccupancy,
} from "./record";
import { modificationPreviewRequestSchema, type StayChange } from "./schemas";
import { offerRooms, stayFrom } from "./search";
import { bookingModifications } from "./tables";
import { amountJson, policyJson, rateJson, storedRoomsJson } from "./wire";

/** A preview can be committed for this long. */
export const MODIFICATION_PREVIEW_MINUTES = 15;

/** The fields of the record a change rewrites (in this order, as `booking.modified` reports them). */
const changedFieldsSchema = z.object({
  checkIn: z.string(),
  checkOut: z.string(),
  roomCode: z.string(),
  ratePlanCode: z.string(),
  roomCount: z.number(),
  boardCode: z.string(),
  chargeTotalMinor: z.number().int(),
  rate: bookingJson.rate,
  rooms: bookingJson.rooms,
  cancelPolicy: bookingJson.cancelPolicy.nullable(),
  holder: bookingJson.holder,
  occupancies: bookingJson.occupancies,
});
type ChangedFields = z.infer<typeof changedFieldsSchema>;

/**
 * What a change makes of a booking: its new fields and what it costs, in minor units of the
 * booking's currency.
 */
const modificationPlanSchema = z.object({
  fields: changedFieldsSchema,
  priceDifference: z.number().int(),
  modificationFee: z.number().int(),
  /** What cancelling the booking cost at the moment priced, before the change. */
  penaltyDue: z.number().int(),
});
type ModificationPlan = z.infer<typeof modificationPlanSchema>;

/** A stored preview (`booking_modifications.body`): version 3 holds the record's fields and the amounts, all in minor units. */
const previewBodyV3 = z.object({
  v: z.literal(3),
  change: modificationPreviewRequestSchema.shape.change,
  plan: modificationPlanSchema,
});

/** Version 2 (written before issue 38's rates in minor units): the rate, rooms, policy and the three amounts in major units. */
const previewBodyV2 = z.object({
  v: z.literal(2),
  change: modificationPreviewRequestSchema.shape.change,
  plan: modificationPlanSchema.extend({
    fields: changedFieldsSchema.extend({
      rate: bookingJsonV1.rate,
      rooms: bookingJsonV1.rooms,
      cancelPolicy: bookingJsonV1.cancelPolicy.nullable(),
    }),
    priceDifference: z.number(),
    modificationFee: z.number(),
    penaltyDue: z.number(),
  }),
});

/**
 * Version 1, written before issue 38 and kept 15 minutes: the fields as row columns (JSON text,
 * `chargeTotal` and the amounts in major units), read into version 3 with the booking record's own decoders.
 */
const previewBodyV1 = z.object({
  change: modificationPreviewRequestSchema.shape.change,
  plan: modificationPlanSchema.extend({
    priceDifference: z.number(),
    modificationFee: z.number(),
    penaltyDue: z.number(),
    fields: changedFieldsSchema
      .omit({ chargeTotalMinor: true, rate: true, rooms: true, cancelPolicy: true, holder: true, occupancies: true })
      .extend({
        chargeTotal: z.number(),
        rate: z.string(),
        rooms: z.string(),
        cancelPolicy: z.string().nullable(),
        holder: z.string(),
        occupancies: z.string(),
      }),
  }),
});

/** A stored preview of `booking`, in version 2's form whichever version it was stored in. */
const previewBodyOf = (booking: BookingRecord, previewId: string, text: string): z.infer<typeof previewBodyV3> => {
  const stored = decodeStored<
    z.infer<typeof previewBodyV1> | z.infer<typeof previewBodyV2> | z.infer<typeof previewBodyV3>
  >(`booking ${booking.reference}: preview ${previewId}`, text, {
    1: previewBodyV1,
    2: previewBodyV2,
    3: previewBodyV3,
  });
  if ("v" in stored && stored.v === 3) return stored;
  // Versions 1 and 2 (kept 15 minutes across the deploy): their amounts in major units, read once into minor ones.
  const minor = (amount: number) => toMinor(amount, booking.currency);
  const amounts = {
    priceDifference: minor(stored.plan.priceDifference),
    modificationFee: minor(stored.plan.modificationFee),
    penaltyDue: minor(stored.plan.penaltyDue),
  };
  if ("v" in stored) return { v: 3, change: stored.change, plan: { ...stored.plan, ...amounts } };
  const { chargeTotal, rate, rooms, cancelPolicy, holder, occupancies, ...plain } = stored.plan.fields;
  const column = <T>(name: keyof typeof bookingJson, value: string, format: z.ZodType<T>) =>
    decodeColumn(booking.reference, `${name} of preview ${previewId}`, value, { 1: format });
  return {
    v: 3,
    change: stored.change,
    plan: {
      ...stored.plan,
      ...amounts,
      fields: {
        ...plain,
        chargeTotalMinor: minor(chargeTotal),
        rate: column("rate", rate, bookingJsonV1.rate),
        rooms: column("rooms", rooms, bookingJsonV1.rooms),
        cancelPolicy: cancelPolicy === null ? null : column("cancelPolicy", cancelPolicy, bookingJsonV1.cancelPolicy),
        holder: column("holder", holder, bookingJson.holder),
        occupancies: column("occupancies", occupancies, bookingJson.occupancies),
      },
    },
  };
};

const fieldError = (code: ErrorCode, field: string, message: string) =>
  new ApiError(code, `${field}: ${message}`, { field });

/** Only a confirmed booking, whole, before its check-in date, is changed (cancelled, pending, held, expired: 409). */
const assertModifiable = (booking: BookingRecord, now: number) => {
  if (booking.status !== "success")
    throw new ApiError("booking_not_modifiable", `Booking cannot be modified. Current status: ${booking.status}`);
  if (booking.rooms.some((room) => !isLiveRoom(room)))
    throw new ApiError(
      "booking_not_modifiable",
      "Booking cannot be modified: some of its rooms are cancelled. Cancel the rest and book again",
    );
  if (isOnOrAfterCheckIn(booking, now))
    throw new ApiError("booking_not_modifiable", "Booking cannot be modified on or after its check-in date");
};

/** One room code and one rate plan code per room of a stored booking (a single-type booking repeats its codes). */
const codesPerRoom = (booking: BookingRecord) => {
  const rooms = booking.roomCode.split(MIXED_PRODUCT_SEPARATOR);
  const plans = booking.ratePlanCode.split(MIXED_PRODUCT_SEPARATOR);
  return Array.from({ length: booking.roomCount }, (_, i) => ({
    room: rooms[Math.min(i, rooms.length - 1)]!,
    plan: plans[Math.min(i, plans.length - 1)]!,
  }));
};

/**
 * The rate plan of another room type or board with the same terms: the embedded inventory names its
 * plans `<room>-<board>-<terms>` (STD-RO-FLX), so a change keeps the terms part and swaps the others.
 */
const planFor = (plan: string, bookedRoom: string, room: string, board: string | undefined) => {
  const [bookedBoard, ...terms] = plan.slice(bookedRoom.length + 1).split("-");
  return [room, board ?? bookedBoard, ...terms].join("-");
};

/** The stay validated as a search would, each refusal naming the field of `change` it is about. */
const changedStay = (checkIn: string, checkOut: string, occupancies: StoredOccupancy[], now: number) => {
  try {
    return stayFrom(checkIn, checkOut, occupancies, now);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const field =
      error.code === "invalid_occupancy"
        ? "change.occupancies"
        : /^checkIn/.test(error.message)
          ? "change.checkIn"
          : "change.checkOut";
    throw fieldError(error.code as ErrorCode, field, error.message);
  }
};

/**
 * What cancelling a booking of this policy and selling total costs at `now`, in minor units: the
 * penalty due then (cancelPenaltyAt, as POST /api/cancel charges it); a non-refundable booking
 * cannot be cancelled, so all of it; no stored policy, nothing.
 */
const costToCancelAt = (policy: CancelPolicy | null, sellingMinor: number, now: number) =>
  !policy ? 0 : policy.refundable ? cancelPenaltyAt(policy, now) : sellingMinor;

/**
 * The fee of a change (docs/api-decisions.md, "Issue 37: penalties survive changes"), in minor
 * units: with `due` what cancelling the booking costs now and `dueAfter` what cancelling the changed
 * booking would cost now, the part of `due` the change would waive (`due - dueAfter`) and, when the
 * change lowers the price, the refund kept up to `due` (a downgrade returns only what is free to
 * cancel now). Whichever is larger; 0 outside any penalty window.
 */
const modificationFeeOf = (due: number, dueAfter: number, priceDifference: number) =>
  Math.max(0, due - dueAfter, Math.min(Math.max(0, -priceDifference), due));
/**
 * Prices a change of `booking` now with the supply pricing a new search and quote would use (the
 * booking's supplier, the connection's terms, the booking's currency): the booking it makes and the
 * amounts. Nothing is written.
 */
const planModification = async (
  deps: BookingDeps,
  connection: CoreConnection,
  booking: BookingRecord,
  change: StayChange,
  now: number,
): Promise<ModificationPlan> => {
  const supplier = await supplierOfBooking(deps, booking.supplier);
  if (!supplier.capabilities.modifications || !hasLocalWrites(supplier))
    throw new ApiError(
      "modification_not_supported",
      "This booking's supplier does not take changes: cancel it and book the new stay (nothing was changed)",
    );
  if (connection.id !== booking.connectionId)
    throw fieldError(
      "invalid_request",
      "settings.access.code",
      "this booking was made through another connection; change it through that one",
    );
  const checkIn = change.checkIn ?? booking.checkIn;
  const checkOut = change.checkOut ?? booking.checkOut;
  const occupancies: StoredOccupancy[] = change.occupancies
    ? change.occupancies.map((o, i) => ({ occupancyId: o.occupancyId ?? i + 1, paxes: o.paxes }))
    : booking.occupancies;
  const ids = occupancies.map((o) => o.occupancyId);
  if (new Set(ids).size !== ids.length)
    throw fieldError("invalid_request", "change.occupancies", "each occupancyId must be different");
  const stay = changedStay(checkIn, checkOut, occupancies, now);

  // Each room keeps its booked room type and plan (a new room the first room's) unless change.rooms says otherwise.
  const booked = codesPerRoom(booking);
  const codes = ids.map((_, i) => booked[Math.min(i, booked.length - 1)]!);
  const asked = new Set<number>();
  for (const [k, room] of (change.rooms ?? []).entries()) {
    const at = ids.indexOf(room.occupancyRefId);
    if (at < 0 || asked.has(room.occupancyRefId))
      throw fieldError(
        "invalid_request",
        `change.rooms[${k}].occupancyRefId`,
        asked.has(room.occupancyRefId)
          ? `room ${room.occupancyRefId} is named twice`
          : `no room ${room.occupancyRefId} in the changed booking (its occupancyRefIds: ${ids.join(", ")})`,
      );
    asked.add(room.occupancyRefId);
    const was = codes[at]!;
    const code = room.roomCode ?? was.room;
    codes[at] = { room: code, plan: planFor(was.plan, was.room, code, room.boardCode) };
  }
  const single = codes.every((c) => c.room === codes[0]!.room && c.plan === codes[0]!.plan);
  const ref = {
    roomCode: single ? codes[0]!.room : codes.map((c) => c.room).join(MIXED_PRODUCT_SEPARATOR),
    ratePlanCode: single ? codes[0]!.plan : codes.map((c) => c.plan).join(MIXED_PRODUCT_SEPARATOR),
  };

  const accommodation = await accommodationByCode(deps.db, booking.accommodationCode);
  if (!accommodation) throw new ApiError("accommodation_not_found", "Accommodation not found");
  const table = needsExchangeRates(supplier, booking.currency) ? await readExchangeTable(deps.db) : null;
  const terms = sellingTermsFor(connection, supplier, booking.currency, table);
  const offer = await supplier.quote(accommodation, ref, stay, now, terms);
  if (!offer || !isSellable(offer) || offer.paymentType !== booking.paymentType)
    throw fieldError(
      "room_unavailable",
      change.rooms ? "change.rooms" : "change",
      `the hotel does not sell room ${ref.roomCode} (rate plan ${ref.ratePlanCode}) for ${checkIn} to ${checkOut} with these guests`,
    );
  // An age-restricted rate (OLDER65) stays only while a guest of the changed stay is that old.
  const unmet = unmetAgeRule(
    offer.rateRules,
    occupancies.map((o) => o.paxes.map((p) => p.age)),
  );
  if (unmet)
    throw new ApiError(
      "rate_rule_not_met",
      `change.occupancies: the booked rate plan ${ref.ratePlanCode} is ${unmet.rule}, sold only to a stay with a guest aged ${unmet.minimumAge} or over: keep such a guest, or cancel and book a rate for these guests`,
      { field: "change.occupancies", rateRule: unmet.rule },
    );
  const rooms: StoredRoom[] = offerRooms(offer, ids).map((room) => ({
    occupancyRefId: room.occupancyRefId,
    code: room.code,
    description: room.description,
    rate: room.rate,
  }));
  const fields: ChangedFields = {
    checkIn,
    checkOut,
    roomCode: ref.roomCode,
    ratePlanCode: ref.ratePlanCode,
    roomCount: rooms.length,
    boardCode: offer.boardCode,
    chargeTotalMinor: offer.rate.chargeTotal,
    rate: offer.rate,
    rooms,
    cancelPolicy: offer.cancelPolicy,
    holder: change.holder ? { name: change.holder.name, surName: change.holder.surName } : booking.holder,
    occupancies,
  };
  const bookedSelling = sellingTotal(bookedRate(booking), booking.paymentType);
  const newSelling = sellingTotal(offer.rate, booking.paymentType);
  const difference = newSelling - bookedSelling;
  const due = costToCancelAt(booking.cancelPolicy, bookedSelling, now);
  const dueAfter = costToCancelAt(offer.cancelPolicy, newSelling, now);
  return {
    fields,
    priceDifference: difference,
    modificationFee: modificationFeeOf(due, dueAfter, difference),
    penaltyDue: due,
  };
};

/** The booking as a plan makes it, at `modifiedAt`. */
const changedRow = (booking: BookingRecord, plan: ModificationPlan, modifiedAt: string): BookingRecord => ({
  ...booking,
  ...plan.fields,
  modifiedAt,
  modificationFeesMinor: booking.modificationFeesMinor + plan.modificationFee,
  version: booking.version + 1,
});

const amountsOf = (booking: BookingRecord, plan: ModificationPlan) => ({
  priceDifference: { currency: booking.currency, amount: amountJson(plan.priceDifference, booking.currency) },
  modificationFee: { currency: booking.currency, amount: amountJson(plan.modificationFee, booking.currency) },
  penaltyDue: { currency: booking.currency, amount: amountJson(plan.penaltyDue, booking.currency) },
});

/** POST /api/bookings/:ref/modifications/preview: the changed booking and its amounts, kept 15 minutes for commit. */
export const previewModification = async (
  deps: BookingDeps,
  connection: CoreConnection,
  bookingReference: string,
  change: StayChange,
  now = Date.now(),
) => {
  const booking = await partnerBooking(deps.db, connection.partnerId, bookingReference);
  assertModifiable(booking, now);
  const plan = await planModification(deps, connection, booking, change, now);
  const previewId = `MP${randomToken(15).toUpperCase().replace(/[-_]/g, "Z")}`;
  const expiresAt = new Date(now + MODIFICATION_PREVIEW_MINUTES * 60_000).toISOString();
  await deps.db
    .insert(bookingModifications)
    .values({
      id: previewId,
      partnerId: connection.partnerId,
      bookingReference,
      bookingVersion: booking.version,
      expiresAt,
      body: JSON.stringify({ v: 3, change, plan }),
    })
    .run();
  return {
    previewId,
    expiresAt,
    ...amountsOf(booking, plan),
    booking: bookingView(changedRow(booking, plan, new Date(now).toISOString())),
  };
};

/** The changed fields that hold amounts, as the event writes them (wire.ts: major units). */
const amountFieldsJson = (fields: Pick<ChangedFields, "rate" | "rooms" | "cancelPolicy">) => ({
  rate: rateJson(fields.rate),
  rooms: storedRoomsJson(fields.rooms),
  cancelPolicy: fields.cancelPolicy === null ? null : policyJson(fields.cancelPolicy),
});

/**
 * What a change changed, as `booking.modified` reports it: each changed field before and after, by
 * the names and in the units of the booking read (`chargeTotal` in major units).
 */
const beforeAndAfter = (booking: BookingRecord, fields: ChangedFields) => {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  const was = { ...booking, ...amountFieldsJson(booking) };
  const is = { ...fields, ...amountFieldsJson(fields) };
  for (const key of changedFieldsSchema.keyof().options) {
    const old = was[key];
    const value = is[key];
    if (JSON.stringify(old) === JSON.stringify(value)) continue;
    if (key === "chargeTotalMinor") {
      before.chargeTotal = amountJson(booking.chargeTotalMinor, booking.currency);
      after.chargeTotal = amountJson(fields.chargeTotalMinor, booking.currency);
    } else {
      before[key] = old;
      after[key] = value;
    }
  }
  return { before, after };
};

/**
 * A policy's terms: its penalties and deadlines, except a non-refundable one's deadline, which is
 * the moment it was priced ("from booking"), so a preview and its commit never share it.
 */
const policyTerms = (policy: CancelPolicy | null) =>
  JSON.stringify(
    !policy || policy.refundable
      ? policy
      : { ...policy, cancelPenalties: policy.cancelPenalties.map(({ deadline: _, ...p }) => p) },
  );

/** Whether two plans charge the same, to the cent, for the same rooms and policy terms. */
const samePrice = (a: ModificationPlan, b: ModificationPlan) =>
  JSON.stringify(a.fields.rate) === JSON.stringify(b.fields.rate) &&
  policyTerms(a.fields.cancelPolicy) === policyTerms(b.fields.cancelPolicy) &&
  a.priceDifference === b.priceDifference &&
  a.modificationFee === b.modificationFee &&
  a.penaltyDue === b.penaltyDue;

/** 409: the preview no longer holds; `current` is what the change costs now (null: it cannot be made now). */
const outdated = (booking: BookingRecord, preview: ModificationPlan, current: ModificationPlan | null, why: string) =>
  new ApiError("modification_outdated", `${why} since the preview: preview the change again`, {
    preview: amountsOf(booking, preview),
    current: current ? amountsOf(booking, current) : null,
  });

/** The change priced again now, or null when it cannot be made any more (no room, a stay now impossible). */
const currentPlan = async (
  deps: BookingDeps,
  connection: CoreConnection,
  booking: BookingRecord,
  change: StayChange,
  now: number,
) => {
  try {
    assertModifiable(booking, now);
    return await planModification(deps, connection, booking, change, now);
  } catch (error) {
    if (error instanceof ApiError) return null;
    throw error;
  }
};

/**
 * POST /api/bookings/:ref/modifications: commits a preview exactly as previewed (its rate, its
 * amounts), in one batch: the booked rooms go back, the new ones are taken, the row changes under
 * its version. Priced again first: if the price or the booking moved since the preview, 409 with
 * the current figures; if the rooms went meanwhile (the allotment CHECK), 409 too. A preview
 * already committed answers its booking again.
 */
export const commitModification = async (
  deps: BookingDeps,
  connection: CoreConnection,
  bookingReference: string,
  previewId: string,
  now = Date.now(),
) => {
  const db = deps.db;
  for (let attempt = 1; attempt <= CHANGE_ATTEMPTS; attempt++) {
    const booking = await partnerBooking(db, connection.partnerId, bookingReference);
    const preview = await db
      .select()
      .from(bookingModifications)
      .where(
        and(
          eq(bookingModifications.id, previewId),
          eq(bookingModifications.partnerId, connection.partnerId),
          eq(bookingModifications.bookingReference, bookingReference),
        ),
      )
      .get();
    if (!preview)
      throw new ApiError("modification_preview_not_found", `No preview ${previewId} of booking ${bookingReference}`);
    const { change, plan } = previewBodyOf(booking, previewId, preview.body);
    const answer = (row: BookingRecord, modifiedAt: string) => ({
      previewId,
      modifiedAt,
      ...amountsOf(row, plan),
      booking: bookingView(row),
    });
    if (preview.committedAt !== null) return answer(booking, preview.committedAt);
    if (Date.parse(preview.expiresAt) <= now)
      throw new ApiError(
        "modification_preview_expired",
        `The preview expired at ${preview.expiresAt}: preview the change again`,
        { expiresAt: preview.expiresAt },
      );
    assertModifiable(booking, now);
    const current = await currentPlan(deps, connection, booking, change, now);
    if (booking.version !== preview.bookingVersion) throw outdated(booking, plan, current, "The booking changed");
    if (!current) throw outdated(booking, plan, null, "Availability changed");
    if (!samePrice(plan, current)) throw outdated(booking, plan, current, "The price changed");

    const supplier = await supplierOfBooking(deps, booking.supplier);
    // planModification refused any other supplier.
    if (!hasLocalWrites(supplier)) throw new Error(`${supplier.name} takes no changes`);
    const accommodation = (await accommodationByCode(db, booking.accommodationCode))!;
    const stay = changedStay(plan.fields.checkIn, plan.fields.checkOut, plan.fields.occupancies, now);
    const taking = await supplier.localWrites
      .bookWrites(
        accommodation,
        { roomCode: plan.fields.roomCode, ratePlanCode: plan.fields.ratePlanCode },
        stay,
        atVersion(db, booking),
      )
      .catch(() => null);
    if (!taking) throw outdated(booking, plan, null, "Availability changed");
    const modifiedAt = new Date(now).toISOString();
    const after = changedRow(booking, plan, modifiedAt);
    const bookedCodes = booking.rooms.map((room) => room.code);
    const release = (guard: Parameters<typeof supplier.localWrites.cancelWrites>[1]) =>
      supplier.localWrites.cancelWrites(bookedStayOf(booking), guard, bookedCodes.length > 0 ? bookedCodes : undefined);
    const logged = logBookingChange(db, "booking.modified", after, now, {
      ...beforeAndAfter(booking, plan.fields),
      ...amountsOf(booking, plan),
    });
    let applied: boolean;
    try {
      applied = await applyChange(
        db,
        withEvent(
          stayChangedWrites(
            db,
            booking,
            previewId,
            bookingColumns({ ...plan.fields, modifiedAt, modificationFeesMinor: after.modificationFeesMinor }),
            release,
            taking.writes,
          ),
          logged.writes,
        ),
      );
    } catch (error) {
      // The last room of a night went to another booking meanwhile: nothing was written.
      if (isCheckViolation(error)) throw outdated(booking, plan, null, "Availability changed");
      throw error;
    }
    // Another change of this booking landed first: read again (this preview committed by a parallel
    // retry answers as committed; any other change makes it outdated).
    if (!applied) continue;
    await logged.announce(deps);
    return answer(after, modifiedAt);
  }
  throw bookingKeptChanging();
};

/** POST /api/bookings/:ref/modifications under an optional Idempotency-Key (scope `modify`). */
export const commitModificationOnce = (
  deps: BookingDeps,
  connection: CoreConnection,
  bookingReference: string,
  previewId: string,
  idempotency: { key: string | undefined; request: unknown },
) =>
  withIdempotency(
    deps.db,
    {
      scope: "modify",
      partnerId: connection.partnerId,
      key: idempotency.key,
      request: [bookingReference, idempotency.request],
    },
    async () => ({
      status: 200,
      body: success(await commitModification(deps, connection, bookingReference, previewId)),
    }),
  );

/** Previews are kept a day past their end, so a late retry of a commit still answers that change. */
export const MODIFICATION_PREVIEW_RETENTION_MS = 24 * 60 * 60_000;

/** Upkeep: previews more than a day past their end go. */
export const expiredModificationPreviews = {
  name: "expired-modification-previews",
  run: async (env: Env, now: Date): Promise<number> => {
    const before = new Date(now.getTime() - MODIFICATION_PREVIEW_RETENTION_MS).toISOString();
    const result = await database(env.DB)
      .delete(bookingModifications)
      .where(lte(bookingModifications.expiresAt, before))
      .run();
    return result.meta.changes;
  },
};
