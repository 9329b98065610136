import { addDays } from "../../src/platform/time/zoned-time";

/** The tests' calendar: today's date (UTC) moved by `days`, as YYYY-MM-DD. */
export const inDays = (days: number) => addDays(new Date().toISOString().slice(0, 10), days);
