import { staticData } from "../../platform/static-data";

/**
 * Which countries use each IANA zone (several for shared zones), from countries-and-timezones. A
 * static asset rather than the package itself, which carried 32 KB of offsets the rule never reads.
 * `npm run assets` writes it from the package; a test keeps the two equal.
 */
export const TIMEZONE_COUNTRIES_ASSET = "/_data/timezone-countries.json";

export type TimezoneCountries = Record<string, string[]>;

export const timezoneCountries = staticData(TIMEZONE_COUNTRIES_ASSET, (res) => res.json<TimezoneCountries>());
