import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seedSandboxHotels } from "../../../test/support/seed";
import { bookingByClientReference, cancel } from "../supply/hotelx/client";
import { settlePendingBookingsTask } from "../booking/settle-pending";
import { call } from "../../../test/support/api";
import { hotelxSupplierName } from "../supply/hotelx/hotelx-supplier";
import { say, startSession, attachCard } from "../../../test/support/chat";
import { inDays } from "../../../test/support/clock";
import { demoUpstreamUrl, sandboxAccess } from "../../../test/support/hotelx";

// Chat books through the partner's preferred in-use connection. With 1001 out of use, that is 1002,
// served by the sandbox Hotel-X supplier (an auxiliary worker behind the HOTELX_SANDBOX binding).
beforeAll(async () => {
  await seedSandboxHotels(env.DB);
  await env.DB.prepare("UPDATE connections SET current_in_use = 0 WHERE code = 1001").run();
});

const STAY = `from ${inDays(30)} to ${inDays(32)} for 2 adults`;
const bookingOf = (sessionId: string) =>
  env.DB.prepare("SELECT reference, status, supplier, accommodation_code FROM bookings WHERE partner_reference LIKE ?")
    .bind(`chat-${sessionId}-%`)
    .first<{ reference: string; status: string; supplier: string; accommodation_code: string }>();
/** The booking page behind a confirmationUrl (with its signed token), as a traveller's browser gets it. */
const pageOf = (confirmationUrl: string) => {
  const url = new URL(confirmationUrl);
  return call("GET", url.pathname + url.search, undefined, { apiKey: null });
};
const upstreamBooking = async (hotelCode: string, clientReference: string) => {
  const access = sandboxAccess(await demoUpstreamUrl(), "test");
  return bookingByClientReference(
    access,
    { hotelCode, currency: "EUR", accessCode: "sandbox", clientReference },
    { deadlineMs: 5_000 },
  );
};

describe("a chat booking on connection 1002 (the sandbox upstream)", () => {
  it("finds the upstream's hotel by name, books it upstream under our reference and says Booked!", async () => {
    const id = await startSession("traveller-upstream");
    const list = await say(id, `Stay at the Hotel Sandbox Lisbon ${STAY}`);
    expect(list.result.status).toBe("shortlist");
    expect(list.result.artifacts.shortlist[0]).toMatchObject({ name: "Hotel Sandbox Lisbon", currency: "EUR" });
    expect((await say(id, "Book the first one")).result.status).toBe("guest_name_required");
    const setup = await say(id, "The guest is Ada Lovelace");
    expect(setup.result.status).toBe("payment_setup_required");
    const attached = await attachCard(setup.result.artifacts.payment.setupUrl);
    expect(attached.status).toBe(200);
    expect((await say(id, "Done, card added")).result.status).toBe("payment_confirmation_required");
    const booked = await say(id, "yes");
    expect(booked.result.status).toBe("booked");
    expect(booked.result.message.text).toMatch(/^Booked! Hotel Sandbox Lisbon/);
    const row = (await bookingOf(id))!;
    expect(row).toMatchObject({
      status: "success",
      supplier: hotelxSupplierName("con_demo_hotelx"),
      accommodation_code: "HX003",
    });
    expect(await upstreamBooking("HX003", row.reference)).toMatchObject({ found: true, booking: { status: "OK" } });
  });

  it("a booking whose upstream answer is late is 'being confirmed' in chat and on its page (never Booked!, cancelled or already confirmed), and 'not booked' once settled failed", async () => {
    // The chat gives its suppliers no deadline, so the default applies (3 s here, SUPPLIER_TIMEOUT_MS;
    // 8 s in a deploy): this hotel books, then answers after 10 s.
    const id = await startSession("traveller-upstream"); // the card saved above
    const list = await say(id, `Stay at the Sandbox Scenario HXLOST10000 ${STAY}`);
    expect(list.result.artifacts.shortlist?.[0], JSON.stringify(list.result)).toMatchObject({
      name: "Sandbox scenario HXLOST10000",
    });
    expect((await say(id, "Book the first one")).result.status).toBe("guest_name_required");
    expect((await say(id, "The guest is Ada Lovelace")).result.status).toBe("payment_confirmation_required");
    const answer = await say(id, "yes");
    const row = (await bookingOf(id))!;
    expect(row.status).toBe("pending");
    expect(answer.result.message.text).not.toContain("Booked!");
    expect(answer.result.message.text).toContain(`is being confirmed by the supplier. Reference ${row.reference}`);
    expect(await upstreamBooking("HXLOST10000", row.reference)).toMatchObject({
      found: true,
      booking: { status: "OK" },
    });
    expect(answer.result.artifacts.booking).toMatchObject({ bookingId: row.reference, status: "pending" });

    // Its page and a second "yes" say the same: being confirmed, neither cancelled nor confirmed.
    const page = await pageOf(answer.result.artifacts.booking.confirmationUrl);
    expect(page.status).toBe(200);
    expect(page.text).toContain("<h1>Booking being confirmed</h1>");
    expect(page.text).toContain("please do not book again");
    expect(page.text).not.toMatch(/cancelled|Booking confirmed/i);
    const again = await say(id, "Yes");
    expect(again.result.status).toBe("booked");
    expect(again.result.message.text).toBe(
      `Your booking ${row.reference} at Sandbox scenario HXLOST10000 is being confirmed by the supplier. The supplier has not answered yet and may still confirm it: please do not book again meanwhile.`,
    );

    // The upstream drops it (cancelled there) and upkeep settles it `failed`: "not booked" in both places.
    const access = sandboxAccess(await demoUpstreamUrl(), "test");
    const dropped = await cancel(
      access,
      { hotelCode: "HXLOST10000", accessCode: "sandbox", clientReference: row.reference },
      { deadlineMs: 5_000 },
    );
    expect(dropped.outcome).toBe("cancelled");
    expect(await settlePendingBookingsTask.run(env, new Date(Date.now() + 120_000))).toBe(1);
    expect((await bookingOf(id))!.status).toBe("failed");
    const failedPage = await pageOf(answer.result.artifacts.booking.confirmationUrl);
    expect(failedPage.text).toContain("<h1>Not booked</h1>");
    expect(failedPage.text).toContain("Nothing was booked or charged");
    expect(failedPage.text).not.toMatch(/cancelled|being confirmed|Booking confirmed/i);
    const afterFailure = await say(id, "Yes");
    expect(afterFailure.result.status).toBe("error");
    expect(afterFailure.result.message.text).toBe(
      `Your booking ${row.reference} at Sandbox scenario HXLOST10000 was not booked: the supplier did not confirm it. Nothing was booked or charged; you can book again.`,
    );
  });
});
