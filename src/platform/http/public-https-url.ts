import ipaddr from "ipaddr.js";

/**
 * Where a webhook (or an operator's upstream) may point. https only, no credentials, no port 0,
 * never a literal address outside the global unicast ranges (classified by ipaddr.js, an IPv4
 * embedded in an IPv6 spelling judged as that IPv4), never a local-only name. Names are not
 * resolved (a Worker has no DNS API); see docs/api-decisions.md, "Issue 13: webhooks" and
 * "Issue 25: radar, URLs and partner rules". Local development (ENVIRONMENT=local) may also use
 * http://127.0.0.1:<port>/.
 */
export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

const LOCAL_NAMES = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain)$/i;

const ipv4Of = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** Every range ipaddr.js names (private, reserved, documentation, CGNAT, ...) is refused: only plain unicast passes. */
const isGlobalIPv4 = (address: ipaddr.IPv4): boolean => address.range() === "unicast";

/**
 * IPv6 spellings that carry an IPv4 (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64
 * 64:ff9b::/96, 6to4, Teredo) reach that IPv4, so they pass only when it does. Otherwise only
 * plain unicast inside 2000::/3, the one block allocated for global unicast.
 */
const isGlobalIPv6 = (address: ipaddr.IPv6): boolean => {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const range = address.range();
  switch (range) {
    case "ipv4Mapped":
    case "rfc6145":
      return isGlobalIPv4(ipv4Of(p[6], p[7]));
    case "rfc6052":
      // 64:ff9b::/96 embeds the IPv4 in the last 32 bits; 64:ff9b:1::/48 is for local use only.
      return p[1] === 0xff9b && p[2] === 0 && isGlobalIPv4(ipv4Of(p[6], p[7]));
    case "6to4":
      return isGlobalIPv4(ipv4Of(p[1], p[2]));
    case "teredo":
      // The server's IPv4 in clear, the client's inverted in the last 32 bits.
      return isGlobalIPv4(ipv4Of(p[2], p[3])) && isGlobalIPv4(ipv4Of(p[6] ^ 0xffff, p[7] ^ 0xffff));
    case "unicast":
      // ::a.b.c.d (deprecated IPv4-compatible) parses as unicast but lies outside 2000::/3.
      return (p[0] & 0xe000) === 0x2000;
    default:
      return false;
  }
};

/** The literal address a (WHATWG-normalised) host spells, or null for a name. */
const addressOf = (host: string): ipaddr.IPv4 | ipaddr.IPv6 | "invalid" | null => {
  if (host.startsWith("[")) {
    const inner = host.slice(1, -1);
    return ipaddr.IPv6.isValid(inner) ? ipaddr.IPv6.parse(inner) : "invalid";
  }
  // WHATWG parsing has already turned 2130706433, 0x7f.1 and the like into dotted IPv4.
  return ipaddr.IPv4.isValidFourPartDecimal(host) ? ipaddr.IPv4.parse(host) : null;
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
  if (url.port === "0") return { ok: false, reason: "url must not use port 0" };
  // The one local exception: a receiver on this machine during development.
  if (local && url.protocol === "http:" && url.hostname === "127.0.0.1" && url.port !== "")
    return { ok: true, url: url.href };
  if (url.protocol !== "https:") return { ok: false, reason: "url must use https" };
  const host = url.hostname.replace(/\.$/, "");
  const address = addressOf(host);
  if (address === "invalid") return { ok: false, reason: "url host is not a valid address" };
  if (
    address &&
    !(address.kind() === "ipv4" ? isGlobalIPv4(address as ipaddr.IPv4) : isGlobalIPv6(address as ipaddr.IPv6))
  ) {
    return { ok: false, reason: "url must not point to a private, loopback or link-local address" };
  }
  if (!address && (!host.includes(".") || LOCAL_NAMES.test(host))) {
    return { ok: false, reason: "url must not point to a local host name" };
  }
  return { ok: true, url: url.href };
};
