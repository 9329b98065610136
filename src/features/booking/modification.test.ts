import { env } from "cloudflare:test";
import { embeddedOnly1002 } from "../../../test/support/hotelx";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { call, OTHER_KEY, post } from "../../../test/support/api";
import { bookBody, cancelBody, connectionByCode, quoteOf, searchBody, searchOne } from "../../../test/support/booking";
import { inDays } from "../../../test/support/clock";
import { seedDemoAccommodations } from "../../../test/support/demo-content";
import { OPERATOR } from "../../../test/support/sessions";
import { sandboxUrl } from "../../../test/support/accounts";
import { seedDemoUpstream } from "../../../test/support/seed";
import { eq } from "drizzle-orm";
import { database } from "../../platform/db/client";
import { toMajor } from "../../platform/money";
import { addDays } from "../../platform/time/zoned-time";
import { accommodationByCode, inventorySupplier } from "../supply";
import { applyChange, atVersion, stayChangedWrites } from "./booking-writes";
import { bookedStayOf } from "./cancel";
import { bookingDeps } from "./deps";
import { expiredModificationPreviews, previewModification } from "./modification";
import { bookingRecord } from "./record";
import { bookings } from "./tables";
import { policyJson, rateJson, storedRoomsJson } from "./wire";

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 16 });
});

const TWO_ADULTS = { paxes: [{ age: 30 }, { age: 30 }] };
const SETTINGS = { access: { code: 1001 } };
const cents = (amount: number) => Math.round(amount * 100);

let references = 0;
/** A refundable rate charged at booking, of one room type. */
const refundable = (o: any) => o.isRefundable && o.paymentType === "MerchantPay" && !o.roomCode?.includes("+");

/** Books `rooms` rooms of one type at `code` from `checkIn` for `nights` (the cheapest option `pick` takes). */
const book = async (code: string, checkIn: string, nights = 2, rooms = 1, pick = refundable) => {
  const searched = await searchOne(code, {
    checkIn,
    checkOut: addDays(checkIn, nights),
    occupancies: Array.from({ length: rooms }, () => TWO_ADULTS),
    pick,
  });
  const quote = await quoteOf(searched);
  const res = await post("/api/book", bookBody(quote, `mod-${++references}`));
  expect(res.status, res.text).toBe(200);
  return { booking: res.json.data, quote };
};

const preview = (reference: string, change: Record<string, unknown>, apiKey?: string, code = 1001) =>
  post(`/api/bookings/${reference}/modifications/preview`, { settings: { access: { code } }, change }, { apiKey });
const commit = (reference: string, previewId: string, headers?: Record<string, string>) =>
  post(`/api/bookings/${reference}/modifications`, { settings: SETTINGS, previewId }, { headers });
const read = async (reference: string) => (await call("GET", `/api/bookings/${reference}`)).json.data;

/** Rooms of `roomCode` left each night from `from` to `to` (inclusive), as the operator's inventory shows them. */
const available = async (code: string, roomCode: string, from: string, to: string) => {
  const res = await call("GET", `/api/inventory/${code}?from=${from}&to=${to}`, undefined, OPERATOR);
  expect(res.status, res.text).toBe(200);
  return res.json.data.rooms.find((r: any) => r.code === roomCode).nights.map((n: any) => n.available) as number[];
};

/** The booking as a read shows it, without what only a commit fixes (when it was changed). */
const withoutTime = ({ modifiedAt: _at, ...booking }: any) => booking;

