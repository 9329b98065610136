const DATE = /^\d{4}-\d{2}-\d{2}$/;
// A zone is required: a datetime without one is a different instant on every partner's server.
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const isCalendarDay = (day: string) => {
  const ms = Date.parse(`${day}T00:00:00Z`);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(day);
};

/** `YYYY-MM-DD` naming a real calendar day (no 2026-02-30). */
export const isIsoDate = (value: string) => DATE.test(value) && isCalendarDay(value);

/** An ISO 8601 datetime with a zone (`Z` or `±hh:mm`) on a real calendar day. */
export const isIsoDatetime = (value: string) =>
  DATETIME.test(value) && isCalendarDay(value.slice(0, 10)) && !Number.isNaN(Date.parse(value));
