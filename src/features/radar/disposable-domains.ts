import { staticData } from "../../platform/static-data";
import wildcards from "disposable-email-domains/wildcard.json";

/**
 * The maintained disposable-domain list (disposable-email-domains, ~121k domains, 2.4 MB) is a
 * static asset rather than part of the Worker, which it would more than triple in size. It is
 * one domain per line with a newline at both ends, so a lookup is one substring search.
 * `npm run assets` writes it from the package; a test keeps the two equal.
 */
export const DISPOSABLE_DOMAINS_ASSET = "/_data/disposable-domains.txt";

const loadList = staticData(DISPOSABLE_DOMAINS_ASSET, (res) => res.text());

const wildcardSet = new Set<string>(wildcards);

export const emailDomain = (email: string) =>
  email
    .slice(email.lastIndexOf("@") + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "");

/** True when the e-mail's domain, or for wildcard entries any parent domain, is on the maintained list. */
export const isDisposableEmail = async (assets: Fetcher, email: string): Promise<boolean> => {
  const domain = emailDomain(email);
  const labels = domain.split(".");
  for (let i = 0; i < labels.length - 1; i++) if (wildcardSet.has(labels.slice(i).join("."))) return true;
  if (!domain || domain.includes("\n")) return false;
  return (await loadList(assets)).includes(`\n${domain}\n`);
};