describe("change a booking with a preview", () => {
  it("a preview and its commit charge the same, to the cent, for random changes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          shift: fc.integer({ min: -1, max: 3 }),
          nights: fc.integer({ min: 1, max: 4 }),
          rename: fc.boolean(),
          guests: fc.constantFrom([30], [30, 30], [30, 8]),
          board: fc.constantFrom(undefined, "BB"),
        }),
        async ({ shift, nights, rename, guests, board }) => {
          const checkIn = inDays(50 + references);
          const { booking } = await book("US000005", checkIn);
          const change = {
            checkIn: addDays(checkIn, shift),
            checkOut: addDays(checkIn, shift + nights),
            ...(rename ? { holder: { name: "Grace", surName: "Hopper" } } : {}),
            occupancies: [{ paxes: guests.map((age) => ({ age })) }],
            ...(board ? { rooms: [{ occupancyRefId: 1, boardCode: board }] } : {}),
          };
          const previewed = await preview(booking.bookingReference, change);
          // A board the hotel does not sell for this room is a clear 400 naming change.rooms.
          if (previewed.status === 400) {
            expect(previewed.json.code).toBe("room_unavailable");
            expect(previewed.json.message).toMatch(/^change\.rooms: the hotel does not sell/);
            return;
          }
          expect(previewed.status, previewed.text).toBe(200);
          const shown = previewed.json.data;
          expect(cents(shown.priceDifference.amount)).toBe(
            cents(shown.booking.rate.chargeTotal) - cents(booking.chargeTotal),
          );
          const committed = await commit(booking.bookingReference, shown.previewId);
          expect(committed.status, committed.text).toBe(200);
          expect(committed.json.data.priceDifference).toEqual(shown.priceDifference);
          expect(committed.json.data.modificationFee).toEqual(shown.modificationFee);
          expect(withoutTime(committed.json.data.booking)).toEqual(withoutTime(shown.booking));
          const after = await read(booking.bookingReference);
          expect(withoutTime(after)).toEqual(withoutTime(shown.booking));
          expect(after).toMatchObject({
            bookingReference: booking.bookingReference,
            version: 2,
            modifiedAt: committed.json.data.modifiedAt,
            checkIn: change.checkIn,
            checkOut: change.checkOut,
          });
        },
      ),
      { numRuns: 4 },
    );
  });

  it("nights no longer used go back and new nights are taken; dates, names, guests and room type in one change", async () => {
    const checkIn = inDays(45);
    const { booking, quote } = await book("US000006", checkIn, 2);
    const roomCode = quote.rooms[0].code as string;
    const from = checkIn;
    const to = addDays(checkIn, 3);
    const before = await available("US000006", roomCode, from, to);
    const res = await preview(booking.bookingReference, {
      checkIn: addDays(checkIn, 1),
      checkOut: addDays(checkIn, 4),
      holder: { name: "Grace", surName: "Hopper" },
      occupancies: [{ paxes: [{ age: 40, name: "Grace", surName: "Hopper" }] }],
    });
    expect(res.status, res.text).toBe(200);
    const committed = await commit(booking.bookingReference, res.json.data.previewId);
    expect(committed.status, committed.text).toBe(200);
    // Night 0 given back, nights 1 kept, 2 and 3 taken.
    expect(await available("US000006", roomCode, from, to)).toEqual([
      before[0]! + 1,
      before[1]!,
      before[2]! - 1,
      before[3]! - 1,
    ]);
    expect(committed.json.data.booking).toMatchObject({
      holder: { name: "Grace", surName: "Hopper" },
      occupancies: [{ occupancyId: 1, paxes: [{ age: 40, name: "Grace", surName: "Hopper" }] }],
      rate: { nights: [{}, {}, {}] },
    });
  });

  it("30 parallel changes onto the last free room make exactly one", async () => {
    const code = "US000007";
    const checkIn = inDays(60);
    const { booking, quote } = await book(code, checkIn, 1);
    const roomCode = quote.rooms[0].code as string;
    // 29 copies of that booking (fixture rows, their night's allotment raised to match), and the night
    // after it left with one free room: every booking asks to move onto it.
    const target = addDays(checkIn, 1);
    const copies = Array.from({ length: 29 }, (_, i) => `${booking.bookingReference}C${i}`);
    const { results: columns } = await env.DB.prepare("PRAGMA table_info(bookings)").all<{ name: string }>();
    // A copy books no quote (a quote books once: bookings.quote_id is unique).
    const others = columns
      .map((c) => c.name)
      .filter((n) => n !== "reference" && n !== "partner_reference" && n !== "quote_id");
    await env.DB.batch([
      ...copies.map((reference, i) =>
        env.DB.prepare(
          `INSERT INTO bookings (reference, partner_reference, ${others.join(", ")}) SELECT ?1, ?2, ${others.join(", ")} FROM bookings WHERE reference = ?3`,
        ).bind(reference, `mod-copy-${i}`, booking.bookingReference),
      ),
      env.DB.prepare(
        "UPDATE room_nights SET allotment = sold + 29, sold = sold + 29 WHERE accommodation_code = ?1 AND room_code = ?2 AND night = ?3",
      ).bind(code, roomCode, checkIn),
      env.DB.prepare(
        "INSERT INTO room_nights (accommodation_code, room_code, night, allotment, sold) VALUES (?1, ?2, ?3, 1, 0) ON CONFLICT DO UPDATE SET allotment = sold + 1",
      ).bind(code, roomCode, target),
    ]);
    const all = [booking.bookingReference, ...copies];
    const change = { checkIn: target, checkOut: addDays(target, 1) };
    const previews = await Promise.all(all.map((reference) => preview(reference, change)));
    for (const res of previews) expect(res.status, res.text).toBe(200);
    const results = await Promise.all(all.map((reference, i) => commit(reference, previews[i]!.json.data.previewId)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const res of results.filter((r) => r.status !== 200)) {
      expect(res.status, res.text).toBe(409);
      expect(res.json).toMatchObject({
        code: "modification_outdated",
        message: "Availability changed since the preview: preview the change again",
      });
    }
    expect(await available(code, roomCode, target, target)).toEqual([0]);
    // The night left by the winner went back: one free again.
    const moved = await Promise.all(all.map(read));
    expect(moved.filter((b) => b.checkIn === target)).toHaveLength(1);
    expect(moved.filter((b) => b.version === 1)).toHaveLength(29);
  });

  it("a commit retried answers the same change once: by Idempotency-Key (replayed) and without one", async () => {
    const { booking, quote } = await book("US000008", inDays(70), 2);
    const roomCode = quote.rooms[0].code as string;
    const res = await preview(booking.bookingReference, { checkOut: addDays(quote.checkIn, 3) });
    const id = res.json.data.previewId;
    const first = await commit(booking.bookingReference, id, { "idempotency-key": "mod-commit-1" });
    expect(first.status, first.text).toBe(200);
    const nights = await available("US000008", roomCode, quote.checkIn, addDays(quote.checkIn, 2));
    const replay = await commit(booking.bookingReference, id, { "idempotency-key": "mod-commit-1" });
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.json.data).toEqual(first.json.data);
    const again = await commit(booking.bookingReference, id);
    expect(again.status, again.text).toBe(200);
    expect(again.json.data).toEqual(first.json.data);
    expect(await available("US000008", roomCode, quote.checkIn, addDays(quote.checkIn, 2))).toEqual(nights);
    expect((await read(booking.bookingReference)).version).toBe(2);
  });

  // Version 1: no version, the fields as row columns (JSON text), every amount major; version 2: the
  // record's fields, its rate, rooms, policy and the three amounts major. Both read into version 3.
  for (const version of [1, 2] as const)
    it(`a preview stored before issue 38 (version ${version}, major units) commits as previewed`, async () => {
      const checkIn = inDays(95 + 4 * version);
      const { booking } = await book("US000007", checkIn, 2);
      const previewed = await preview(booking.bookingReference, {
        checkOut: addDays(checkIn, 3),
        holder: { name: "Grace", surName: "Hopper" },
      });
      expect(previewed.status, previewed.text).toBe(200);
      const id = previewed.json.data.previewId;
      const stored = await env.DB.prepare("SELECT body FROM booking_modifications WHERE id = ?")
        .bind(id)
        .first<{ body: string }>();
      const { v, change, plan } = JSON.parse(stored!.body);
      expect(v).toBe(3);
      // Version 3 holds integers: the rate's total and the fee in cents.
      expect(Number.isInteger(plan.fields.rate.chargeTotal) && Number.isInteger(plan.modificationFee)).toBe(true);
      const { chargeTotalMinor, rate, rooms, cancelPolicy, holder, occupancies, ...plain } = plan.fields;
      const json = JSON.stringify;
      const major = {
        ...plan,
        priceDifference: plan.priceDifference / 100,
        modificationFee: plan.modificationFee / 100,
        penaltyDue: plan.penaltyDue / 100,
      };
      const majorFields = {
        rate: rateJson(rate),
        rooms: storedRoomsJson(rooms),
        cancelPolicy: policyJson(cancelPolicy),
      };
      const legacy =
        version === 2
          ? { v: 2, change, plan: { ...major, fields: { ...plan.fields, ...majorFields } } }
          : {
              change,
              plan: {
                ...major,
                fields: {
                  ...plain,
                  chargeTotal: chargeTotalMinor / 100,
                  rate: json(majorFields.rate),
                  rooms: json(majorFields.rooms),
                  cancelPolicy: json(majorFields.cancelPolicy),
                  holder: json(holder),
                  occupancies: json(occupancies),
                },
              },
            };
      await env.DB.prepare("UPDATE booking_modifications SET body = ? WHERE id = ?").bind(json(legacy), id).run();
      const committed = await commit(booking.bookingReference, id);
      expect(committed.status, committed.text).toBe(200);
      expect(committed.json.data.modificationFee).toEqual(previewed.json.data.modificationFee);
      expect(withoutTime(await read(booking.bookingReference))).toEqual(withoutTime(previewed.json.data.booking));
      const row = await env.DB.prepare("SELECT charge_total, holder, rate FROM bookings WHERE reference = ?")
        .bind(booking.bookingReference)
        .first<{ charge_total: number; holder: string; rate: string }>();
      expect(row).toMatchObject({ charge_total: chargeTotalMinor, holder: json({ name: "Grace", surName: "Hopper" }) });
      // Written back as the record holds it: version 2 of the rate column, in cents.
      expect(JSON.parse(row!.rate)).toMatchObject({ v: 2, chargeTotal: chargeTotalMinor });
    });

  it("parallel commits of one preview change the booking once and move its rooms once", async () => {
    const { booking, quote } = await book("US000013", inDays(72), 1);
    const roomCode = quote.rooms[0].code as string;
    const to = addDays(quote.checkIn, 2);
    const before = await available("US000013", roomCode, quote.checkIn, to);
    const res = await preview(booking.bookingReference, {
      checkIn: addDays(quote.checkIn, 1),
      checkOut: addDays(quote.checkIn, 3),
    });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => commit(booking.bookingReference, res.json.data.previewId)),
    );
    for (const r of results) expect(r.status, r.text).toBe(200);
    expect(new Set(results.map((r) => r.json.data.modifiedAt)).size).toBe(1);
    expect(await available("US000013", roomCode, quote.checkIn, to)).toEqual([
      before[0]! + 1,
      before[1]! - 1,
      before[2]! - 1,
    ]);
    expect((await read(booking.bookingReference)).version).toBe(2);
  });

  it("a change computed from a version that moved on gives back and takes nothing", async () => {
    const { booking, quote } = await book("US000014", inDays(74), 1);
    const roomCode = quote.rooms[0].code as string;
    const db = database(env.DB);
    const row = (await db.select().from(bookings).where(eq(bookings.reference, booking.bookingReference)).get())!;
    // Another change lands between this change's read and its batch.
    await db
      .update(bookings)
      .set({ version: row.version + 1 })
      .where(eq(bookings.reference, row.reference))
      .run();
    const to = addDays(quote.checkIn, 2);
    const before = await available("US000014", roomCode, quote.checkIn, to);
    const supplier = inventorySupplier(db);
    const taking = await supplier.localWrites.bookWrites(
      (await accommodationByCode(db, "US000014"))!,
      { roomCode: row.roomCode, ratePlanCode: row.ratePlanCode },
      { checkIn: addDays(quote.checkIn, 1), checkOut: addDays(quote.checkIn, 3), rooms: [[30, 30]] },
      atVersion(db, row),
    );
    const change = stayChangedWrites(
      db,
      row,
      "MPSTALE",
      { checkIn: addDays(quote.checkIn, 1), checkOut: addDays(quote.checkIn, 3), modifiedAt: new Date().toISOString() },
      (guard) => supplier.localWrites.cancelWrites(bookedStayOf(bookingRecord(row)), guard),
      taking.writes,
    );
    expect(await applyChange(db, change)).toBe(false);
    expect(await available("US000014", roomCode, quote.checkIn, to)).toEqual(before);
  });

  it("a preview whose price moved, or whose booking changed, is refused with the current figures", async () => {
    const { booking, quote } = await book("US000009", inDays(75), 2);
    const roomCode = quote.rooms[0].code as string;
    const change = { checkOut: addDays(quote.checkIn, 3) };
    const res = await preview(booking.bookingReference, change);
    // The hotel raises the price of the added night.
    const added = addDays(quote.checkIn, 2);
    await env.DB.prepare(
      "INSERT INTO room_nights (accommodation_code, room_code, night, allotment, sold, price_minor) VALUES (?1, ?2, ?3, 5, 0, 99900) ON CONFLICT DO UPDATE SET price_minor = 99900",
    )
      .bind("US000009", roomCode, added)
      .run();
    const late = await commit(booking.bookingReference, res.json.data.previewId);
    expect(late.status, late.text).toBe(409);
    expect(late.json.code).toBe("modification_outdated");
    expect(late.json.message).toBe("The price changed since the preview: preview the change again");
    expect(late.json.details.preview).toEqual({
      priceDifference: res.json.data.priceDifference,
      modificationFee: res.json.data.modificationFee,
      penaltyDue: res.json.data.penaltyDue,
    });
    expect(late.json.details.current.priceDifference.amount).toBeGreaterThan(res.json.data.priceDifference.amount);
    expect((await read(booking.bookingReference)).version).toBe(1);

    // Two previews of one booking: the first committed, the second was priced on what the booking was.
    const a = await preview(booking.bookingReference, { holder: { name: "A", surName: "B" } });
    const b = await preview(booking.bookingReference, { holder: { name: "C", surName: "D" } });
    expect((await commit(booking.bookingReference, a.json.data.previewId)).status).toBe(200);
    const stale = await commit(booking.bookingReference, b.json.data.previewId);
    expect(stale.status).toBe(409);
    expect(stale.json.message).toBe("The booking changed since the preview: preview the change again");
  });

  it("an expired preview is 409; an unknown one 404", async () => {
    const { booking } = await book("US000010", inDays(80), 1);
    const old = await previewModification(
      bookingDeps(env),
      await connectionByCode(),
      booking.bookingReference,
      { holder: { name: "Late", surName: "Comer" } },
      Date.now() - 16 * 60_000,
    );
    const res = await commit(booking.bookingReference, old.previewId);
    expect(res.status, res.text).toBe(409);
    expect(res.json).toMatchObject({
      code: "modification_preview_expired",
      message: `The preview expired at ${old.expiresAt}: preview the change again`,
    });
    // Upkeep keeps it a day past its end, then deletes it.
    const end = Date.parse(old.expiresAt);
    await expiredModificationPreviews.run(env, new Date(end + 23 * 3600_000));
    expect((await commit(booking.bookingReference, old.previewId)).status).toBe(409);
    await expiredModificationPreviews.run(env, new Date(end + 25 * 3600_000));
    expect((await commit(booking.bookingReference, old.previewId)).status).toBe(404);
    const unknown = await commit(booking.bookingReference, "MPNOSUCHPREVIEW");
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toBe(`No preview MPNOSUCHPREVIEW of booking ${booking.bookingReference}`);
  });

  it("shortening a stay inside a penalty window keeps the refund up to the penalty due then", async () => {
    const { booking, quote } = await book("US000011", inDays(85), 4);
    const penalty = quote.cancelPolicy.cancelPenalties.reduce((a: any, b: any) => (a.value > b.value ? a : b));
    const deps = bookingDeps(env);
    const connection = await connectionByCode();
    const change = { checkOut: addDays(quote.checkIn, 3) };
    const before = await previewModification(deps, connection, booking.bookingReference, change);
    const insideAt = Date.parse(penalty.deadline) + 60_000;
    const inside = await previewModification(deps, connection, booking.bookingReference, change, insideAt);
    // Before any deadline passed nothing is due and the night dropped is refunded whole.
    const free = quote.cancelPolicy.cancelPenalties.every((p: any) => Date.parse(p.deadline) > Date.now());
    if (free) expect([before.modificationFee.amount, before.penaltyDue.amount]).toEqual([0, 0]);
    // Inside it the night's refund is kept up to the penalty due (the first night, or the stay).
    expect(inside.penaltyDue.amount).toBe(penalty.value);
    expect(inside.priceDifference.amount).toBeLessThan(0);
    expect(cents(inside.modificationFee.amount)).toBe(
      Math.min(-cents(inside.priceDifference.amount), cents(penalty.value)),
    );
    // Lengthening costs the new night and nothing more.
    const longer = await previewModification(
      deps,
      connection,
      booking.bookingReference,
      { checkOut: addDays(quote.checkIn, 5) },
      insideAt,
    );
    expect(longer.modificationFee.amount).toBe(0);
  });

  it("refusals: another partner's booking 404, a cancelled or held one 409, an impossible stay 400 naming the field", async () => {
    const { booking, quote } = await book("US000012", inDays(90), 2);
    const theirs = await preview(booking.bookingReference, { holder: { name: "X", surName: "Y" } }, OTHER_KEY, 2001);
    expect(theirs.status).toBe(404);

    const backwards = await preview(booking.bookingReference, { checkOut: addDays(quote.checkIn, -1) });
    expect(backwards.status).toBe(400);
    expect(backwards.json).toMatchObject({
      code: "invalid_dates",
      message: "change.checkOut: checkOut must be after checkIn",
    });
    const past = await preview(booking.bookingReference, { checkIn: inDays(-5) });
    expect(past.status).toBe(400);
    expect(past.json.message).toBe("change.checkIn: checkIn must not be in the past");
    const noAdult = await preview(booking.bookingReference, { occupancies: [{ paxes: [{ age: 5 }] }] });
    expect(noAdult.status).toBe(400);
    expect(noAdult.json.message).toBe("change.occupancies: Each occupancy needs at least one adult (age 18 or over)");
    const noRoom = await preview(booking.bookingReference, { rooms: [{ occupancyRefId: 7, roomCode: "STD" }] });
    expect(noRoom.status).toBe(400);
    expect(noRoom.json.message).toBe(
      "change.rooms[0].occupancyRefId: no room 7 in the changed booking (its occupancyRefIds: 1)",
    );
    const unknownRoom = await preview(booking.bookingReference, { rooms: [{ occupancyRefId: 1, roomCode: "NOPE" }] });
    expect(unknownRoom.status).toBe(400);
    expect(unknownRoom.json.code).toBe("room_unavailable");

    const previewed = await preview(booking.bookingReference, { holder: { name: "X", surName: "Y" } });
    expect((await post("/api/cancel", cancelBody(booking.bookingReference))).status).toBe(200);
    const cancelled = await preview(booking.bookingReference, { holder: { name: "X", surName: "Y" } });
    expect(cancelled.status).toBe(409);
    expect(cancelled.json).toMatchObject({
      code: "booking_not_modifiable",
      message: "Booking cannot be modified. Current status: cancelled",
    });
    const late = await commit(booking.bookingReference, previewed.json.data.previewId);
    expect(late.status).toBe(409);
    expect(late.json.message).toBe("Booking cannot be modified. Current status: cancelled");

    const held = await searchOne("US000012", { checkIn: inDays(95), pick: (o) => o.paymentType === "MerchantPay" });
    const holdQuote = await quoteOf(held);
    const hold = await post("/api/book", bookBody(holdQuote, `mod-hold-${references}`, { hold: true }));
    expect(hold.status, hold.text).toBe(200);
    const onHold = await preview(hold.json.data.bookingReference, { holder: { name: "X", surName: "Y" } });
    expect(onHold.status).toBe(409);
    expect(onHold.json.message).toBe("Booking cannot be modified. Current status: held");
  });

  it("a booking on an upstream (Hotel-X, connection 1002) is refused with 409 modification_not_supported", async () => {
    const { booking } = await book("US000015", inDays(96), 1);
    await seedDemoUpstream(env.DB, { credentialsKey: env.UPSTREAM_CREDENTIALS_KEY, url: sandboxUrl(), hotels: false });
    try {
      // The same booking as if the upstream of connection 1002 had made it.
      await env.DB.prepare("UPDATE bookings SET supplier = ?1, connection_id = ?2 WHERE reference = ?3")
        .bind("hotelx-1002", "con_demo_hotelx", booking.bookingReference)
        .run();
      const res = await preview(booking.bookingReference, { holder: { name: "X", surName: "Y" } }, undefined, 1002);
      expect(res.status, res.text).toBe(409);
      expect(res.json).toMatchObject({
        code: "modification_not_supported",
        message: "This booking's supplier does not take changes: cancel it and book the new stay (nothing was changed)",
      });
    } finally {
      await env.DB.batch(embeddedOnly1002());
    }
  });
});

