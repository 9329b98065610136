/**
 * Where a webhook may point. https only, no credentials, never a literal address in a private,
 * loopback, link-local or otherwise non-public range, never a local-only name. Names are not
 * resolved (a Worker has no DNS API); see docs/api-decisions.md, "Issue 13: webhooks".
 * Local development (ENVIRONMENT=local) may also use http://127.0.0.1:<port>/.
 */
export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain)$/i;

const ipv4Octets = (host: string): number[] | null => {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
};

/** 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.168/16, 198.18/15, 224/3. */
const isNonPublicIPv4 = ([a, b, c]: number[]): boolean =>
  a === 0 ||
  a === 10 ||
  a === 127 ||
  a! >= 224 ||
  (a === 100 && b! >= 64 && b! <= 127) ||
  (a === 169 && b === 254) ||
  (a === 172 && b! >= 16 && b! <= 31) ||
  (a === 192 && b === 168) ||
  (a === 192 && b === 0 && c === 0) ||
  (a === 198 && (b === 18 || b === 19));

/** The 8 groups of an IPv6 literal (the URL parser has already normalised it), or null. */
const ipv6Groups = (host: string): number[] | null => {
  if (!host.startsWith("[") || !host.endsWith("]")) return null;
  let text = host.slice(1, -1).toLowerCase();
  // An embedded IPv4 tail (::ffff:1.2.3.4) as two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const o = ipv4Octets(tail[1]!);
    if (!o) return null;
    text = `${text.slice(0, -tail[1]!.length)}${((o[0]! << 8) | o[1]!).toString(16)}:${((o[2]! << 8) | o[3]!).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const missing = 8 - left.length - right.length;
  if (rest === undefined ? left.length !== 8 : missing < 1) return null;
  const groups = [...left, ...Array(rest === undefined ? 0 : missing).fill("0"), ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
};

/** ::, ::1, IPv4-mapped/compatible, fc00::/7 unique-local, fe80::/10 link-local, ff00::/8 multicast. */
const isNonPublicIPv6 = (g: number[]): boolean => {
  const zerosBefore = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zerosBefore(8)) return true;
  if (zerosBefore(7) && g[7] === 1) return true;
  if (zerosBefore(5) && (g[5] === 0xffff || g[5] === 0)) {
    return isNonPublicIPv4([g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff]);
  }
  return (g[0]! & 0xfe00) === 0xfc00 || (g[0]! & 0xffc0) === 0xfe80 || (g[0]! & 0xff00) === 0xff00;
};

export const checkEndpointUrl = (input: string, local: boolean): UrlVerdict => {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: "url must be an absolute URL" };
  }
  if (url.username || url.password) return { ok: false, reason: "url must not contain credentials" };
  if (url.hash) return { ok: false, reason: "url must not contain a fragment" };
  // The one local exception: a receiver on this machine during development.
  if (local && url.protocol === "http:" && url.hostname === "127.0.0.1" && url.port !== "")
    return { ok: true, url: url.href };
  if (url.protocol !== "https:") return { ok: false, reason: "url must use https" };
  // WHATWG parsing has already turned 2130706433, 0x7f.1 and the like into dotted IPv4.
  const host = url.hostname.replace(/\.$/, "");
  const v4 = ipv4Octets(host);
  const v6 = host.startsWith("[") ? ipv6Groups(host) : null;
  if (host.startsWith("[") && !v6) return { ok: false, reason: "url host is not a valid address" };
  if ((v4 && isNonPublicIPv4(v4)) || (v6 && isNonPublicIPv6(v6))) {
    return { ok: false, reason: "url must not point to a private, loopback or link-local address" };
  }
  if (!v4 && !v6 && (!host.includes(".") || LOCAL_NAMES.test(host))) {
    return { ok: false, reason: "url must not point to a local host name" };
  }
  return { ok: true, url: url.href };
};
