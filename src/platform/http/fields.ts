import { z } from "@hono/zod-openapi";
import { isIsoDate, isIsoDatetime } from "./iso-time";

/** Field types every feature validates the same way. */
export const emailSchema = z.email().max(254).openapi({ example: "jane@demo.test" });

/** A date `YYYY-MM-DD` naming a real calendar day (no 2027-02-30): the one date type of every request. */
export const isoDate = z
  .string()
  .refine(isIsoDate, "expected a date YYYY-MM-DD")
  .openapi({ format: "date", example: "2027-03-10" });

/** A moment ISO 8601 with its zone (`Z` or `±hh:mm`) on a real calendar day: the one moment type of every request. */
export const isoDatetime = z
  .string()
  .refine(isIsoDatetime, "expected an ISO 8601 datetime with a zone")
  .openapi({ format: "date-time", example: "2027-03-01T12:00:00Z" });

/**
 * A person's name as a request sends it (a holder, a guest, a user): trimmed, and never empty or
 * only spaces, which would be stored and shown to a hotel as a name.
 */
export const personName = (max = 100) => z.string().trim().min(1, "must not be empty or only spaces").max(max);

/** An ISO 4217 currency code, any case as sent, upper-case once parsed. */
export const currencyCode = z
  .string()
  .regex(/^[A-Za-z]{3}$/, "expected an ISO 4217 currency code")
  .toUpperCase();

/** A moment as the API answers it: ISO 8601 with its zone (UTC, `…Z`). */
export const timestamp = z.string().openapi({ format: "date-time" });

/** A calendar day as the API answers it: `YYYY-MM-DD`. */
export const calendarDate = z.string().openapi({ format: "date" });
