import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { getAllTimezones } from "countries-and-timezones";
import { hotelxApiSdl } from "../src/features/hotelx-api/hotelx-api-sdl";
import { HOTELX_SDL_ASSET } from "../src/features/hotelx-api/hotelx-sdl";
import { DISPOSABLE_DOMAINS_ASSET, DISPOSABLE_WILDCARDS_ASSET } from "../src/features/radar/disposable-domains";
import { TIMEZONE_COUNTRIES_ASSET, type TimezoneCountries } from "../src/features/radar/timezone-countries";
import { SWAGGER_UI_ASSET_DIR, SWAGGER_UI_FILES } from "../src/platform/docs/api-reference";
import { root } from "../local/platform";

/** The asset text of one of the package's domain lists: sorted, one per line, a newline at both ends. */
export const disposableDomainsAssetText = (list: "index.json" | "wildcard.json" = "index.json") => {
  const require = createRequire(import.meta.url);
  const domains = JSON.parse(readFileSync(require.resolve(`disposable-email-domains/${list}`), "utf8")) as string[];
  return `\n${[...new Set(domains.map((d) => d.trim().toLowerCase()).filter(Boolean))].sort().join("\n")}\n`;
};

/** The asset text of the zone-to-countries table: every zone of the package, sorted, with its countries. */
export const timezoneCountriesAssetText = () => {
  const zones = getAllTimezones({ deprecated: true });
  const table: TimezoneCountries = {};
  for (const name of Object.keys(zones).sort()) table[name] = [...zones[name as keyof typeof zones].countries];
  return `${JSON.stringify(table)}\n`;
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const sdl = join(root, "snippet", HOTELX_SDL_ASSET);
  writeFileSync(sdl, hotelxApiSdl());
  console.log(`Wrote ${sdl}`);
  const target = join(root, "snippet", DISPOSABLE_DOMAINS_ASSET);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, disposableDomainsAssetText());
  console.log(`Wrote ${target}`);
  const wildcards = join(root, "snippet", DISPOSABLE_WILDCARDS_ASSET);
  writeFileSync(wildcards, disposableDomainsAssetText("wildcard.json"));
  console.log(`Wrote ${wildcards}`);
  const zones = join(root, "snippet", TIMEZONE_COUNTRIES_ASSET);
  writeFileSync(zones, timezoneCountriesAssetText());
  console.log(`Wrote ${zones}`);

  // The API reference UI at /docs, verbatim from the pinned package.
  const require = createRequire(import.meta.url);
  const uiDir = join(root, "snippet", SWAGGER_UI_ASSET_DIR);
  mkdirSync(uiDir, { recursive: true });
  for (const file of SWAGGER_UI_FILES) copyFileSync(require.resolve(`swagger-ui-dist/${file}`), join(uiDir, file));
  console.log(
    `Wrote ${uiDir} (swagger-ui-dist ${(require("swagger-ui-dist/package.json") as { version: string }).version})`,
  );
}
