import { env } from "cloudflare:test";
import { getAllTimezones, getTimezone } from "countries-and-timezones";
import { describe, expect, it } from "vitest";
import { TIMEZONE_COUNTRIES_ASSET, timezoneCountries } from "./timezone-countries";

describe("zone-to-countries table, served as a static asset", () => {
  it("is the maintained package's table, every zone with its countries (run `npm run assets` after upgrading it)", async () => {
    const res = await env.ASSETS.fetch(new Request(`https://assets.local${TIMEZONE_COUNTRIES_ASSET}`));
    expect(res.status).toBe(200);
    const table = await timezoneCountries(env.ASSETS);
    const zones = Object.keys(getAllTimezones({ deprecated: true }));
    expect(Object.keys(table).sort()).toEqual(zones.sort());
    for (const zone of zones) expect(table[zone]).toEqual(getTimezone(zone)!.countries);
    expect(table["Europe/Berlin"]).toContain("DE");
  });
});
