import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, OTHER_KEY, post } from "../../../test/support/api";
import { bookBody, cancelBody, connectionByCode, quoteBody, quoteOf, searchOne } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { OPERATOR } from "../../../test/support/sessions";
import { addDays } from "../../platform/time/zoned-time";
import { toMinor } from "../../platform/money";
import { catalogueFor } from "../supply/catalogue";
import type { Db } from "../../platform/db/client";
import { newEvent } from "../webhooks";
import { bookingEvents, type ChangedBooking, logBookingChange } from "./booking-events";
import { cancelBooking } from "./cancel";
import { bookingDeps } from "./deps";
import { expiredHoldsTask } from "./hold";
import type { HoldExpiry } from "./hold-expiry";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 16 });
});

const TWO_ADULTS = { paxes: [{ age: 30 }, { age: 30 }] };
const cents = (amount: number) => Math.round(amount * 100);

let references = 0;
/** Books `rooms` alike rooms of one room type at `code`, 40 days out (a refundable rate unless said). */
const bookRooms = async (
  code: string,
  rooms: number,
  extra: { refundable?: boolean; hold?: boolean; holdMinutes?: number } = {},
) => {
  const searched = await searchOne(code, {
    checkIn: inDays(40),
    occupancies: Array.from({ length: rooms }, () => TWO_ADULTS),
    pick: (o) => o.isRefundable === (extra.refundable ?? true) && o.paymentType === "MerchantPay",
  });
  const quote = await quoteOf(searched);
  const hold = extra.hold ? { hold: true, ...(extra.holdMinutes ? { holdMinutes: extra.holdMinutes } : {}) } : {};
  const res = await post("/api/book", bookBody(quote, `life-${++references}`, hold));
  expect(res.status, res.text).toBe(200);
  return { booking: res.json.data, quote, roomCode: quote.rooms[0].code as string };
};

/** Rooms of `roomCode` left on each night of the quoted stay, as the operator's inventory shows them. */
const available = async (
  quote: { accommodation: { accommodationCode: string }; checkIn: string; checkOut: string },
  roomCode: string,
) => {
  const code = quote.accommodation.accommodationCode;
  const res = await call(
    "GET",
    `/api/inventory/${code}?from=${quote.checkIn}&to=${addDays(quote.checkOut, -1)}`,
    undefined,
    OPERATOR,
  );
  expect(res.status).toBe(200);
  return res.json.data.rooms.find((r: any) => r.code === roomCode).nights.map((n: any) => n.available) as number[];
};

const cancel = (reference: string, rooms?: unknown, headers?: Record<string, string>) =>
  post(
    "/api/cancel",
    { ...cancelBody(reference), input: { reference: { bookingReference: reference }, ...(rooms ? { rooms } : {}) } },
    { headers },
  );
const read = async (reference: string) => (await call("GET", `/api/bookings/${reference}`)).json.data;
const preview = (reference: string, query: string) => call("GET", `/api/bookings/${reference}/cancellation?${query}`);
const commit = (reference: string, headers?: Record<string, string>) =>
  post(`/api/bookings/${reference}/commit`, { settings: { access: { code: 1001 } } }, { headers });

/** The rate of the rooms given, summed here in cents: what the booking left must show exactly. */
const summed = (rates: any[]) => ({
  baseRate: rates.reduce((s, r) => s + cents(r.baseRate), 0) / 100,
  taxesAndFees: rates.reduce((s, r) => s + cents(r.taxesAndFees), 0) / 100,
  chargeTotal: rates.reduce((s, r) => s + cents(r.chargeTotal), 0) / 100,
  totalStayPrice: rates.reduce((s, r) => s + cents(r.totalStayPrice), 0) / 100,
  nights: rates[0].nights.map((night: any, n: number) => ({
    date: night.date,
    baseRate: rates.reduce((s, r) => s + cents(r.nights[n].baseRate), 0) / 100,
    taxesAndFees: rates.reduce((s, r) => s + cents(r.nights[n].taxesAndFees), 0) / 100,
  })),
  charges: rates[0].charges.map((charge: any) => ({
    ...charge,
    amount: rates.reduce((s, r) => s + cents(r.charges.find((c: any) => c.code === charge.code).amount), 0) / 100,
  })),
});

