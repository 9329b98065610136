import { z } from "@hono/zod-openapi";
import { accommodationDocument } from "../content";
import { apiRoute } from "../../platform/http/api-route";
import { featureRouter } from "../../platform/http/router";
import { escapeHtml, htmlPage } from "../../platform/http/html-page";
import { opensBookingPage } from "./booking-page-token";
import { stayNights } from "../../platform/time/zoned-time";
import { bookedRate, bookingByReference, policyJson, rateJson } from "../booking";
import type { Rate } from "../supply";
import { minorUnitDigits } from "../../platform/money";
import { describeCancelPolicy } from "./conversation";
import { BOOKING_STATUS_WORDS } from "./booking-status";

const shown = (amount: number, currency: string) =>
  `${escapeHtml(amount.toFixed(minorUnitDigits(currency)))} ${escapeHtml(currency)}`;

/** What the hotel collects on top of the booking's total, and the all-in price; nothing when nothing is due. */
const dueAtHotel = (rate: Rate) =>
  rate.dueAtProperty.amount > 0
    ? `\n<dt>Due at the hotel</dt><dd>${rate.dueAtProperty.charges.map((c) => `${escapeHtml(c.description)}: ${shown(c.amount, c.currency)}`).join("; ")}</dd>
<dt>All-in price</dt><dd>${shown(rate.totalStayPrice, rate.currency)}</dd>`
    : "";

/** What was charged: the total when nothing is due at the hotel, else only a part of the all-in price below. */
const charged = (rate: Rate) =>
  `<dt>${rate.dueAtProperty.amount > 0 ? "Charged at booking" : "Total"}</dt><dd>${shown(rate.chargeTotal, rate.currency)}</dd>`;

const stripTags = (html: string) => html.replace(/<[^>]*>/g, "");

/** The guest as the page shows them: initial and surname ("A. Lovelace"), never the full name. */
export const guestShortName = (holder: { name?: string; surName?: string }) =>
  [holder.name?.trim() ? `${[...holder.name.trim()][0]!.toUpperCase()}.` : "", holder.surName?.trim() ?? ""]
    .filter(Boolean)
    .join(" ");

const html = { "text/html": { schema: z.string() } };

const accommodationPage = apiRoute({
  operationId: "getChatAccommodationPage",
  security: [],
  method: "get",
  path: "/accommodations/{code}",
  tags: ["Chat"],
  summary: "Public details page of a shortlisted accommodation (the shortlist detailsUrl)",
  description: "HTML for the guest: a shortlist's detailsUrl.",
  request: {
    params: z.object({
      code: z
        .string()
        .regex(/^[A-Z0-9]{1,64}$/)
        .openapi({ example: "US000001" }),
    }),
  },
  errors: [],
  responses: {
    200: { description: "HTML page", content: html },
    404: { description: "Unknown accommodation", content: html },
  },
});

const bookingPage = apiRoute({
  operationId: "getChatBookingPage",
  security: [],
  method: "get",
  path: "/bookings/{bookingReference}",
  tags: ["Chat"],
  summary: "Confirmation page of a chat booking (the booking confirmationUrl, with its signed token)",
  description: "HTML for the guest: a chat booking's confirmationUrl.",
  request: {
    params: z.object({
      bookingReference: z
        .string()
        .regex(/^BK[A-Z0-9]{10,40}$/)
        .openapi({ example: "BKFGEOEIKMQZYK4POB5HFF" }),
    }),
    query: z.object({ token: z.string().max(512).optional().openapi({ example: "eyJyZWYiOiJCSyJ9.c2ln" }) }),
  },
  errors: [],
  responses: {
    200: { description: "HTML page", content: html },
    404: { description: "Unknown booking", content: html },
  },
});

/** Public pages behind the links chat hands out, mounted at /chat. */
export const chatPages = featureRouter()
  .openapi(accommodationPage, async (c) => {
    const row = await accommodationDocument(c.var.db, c.req.valid("param").code);
    if (!row) return c.html(htmlPage("Not found", "<h1>Accommodation not found</h1>"), 404);
    const content = row.document;
    const general = content.localizedDescription?.[0]?.content?.find((d) => d.type === "GENERAL")?.content ?? "";
    const address = content.address;
    return c.html(
      htmlPage(
        row.name,
        `<h1>${escapeHtml(row.name)}</h1><p>${escapeHtml(row.starRating)}-star ${escapeHtml(row.type)} in ${escapeHtml(row.city)}, ${escapeHtml(row.state)}</p>
<p>${escapeHtml(stripTags(general))}</p><dl><dt>Address</dt><dd>${escapeHtml([address?.address, address?.city, address?.state, address?.postalCode].filter(Boolean).join(", "))}</dd>
<dt>Check-in from</dt><dd>${escapeHtml(content.checkInPolicy?.checkInFrom)}</dd><dt>Check-out until</dt><dd>${escapeHtml(content.checkInPolicy?.checkOutUntil)}</dd>
<dt>Amenities</dt><dd>${escapeHtml((content.amenities ?? []).join(", "))}</dd></dl>`,
      ),
      200,
    );
  })
  .openapi(bookingPage, async (c) => {
    const { bookingReference } = c.req.valid("param");
    const token = c.req.valid("query").token;
    // Without the link's token the page does not exist, whatever the reference.
    if (!token || !(await opensBookingPage(c.get("services").pageKeys, token, bookingReference))) {
      return c.html(htmlPage("Not found", "<h1>Booking not found</h1>"), 404);
    }
    const row = await bookingByReference(c.var.db, bookingReference);
    if (!row) return c.html(htmlPage("Not found", "<h1>Booking not found</h1>"), 404);
    const holder = row.holder;
    const nights = stayNights(row.checkIn, row.checkOut).length;
    const words = BOOKING_STATUS_WORDS[row.status];
    // The record's amounts are minor units: shown as the partner's answers show them.
    const rate = rateJson(bookedRate(row));
    return c.html(
      htmlPage(
        `Booking ${row.reference}`,
        `<h1>${escapeHtml(words.title)}</h1>${words.advice ? `<p>${escapeHtml(words.advice)}</p>` : ""}<dl>
<dt>Booking</dt><dd>${escapeHtml(row.reference)}</dd><dt>Hotel confirmation</dt><dd>${escapeHtml(row.hotelConfirmationNumber ?? row.reference)}</dd>
<dt>Hotel</dt><dd>${escapeHtml(row.accommodationName)}</dd><dt>Guest</dt><dd>${escapeHtml(guestShortName(holder))}</dd>
<dt>Stay</dt><dd>${escapeHtml(row.checkIn)} to ${escapeHtml(row.checkOut)} (${nights} night${nights === 1 ? "" : "s"})</dd>
${charged(rate)}${dueAtHotel(rate)}
<dt>Cancellation</dt><dd>${escapeHtml(describeCancelPolicy(row.cancelPolicy && policyJson(row.cancelPolicy)))}</dd></dl>`,
      ),
      200,
    );
  });
