import { staticData } from "../../platform/static-data";

/**
 * The maintained disposable-domain list (disposable-email-domains, ~121k domains, 2.4 MB) is a
 * static asset rather than part of the Worker, which it would more than triple in size. It is
 * one domain per line with a newline at both ends, so a lookup is one substring search.
 * The package's wildcard entries (a domain and all its subdomains) are a second asset of the same
 * shape, kept out of the bundle too. `npm run assets` writes both from the package; a test keeps
 * them equal.
 */
export const DISPOSABLE_DOMAINS_ASSET = "/_data/disposable-domains.txt";
export const DISPOSABLE_WILDCARDS_ASSET = "/_data/disposable-wildcards.txt";

const loadList = staticData(DISPOSABLE_DOMAINS_ASSET, (res) => res.text());
const loadWildcards = staticData(DISPOSABLE_WILDCARDS_ASSET, (res) => res.text());

export const emailDomain = (email: string) =>
  email
    .slice(email.lastIndexOf("@") + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, "");

/** True when the e-mail's domain, or for wildcard entries any parent domain, is on the maintained list. */
export const isDisposableEmail = async (assets: Fetcher, email: string): Promise<boolean> => {
  const domain = emailDomain(email);
  if (!domain || domain.includes("\n")) return false;
  const [list, wildcards] = await Promise.all([loadList(assets), loadWildcards(assets)]);
  const labels = domain.split(".");
  for (let i = 0; i < labels.length - 1; i++) if (wildcards.includes(`\n${labels.slice(i).join(".")}\n`)) return true;
  return list.includes(`\n${domain}\n`);
};