describe("cancel one room (input.rooms)", () => {
  it("gives back only that room's nights; the rest keeps its rooms' own prices, summed to the cent", async () => {
    const { booking, quote, roomCode } = await bookRooms("US000001", 3);
    const before = await available(quote, roomCode);
    const res = await cancel(booking.bookingReference, [2]);
    expect(res.status, res.text).toBe(200);
    const data = res.json.data;
    expect(data).toMatchObject({
      status: "cancelled",
      rooms: [2],
      // Forty days out: before any penalty; what room 2 was charged comes back.
      bookPrice: { currency: "USD", amount: quote.rooms[1].rate.chargeTotal },
      cancelPrice: { currency: "USD", amount: 0 },
    });
    // One room a night, no more, no less.
    expect(await available(quote, roomCode)).toEqual(before.map((n) => n + 1));
    const left = data.booking;
    expect(left.status).toBe("success");
    expect(left.rooms.map((r: any) => [r.occupancyRefId, r.status])).toEqual([
      [1, "success"],
      [2, "cancelled"],
      [3, "success"],
    ]);
    expect(left.rooms[1]).toMatchObject({ cancelledAt: data.cancelledAt, cancelPrice: { currency: "USD", amount: 0 } });
    // Rooms 1 and 3 keep the rates they were booked at; the booking is exactly their sum.
    expect(left.rooms[0].rate).toEqual(quote.rooms[0].rate);
    expect(left.rooms[2].rate).toEqual(quote.rooms[2].rate);
    expect(left.rate).toMatchObject(summed([quote.rooms[0].rate, quote.rooms[2].rate]));
    expect(left.chargeTotal).toBe(left.rate.chargeTotal);
    expect(left.cancelledAt).toBeNull();
    // The booking read says the same.
    expect(await read(booking.bookingReference)).toEqual(left);

    // The rest cancelled whole: the two rooms left come back, the booking is cancelled, every room with it.
    const rest = await cancel(booking.bookingReference);
    expect(rest.status, rest.text).toBe(200);
    expect(rest.json.data).toMatchObject({ rooms: [1, 3], bookPrice: { amount: left.chargeTotal } });
    expect(await available(quote, roomCode)).toEqual(before.map((n) => n + 3));
    const cancelled = await read(booking.bookingReference);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.rooms.map((r: any) => r.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    // Cancelled room by room, the booking reads what all its rooms were charged, as one cancelled whole
    // at once does, not what its last rooms were (issue 37).
    expect(cancelled.chargeTotal).toBe(booking.chargeTotal);
    expect(cancelled.rate).toMatchObject(summed(quote.rooms.map((r: any) => r.rate)));
    expect(rest.json.data.booking).toEqual(cancelled);
    expect((await cancel(booking.bookingReference, [1])).json.message).toBe(
      "Booking cannot be cancelled. Current status: cancelled",
    );
  });

  it("naming every room is the whole-booking cancel", async () => {
    const { booking, quote, roomCode } = await bookRooms("US000002", 2);
    const before = await available(quote, roomCode);
    const res = await cancel(booking.bookingReference, [2, 1]);
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({
      status: "cancelled",
      bookPrice: { amount: booking.chargeTotal },
      booking: { status: "cancelled", chargeTotal: booking.chargeTotal, rate: quote.rate },
    });
    expect(await available(quote, roomCode)).toEqual(before.map((n) => n + 2));
  });

  it("the preview of some rooms is what cancelling them charges, to the cent; rooms cancelled one by one cost the booking's penalty", async () => {
    const { booking, quote } = await bookRooms("US000003", 3);
    const penalty = quote.cancelPolicy.cancelPenalties[0];
    const at = Date.parse(penalty.deadline) + 60_000;
    const iso = new Date(at).toISOString();
    const deps = bookingDeps(env);

    const first = (await preview(booking.bookingReference, `rooms=1,3&at=${encodeURIComponent(iso)}`)).json.data;
    expect(first).toMatchObject({ rooms: [1, 3], cancellable: true, currency: "USD" });
    expect(first.cancelPrice).toBeGreaterThan(0);
    const cancelled = await cancelBooking(deps, "demo", booking.bookingReference, at, { rooms: [1, 3] });
    expect(cancelled.cancelPrice).toEqual({ currency: "USD", amount: first.cancelPrice });
    expect(cancelled.booking.rate).toEqual(first.remainingRate);
    expect(cancelled.booking.rate).toEqual(quote.rooms[1].rate);

    const last = (await preview(booking.bookingReference, `rooms=2&at=${encodeURIComponent(iso)}`)).json.data;
    expect(last).toMatchObject({ rooms: [2], remainingRate: null });
    const rest = await cancelBooking(deps, "demo", booking.bookingReference, at);
    expect(rest.cancelPrice.amount).toBe(last.cancelPrice);
    // Together the rooms cost what cancelling the booking whole at that moment costs: the policy's penalty.
    expect(cents(first.cancelPrice) + cents(last.cancelPrice)).toBe(cents(penalty.value));
    const read2 = await read(booking.bookingReference);
    expect(read2.cancelPrice).toEqual({ currency: "USD", amount: penalty.value });
    expect(read2.rooms.map((r: any) => cents(r.cancelPrice.amount)).reduce((a: number, b: number) => a + b)).toBe(
      cents(penalty.value),
    );
  });

  it("parallel cancels of different rooms of one booking all land, each on what the others left", async () => {
    const { booking, quote, roomCode } = await bookRooms("US000004", 4);
    const before = await available(quote, roomCode);
    const results = await Promise.all([[1], [2], [4]].map((rooms) => cancel(booking.bookingReference, rooms)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await available(quote, roomCode)).toEqual(before.map((n) => n + 3));
    const left = await read(booking.bookingReference);
    expect(left.rooms.map((r: any) => r.status)).toEqual(["cancelled", "cancelled", "success", "cancelled"]);
    expect(left.rate).toEqual(quote.rooms[2].rate);
    expect(left.chargeTotal).toBe(quote.rooms[2].rate.chargeTotal);
  });

  it("parallel identical cancels give the room back once: one cancels, the others are told it is cancelled already", async () => {
    const { booking, quote, roomCode } = await bookRooms("US000005", 2);
    const before = await available(quote, roomCode);
    const results = await Promise.all(Array.from({ length: 6 }, () => cancel(booking.bookingReference, [1])));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(409);
      expect(r.json).toMatchObject({
        code: "room_already_cancelled",
        message: "Room 1 of this booking is already cancelled",
      });
    }
    expect(await available(quote, roomCode)).toEqual(before.map((n) => n + 1));
    // Under one Idempotency-Key the first answer is replayed, and nothing more is given back.
    const keyed = await Promise.all(
      Array.from({ length: 3 }, () => cancel(booking.bookingReference, [2], { "idempotency-key": "room-2" })),
    );
    const answered = keyed.filter((r) => r.status === 200);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const r of keyed) expect([200, 409]).toContain(r.status);
    expect(new Set(answered.map((r) => r.json.data.cancelledAt)).size).toBe(1);
    expect(await available(quote, roomCode)).toEqual(before.map((n) => n + 2));
  });

  it("a room of a mixed booking gives back its own room type, by the partner's occupancy id", async () => {
    const { results } = await env.DB.prepare("select code, star_rating from accommodations order by code").all<{
      code: string;
      star_rating: number;
    }>();
    const code = results.find((a) => catalogueFor(a.code, a.star_rating).rooms.some((r) => r.code === "FAM"))!.code;
    const searched = await searchOne(code, {
      checkIn: inDays(45),
      occupancies: [
        { occupancyId: 7, paxes: [{ age: 30 }, { age: 31 }] },
        { occupancyId: 3, paxes: [{ age: 40 }, { age: 41 }, { age: 42 }, { age: 43 }] },
      ],
      pick: (o) => o.isRefundable && new Set(o.rooms.map((r: any) => r.code)).size > 1,
    });
    const quote = await quoteOf(searched);
    const [couple, family] = quote.rooms;
    expect([couple.occupancyRefId, family.occupancyRefId, family.code]).toEqual([7, 3, "FAM"]);
    const booked = await post("/api/book", bookBody(quote, `life-${++references}`));
    expect(booked.status, booked.text).toBe(200);
    const [coupleBefore, familyBefore] = [await available(quote, couple.code), await available(quote, "FAM")];
    const res = await cancel(booked.json.data.bookingReference, [3]);
    expect(res.status, res.text).toBe(200);
    expect(await available(quote, "FAM")).toEqual(familyBefore.map((n) => n + 1));
    expect(await available(quote, couple.code)).toEqual(coupleBefore);
    expect(res.json.data.booking.rate).toEqual(couple.rate);
    // The rest cancelled: the couple's room type, not a second family room.
    expect((await cancel(booked.json.data.bookingReference)).status).toBe(200);
    expect(await available(quote, "FAM")).toEqual(familyBefore.map((n) => n + 1));
    expect(await available(quote, couple.code)).toEqual(coupleBefore.map((n) => n + 1));
  });

  it("a room the booking does not have is 400 naming the field; one cancelled already 409", async () => {
    const { booking } = await bookRooms("US000006", 2);
    const ref = booking.bookingReference;
    const missing = await cancel(ref, [7]);
    expect([missing.status, missing.json.code, missing.json.message]).toEqual([
      400,
      "room_not_found",
      "input.rooms: no room 7 in this booking (its occupancyRefIds: 1, 2)",
    ]);
    for (const rooms of [[], ["2"], [1, 1], [0]]) {
      const bad = await cancel(ref, rooms);
      expect([bad.status, bad.json.code]).toEqual([400, "invalid_request"]);
      expect(bad.json.message).toMatch(/^input\.rooms/);
    }
    const badQuery = await preview(ref, "rooms=one");
    expect([badQuery.status, badQuery.json.message]).toEqual([
      400,
      "rooms: expected occupancyRefIds separated by commas, e.g. 1,2",
    ]);
    expect((await preview(ref, "rooms=3")).json.message).toBe(
      "rooms: no room 3 in this booking (its occupancyRefIds: 1, 2)",
    );
    expect((await cancel(ref, [2])).status).toBe(200);
    const again = await cancel(ref, [2]);
    expect([again.status, again.json.code]).toEqual([409, "room_already_cancelled"]);
    expect((await preview(ref, "rooms=2")).status).toBe(409);
    // Nothing of that changed the booking: room 1 is still booked.
    expect((await read(ref)).rooms.map((r: any) => r.status)).toEqual(["success", "cancelled"]);
  });
});