describe("a change is one event of the partner's log (issue 28 item 5)", () => {
  it("booking.modified carries what changed, before and after, and what the change cost", async () => {
    const checkIn = inDays(70);
    const { booking } = await book("US000008", checkIn, 2);
    const change = { checkOut: addDays(checkIn, 3) };
    const previewed = await preview(booking.bookingReference, change);
    expect(previewed.status, previewed.text).toBe(200);
    const committed = await commit(booking.bookingReference, previewed.json.data.previewId);
    expect(committed.status, committed.text).toBe(200);
    const log = await call("GET", "/api/events?limit=500&types=booking.modified");
    expect(log.status, log.text).toBe(200);
    const mine = log.json.data.events.filter((e: any) => e.bookingReference === booking.bookingReference);
    expect(mine).toHaveLength(1);
    const data = mine[0].data;
    expect(data.before.checkOut).toBe(addDays(checkIn, 2));
    expect(data.after.checkOut).toBe(addDays(checkIn, 3));
    expect(data.after.rate.nights).toHaveLength(3);
    expect(data.before).not.toHaveProperty("checkIn");
    // Amounts as the booking read shows them: chargeTotal in major units (the record's chargeTotalMinor is inside).
    expect(data.before.chargeTotal).toBe(booking.chargeTotal);
    expect(data.after.chargeTotal).toBe(committed.json.data.booking.chargeTotal);
    expect(data.after).not.toHaveProperty("chargeTotalMinor");
    expect(data.priceDifference).toEqual(previewed.json.data.priceDifference);
    expect(data.checkOut).toBe(addDays(checkIn, 3));
  });
});

