import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { call, OTHER_KEY, post } from "../../../test/support/api";
import { bookBody, cancelBody, quoteBody, quoteOf, searchBody, searchOne } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { cancelBooking } from "./cancel";
import { bookingDeps } from "./deps";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 50 });
});

const soldOn = async (code: string, room: string, night: string) =>
  (
    await env.DB.prepare("select sold from room_nights where accommodation_code = ? and room_code = ? and night = ?")
      .bind(code, room, night)
      .first<{ sold: number }>()
  )?.sold ?? 0;

describe("search -> quote -> book -> cancel over HTTP", () => {
  it("books a refundable option and cancels it, taking and giving back allotment", async () => {
    const search = await post(
      "/api/search",
      searchBody({ destinations: { accommodations: [{ code: "US000001" }, { code: "US000002" }] } }),
    );
    expect(search.status).toBe(200);
    expect(search.json.message).toBe("success");
    expect(search.json.data.requestId).toBe(search.headers.get("x-request-id"));
    expect(typeof search.json.data.responseTime).toBe("number");
    expect(search.json.data.accommodations.map((a: any) => a.accommodationCode)).toEqual(["US000001", "US000002"]);
    const hotel = search.json.data.accommodations[0];
    expect(hotel).toMatchObject({
      accommodationName: expect.any(String),
      accommodationType: expect.any(String),
      location: { country: "US" },
    });
    for (const option of hotel.options) {
      expect(option).toMatchObject({
        id: expect.any(String),
        boardCode: expect.stringMatching(/^(RO|BB|HB)$/),
        boardName: expect.any(String),
        isRefundable: expect.any(Boolean),
      });
      expect(option.rate.currency).toBe("USD");
      expect(option.rate.chargeTotal).toBeCloseTo(option.rate.baseRate + option.rate.taxesAndFees, 2);
      expect(option.rooms).toHaveLength(1);
      expect(option.rooms[0]).toMatchObject({
        occupancyRefId: 1,
        code: expect.any(String),
        description: expect.any(String),
      });
      expect(option.cancelPolicy.cancelPenalties[0].deadline).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const totals = hotel.options.map((o: any) => o.rate.chargeTotal);
    expect(totals).toEqual([...totals].sort((a: number, b: number) => a - b));
    expect(search.headers.get("X-RateLimit-Limit")).toBe("600");

    const option = hotel.options.find((o: any) => o.isRefundable);
    const searched = {
      accommodationCode: "US000001",
      option,
      checkIn: inDays(30),
      checkOut: inDays(32),
      occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
    };
    const quoteRes = await post("/api/quote", quoteBody(searched));
    expect(quoteRes.status).toBe(200);
    const quote = quoteRes.json.data;
    expect(quote).toMatchObject({
      id: expect.stringMatching(/^qt_/),
      accommodation: {
        accommodationCode: "US000001",
        accommodationName: hotel.accommodationName,
        location: hotel.location,
      },
      checkIn: inDays(30),
      checkOut: inDays(32),
      boardCode: option.boardCode,
      isRefundable: true,
      rate: option.rate,
      cancelPolicy: option.cancelPolicy,
      roomCodes: [option.rooms[0].code],
      requestId: quoteRes.headers.get("x-request-id"),
    });
    expect(quoteRes.headers.get("X-RateLimit-Remaining")).toMatch(/^\d+$/);
    const room = option.rooms[0].code;
    const before = await soldOn("US000001", room, inDays(30));

    const bookRes = await post("/api/book", bookBody(quote, "flow-1"));
    expect(bookRes.status).toBe(200);
    const booking = bookRes.json.data;
    expect(booking).toMatchObject({
      bookingReference: expect.stringMatching(/^BK[A-Z0-9]{20}$/),
      partnerReference: "flow-1",
      status: "success",
      chargeTotal: quote.rate.chargeTotal,
      hotelConfirmationNumber: expect.any(String),
    });
    expect(await soldOn("US000001", room, inDays(30))).toBe(before + 1);
    expect(await soldOn("US000001", room, inDays(31))).toBe(before + 1);
    expect(await soldOn("US000001", room, inDays(32))).toBe(0); // the check-out day is not a night

    const read = await call("GET", `/api/bookings/${booking.bookingReference}`);
    expect(read.status).toBe(200);
    expect(read.json.data).toMatchObject({
      status: "success",
      partnerReference: "flow-1",
      holder: { name: "Ada", surName: "Lovelace" },
      cancelPolicy: quote.cancelPolicy,
      rate: quote.rate,
      cancelledAt: null,
    });
    const byPartnerRef = await call("GET", "/api/bookings?partnerReference=flow-1");
    expect(byPartnerRef.json.data.bookingReference).toBe(booking.bookingReference);

    const cancelRes = await post("/api/cancel", cancelBody(booking.bookingReference));
    expect(cancelRes.status).toBe(200);
    expect(cancelRes.json.data).toMatchObject({
      status: "cancelled",
      cancelledAt: expect.any(String),
      cancelPrice: { currency: "USD", amount: 0 },
      bookPrice: { amount: quote.rate.chargeTotal },
    });
    expect(await soldOn("US000001", room, inDays(30))).toBe(before);
    const after = await call("GET", `/api/bookings/${booking.bookingReference}`);
    expect(after.json.data).toMatchObject({
      status: "cancelled",
      cancelledAt: cancelRes.json.data.cancelledAt,
      cancelPrice: { amount: 0 },
    });

    const again = await post("/api/cancel", cancelBody(booking.bookingReference));
    expect(again.status).toBe(400);
    expect(again.json.message).toBe("Booking cannot be cancelled. Current status: cancelled");
  });

  it("prices children and several rooms, and respects room capacity", async () => {
    const twoRooms = await searchOne("US000003", {
      occupancies: [{ paxes: [{ age: 40 }, { age: 8 }] }, { paxes: [{ age: 40 }] }],
    });
    expect(twoRooms.option.rooms.map((r: any) => r.occupancyRefId)).toEqual([1, 2]);
    // The room with a child costs more than the one with a single adult.
    expect(twoRooms.option.rooms[0].rate.chargeTotal).toBeGreaterThan(twoRooms.option.rooms[1].rate.chargeTotal);
    const sum = twoRooms.option.rooms.reduce((s: number, r: any) => s + r.rate.chargeTotal, 0);
    expect(twoRooms.option.rate.chargeTotal).toBeCloseTo(sum, 1);
    // Seven guests fit no room type of the catalogue (max occupancy 6).
    const crowd = await post(
      "/api/search",
      searchBody({
        destinations: { accommodations: [{ code: "US000003" }] },
        occupancies: [{ paxes: Array.from({ length: 7 }, () => ({ age: 30 })) }],
      }),
    );
    expect(crowd.status).toBe(200);
    expect(crowd.json.data.accommodations).toEqual([]);
  });

  it("cancelling after the free-cancellation deadline costs the stored penalty (clock moved past the deadline)", async () => {
    const quote = await quoteOf(await searchOne("US000005", { checkIn: inDays(40), pick: (o) => o.isRefundable }));
    const booked = await post("/api/book", bookBody(quote, "late-cancel"));
    const penalty = quote.cancelPolicy.cancelPenalties[0];
    expect(penalty.value).toBeGreaterThan(0);
    const deadline = Date.parse(penalty.deadline);
    expect(deadline).toBeLessThan(Date.parse(`${inDays(40)}T00:00:00Z`));
    const result = await cancelBooking(bookingDeps(env), "demo", booked.json.data.bookingReference, deadline + 60_000);
    expect(result.cancelPrice).toEqual({ currency: "USD", amount: penalty.value });
    const read = await call("GET", `/api/bookings/${booked.json.data.bookingReference}`);
    expect(read.json.data).toMatchObject({ status: "cancelled", cancelPrice: { amount: penalty.value } });
  });

  it("every booking route is in /openapi.json", async () => {
    const doc = await call("GET", "/openapi.json");
    for (const path of [
      "/api/search",
      "/api/search/tgx",
      "/api/quote",
      "/api/quote/tgx",
      "/api/book",
      "/api/cancel",
      "/api/bookings/{bookingReference}",
      "/api/bookings",
      "/api/inventory/{accommodationCode}/rooms/{roomCode}",
    ]) {
      expect(Object.keys(doc.json.paths)).toContain(path);
    }
    expect(doc.json.paths["/api/search"].post.requestBody.required).toBe(true);
  });

  it("another partner cannot read or cancel the booking", async () => {
    const quote = await quoteOf(await searchOne("US000004", { pick: (o) => o.isRefundable }));
    const booked = await post("/api/book", bookBody(quote, "cross-1"));
    const ref = booked.json.data.bookingReference;
    const read = await call("GET", `/api/bookings/${ref}`, undefined, { apiKey: OTHER_KEY });
    expect(read.status).toBe(404);
    expect(read.json.data).toBeUndefined();
    const byRef = await call("GET", "/api/bookings?partnerReference=cross-1", undefined, { apiKey: OTHER_KEY });
    expect(byRef.status).toBe(404);
    const cancel = await post("/api/cancel", cancelBody(ref, 2001), { apiKey: OTHER_KEY });
    expect(cancel.status).toBe(403);
    expect(cancel.json.message).toBe("This booking does not belong to the current partner");
    expect((await call("GET", `/api/bookings/${ref}`)).json.data.status).toBe("success");
  });
});
