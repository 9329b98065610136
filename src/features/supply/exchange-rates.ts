import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { exchangeRates } from "./tables";

/** `{ base, rates }` as the operator sets them: `rates[X]` units of X for one unit of `base`. */
export type ExchangeRateSet = { base: string | null; rates: Record<string, number>; updatedAt: string | null };

/** Units of each currency per unit of the base (the base itself 1), as read for pricing. */
export type ExchangeTable = Map<string, number>;

/**
 * The range a rate (units of a currency per unit of the base) must lie in. Every real currency pair
 * fits; outside it a price converts to 0 or past what a double holds (1e308 made it Infinity).
 */
export const EXCHANGE_RATE_BOUNDS = { min: 1e-6, max: 1e6 } as const;
export const EXCHANGE_RATE_BOUNDS_MESSAGE = "must be a finite number from 0.000001 to 1000000 (1e-6 to 1e6)";

export const isExchangeRateInBounds = (rate: number) =>
  Number.isFinite(rate) && rate >= EXCHANGE_RATE_BOUNDS.min && rate <= EXCHANGE_RATE_BOUNDS.max;

/** The whole table in one small read. */
const allRates = (db: Db) => db.select().from(exchangeRates);

/**
 * The rates pricing may use. A stored rate out of bounds (written around the operator route) is
 * left out, so its currency is 400 `Unsupported currency`, and logged for the operator to correct.
 */
export const readExchangeTable = async (db: Db): Promise<ExchangeTable> => {
  const rows = await allRates(db);
  const outOfBounds = rows.filter((r) => !isExchangeRateInBounds(r.perBase));
  if (outOfBounds.length)
    console.error(
      JSON.stringify({
        level: "error",
        event: "exchange_rate_out_of_bounds",
        currencies: outOfBounds.map((r) => r.currency),
      }),
    );
  return new Map(rows.filter((r) => isExchangeRateInBounds(r.perBase)).map((r) => [r.currency, r.perBase]));
};

/**
 * The rate converting one unit of `from` into `to`. The same currency needs no rate; otherwise
 * both must be in the table and the rate goes through the base: perBase[to] / perBase[from]
 * (so from the base it is the operator's rate, into the base its inverse).
 */
export const exchangeFor = (table: ExchangeTable, from: string, to: string): { currency: string; rate: number } => {
  if (from === to) return { currency: from, rate: 1 };
  const fromPerBase = table.get(from);
  const toPerBase = table.get(to);
  if (fromPerBase === undefined || toPerBase === undefined)
    throw new ApiError("unsupported_currency", "Unsupported currency", { currency: to });
  return { currency: from, rate: toPerBase / fromPerBase };
};

export const readExchangeRates = async (db: Db): Promise<ExchangeRateSet> => {
  const rows = await allRates(db);
  const baseRow = rows.find((r) => r.currency === r.base);
  const rates: Record<string, number> = {};
  for (const row of rows) if (row.currency !== row.base) rates[row.currency] = row.perBase;
  return { base: baseRow?.base ?? null, rates, updatedAt: baseRow?.updatedAt ?? null };
};

/** D1 binds at most 100 parameters per statement: 4 columns make 25 rates per insert. */
const RATES_PER_INSERT = 25;

/** Replaces every rate at once (one batch, one transaction), so a reader never sees half a set. */
export const replaceExchangeRates = async (
  db: Db,
  input: { base: string; rates: Record<string, number> },
  now = new Date(),
): Promise<ExchangeRateSet> => {
  if (input.base in input.rates && input.rates[input.base] !== 1) {
    throw new ApiError("invalid_exchange_rates", "The rate of the base currency itself must be 1");
  }
  const updatedAt = now.toISOString();
  const rows = Object.entries({ ...input.rates, [input.base]: 1 }).map(([currency, perBase]) => ({
    currency,
    perBase,
    base: input.base,
    updatedAt,
  }));

  const inserts = [];
  for (let i = 0; i < rows.length; i += RATES_PER_INSERT)
    inserts.push(db.insert(exchangeRates).values(rows.slice(i, i + RATES_PER_INSERT)));
  await db.batch([db.delete(exchangeRates), ...inserts]);
  return readExchangeRates(db);
};
