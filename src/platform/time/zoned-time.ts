// Wall-clock conversions in an accommodation's IANA zone, using the runtime's Intl (ICU) data.

const formatters = new Map<string, Intl.DateTimeFormat>();
const formatterFor = (timeZone: string) => {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
};

const wallClock = (instant: number, timeZone: string) => {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  return {
    year: +parts.year!,
    month: +parts.month!,
    day: +parts.day!,
    hour: +parts.hour!,
    minute: +parts.minute!,
    second: +parts.second!,
  };
};

/** Offset of the zone from UTC at an instant, in milliseconds (e.g. -5 h for New York in winter). */
const zoneOffset = (instant: number, timeZone: string): number => {
  const w = wallClock(instant, timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000;
};

// A search prices thousands of offers whose deadlines share a few dates and zones; each Intl
// conversion costs ~25 µs, so remember them (bounded: cleared when full).
const utcInstants = new Map<string, number>();

/** The UTC instant of a local wall-clock time (`YYYY-MM-DD`, `HH:MM`) in `timeZone`. */
export const zonedTimeToUtc = (date: string, time: string, timeZone: string): Date => {
  const key = `${date}|${time}|${timeZone}`;
  let instant = utcInstants.get(key);
  if (instant === undefined) {
    instant = convertZonedTime(date, time, timeZone);
    if (utcInstants.size >= 10_000) utcInstants.clear();
    utcInstants.set(key, instant);
  }
  return new Date(instant);
};

const convertZonedTime = (date: string, time: string, timeZone: string): number => {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const [hh, mm] = time.split(":").map(Number) as [number, number];
  const asUtc = Date.UTC(y, m - 1, d, hh, mm);
  // Two passes settle the offset across a DST change (the second sees the offset in force then).
  const first = asUtc - zoneOffset(asUtc, timeZone);
  return asUtc - zoneOffset(first, timeZone);
};

/** The calendar date (`YYYY-MM-DD`) in `timeZone` at an instant. */
export const localDate = (instant: number, timeZone: string): string => {
  const w = wallClock(instant, timeZone);
  return `${w.year}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")}`;
};

/** `YYYY-MM-DD` plus `days` (calendar arithmetic in UTC, no zone involved). */
export const addDays = (date: string, days: number): string => {
  const t = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(t).toISOString().slice(0, 10);
};

/** Nights of a stay: every date from checkIn up to, not including, checkOut. */
export const stayNights = (checkIn: string, checkOut: string): string[] => {
  const nights: string[] = [];
  for (let night = checkIn; night < checkOut; night = addDays(night, 1)) nights.push(night);
  return nights;
};
