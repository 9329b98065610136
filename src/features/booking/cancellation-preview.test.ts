import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, OTHER_KEY, post } from "../../../test/support/api";
import { bookBody, quoteOf, searchOne } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { cancelBooking } from "./cancel";
import { bookingDeps } from "./deps";
import { policyJson, rateJson, storedRoomsJson } from "./wire";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 10 });
});

const preview = (reference: string, at?: string, apiKey?: string) =>
  call(
    "GET",
    `/api/bookings/${reference}/cancellation${at === undefined ? "" : `?at=${encodeURIComponent(at)}`}`,
    undefined,
    { apiKey },
  );

let bookings = 0;
/** Books a stay 40 days out; returns the booking reference and the quote it was booked from. */
const book = async (code: string, refundable: boolean) => {
  const quote = await quoteOf(
    await searchOne(code, { checkIn: inDays(40), pick: (o) => o.isRefundable === refundable }),
  );
  const res = await post("/api/book", bookBody(quote, `preview-${++bookings}`));
  expect(res.status).toBe(200);
  return { reference: res.json.data.bookingReference as string, quote };
};

const iso = (ms: number) => new Date(ms).toISOString();

describe("GET /api/bookings/:bookingReference/cancellation", () => {
  it("is free before the deadline and costs the penalty from it, without cancelling", async () => {
    const { reference, quote } = await book("US000001", true);
    const penalty = quote.cancelPolicy.cancelPenalties[0];
    expect(penalty.value).toBeGreaterThan(0);
    const deadline = Date.parse(penalty.deadline);

    const before = await preview(reference, iso(deadline - 60_000));
    expect(before.status).toBe(200);
    expect(before.json).toEqual({
      data: {
        cancelPrice: 0,
        currency: "USD",
        refundable: true,
        deadline: penalty.deadline,
        cancellable: true,
        at: iso(deadline - 60_000),
        // The breakdown the quote showed, to the cent.
        rate: quote.rate,
        // Every room, so nothing is left.
        rooms: [1],
        remainingRate: null,
      },
      message: "success",
    });
    expect((await preview(reference, iso(deadline))).json.data.cancelPrice).toBe(penalty.value);
    const after = await preview(reference, iso(deadline + 60_000));
    expect(after.json.data).toMatchObject({
      cancelPrice: penalty.value,
      refundable: true,
      deadline: penalty.deadline,
      cancellable: true,
    });
    // Forty days out, now is before any deadline.
    const now = await preview(reference);
    expect(now.json.data).toMatchObject({ cancelPrice: 0, cancellable: true });
    expect(Math.abs(Date.parse(now.json.data.at) - Date.now())).toBeLessThan(60_000);
    // Nothing was cancelled.
    expect((await call("GET", `/api/bookings/${reference}`)).json.data.status).toBe("success");
  });

  it("reads a datetime with an offset as the same instant", async () => {
    const { reference, quote } = await book("US000002", true);
    const deadline = Date.parse(quote.cancelPolicy.cancelPenalties[0].deadline);
    const local = new Date(deadline + 60_000 + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    const res = await preview(reference, local);
    expect(res.json.data).toMatchObject({
      cancelPrice: quote.cancelPolicy.cancelPenalties[0].value,
      at: iso(deadline + 60_000),
    });
  });

  it.each([
    ["after the deadline", 60_000],
    ["before the deadline", -60_000],
  ])("equals what a real cancel at that moment charges (%s)", async (_name, offset) => {
    const { reference, quote } = await book("US000003", true);
    const at = Date.parse(quote.cancelPolicy.cancelPenalties[0].deadline) + offset;
    const previewed = (await preview(reference, iso(at))).json.data;
    const cancelled = await cancelBooking(bookingDeps(env), "demo", reference, at);
    expect(cancelled.cancelPrice).toEqual({ currency: previewed.currency, amount: previewed.cancelPrice });
    expect(previewed.cancelPrice).toBe(offset > 0 ? quote.cancelPolicy.cancelPenalties[0].value : 0);
  });

  it("a non-refundable rate: not cancellable, the whole charge, and the cancel refuses it", async () => {
    const { reference, quote } = await book("US000004", false);
    const res = await preview(reference);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      cancelPrice: quote.rate.chargeTotal,
      currency: "USD",
      refundable: false,
      cancellable: false,
      deadline: quote.cancelPolicy.cancelPenalties[0].deadline,
    });
    const cancel = await post("/api/cancel", {
      input: { reference: { bookingReference: reference } },
      settings: { access: { code: 1001 } },
    });
    expect(cancel.status).toBe(400);
    expect(cancel.json.message).toBe("This booking is not refundable according to the cancellation policy");
  });

  it("from the check-in date (hotel time) the booking cannot be cancelled: the whole charge, as the cancel says", async () => {
    const { reference, quote } = await book("US000005", true);
    const at = Date.parse(`${quote.checkIn}T12:00:00Z`);
    const res = await preview(reference, iso(at));
    expect(res.json.data).toMatchObject({ cancelPrice: quote.rate.chargeTotal, refundable: true, cancellable: false });
    await expect(cancelBooking(bookingDeps(env), "demo", reference, at)).rejects.toMatchObject({
      status: 400,
      message: "This booking can no longer be cancelled after the check-in date",
    });
  });

  it("an already cancelled booking is 409", async () => {
    const { reference } = await book("US000006", true);
    expect(
      (
        await post("/api/cancel", {
          input: { reference: { bookingReference: reference } },
          settings: { access: { code: 1001 } },
        })
      ).status,
    ).toBe(200);
    const res = await preview(reference);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ message: "Booking is already cancelled", code: "booking_already_cancelled" });
  });

  it.each(["tomorrow", "2027-01-01", "2027-01-01T10:00:00", "2027-02-30T10:00:00Z", "", "1700000000000"])(
    "at=%j is 400 naming the field",
    async (at) => {
      // Validation comes first: the reference need not exist.
      const res = await preview("BKANY", at);
      expect(res.status).toBe(400);
      expect(res.json.message).toBe("at: expected an ISO 8601 datetime with a zone");
    },
  );

  it("another partner's booking and an unknown reference are 404 with the booking-not-found message", async () => {
    const { reference } = await book("US000008", true);
    const foreign = await preview(reference, undefined, OTHER_KEY);
    expect(foreign.status).toBe(404);
    expect(foreign.json.message).toBe(`Booking not found with bookingReference: ${reference}`);
    expect(foreign.json.data).toBeUndefined();
    const unknown = await preview("BKNOSUCHBOOKING");
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe("Booking not found with bookingReference: BKNOSUCHBOOKING");
  });

  it("401 without an API key; described in /openapi.json", async () => {
    expect((await call("GET", "/api/bookings/BKX/cancellation", undefined, { apiKey: null })).status).toBe(401);
    const doc = (await call("GET", "/openapi.json")).json;
    const route = doc.paths["/api/bookings/{bookingReference}/cancellation"].get;
    expect(route.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(["bookingReference", "at"]),
    );
    expect(Object.keys(route.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404", "409"]));
  });
});

