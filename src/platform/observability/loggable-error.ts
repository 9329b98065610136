import { DrizzleQueryError } from "drizzle-orm";

/**
 * An error as a log line may carry it. A failed drizzle query's message and stack list its bound
 * values (a stored answer, a card token, a key hash), so the line keeps the SQL and D1's own error
 * instead, which name no values.
 */
export const loggableError = (error: unknown, { stack = true } = {}): string => {
  if (error instanceof DrizzleQueryError) {
    const cause = error.cause ? loggableError(error.cause, { stack }) : "no cause";
    return `Failed query: ${error.query}\ncaused by: ${cause}`;
  }
  if (error instanceof Error) return stack ? (error.stack ?? error.message) : error.message;
  return String(error);
};
