/**
 * Rate rules and visibility: what a rate is, and who may be sold it (docs/api-decisions.md,
 * "Issue 27: restricted rates"). The names are Hotel-X's `RateRulesType`
 * (travelgateX/graphql-schema, admin/core/enums/enum_RateRulesType.graphql), in its order; every
 * part of Edgestay that names a rule reads this list.
 */

export const RATE_RULES = [
  "NORMAL",
  "PACKAGE",
  "OLDER55",
  "OLDER60",
  "OLDER65",
  "CANARY_RESIDENT",
  "BALEARIC_RESIDENT",
  "LARGE_FAMILY",
  "HONEYMOON",
  "PUBLIC_SERVANT",
  "UNEMPLOYED",
  "NON_REFUNDABLE",
  "MOBILE",
  "WARRANTY",
  "ESSENTIAL_WORKER",
  "NEGOTIATED",
  "CUSTOM",
] as const;
export type RateRule = (typeof RATE_RULES)[number];

/** `NORMAL` names "no rule" in a filter; an offer never carries it (its `rateRules` is empty instead). */
export const NO_RULE: RateRule = "NORMAL";

/** Who may see a rate: anyone (`PUBLIC`), only inside a package (`PACKAGE`), or with the hotel hidden until booked. */
export const VISIBILITY_TYPES = ["PUBLIC", "PACKAGE", "OPAQUE_PROPERTY"] as const;
export type Visibility = (typeof VISIBILITY_TYPES)[number];

export const SALES_CHANNELS = ["WEB", "APP", "OFFLINE"] as const;
export type SalesChannel = (typeof SALES_CHANNELS)[number];

const KNOWN = new Set<string>(RATE_RULES);
export const isRateRule = (name: string): name is RateRule => KNOWN.has(name);

/** Rules sold only to a traveller the partner vouches for by naming the rule in `rateRuleFilter.includes`. */
const VOUCHED = new Set<RateRule>([
  "OLDER55",
  "OLDER60",
  "OLDER65",
  "CANARY_RESIDENT",
  "BALEARIC_RESIDENT",
  "LARGE_FAMILY",
  "HONEYMOON",
  "PUBLIC_SERVANT",
  "UNEMPLOYED",
  "ESSENTIAL_WORKER",
  "CUSTOM",
]);
/** Age rules: besides being named, a guest of the stay must be that old (the ages are in the request). */
const MIN_AGE: Partial<Record<RateRule, number>> = { OLDER55: 55, OLDER60: 60, OLDER65: 65 };

/**
 * Rules that restrict a sale: `PACKAGE` (with its visibility), `MOBILE` (the app channel) and the
 * vouched ones. `NON_REFUNDABLE`, `WARRANTY` and `NEGOTIATED` (a rate the upstream gives this
 * connection's own access) restrict nothing.
 */
const restricted = (rule: string) => rule === "PACKAGE" || rule === "MOBILE" || VOUCHED.has(rule as RateRule);

/**
 * What one sale may include beyond public rates: the visibilities the partner supports (`PUBLIC`
 * always) and the restricted rules it may be sold. A search works it out once from its request
 * and signs it into its option ids, so a quote sells no more than the search could show.
 */
export type RateAccess = { visibilities: Visibility[]; rules: RateRule[] };

export const PUBLIC_ACCESS: RateAccess = { visibilities: ["PUBLIC"], rules: [] };

/** What a request says about who is buying. */
export type RateAccessRequest = {
  supportedVisibilityTypes?: readonly Visibility[];
  salesChannel?: SalesChannel;
  /** `rateRuleFilter.includes` as sent (any case). */
  includes?: readonly string[];
  /** Per room, the guests' ages. */
  rooms: number[][];
};

const oldestGuest = (rooms: number[][]) => {
  let oldest = 0;
  for (const ages of rooms) for (const age of ages) oldest = Math.max(oldest, age);
  return oldest;
};

/** The age rule of `rateRules` (OLDER65...) no guest of `rooms` is old enough for, with its age; undefined when met. */
export const unmetAgeRule = (
  rateRules: readonly string[],
  rooms: number[][],
): { rule: RateRule; minimumAge: number } | undefined => {
  const oldest = oldestGuest(rooms);
  for (const rule of rateRules) {
    const minimumAge = MIN_AGE[rule as RateRule];
    if (minimumAge !== undefined && oldest < minimumAge) return { rule: rule as RateRule, minimumAge };
  }
  return undefined;
};

export const rateAccessOf = (request: RateAccessRequest): RateAccess => {
  const visibilities = VISIBILITY_TYPES.filter((v) => v === "PUBLIC" || request.supportedVisibilityTypes?.includes(v));
  const named = new Set(request.includes?.map((r) => r.toUpperCase()));
  const oldest = oldestGuest(request.rooms);
  const rules = RATE_RULES.filter((rule) => {
    if (rule === "PACKAGE") return visibilities.includes("PACKAGE");
    if (rule === "MOBILE") return request.salesChannel === "APP";
    if (!VOUCHED.has(rule) || !named.has(rule)) return false;
    return oldest >= (MIN_AGE[rule] ?? 0);
  });
  return { visibilities, rules };
};

/** Whether a rate of these rules and visibility may be sold under `access`. */
export const maySell = (
  rate: { rateRules: readonly string[]; visibility: Visibility },
  access: RateAccess,
): boolean => {
  if (!access.visibilities.includes(rate.visibility)) return false;
  for (const rule of rate.rateRules) if (restricted(rule) && !access.rules.includes(rule as RateRule)) return false;
  return true;
};

/** The visibility a rate's rules call for: a `PACKAGE` rate is never shown on its own. */
export const visibilityOf = (rateRules: readonly string[]): Visibility =>
  rateRules.includes("PACKAGE") ? "PACKAGE" : "PUBLIC";

/**
 * A supplier's rule names as we carry them: known names kept once, in the list's order; `NORMAL`
 * dropped (it means none); a name we do not know becomes `CUSTOM`, so a rule we cannot read is
 * never resold as a public rate.
 */
export const rateRulesOf = (names: readonly string[] | null | undefined): RateRule[] => {
  if (!names?.length) return [];
  const found = new Set<RateRule>(names.map((n) => (isRateRule(n) ? n : "CUSTOM")));
  return RATE_RULES.filter((rule) => rule !== NO_RULE && found.has(rule));
};

/** `access` as the text an option id signs; undefined for public-only access (ids stay as they were). */
export const rateAccessText = (access: RateAccess): string | undefined =>
  access.visibilities.length === 1 && access.rules.length === 0
    ? undefined
    : `${access.visibilities.join(".")}|${access.rules.join(".")}`;

/** The access an option id signed; null when the text is not one `rateAccessText` writes. */
export const rateAccessFromText = (text: string | undefined): RateAccess | null => {
  if (text === undefined) return PUBLIC_ACCESS;
  const [visibilities, rules, extra] = text.split("|");
  if (visibilities === undefined || rules === undefined || extra !== undefined) return null;
  const v = visibilities.split(".");
  const r = rules === "" ? [] : rules.split(".");
  if (!v.includes("PUBLIC") || v.some((x) => !(VISIBILITY_TYPES as readonly string[]).includes(x))) return null;
  if (r.some((x) => !isRateRule(x))) return null;
  return { visibilities: v as Visibility[], rules: r as RateRule[] };
};