describe("hold, then commit (bookCriteria.hold)", () => {
  const alarmOf = (reference: string) =>
    runInDurableObject(env.HOLD_EXPIRY.getByName(reference), (_: HoldExpiry, state) => state.storage.getAlarm());

  it("takes the rooms and charges nothing; commit makes it success at the held price, whatever the price is by then", async () => {
    const started = Date.now();
    const { booking, quote, roomCode } = await bookRooms("US000007", 2, { hold: true, holdMinutes: 10 });
    expect(booking).toMatchObject({ status: "held", chargeTotal: 0, rate: quote.rate });
    const expiresAt = Date.parse(booking.holdExpiresAt);
    expect(expiresAt - started).toBeGreaterThanOrEqual(10 * 60_000 - 5_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(10 * 60_000);
    // The rooms are taken now; their alarm is set at the hold's end, not an hourly run.
    const held = await available(quote, roomCode);
    expect(await alarmOf(booking.bookingReference)).toBe(expiresAt);
    expect(await read(booking.bookingReference)).toMatchObject({
      status: "held",
      chargeTotal: 0,
      holdExpiresAt: booking.holdExpiresAt,
      rooms: [{ status: "held" }, { status: "held" }],
    });

    // The hotel raises its price meanwhile: the hold keeps its own.
    const code = quote.accommodation.accommodationCode;
    const raised = await call(
      "PUT",
      `/api/inventory/${code}/rooms/${roomCode}`,
      { from: quote.checkIn, to: addDays(quote.checkOut, -1), price: 990 },
      OPERATOR,
    );
    expect(raised.status).toBe(200);
    const committed = await commit(booking.bookingReference, { "idempotency-key": "commit-1" });
    expect(committed.status, committed.text).toBe(200);
    expect(committed.json.data).toMatchObject({
      bookingReference: booking.bookingReference,
      status: "success",
      chargeTotal: quote.rate.chargeTotal,
      rate: quote.rate,
    });
    expect(committed.json.data.holdExpiresAt).toBeUndefined();
    expect(await available(quote, roomCode)).toEqual(held);
    const replay = await commit(booking.bookingReference, { "idempotency-key": "commit-1" });
    expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    // Without a key a second commit answers the committed booking again; nothing is charged twice.
    const again = await commit(booking.bookingReference);
    expect(again.json.data).toMatchObject({ status: "success", chargeTotal: quote.rate.chargeTotal });
    // Its alarm, when it comes, leaves a committed booking alone.
    expect(await runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(booking.bookingReference))).toBe(true);
    expect(await read(booking.bookingReference)).toMatchObject({
      status: "success",
      chargeTotal: quote.rate.chargeTotal,
    });
    expect(await available(quote, roomCode)).toEqual(held);
  });

  it("parallel commits of one hold make one success", async () => {
    const { booking, quote } = await bookRooms("US000008", 1, { hold: true });
    expect(Date.parse(booking.holdExpiresAt) - Date.now()).toBeGreaterThan(14 * 60_000);
    const results = await Promise.all(Array.from({ length: 8 }, () => commit(booking.bookingReference)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    for (const r of results)
      expect(r.json.data).toMatchObject({ status: "success", chargeTotal: quote.rate.chargeTotal });
    const row = await env.DB.prepare("select version, charge_total from bookings where reference = ?")
      .bind(booking.bookingReference)
      .first();
    // Booked (1), committed once (2).
    // Stored in minor units (cents).
    expect(row).toEqual({ version: 2, charge_total: toMinor(quote.rate.chargeTotal, quote.rate.currency) });
  });

  it("a hold is committed only through the connection that made it (issue 37)", async () => {
    const { booking } = await bookRooms("US000011", 1, { hold: true });
    const other = await post(`/api/bookings/${booking.bookingReference}/commit`, {
      settings: { access: { code: 1002 } },
    });
    expect([other.status, other.json.code, other.json.message]).toEqual([
      404,
      "booking_not_found",
      `Booking not found with bookingReference: ${booking.bookingReference} through connection 1002`,
    ]);
    expect((await read(booking.bookingReference)).status).toBe("held");
    const own = await commit(booking.bookingReference);
    expect([own.status, own.json.data.status]).toEqual([200, "success"]);
    // Committed, it is still not answered through the other connection.
    const again = await post(`/api/bookings/${booking.bookingReference}/commit`, {
      settings: { access: { code: 1002 } },
    });
    expect(again.status).toBe(404);
  });

  it("at its end the alarm gives the rooms back, and an expired hold cannot be committed", async () => {
    const { booking, quote, roomCode } = await bookRooms("US000009", 2, { hold: true, holdMinutes: 1 });
    const held = await available(quote, roomCode);
    const stub = env.HOLD_EXPIRY.getByName(booking.bookingReference);
    expect(await alarmOf(booking.bookingReference)).toBe(Date.parse(booking.holdExpiresAt));
    // The alarm as the platform runs it at the hold's end.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await available(quote, roomCode)).toEqual(held.map((n) => n + 2));
    const expired = await read(booking.bookingReference);
    expect(expired).toMatchObject({
      status: "expired",
      chargeTotal: 0,
      rooms: [{ status: "expired" }, { status: "expired" }],
    });
    // Nothing left behind in the object.
    expect(await runInDurableObject(stub, (_: HoldExpiry, state) => state.storage.get("hold"))).toBeUndefined();

    const late = await commit(booking.bookingReference);
    expect([late.status, late.json.code, late.json.message]).toEqual([
      409,
      "hold_expired",
      `The hold expired at ${booking.holdExpiresAt}: its rooms were given back. Book again`,
    ]);
    const released = await cancel(booking.bookingReference);
    expect([released.status, released.json.message]).toEqual([
      400,
      "Booking cannot be cancelled. Current status: expired",
    ]);
    expect(await available(quote, roomCode)).toEqual(held.map((n) => n + 2));
  });

  it("a hold past its end is not committed even before its alarm ran", async () => {
    const { booking } = await bookRooms("US000010", 1, { hold: true, holdMinutes: 1 });
    const { commitHold } = await import("./hold");
    const after = Date.parse(booking.holdExpiresAt) + 1;
    await expect(
      commitHold(
        bookingDeps(env),
        await connectionByCode(),
        booking.bookingReference,
        { requestId: "t", startedAt: after },
        {},
        after,
      ),
    ).rejects.toMatchObject({ code: "hold_expired" });
    expect((await read(booking.bookingReference)).status).toBe("held");
    expect((await cancel(booking.bookingReference)).status).toBe(200);
  });

  it("a cancel releases a hold with no penalty; a partial one keeps the rest held at its rooms' prices", async () => {
    const { booking, quote, roomCode } = await bookRooms("US000011", 3, { hold: true });
    const held = await available(quote, roomCode);
    const one = await cancel(booking.bookingReference, [3]);
    expect(one.status, one.text).toBe(200);
    expect(one.json.data).toMatchObject({
      bookPrice: { amount: 0 },
      cancelPrice: { amount: 0 },
      booking: { status: "held", chargeTotal: 0, holdExpiresAt: booking.holdExpiresAt },
    });
    expect(one.json.data.booking.rate).toMatchObject(summed([quote.rooms[0].rate, quote.rooms[1].rate]));
    expect(await available(quote, roomCode)).toEqual(held.map((n) => n + 1));
    // A commit now charges the two rooms left, at their held prices.
    const committed = await commit(booking.bookingReference);
    expect(committed.json.data.chargeTotal).toBe(one.json.data.booking.rate.chargeTotal);

    const other = await bookRooms("US000011", 1, { hold: true });
    const free = (await preview(other.booking.bookingReference, "")).json.data;
    expect(free).toMatchObject({ cancelPrice: 0, cancellable: true });
    const released = await cancel(other.booking.bookingReference);
    expect(released.json.data).toMatchObject({ cancelPrice: { amount: 0 }, booking: { status: "cancelled" } });
    const late = await commit(other.booking.bookingReference);
    expect([late.status, late.json.code]).toEqual([409, "booking_not_held"]);
  });

  it("upkeep ends a hold whose alarm never ran", async () => {
    const { booking, quote, roomCode } = await bookRooms("US000012", 1, { hold: true, holdMinutes: 1 });
    const held = await available(quote, roomCode);
    const end = Date.parse(booking.holdExpiresAt);
    // Within the minute the alarm owns it; after that upkeep does.
    expect(await expiredHoldsTask.run(env, new Date(end + 30_000))).toBe(0);
    expect(await expiredHoldsTask.run(env, new Date(end + 61_000))).toBe(1);
    expect((await read(booking.bookingReference)).status).toBe("expired");
    expect(await available(quote, roomCode)).toEqual(held.map((n) => n + 1));
    // The late alarm finds nothing to do.
    expect(await runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(booking.bookingReference))).toBe(true);
    expect(await available(quote, roomCode)).toEqual(held.map((n) => n + 1));
  });

  it("holdMinutes is 1 to 30 and only with hold; a booking that is not a hold cannot be committed", async () => {
    const quote = await quoteOf(await searchOne("US000013", { checkIn: inDays(40) }));
    for (const [extra, message] of [
      [{ hold: true, holdMinutes: 31 }, "bookCriteria.holdMinutes: Too big: expected number to be <=30"],
      [{ hold: true, holdMinutes: 0 }, "bookCriteria.holdMinutes: Too small: expected number to be >=1"],
      [{ hold: true, holdMinutes: 1.5 }, "bookCriteria.holdMinutes: expected a whole number of minutes"],
      [{ holdMinutes: 5 }, "bookCriteria.holdMinutes: holdMinutes is for a hold: send it with hold: true"],
      [{ hold: "yes" }, "bookCriteria.hold: Invalid input: expected boolean, received string"],
    ] as const) {
      const res = await post("/api/book", bookBody(quote, `hold-bad-${++references}`, extra));
      expect([res.status, res.json.message]).toEqual([400, message]);
    }
    const plain = await post("/api/book", bookBody(quote, `life-${++references}`));
    expect(plain.json.data.holdExpiresAt).toBeUndefined();
    const res = await commit(plain.json.data.bookingReference);
    expect([res.status, res.json.code, res.json.message]).toEqual([
      409,
      "booking_not_held",
      "Booking is not held. Current status: success",
    ]);
    expect((await post(`/api/bookings/BKNOSUCHBOOKING/commit`, { settings: { access: { code: 1001 } } })).status).toBe(
      404,
    );
  });
});

describe("every change of a booking's life is one event of the partner's log (issue 28 item 5)", () => {
  /** The types the log holds for one booking, oldest first, and the events themselves. */
  const logOf = async (reference: string) => {
    const res = await call("GET", "/api/events?limit=500");
    expect(res.status, res.text).toBe(200);
    const mine = res.json.data.events.filter((e: any) => e.bookingReference === reference);
    return { types: mine.map((e: any) => e.type), events: mine };
  };

  it("a room cancelled, then the rest; a hold committed; a hold expired by its alarm", async () => {
    const rooms = (await bookRooms("US000010", 2)).booking;
    expect((await cancel(rooms.bookingReference, [1])).status).toBe(200);
    expect((await cancel(rooms.bookingReference)).status).toBe(200);
    const roomLog = await logOf(rooms.bookingReference);
    expect(roomLog.types).toEqual(["booking.confirmed", "booking.room_cancelled", "booking.cancelled"]);
    expect(roomLog.events[1].data).toMatchObject({ status: "success", rooms: [1] });
    expect(typeof roomLog.events[1].data.roomsCancelPrice).toBe("number");

    const held = (await bookRooms("US000010", 1, { hold: true })).booking;
    expect((await commit(held.bookingReference)).status).toBe(200);
    const heldLog = await logOf(held.bookingReference);
    expect(heldLog.types).toEqual(["booking.held", "booking.committed"]);
    expect(heldLog.events.map((e: any) => e.data.status)).toEqual(["held", "success"]);

    const lapsing = (await bookRooms("US000010", 1, { hold: true, holdMinutes: 1 })).booking;
    expect(await runDurableObjectAlarm(env.HOLD_EXPIRY.getByName(lapsing.bookingReference))).toBe(true);
    expect((await logOf(lapsing.bookingReference)).types).toEqual(["booking.held", "booking.hold_expired"]);
  });
});

const roomsCancelled = bookingEvents["booking.room_cancelled"];

describe("the booking event catalogue: every event declared once, its payload checked when it is made (issue 38 item 5)", () => {
  it.each(Object.entries(bookingEvents))(
    "%s: its example is its declared payload, and it says what it means",
    (_, declared) => {
      expect(declared.payload.safeParse(declared.example).error).toBeUndefined();
      expect(declared.description).toMatch(/\.$/);
    },
  );

  it("refuses an event whose data is off its schema, naming the type and the field, before anything is written", () => {
    const event = (data: typeof roomsCancelled.example) =>
      newEvent(
        bookingEvents,
        { type: "booking.room_cancelled", partnerId: "demo", bookingReference: "BK1", partnerReference: "P1", data },
        0,
      );
    expect(event(roomsCancelled.example).data).toEqual(roomsCancelled.example);
    // What the types let through and the documented schema does not: a NaN amount, a date off the calendar.
    expect(() => event({ ...roomsCancelled.example, roomsCancelPrice: Number.NaN })).toThrow(
      /^Event booking\.room_cancelled: data does not match its declared schema \(roomsCancelPrice: /,
    );
    expect(() => event({ ...roomsCancelled.example, checkIn: "2027-02-30" })).toThrow(/\(checkIn: /);
  });

  it("types each emit by its entry: a missing, extra or wrong payload does not compile (tsc checks the lines below)", () => {
    const emits = (db: Db, row: ChangedBooking) => [
      logBookingChange(db, "booking.room_cancelled", row, 0, { rooms: [2], roomsCancelPrice: 0 }),
      logBookingChange(db, "booking.confirmed", row, 0),
      // @ts-expect-error booking.room_cancelled reports the rooms cancelled
      logBookingChange(db, "booking.room_cancelled", row, 0),
      // @ts-expect-error booking.confirmed reports the booking alone
      logBookingChange(db, "booking.confirmed", row, 0, { rooms: [2] }),
      // @ts-expect-error rooms are occupancyRefIds, numbers
      logBookingChange(db, "booking.room_cancelled", row, 0, { rooms: ["2"], roomsCancelPrice: 0 }),
      // @ts-expect-error booking.modified reports its amounts too
      logBookingChange(db, "booking.modified", row, 0, { before: {}, after: {} }),
      // @ts-expect-error not an event of the catalogue
      logBookingChange(db, "booking.renamed", row, 0),
    ];
    expect(emits).toBeTypeOf("function");
  });
});

describe("fair holds: limits per partner, a share of each night, shorter holds far ahead (issue 37)", () => {
  const LIMITS = "/api/operator/hold-limits";
  const DEFAULTS = {
    maxHoldsPerPartner: 20,
    maxHeldRoomNightsPerPartner: 200,
    maxSharePercent: 50,
    shortHoldAfterDays: 60,
    shortHoldMaxMinutes: 10,
    noHoldAfterDays: 180,
  };
  const setLimits = async (limits: Partial<typeof DEFAULTS>) => {
    const res = await call("PUT", LIMITS, { ...DEFAULTS, ...limits }, OPERATOR);
    expect(res.status, res.text).toBe(200);
  };
  const partnerHolds = (partnerId: string) =>
    env.DB.prepare("select holds, room_nights as roomNights from partner_holds where partner_id = ?")
      .bind(partnerId)
      .first();
  /** Sets a room type's allotment for the nights of a stay (operator's inventory route). */
  const setAllotment = async (code: string, roomCode: string, checkIn: string, checkOut: string, allotment: number) => {
    const res = await call(
      "PUT",
      `/api/inventory/${code}/rooms/${roomCode}`,
      { from: checkIn, to: addDays(checkOut, -1), allotment },
      OPERATOR,
    );
    expect(res.status, res.text).toBe(200);
  };
  /** `count` quotes of one searched option, each for one hold of the partner behind `apiKey`. */
  const quotesOf = async (
    searched: Awaited<ReturnType<typeof searchOne>>,
    count: number,
    connection = 1001,
    apiKey?: string,
  ) =>
    Promise.all(
      Array.from({ length: count }, async () => {
        const body = quoteBody(searched, {}, connection);
        const res = await post("/api/quote", body, { apiKey });
        expect(res.status, res.text).toBe(200);
        return res.json.data;
      }),
    );
  const holdAll = (quotes: any[], prefix: string, connection = 1001, apiKey?: string) =>
    Promise.all(
      quotes.map((quote, i) =>
        post("/api/book", bookBody(quote, `${prefix}-${i}`, { hold: true }, connection), { apiKey }),
      ),
    );

  it("the operator reads the defaults, sets every limit at once, and bad input or no operator token is refused", async () => {
    const first = await call("GET", LIMITS, undefined, OPERATOR);
    expect([first.status, first.json.data]).toEqual([200, { ...DEFAULTS, updatedAt: null }]);
    const set = await call("PUT", LIMITS, { ...DEFAULTS, maxHoldsPerPartner: 7, maxSharePercent: 40 }, OPERATOR);
    expect(set.status, set.text).toBe(200);
    expect(set.json.data).toMatchObject({
      maxHoldsPerPartner: 7,
      maxSharePercent: 40,
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect((await call("GET", LIMITS, undefined, OPERATOR)).json.data).toEqual(set.json.data);
    for (const [body, message] of [
      [{ ...DEFAULTS, maxSharePercent: 101 }, "maxSharePercent: Too big: expected number to be <=100"],
      [{ ...DEFAULTS, maxHoldsPerPartner: 2.5 }, "maxHoldsPerPartner: expected a whole number"],
      [
        { ...DEFAULTS, shortHoldAfterDays: 200 },
        "shortHoldAfterDays: shortHoldAfterDays must not be more than noHoldAfterDays",
      ],
      [{ ...DEFAULTS, maxHolds: 3 }, "Unknown field: maxHolds"],
      [{ maxSharePercent: 50 }, "maxHoldsPerPartner is required"],
    ] as const) {
      const res = await call("PUT", LIMITS, body, OPERATOR);
      expect([res.status, res.json.code, res.json.message]).toEqual([400, "invalid_request", message]);
    }
    expect((await call("PUT", LIMITS, DEFAULTS)).status).toBe(401);
    expect(
      (
        await call("GET", LIMITS, undefined, {
          apiKey: null,
          headers: { authorization: "Bearer not-the-operator-token" },
        })
      ).status,
    ).toBe(403);
    // Nothing refused changed them.
    expect((await call("GET", LIMITS, undefined, OPERATOR)).json.data).toEqual(set.json.data);
    await setLimits(DEFAULTS);
  });

  it("50 parallel holds by one partner never pass its live-hold limit; a hold given back makes room for another", async () => {
    await setLimits({ maxHoldsPerPartner: 5, maxSharePercent: 100 });
    const searched = await searchOne("US000014", { checkIn: inDays(45), checkOut: inDays(46) });
    const roomCode = searched.option.rooms[0].code;
    await setAllotment("US000014", roomCode, searched.checkIn, searched.checkOut, 100);
    const quotes = await quotesOf(searched, 50);
    const results = await holdAll(quotes, "cap");
    const held = results.filter((r) => r.status === 200);
    expect(held).toHaveLength(5);
    for (const r of held) expect(r.json.data.status).toBe("held");
    for (const r of results.filter((r) => r.status !== 200))
      expect([r.status, r.json.code, r.json.message]).toEqual([
        409,
        "hold_limit_reached",
        "This partner has reached its limit of 5 live holds: commit or cancel one first (nothing was held)",
      ]);
    const live = await env.DB.prepare(
      "select count(*) as n from bookings where partner_id = 'demo' and status = 'held'",
    ).first();
    expect(live).toEqual({ n: 5 });
    expect(await partnerHolds("demo")).toEqual({ holds: 5, roomNights: 5 });
    // Nothing refused took a room.
    expect(await available(quotes[0], roomCode)).toEqual([95]);

    // A commit and a cancel each end a hold: two more holds fit, and no third.
    expect((await commit(held[0]!.json.data.bookingReference)).status).toBe(200);
    expect((await cancel(held[1]!.json.data.bookingReference)).status).toBe(200);
    expect(await partnerHolds("demo")).toEqual({ holds: 3, roomNights: 3 });
    const again = await holdAll(await quotesOf(searched, 3), "cap-again");
    expect(again.map((r) => r.status).sort()).toEqual([200, 200, 409]);
    for (const r of results) if (r.status === 200) await cancel(r.json.data.bookingReference);
    for (const r of again) if (r.status === 200) await cancel(r.json.data.bookingReference);
    expect(await partnerHolds("demo")).toEqual({ holds: 0, roomNights: 0 });
    await setLimits(DEFAULTS);
    // 100 quotes and holds: on a loaded machine more than the default 30 s.
  }, 90_000);

  it("room-nights are capped too: a hold of more room-nights than allowed is refused with its own message", async () => {
    await setLimits({ maxHeldRoomNightsPerPartner: 5, maxSharePercent: 100 });
    const searched = await searchOne("US000015", {
      checkIn: inDays(45),
      checkOut: inDays(48),
      occupancies: [TWO_ADULTS, TWO_ADULTS],
    });
    const [quote] = await quotesOf(searched, 1);
    const res = await post("/api/book", bookBody(quote, "nights-cap", { hold: true }));
    expect([res.status, res.json.code, res.json.message, res.json.details]).toEqual([
      409,
      "hold_limit_reached",
      "This hold would take this partner's live holds past 5 room-nights, the most allowed: commit or cancel a hold first (nothing was held)",
      { limit: "maxHeldRoomNightsPerPartner", value: 5 },
    ]);
    // Booked outright, the same rooms are no hold: no limit of holds applies.
    expect((await post("/api/book", bookBody(quote, "nights-cap-booked"))).status).toBe(200);
    await setLimits(DEFAULTS);
  });

  it("parallel holds of two partners: neither holds more than its share of a night, so the other still finds rooms and books", async () => {
    const code = "US000016";
    const searched = await searchOne(code, { checkIn: inDays(50), checkOut: inDays(51) });
    const roomCode = searched.option.rooms[0].code;
    await setAllotment(code, roomCode, searched.checkIn, searched.checkOut, 10);
    const night = {
      accommodation: { accommodationCode: code },
      checkIn: searched.checkIn,
      checkOut: searched.checkOut,
    };
    // The demo partner tries to hold the whole night with 20 parallel holds: it gets its half.
    const demo = await holdAll(await quotesOf(searched, 20), "share-demo");
    expect(demo.filter((r) => r.status === 200)).toHaveLength(5);
    for (const r of demo.filter((r) => r.status !== 200))
      expect([r.status, r.json.code, r.json.message]).toEqual([
        409,
        "hold_share_exceeded",
        "This hold would give this partner more than 50% of a night's rooms of this type on hold: hold fewer rooms, or book them (nothing was held)",
      ]);
    expect(await available(night, roomCode)).toEqual([5]);

    // The other partner still finds the room type, and books it while the demo partner's holds stand.
    const theirs = await searchOne(code, {
      checkIn: searched.checkIn,
      checkOut: searched.checkOut,
      apiKey: OTHER_KEY,
      connection: 2001,
      pick: (o) => o.rooms[0].code === roomCode,
    });
    const [otherQuote] = await quotesOf(theirs, 1, 2001, OTHER_KEY);
    const booked = await post("/api/book", bookBody(otherQuote, "share-other", {}, 2001), { apiKey: OTHER_KEY });
    expect([booked.status, booked.json.data?.status]).toEqual([200, "success"]);
    // Its own holds, in parallel with the demo partner's further tries, take the rest; the demo partner's none.
    const [otherQuotes, demoQuotes] = await Promise.all([quotesOf(theirs, 8, 2001, OTHER_KEY), quotesOf(searched, 4)]);
    const [other, demoMore] = await Promise.all([
      holdAll(otherQuotes, "share-other-hold", 2001, OTHER_KEY),
      holdAll(demoQuotes, "share-demo-more"),
    ]);
    expect(demoMore.map((r) => r.json.code)).toEqual(Array(4).fill("hold_share_exceeded"));
    expect(other.filter((r) => r.status === 200)).toHaveLength(4);
    expect(await available(night, roomCode)).toEqual([0]);
    expect(await partnerHolds("other")).toEqual({ holds: 4, roomNights: 4 });
    // About 70 quotes, holds and bookings: on a loaded machine more than the default 30 s.
  }, 90_000);

  it("the only room of a type can be held (a share is at least one room), and only once", async () => {
    await setLimits({});
    const code = "US000015";
    const searched = await searchOne(code, { checkIn: inDays(55), checkOut: inDays(56) });
    const roomCode = searched.option.rooms[0].code;
    await setAllotment(code, roomCode, searched.checkIn, searched.checkOut, 1);
    // 50 % of one room rounds down to none; the share is one room all the same.
    const [first, second] = await holdAll(await quotesOf(searched, 2), "only-room");
    const answers = [first!, second!].map((r) => [r.status, r.json.code ?? r.json.data?.status]);
    expect(answers.sort()).toEqual([
      [200, "held"],
      [409, "hold_share_exceeded"],
    ]);
  });

  it("a stay far ahead is held for less time, and one further ahead not at all", async () => {
    const near = await searchOne("US000013", { checkIn: inDays(90) });
    const [nearQuote] = await quotesOf(near, 1);
    const started = Date.now();
    const short = await post("/api/book", bookBody(nearQuote, "far-short", { hold: true, holdMinutes: 30 }));
    expect(short.status, short.text).toBe(200);
    const minutes = (Date.parse(short.json.data.holdExpiresAt) - started) / 60_000;
    // 10 minutes from the moment it was made (after `started`), not the 30 asked.
    expect(minutes).toBeGreaterThanOrEqual(10);
    expect(minutes).toBeLessThan(11);

    const far = await searchOne("US000013", { checkIn: inDays(200) });
    const [farQuote] = await quotesOf(far, 1);
    const refused = await post("/api/book", bookBody(farQuote, "far-none", { hold: true }));
    expect([refused.status, refused.json.code, refused.json.message]).toEqual([
      409,
      "hold_too_far_ahead",
      "A stay more than 180 days ahead cannot be held: book it without bookCriteria.hold (nothing was booked)",
    ]);
    // Booked outright it is.
    expect((await post("/api/book", bookBody(farQuote, "far-booked"))).status).toBe(200);
  });
});
