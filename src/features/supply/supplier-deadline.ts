import { isLocal } from "../../platform/environment";
import { ApiError } from "../../platform/http/api-error";
import { SupplierFailure, type ProviderTransaction, type Supplier, type SupplierCall } from "./supplier";

export const DEFAULT_SUPPLIER_TIMEOUT_MS = 8_000;
export const MAX_SUPPLIER_TIMEOUT_MS = 25_000;

/** How a call reaches its suppliers: the deadline, and whether their exchanges are shown to the partner. */
export type SupplyOptions = { timeoutMs?: number; includeProviderTransactions?: boolean };

/**
 * `settings.timeout`: milliseconds (the spec types it as a string; Hotel-X sends a number), at
 * most MAX_SUPPLIER_TIMEOUT_MS (a larger hint is capped, not refused); none when absent, so the
 * supplier's default deadline applies (callSupplier).
 */
export const supplierTimeoutMs = (timeout: unknown): number | undefined => {
  if (timeout === undefined || timeout === null || (typeof timeout === "string" && timeout.trim() === ""))
    return undefined;
  const value =
    typeof timeout === "number"
      ? timeout
      : typeof timeout === "string" && /^\s*\d{1,9}\s*$/.test(timeout)
        ? Number(timeout)
        : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ApiError("invalid_timeout", "settings.timeout must be a whole number of milliseconds");
  return Math.min(value, MAX_SUPPLIER_TIMEOUT_MS);
};

/**
 * A remote supplier's deadline when the caller gives none: DEFAULT_SUPPLIER_TIMEOUT_MS. Local
 * development may shorten it with SUPPLIER_TIMEOUT_MS (the workerd tests do, so a test of a late
 * supplier waits seconds, not 8); a deploy always uses the default.
 */
export const defaultSupplierTimeoutMs = (env: { ENVIRONMENT?: string }): number => {
  const override = Number((env as { SUPPLIER_TIMEOUT_MS?: string }).SUPPLIER_TIMEOUT_MS);
  return isLocal(env) && Number.isSafeInteger(override) && override > 0 ? override : DEFAULT_SUPPLIER_TIMEOUT_MS;
};

/** What a request's `settings` say about its suppliers. */
export const supplyOptionsOf = (settings: {
  timeout?: unknown;
  includeProviderTransactions?: boolean;
}): SupplyOptions => ({
  timeoutMs: supplierTimeoutMs(settings.timeout),
  includeProviderTransactions: settings.includeProviderTransactions === true,
});

/**
 * Runs one call to a supplier. A remote one gets the deadline as an AbortSignal and, past it, the
 * caller stops waiting whether or not the supplier honours the signal: `SupplierFailure` with
 * `supplier_timeout`. The embedded inventory (our own D1) is awaited as before.
 */
export const callSupplier = async <T>(
  supplier: Supplier,
  options: SupplyOptions,
  transactions: ProviderTransaction[] | undefined,
  work: (call: SupplierCall) => Promise<T>,
): Promise<T> => {
  if (!supplier.remote) return work({ transactions });
  const timeoutMs = options.timeoutMs ?? supplier.defaultTimeoutMs ?? DEFAULT_SUPPLIER_TIMEOUT_MS;
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const failure = new SupplierFailure(
        "supplier_timeout",
        supplier.name,
        `No answer from ${supplier.name} within ${timeoutMs} ms`,
      );
      controller.abort(failure);
      reject(failure);
    }, timeoutMs);
  });
  const answer = work({ signal: controller.signal, transactions, timeoutMs });
  // A late answer (or failure) after the deadline is dropped, not left unhandled.
  answer.catch(() => undefined);
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * A supplier that did not answer a quote or a cancel, as the partner sees it: retryable 5xx (nothing
 * was changed). Search turns the same failure into a warning instead; book into a pending booking.
 */
export const supplierFailureError = (failure: SupplierFailure): ApiError => {
  switch (failure.code) {
    case "supplier_timeout":
      return new ApiError(failure.code, "The supplier did not answer in time", { supplier: failure.supplier });
    case "supplier_unavailable":
      return new ApiError(failure.code, "The supplier is unavailable; retry later", { supplier: failure.supplier });
    case "supplier_error":
      return new ApiError(failure.code, "The supplier answered with an error", { supplier: failure.supplier });
  }
};
