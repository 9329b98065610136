/**
 * A partner's server booking a stay with a typed client: types generated from the Worker's own
 * /openapi.json by openapi-typescript (`npm run typecheck:examples` writes them to
 * examples/generated/), calls made with openapi-fetch. Against a local server:
 *
 *   npm start                      # in one terminal (demo data, http://127.0.0.1:8787 or $PORT)
 *   npm run example:book           # in another; EDGESTAY_URL and EDGESTAY_API_KEY override the defaults
 */
import createClient from "openapi-fetch";
import type { paths } from "./generated/edgestay-api";

// The same base URL as README's curl blocks and the operator CLI: EDGESTAY_URL, else npm start's PORT.
const baseUrl = process.env.EDGESTAY_URL || `http://127.0.0.1:${process.env.PORT || "8787"}`;
const apiKey = process.env.EDGESTAY_API_KEY ?? "demo-partner-key";
const connection = { access: { code: Number(process.env.EDGESTAY_CONNECTION ?? 1001) } };

const client = createClient<paths>({ baseUrl, headers: { "api-key": apiKey } });

const day = (fromToday: number) => new Date(Date.now() + fromToday * 86_400_000).toISOString().slice(0, 10);
const checkIn = day(30);
const checkOut = day(32);
const occupancies = [{ paxes: [{ age: 30 }, { age: 30 }] }];

/** Stops with the API's own error message (the documented `Error` body). */
const fail = (step: string, error: { message?: string; code?: string } | undefined, status: number): never => {
  throw new Error(`${step} failed with ${status}: ${error?.message ?? "no body"} (${error?.code ?? "no code"})`);
};

// 1. Search one destination for two adults, two nights.
const searched = await client.POST("/api/search", {
  body: {
    searchCriteria: { destinations: { accommodations: [{ code: "US000001" }] }, occupancies, checkIn, checkOut },
    settings: connection,
  },
});
if (!searched.data) fail("search", searched.error, searched.response.status);
const accommodation = searched.data!.data.accommodations[0];
const option = accommodation?.options[0];
if (!accommodation || !option) throw new Error("No availability for US000001 on those dates");
console.log(`search: ${searched.data!.data.accommodations.length} accommodation(s); first option ${option.id}`);

// 2. Quote the option: re-checked price, kept for 30 minutes.
const quoted = await client.POST("/api/quote", {
  body: {
    quoteCriteria: {
      optionId: option.id,
      accommodation: { code: accommodation.accommodationCode },
      occupancies,
      checkIn,
      checkOut,
    },
    settings: connection,
  },
});
if (!quoted.data) fail("quote", quoted.error, quoted.response.status);
const quote = quoted.data!.data;
console.log(`quote: ${quote.id}, ${quote.boardName}, ${quote.rate.chargeTotal} ${quote.rate.currency}`);

// 3. Book it; the Idempotency-Key makes a retried call safe.
const partnerReference = `example-${Date.now()}`;
const booked = await client.POST("/api/book", {
  params: { header: { "idempotency-key": partnerReference } },
  body: {
    bookCriteria: {
      quoteId: quote.id,
      accommodation: { code: accommodation.accommodationCode },
      partnerReference,
      holder: { name: "Ada", surName: "Lovelace" },
      checkIn,
      checkOut,
    },
    settings: connection,
  },
});
if (!booked.data) fail("book", booked.error, booked.response.status);
console.log(
  `booked: ${booked.data!.data.bookingReference} (${booked.data!.data.status}), ${booked.data!.data.chargeTotal} ${booked.data!.data.currency}`,
);