describe("a change never lowers what cancelling costs (issue 37 item 1)", () => {
  /** The room-only flexible rate of the standard room, or of another room type. */
  const standardFlexible = (o: any) =>
    refundable(o) && o.boardCode === "RO" && o.rateRules.length === 0 && o.rooms[0].code === "STD";
  const otherFlexible = (o: any) =>
    refundable(o) && o.boardCode === "RO" && o.rateRules.length === 0 && o.rooms[0].code !== "STD";

  /** The stored policy as it reads inside its penalty window: the deadline an hour ago, the same penalty. */
  const insidePenaltyWindow = async (reference: string, nonRefundable: boolean) => {
    const row = await env.DB.prepare("SELECT cancel_policy, charge_total, currency FROM bookings WHERE reference = ?1")
      .bind(reference)
      .first<{ cancel_policy: string; charge_total: number; currency: string }>();
    const policy = JSON.parse(row!.cancel_policy);
    const deadline = new Date(Date.now() - 3600_000).toISOString();
    const moved = nonRefundable
      ? {
          refundable: false,
          cancelPenalties: [
            {
              penaltyType: "NON_REFUNDABLE",
              currency: row!.currency,
              deadline,
              value: toMajor(row!.charge_total, row!.currency),
            },
          ],
        }
      : { ...policy, cancelPenalties: policy.cancelPenalties.map((p: any) => ({ ...p, deadline })) };
    await env.DB.prepare("UPDATE bookings SET cancel_policy = ?1 WHERE reference = ?2")
      .bind(JSON.stringify(moved), reference)
      .run();
  };

  // The attack: inside the penalty window, the same nights in another room type whose flexible
  // rate's free cancellation ends later (here: not yet), then a cancel. Upgrade (STD to another
  // type) and downgrade (back to STD), from a refundable rate and from a non-refundable one.
  for (const nonRefundable of [false, true])
    for (const direction of ["upgrade", "downgrade"] as const)
      it(`${nonRefundable ? "non-refundable" : "refundable"} ${direction}: change then cancel pays at least the penalty due before`, async () => {
        const code = "US000016";
        const checkIn = inDays(110 + (nonRefundable ? 10 : 0) + (direction === "upgrade" ? 0 : 5));
        const other = (await searchOne(code, { checkIn, pick: otherFlexible })).option.rooms[0].code as string;
        const { booking } = await book(code, checkIn, 2, 1, direction === "upgrade" ? standardFlexible : otherFlexible);
        const reference = booking.bookingReference;
        await insidePenaltyWindow(reference, nonRefundable);
        const due = (await call("GET", `/api/bookings/${reference}/cancellation`)).json.data;
        expect(due.cancelPrice).toBeGreaterThan(0);

        const previewed = await preview(reference, {
          rooms: [{ occupancyRefId: 1, roomCode: direction === "upgrade" ? other : "STD" }],
        });
        expect(previewed.status, previewed.text).toBe(200);
        const shown = previewed.json.data;
        // The new rate's free cancellation has not ended: cancelling the changed booking alone would be free.
        expect(shown.booking.cancelPolicy.refundable).toBe(true);
        expect(Date.parse(shown.booking.cancelPolicy.cancelPenalties[0].deadline)).toBeGreaterThan(Date.now());
        expect(shown.priceDifference.amount > 0).toBe(direction === "upgrade");
        expect(shown.penaltyDue.amount).toBe(due.cancelPrice);
        const committed = await commit(reference, shown.previewId);
        expect(committed.status, committed.text).toBe(200);
        expect(committed.json.data.modificationFee).toEqual(shown.modificationFee);
        const changed = committed.json.data.booking;

        const cancelled = await post("/api/cancel", cancelBody(reference));
        expect(cancelled.status, cancelled.text).toBe(200);
        const paid =
          cents(booking.chargeTotal) + cents(shown.priceDifference.amount) + cents(shown.modificationFee.amount);
        const refunded = cents(changed.chargeTotal) - cents(cancelled.json.data.cancelPrice.amount);
        expect(paid - refunded).toBeGreaterThanOrEqual(cents(due.cancelPrice));
        // A downgrade returns its difference only beyond the penalty due: a non-refundable one returns nothing.
        const returned = -cents(shown.priceDifference.amount) - cents(shown.modificationFee.amount);
        if (direction === "downgrade")
          expect(returned).toBeLessThanOrEqual(
            Math.max(0, -cents(shown.priceDifference.amount) - cents(due.cancelPrice)),
          );
        if (nonRefundable) expect(returned).toBeLessThanOrEqual(0);
      });

  it("before the penalty window a change of room type costs only its price difference", async () => {
    const { booking } = await book("US000016", inDays(130), 2, 1, otherFlexible);
    const previewed = await preview(booking.bookingReference, { rooms: [{ occupancyRefId: 1, roomCode: "STD" }] });
    expect(previewed.status, previewed.text).toBe(200);
    expect(previewed.json.data.priceDifference.amount).toBeLessThan(0);
    expect(previewed.json.data.modificationFee.amount).toBe(0);
    expect(previewed.json.data.penaltyDue.amount).toBe(0);
  });
});

