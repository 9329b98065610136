import { accommodationCode } from "../../test/support/accommodations";
import { API_KEY_HEADERS, searchBody, type Scenario } from "./scenarios";

type Json = Record<string, any>;

const call = async (base: string, path: string, body: unknown): Promise<Json> => {
  const res = await fetch(`${base}${path}`, { method: "POST", headers: API_KEY_HEADERS, body: JSON.stringify(body) });
  const json = (await res.json()) as Json;
  if (res.status !== 200) throw new Error(`${path} ${res.status}: ${json.message}`);
  return json.data;
};

/** A refundable option of one hotel, as a partner would pick it from a search. */
export const refundableOption = async (base: string, code: string) => {
  const request = searchBody({ destinations: { accommodations: [{ code }] } });
  const data = await call(base, "/api/search", request);
  const option = data.accommodations[0]?.options.find((o: Json) => o.isRefundable);
  return option ? { option, request } : null;
};

export const quoteBody = (optionId: string, code: string, criteria: Json) => ({
  quoteCriteria: {
    optionId,
    accommodation: { code },
    occupancies: criteria.occupancies,
    checkIn: criteria.checkIn,
    checkOut: criteria.checkOut,
  },
  settings: { access: { code: 1001 } },
});

/** The quote scenario re-quotes one option found by a search before the run. */
export const quoteScenario = async (base: string): Promise<Scenario> => {
  const found = await refundableOption(base, accommodationCode(1));
  if (!found) throw new Error("no refundable option for the quote scenario");
  return {
    name: "quote: one option",
    meaning: "Re-checking one option's price and availability before booking.",
    method: "POST",
    path: "/api/quote",
    body: quoteBody(found.option.id, accommodationCode(1), found.request.searchCriteria),
    headers: API_KEY_HEADERS,
  };
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/**
 * The whole flow, search -> quote -> book -> cancel, by `concurrency` partners in parallel for
 * `seconds`: flows per second and per-flow latency. Every booking is cancelled, so allotment returns.
 */
export const runFlow = async (base: string, seconds: number, concurrency: number, accommodations: number) => {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const deadline = Date.now() + seconds * 1000;
  const worker = async (id: number) => {
    while (Date.now() < deadline) {
      const started = performance.now();
      const code = accommodationCode(1 + ((n++ * 7919 + id) % accommodations));
      try {
        const found = await refundableOption(base, code);
        if (!found) continue;
        const { checkIn, checkOut } = found.request.searchCriteria;
        const quote = await call(base, "/api/quote", quoteBody(found.option.id, code, found.request.searchCriteria));
        const booking = await call(base, "/api/book", {
          bookCriteria: {
            quoteId: quote.id,
            accommodation: { code },
            partnerReference: `bench-${Date.now()}-${id}-${n}`,
            holder: { name: "Bench", surName: "Runner" },
            checkIn,
            checkOut,
          },
          settings: { access: { code: 1001 } },
        });
        await call(base, "/api/cancel", {
          input: { reference: { bookingReference: booking.bookingReference } },
          settings: { access: { code: 1001 } },
        });
        latencies.push(performance.now() - started);
      } catch (error) {
        errors++;
        if (errors <= 3) console.error(`  flow error: ${(error as Error).message}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors };
};
