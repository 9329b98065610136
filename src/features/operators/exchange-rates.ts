import { ApiError } from "../../platform/http/api-error";

/** `{ base, rates }` as the operator sets them: `rates[X]` units of X for one unit of `base`. */
export type ExchangeRateSet = { base: string | null; rates: Record<string, number>; updatedAt: string | null };

type RateRow = { currency: string; per_base: number; base: string; updated_at: string };

/** Units of each currency per unit of the base (the base itself 1), as read for pricing. */
export type ExchangeTable = Map<string, number>;

/** The whole table in one small read; search sends it in its API-key batch. */
export const exchangeRatesStatement = (d1: D1Database) =>
  d1.prepare("SELECT currency, per_base, base, updated_at FROM exchange_rates");

export const exchangeTableOf = (result: D1Result): ExchangeTable =>
  new Map((result.results as RateRow[]).map((r) => [r.currency, r.per_base]));

export const readExchangeTable = async (d1: D1Database): Promise<ExchangeTable> =>
  exchangeTableOf(await exchangeRatesStatement(d1).all());

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

export const readExchangeRates = async (d1: D1Database): Promise<ExchangeRateSet> => {
  const { results } = await exchangeRatesStatement(d1).all<RateRow>();
  const baseRow = results.find((r) => r.currency === r.base);
  const rates: Record<string, number> = {};
  for (const row of results) if (row.currency !== row.base) rates[row.currency] = row.per_base;
  return { base: baseRow?.base ?? null, rates, updatedAt: baseRow?.updated_at ?? null };
};

/** Replaces every rate at once (one batch, one transaction), so a reader never sees half a set. */
export const replaceExchangeRates = async (
  d1: D1Database,
  input: { base: string; rates: Record<string, number> },
  now = new Date(),
): Promise<ExchangeRateSet> => {
  if (input.base in input.rates && input.rates[input.base] !== 1) {
    throw new ApiError("invalid_exchange_rates", "The rate of the base currency itself must be 1");
  }
  const rows = { ...input.rates, [input.base]: 1 };
  const updatedAt = now.toISOString();
  await d1.batch([
    d1.prepare("DELETE FROM exchange_rates"),
    d1
      .prepare(
        "INSERT INTO exchange_rates (currency, per_base, base, updated_at) SELECT key, value, ?1, ?2 FROM json_each(?3)",
      )
      .bind(input.base, updatedAt, JSON.stringify(rows)),
  ]);
  return readExchangeRates(d1);
};
