import { sha256Hex } from "../../platform/crypto/digest";
import { type Offer, type OfferRef, sellingTotal } from "../supply";
import { signedStayOf, type OptionSnapshot } from "./option-token";

/**
 * The upstream's own option ids behind a search's options (Hotel-X `optionRefId` and `accessCode`),
 * so quote asks the upstream for that option at once instead of searching its hotel again first
 * (one upstream call per quote, issue 29). Those ids are long and the upstream's, never shown to a
 * partner, so they stay here: one KV entry per search, keyed by the option ids' signed stay, naming
 * each option by supplier, hotel, rate plan and total. One write whatever the number of suppliers:
 * KV bills each write, and a merged search asks several. A miss (expired, another location's KV not
 * caught up, a write refused) only costs the old way: quote searches the hotel again.
 */
export const UPSTREAM_OPTIONS_TTL_SECONDS = 3600;

type Entries = Record<string, [optionId: string, accessCode: string | null]>;

/** The KV key of the entry that keeps an option id's upstream id: one per signed stay. */
export const upstreamOptionsKeyOf = async (optionId: string) =>
  `upstream-options:${await sha256Hex(signedStayOf(optionId))}`;
const productKey = (o: { supplier: string; accommodationCode: string; ratePlanCode: string; chargeTotal: number }) =>
  `${o.supplier}~${o.accommodationCode}~${o.ratePlanCode}~${o.chargeTotal}`;

export type SearchedUpstreamOption = { optionId: string; supplier: string; accommodationCode: string; offer: Offer };

/**
 * Entries whose KV write has not settled, by key: a quote served by this isolate reads them before
 * KV has them, so the write need not hold up the search's answer (the search hands it to
 * `waitUntil`). Each leaves when its write settles; another isolate or location reads KV.
 */
const unsettled = new Map<string, Entries>();
/**
 * At most this many at once: writes that hang (a KV incident) must not grow the isolate's memory
 * with every search; past it an entry is left to KV alone, and a quote that misses it searches again.
 */
export const UNSETTLED_LIMIT = 64;

/**
 * Keeps the upstream ids of a search's options (those that have one); one write per signed stay.
 * Every option of one currency shares its signed stay: the key is hashed once per stay, not once
 * per option (a merged search has a thousand options and more).
 * Resolves once this isolate's quotes can read them; `written` settles when KV has them (a write KV
 * refuses is logged, never thrown: a miss only costs the old way).
 */
export const rememberUpstreamOptions = async (
  kv: KVNamespace,
  searched: SearchedUpstreamOption[],
): Promise<{ written: Promise<void> }> => {
  const keys = new Map<string, Promise<string>>();
  const groups = new Map<Promise<string>, Entries>();
  for (const s of searched) {
    if (!s.offer.upstreamOptionId) continue;
    const stay = signedStayOf(s.optionId);
    let key = keys.get(stay);
    if (!key) keys.set(stay, (key = upstreamOptionsKeyOf(s.optionId)));
    let entries = groups.get(key);
    if (!entries) groups.set(key, (entries = {}));
    // The total the option id signs (search.ts): for a rate paid at the hotel, the stay's value, not the 0 charged.
    const product = productKey({
      supplier: s.supplier,
      accommodationCode: s.accommodationCode,
      ratePlanCode: s.offer.ratePlanCode,
      chargeTotal: sellingTotal(s.offer.rate, s.offer.paymentType),
    });
    // Two options of one product at one price: the first, as a search of the hotel would pick.
    entries[product] ??= [s.offer.upstreamOptionId, s.offer.upstreamAccessCode ?? null];
  }
  const writes = await Promise.all(
    [...groups].map(async ([pending, entries]) => {
      const key = await pending;
      if (unsettled.size < UNSETTLED_LIMIT || unsettled.has(key)) unsettled.set(key, entries);
      // KV takes one write a second per key: the same stay searched twice in a second may be refused.
      // Wrapped: a promise returned as it is would be awaited here.
      const write = kv
        .put(key, JSON.stringify(entries), { expirationTtl: UPSTREAM_OPTIONS_TTL_SECONDS })
        .catch((error: unknown) =>
          console.error(JSON.stringify({ level: "warn", event: "upstream_options_not_kept", error: String(error) })),
        )
        .finally(() => {
          // A later search of the same stay may have replaced them meanwhile: only these leave.
          if (unsettled.get(key) === entries) unsettled.delete(key);
        });
      return { write };
    }),
  );
  return { written: Promise.all(writes.map((w) => w.write)).then(() => undefined) };
};

/** The upstream ids of the option a partner's option id names, or nothing. */
export const upstreamOptionOf = async (
  kv: KVNamespace,
  optionId: string,
  option: Pick<OptionSnapshot, "accommodationCode" | "ratePlanCode" | "chargeTotal" | "supplier">,
): Promise<Pick<OfferRef, "upstreamOptionId" | "upstreamAccessCode">> => {
  if (!option.supplier) return {};
  const key = await upstreamOptionsKeyOf(optionId);
  const entries = unsettled.get(key) ?? (await kv.get<Entries>(key, "json").catch(() => null));
  const found = entries?.[productKey({ ...option, supplier: option.supplier })];
  if (!Array.isArray(found) || typeof found[0] !== "string") return {};
  return { upstreamOptionId: found[0], ...(typeof found[1] === "string" ? { upstreamAccessCode: found[1] } : {}) };
};
