// What the selling routes share (booking's own and the Hotel-X face's): the connection a call is
// judged and counted on, its rate-limit admission, and its usage count once answered.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { afterAnswerOf } from "../../platform/app-env";
import { ApiError } from "../../platform/http/api-error";
import type { AccessEnv, CoreConnection, coreConnection, searchConnection, UsageOperation } from "../connections";
import { consumeRateLimit } from "./rate-limit";

/** What a billable call reports for its usage count; set by `connectionOf` and `billed`. */
type Billing = { connection: CoreConnection; outcome?: string; supplierTimeout?: boolean; replayed?: boolean };
export type BookingEnv = AccessEnv & { Variables: { billing?: Billing } };

/** Counts the request against the connection's window; the rate headers go on success and on 429 alike. */
export const admit = async (c: Context<BookingEnv>, connection: CoreConnection) => {
  const headers = await consumeRateLimit(c.env.RATE_LIMITER, connection);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
};

/** The connection the request names, read with the API key, judged for a search or core route. */
export const connectionOf = (c: Context<BookingEnv>, judge: typeof searchConnection | typeof coreConnection) => {
  const connection = judge(c.var.access, c.get("caller").partnerId);
  c.set("billing", { connection });
  return connection;
};

/** The answer does not wait for the count; `waitUntil` keeps the Worker alive until it is kept. */
export const afterAnswer = (c: Context<BookingEnv>, work: Promise<void>) => afterAnswerOf(c)(work);

/**
 * Counts a billable call (partner usage, Analytics Engine) once it is answered, whatever the
 * answer: `success`, or the error code it threw (the 429 of the rate limit, invalid_dates...).
 * Only a call whose connection was judged is counted (a bad key or body names no connection), and
 * a replayed answer is not a new call.
 */
export const metered = (operation: UsageOperation) =>
  createMiddleware<BookingEnv>(async (c, next) => {
    await next();
    const billing = c.get("billing");
    if (!billing || billing.replayed) return;
    const error = c.error;
    const outcome = error
      ? error instanceof ApiError
        ? error.code
        : "internal_error"
      : (billing.outcome ?? "success");
    await afterAnswer(
      c,
      c.get("services").booking.meter({
        connection: billing.connection,
        operation,
        outcome,
        supplierTimeout: !error && (billing.supplierTimeout ?? false),
        requestId: c.get("requestId"),
      }),
    );
  });

/** How a call that answered 200 ended, for its usage count (a Hotel-X refusal is in the payload). */
export const billed = (c: Context<BookingEnv>, billing: Omit<Billing, "connection">) => {
  const current = c.get("billing");
  if (current) c.set("billing", { ...current, ...billing });
};

/** A search in which a supplier did not answer in time (its warning, in the contract's case or Hotel-X's). */
export const supplierTimedOut = (problems: readonly { code: string }[] | null | undefined) =>
  (problems ?? []).some((p) => p.code.toLowerCase() === "supplier_timeout");