describe("changes of restricted and non-refundable rates, and the preview's limits (issue 37)", () => {
  const CODES = Array.from({ length: 16 }, (_, i) => `US${String(i + 1).padStart(6, "0")}`);

  it("a non-refundable booking's changes commit; a shorter stay returns nothing", async () => {
    const nonRefundable = (o: any) =>
      !o.isRefundable && o.paymentType === "MerchantPay" && o.rateRules.every((r: string) => r === "NON_REFUNDABLE");
    let code: string | undefined;
    for (const c of CODES) {
      if (await searchOne(c, { checkIn: inDays(140), checkOut: inDays(143), pick: nonRefundable }).catch(() => null)) {
        code = c;
        break;
      }
    }
    expect(code).toBeDefined();
    const { booking, quote } = await book(code!, inDays(140), 3, 1, nonRefundable);
    expect(quote.cancelPolicy.refundable).toBe(false);
    const reference = booking.bookingReference;
    // A new holder: the commit's re-pricing stamps its own "from booking" deadline, and still commits.
    const renamed = await preview(reference, { holder: { name: "Grace", surName: "Hopper" } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json.data.penaltyDue.amount).toBe(booking.chargeTotal);
    const first = await commit(reference, renamed.json.data.previewId);
    expect(first.status, first.text).toBe(200);
    expect(first.json.data.modificationFee.amount).toBe(0);
    // One night fewer: its price is kept (fee = the refund), nothing goes back.
    const shorter = await preview(reference, { checkOut: addDays(quote.checkIn, 2) });
    expect(shorter.status, shorter.text).toBe(200);
    const { priceDifference, modificationFee } = shorter.json.data;
    expect(priceDifference.amount).toBeLessThan(0);
    expect(cents(modificationFee.amount)).toBe(-cents(priceDifference.amount));
    const second = await commit(reference, shorter.json.data.previewId);
    expect(second.status, second.text).toBe(200);
    expect((await read(reference)).version).toBe(3);
  });

  it("an OLDER65 rate is kept only while a guest of the changed stay is 65 or over", async () => {
    const seniors = [{ paxes: [{ age: 70 }, { age: 68 }] }];
    const checkIn = inDays(150);
    let searched: any;
    for (const code of CODES) {
      const res = await post(
        "/api/search",
        searchBody(
          {
            destinations: { accommodations: [{ code }] },
            occupancies: seniors,
            checkIn,
            checkOut: addDays(checkIn, 2),
          },
          { filters: { rateRuleFilter: { includes: ["OLDER65"] } } },
        ),
      );
      expect(res.status, res.text).toBe(200);
      const option = (res.json.data.accommodations[0]?.options ?? []).find((o: any) => o.rateRules.includes("OLDER65"));
      if (option) {
        searched = { accommodationCode: code, option, checkIn, checkOut: addDays(checkIn, 2), occupancies: seniors };
        break;
      }
    }
    expect(searched).toBeDefined();
    const booked = await post("/api/book", bookBody(await quoteOf(searched), "mod-senior"));
    expect(booked.status, booked.text).toBe(200);
    const reference = booked.json.data.bookingReference;
    const young = await preview(reference, { occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }] });
    expect(young.status, young.text).toBe(400);
    expect(young.json).toMatchObject({
      code: "rate_rule_not_met",
      message: `change.occupancies: the booked rate plan STD-RO-SNR is OLDER65, sold only to a stay with a guest aged 65 or over: keep such a guest, or cancel and book a rate for these guests`,
    });
    // A 66-year-old stays: the rate stays too.
    const kept = await preview(reference, { occupancies: [{ paxes: [{ age: 66 }, { age: 30 }] }] });
    expect(kept.status, kept.text).toBe(200);
  });

  it("a holder of spaces only is refused by the preview", async () => {
    const { booking } = await book("US000016", inDays(160), 1);
    for (const holder of [
      { name: "   ", surName: "Hopper" },
      { name: "Grace", surName: "\t " },
    ]) {
      const res = await preview(booking.bookingReference, { holder });
      expect(res.status, res.text).toBe(400);
      expect(res.json.code).toBe("invalid_request");
      expect(res.json.message).toMatch(/^change\.holder\.(name|surName)/);
    }
  });

  // Last in the file: it lowers connection 1001's limit (restored after).
  it("previews count against the connection's rate limit as quotes do: 429, and no preview kept", async () => {
    const { booking } = await book("US000016", inDays(170), 1);
    await env.DB.prepare(
      "UPDATE connections SET rate_limit = 3, rate_limit_window_ms = 3600000 WHERE code = 1001",
    ).run();
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          preview(booking.bookingReference, { holder: { name: `Guest${i}`, surName: "Hopper" } }),
        ),
      );
      const admitted = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      expect(admitted.length).toBeLessThanOrEqual(3);
      expect(refused.length).toBeGreaterThanOrEqual(5);
      for (const r of admitted) expect(r.headers.get("X-RateLimit-Limit")).toBe("3");
      for (const r of refused) {
        expect(r.status, r.text).toBe(429);
        expect(r.json).toMatchObject({ code: "rate_limit_exceeded", message: "Rate limit exceeded" });
        expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
      }
      const kept = await env.DB.prepare("SELECT count(*) AS n FROM booking_modifications WHERE booking_reference = ?1")
        .bind(booking.bookingReference)
        .first<{ n: number }>();
      expect(kept!.n).toBe(admitted.length);
    } finally {
      await env.DB.prepare(
        "UPDATE connections SET rate_limit = 600, rate_limit_window_ms = 60000 WHERE code = 1001",
      ).run();
    }
  });
});
