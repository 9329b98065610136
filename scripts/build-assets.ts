import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DISPOSABLE_DOMAINS_ASSET } from "../src/features/radar/disposable-domains";
import { root } from "./local-platform";

/** The asset text of the disposable-domain list: sorted, one per line, a newline at both ends. */
export const disposableDomainsAssetText = () => {
  const require = createRequire(import.meta.url);
  const domains = JSON.parse(readFileSync(require.resolve("disposable-email-domains/index.json"), "utf8")) as string[];
  return `\n${[...new Set(domains.map((d) => d.trim().toLowerCase()).filter(Boolean))].sort().join("\n")}\n`;
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = join(root, "snippet", DISPOSABLE_DOMAINS_ASSET);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, disposableDomainsAssetText());
  console.log(`Wrote ${target}`);
}
