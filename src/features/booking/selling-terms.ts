import { ApiError } from "../../platform/http/api-error";
import { exchangeFor, type ExchangeTable } from "../supply";
import type { SellingTerms } from "../supply";
import type { Supplier } from "../supply";
import type { CoreConnection } from "../connections";

/**
 * The currency a request asks for (`settings.currency`, else the criteria's own `currency`, as each
 * query builder reads them; the schemas refuse the two disagreeing): ISO 4217, any case; undefined
 * when absent (the hotel's currency).
 */
export const requestedCurrency = (settings: { currency?: string }): string | undefined => {
  const code = settings.currency?.trim().toUpperCase();
  if (code === undefined || code === "") return undefined;
  if (!/^[A-Z]{3}$/.test(code)) throw new ApiError("unsupported_currency", "Unsupported currency", { currency: code });
  return code;
};

/** Whether pricing in `currency` needs the operator's exchange rates (a currency other than the supplier's). */
export const needsExchangeRates = (supplier: Pick<Supplier, "currency">, currency: string | undefined) =>
  currency !== undefined && currency !== supplier.currency;

/**
 * What a connection sells at: its `netMarkups` percentage on the net price, converted into the
 * requested currency (`table` is required when `needsExchangeRates`). A currency without a rate
 * is 400 `Unsupported currency`.
 */
export const sellingTermsFor = (
  connection: Pick<CoreConnection, "netMarkups">,
  supplier: Pick<Supplier, "currency">,
  currency: string | undefined,
  table: ExchangeTable | null,
): SellingTerms => {
  const target = currency ?? supplier.currency;
  const exchange =
    target === supplier.currency
      ? { currency: supplier.currency, rate: 1 }
      : exchangeFor(table ?? new Map(), supplier.currency, target);
  return { markupPercent: connection.netMarkups, currency: target, exchange };
};

/** Offers left out for a price that cannot be charged (`isSellable`): logged with the terms that made it, for the operator. */
export const logUnsellable = (supplier: string, terms: SellingTerms, offers: number) =>
  console.error(
    JSON.stringify({
      level: "warn",
      event: "unsellable_offers_dropped",
      supplier,
      currency: terms.currency,
      exchange: terms.exchange,
      markupPercent: terms.markupPercent,
      offers,
    }),
  );