describe("a booking's rate, rooms and policy as stored (issue 38: minor units, format version 2)", () => {
  const columns = (reference: string) =>
    env.DB.prepare("SELECT rate, rooms, cancel_policy FROM bookings WHERE reference = ?")
      .bind(reference)
      .first<{ rate: string; rooms: string; cancel_policy: string }>();

  it("a new booking is stored as version 2, in integers; a version 1 row (major units) reads and cancels exactly as before", async () => {
    const quote = await quoteOf(
      await searchOne("US000005", {
        checkIn: inDays(41),
        occupancies: [{ paxes: [{ age: 30 }] }, { paxes: [{ age: 40 }, { age: 8 }] }],
        pick: (o) => o.isRefundable,
      }),
    );
    const res = await post("/api/book", bookBody(quote, "preview-stored-v1"));
    expect(res.status, res.text).toBe(200);
    const reference = res.json.data.bookingReference as string;
    const stored = await columns(reference);
    const rate = JSON.parse(stored!.rate);
    const rooms = JSON.parse(stored!.rooms);
    const policy = JSON.parse(stored!.cancel_policy);
    expect(rate).toMatchObject({ v: 2, chargeTotal: Math.round(quote.rate.chargeTotal * 100) });
    expect(rooms.v).toBe(2);
    expect(rooms.rooms.map((r: { rate: { chargeTotal: number } }) => r.rate.chargeTotal)).toEqual(
      quote.rooms.map((r: { rate: { chargeTotal: number } }) => Math.round(r.rate.chargeTotal * 100)),
    );
    expect(policy).toMatchObject({ v: 2, refundable: true });
    expect(Number.isInteger(policy.cancelPenalties[0].value)).toBe(true);

    const after = Date.parse(quote.cancelPolicy.cancelPenalties[0].deadline) + 60_000;
    const read = (await call("GET", `/api/bookings/${reference}`)).json.data;
    const previewed = (await preview(reference, iso(after))).json.data;
    // The same booking planted as the code before issue 38 wrote it: bare values, major units.
    const { v: _r, ...rateV2 } = rate;
    const { v: _p, ...policyV2 } = policy;
    await env.DB.prepare("UPDATE bookings SET rate = ?, rooms = ?, cancel_policy = ? WHERE reference = ?")
      .bind(
        JSON.stringify(rateJson(rateV2)),
        JSON.stringify(storedRoomsJson(rooms.rooms)),
        JSON.stringify(policyJson(policyV2)),
        reference,
      )
      .run();
    expect(JSON.parse((await columns(reference))!.rate).chargeTotal).toBe(quote.rate.chargeTotal);
    expect((await call("GET", `/api/bookings/${reference}`)).json.data).toEqual(read);
    expect((await preview(reference, iso(after))).json.data).toEqual(previewed);
    // One room cancelled after the deadline: its share of the penalty, the rest of the booking as before.
    const cancelled = await cancelBooking(bookingDeps(env), "demo", reference, after, { rooms: [2] });
    const alone = (await preview(reference, iso(after))).json.data;
    expect(cancelled.cancelPrice.amount).toBeGreaterThan(0);
    expect(cancelled.booking.rooms[1]!.cancelPrice).toEqual(cancelled.cancelPrice);
    expect(cancelled.booking.rate).toEqual(alone.rate);
    expect(cancelled.booking.rate).toEqual(read.rooms[0].rate);
    // Written back as version 2, in integers (the cancelled room's share in cents).
    const rewritten = await columns(reference);
    const roomsAfter = JSON.parse(rewritten!.rooms);
    expect(roomsAfter.v).toBe(2);
    expect(roomsAfter.rooms[1].cancelPrice).toBe(Math.round(cancelled.cancelPrice.amount * 100));
    expect(JSON.parse(rewritten!.rate)).toMatchObject({
      v: 2,
      chargeTotal: Math.round(read.rooms[0].rate.chargeTotal * 100),
    });
    // A column the cancel did not write keeps the form it had (version 1 here), read alongside.
    expect(JSON.parse(rewritten!.cancel_policy).v).toBeUndefined();
  });
});
