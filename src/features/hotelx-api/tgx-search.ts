import { ApiError } from "../../platform/http/api-error";
import { toMajor } from "../../platform/money";
import { addDays } from "../../platform/time/zoned-time";
import {
  type CancelPolicy,
  DEFAULT_SUPPLIER_TIMEOUT_MS,
  INVENTORY_SUPPLIER,
  MIXED_PRODUCT_SEPARATOR,
  type Offer,
  type PaymentType,
  type Rate,
  sellingTotal,
  supplyOptionsOf,
} from "../supply";
import type { CoreConnection } from "../connections";
import {
  type AccommodationStatus,
  type BookingDeps,
  type CodeStatus,
  hotelxOptionId,
  offerTerms,
  searchAvailability,
  searchQueryOf,
  type SearchRequest,
} from "../booking";
import {
  CHEAPEST_PRICE,
  TGX_CONTEXT,
  type TgxError,
  type TgxOption,
  type TgxSearchRequest,
  type TgxSearchResponse,
} from "./tgx-schemas";

/** The supplier of every option: the embedded inventory. */
export const TGX_SUPPLIER_CODE = "EDGESTAY";
/** Hotel-X `RateRulesType` for "an option without rate rules". */
const NORMAL = "NORMAL";
/** Every text we hold (names, descriptions) is English. */
export const ENGLISH = /^en(?:[-_]|$)/i;

/** The markets asked: `criteria.markets` and the deprecated `criteria.market`, each once. */
const marketsOf = (criteria: TgxSearchRequest["criteria"]) => [
  ...new Set([...(criteria.markets ?? []), ...(criteria.market ? [criteria.market] : [])]),
];

/**
 * The core search request a Hotel-X search stands for, priced in `currency` (absent: the hotel's).
 * `filterSearch` and its deprecated name `filter` read the same. Rate-rule filters keep Hotel-X's
 * meaning, through the REST filter's own predicate (`offerFilter`): `includes` keeps only options
 * with a listed rule (`NORMAL` listed: those without rules too); `excludes` drops options with a
 * listed rule, and `NORMAL` in excludes drops those without rules. Without a status
 * filter only `OK` options come back, as Hotel-X filters `RQ` by default.
 */
export const coreRequestOf = (request: TgxSearchRequest, currency?: string): SearchRequest => {
  const { criteria, settings } = request;
  const filter = request.filterSearch ?? request.filter;
  const includes = filter?.rateRules?.includes;
  const excludes = filter?.rateRules?.excludes;
  const markets = marketsOf(criteria);
  return {
    searchCriteria: {
      destinations: { accommodations: criteria.hotels.map((code) => ({ code })) },
      occupancies: criteria.occupancies,
      checkIn: criteria.checkIn,
      checkOut: criteria.checkOut,
      ...(markets.length ? { markets } : {}),
      ...(criteria.language ? { language: criteria.language } : {}),
      ...(criteria.nationality ? { nationality: criteria.nationality } : {}),
    },
    settings: {
      access: settings.access,
      ...(currency ? { currency: currency.trim().toUpperCase() } : {}),
      // Hotel-X's name for the same thing: the supplier exchanges, answered as auditData.
      includeProviderTransactions: settings.includeProviderTransactions === true || settings.auditTransactions === true,
    },
    ...(request.distributionContext ? { distributionContext: request.distributionContext } : {}),
    filters: {
      status: filter?.status ?? { includes: ["OK"] },
      ...(includes || excludes
        ? {
            rateRuleFilter: {
              ...(includes ? { includes } : {}),
              ...(excludes ? { excludes: excludes.filter((r) => r !== NORMAL) } : {}),
              // Hotel-X's includes keeps only options with a listed rule (NORMAL: without rules).
              includeEmptyRateRulesOptions: includes
                ? includes.includes(NORMAL) && !excludes?.includes(NORMAL)
                : !excludes?.includes(NORMAL),
            },
          }
        : {}),
    },
  };
};

/** The supplier deadline: `timeout` (as /api/search reads it), cut to `operationTimeout` when that is shorter. */
const supplyOf = (request: TgxSearchRequest, includeProviderTransactions: boolean) => {
  const supply = supplyOptionsOf({ timeout: request.settings.timeout, includeProviderTransactions });
  const cap = request.settings.operationTimeout;
  return cap === undefined
    ? supply
    : { ...supply, timeoutMs: Math.min(supply.timeoutMs ?? DEFAULT_SUPPLIER_TIMEOUT_MS, cap) };
};

/**
 * A room's nights as Hotel-X's daily `breakdown` (NightPrice): each night from its date to the next,
 * its base and taxes together, in the rate's currency (a night paid at the property: the property's).
 */
const breakdownOf = (rate: Rate) =>
  rate.nights.map((night) => {
    const currency = night.currency ?? rate.currency;
    const end = addDays(night.date, 1);
    return {
      start: night.date,
      end,
      // Hotel-X's deprecated names of the same dates, non-null in its schema.
      effectiveDate: night.date,
      expireDate: end,
      price: amountPrice(
        toMajor(night.baseRate + night.taxesAndFees, currency),
        currency,
        night.currency ? undefined : rate.exchange,
      ),
    };
  });

/** Each room's rate plan code: the offer's, one per room of a mixed offer (`STD-RO-FLX+FAM-RO-FLX`). */
const ratePlanCodesOf = (offer: Offer) => {
  const codes = offer.ratePlanCode.split(MIXED_PRODUCT_SEPARATOR);
  return offer.rooms.map((_, i) => (codes.length === offer.rooms.length ? codes[i]! : offer.ratePlanCode));
};

/**
 * Core option terms plus what Hotel-X shows of an offer and /api/search does not: its status, the
 * supplier's own hotel and board codes (absent for a supplier that speaks ours), nightly breakdowns
 * and rate plans.
 */
const tgxTerms = (offer: Offer, occupancyRefIds?: number[]) => ({
  ...offerTerms(offer, occupancyRefIds),
  status: offer.status,
  hotelCodeSupplier: offer.supplierHotelCode,
  boardCodeSupplier: offer.supplierBoardCode,
  breakdowns: offer.rooms.map((room) => breakdownOf(room.rate)),
  ratePlanCodes: ratePlanCodesOf(offer),
});

/**
 * A core rate as a Hotel-X price: `net` is what is paid for the option (`sellingTotal`: the
 * `chargeTotal` of a MerchantPay rate, the whole stay of a PayAtProperty one, paid at the hotel);
 * no separate retail price is published, so `gross` is the same amount (never null).
 */
export const priceOf = (rate: Rate, paymentType: PaymentType) => {
  const total = sellingTotal(rate, paymentType);
  return {
    currency: rate.currency,
    binding: false,
    net: total,
    gross: total,
    exchange: rate.exchange ?? { currency: rate.currency, rate: 1 },
  };
};

/** Our payment type as Hotel-X's: paid at the hotel is `DIRECT`. */
export const tgxPaymentType = (paymentType: PaymentType) => (paymentType === "PayAtProperty" ? "DIRECT" : "MERCHANT");

/** An amount in one currency as a Hotel-X `Price`. */
export const amountPrice = (amount: number, currency: string, exchange = { currency, rate: 1 }) => ({
  currency,
  binding: false,
  net: amount,
  gross: amount,
  exchange,
});

/** A core rate's taxes and fees as Hotel-X `Surcharge`s, by who collects them. */
export const surchargesOf = (rate: Rate, paymentType: PaymentType) =>
  paymentType === "PayAtProperty" ? stayChargesOf(rate) : chargedSurchargesOf(rate);

/** A charge inside the price, in the rate's currency, as an `INCLUDE` surcharge. */
const includedSurcharge = (c: Rate["charges"][number], rate: Rate) => ({
  code: c.code,
  chargeType: "INCLUDE" as const,
  mandatory: true,
  description: c.description,
  price: amountPrice(c.amount, rate.currency, rate.exchange),
});

/** A PayAtProperty rate's taxes and fees (not its room charge): all inside the price paid at the hotel. */
const stayChargesOf = (rate: Rate) =>
  rate.charges.filter((c) => c.type !== "ROOM").map((c) => includedSurcharge(c, rate));

/**
 * A core rate's charges as Hotel-X `Surcharge`s: each included charge is `INCLUDE` (inside the
 * price, in the rate's currency), each charge due at the property `EXCLUDE` (mandatory, paid at the
 * hotel, in the property's currency).
 */
const chargedSurchargesOf = (rate: Rate) => [
  ...rate.charges.filter((c) => c.included).map((c) => includedSurcharge(c, rate)),
  ...rate.dueAtProperty.charges.map((c) => ({
    code: c.code,
    chargeType: "EXCLUDE" as const,
    mandatory: true,
    description: c.description,
    price: amountPrice(c.amount, c.currency),
  })),
];

const HOUR_MS = 3_600_000;

/**
 * A core penalty as a Hotel-X `CancelPenalty`: an upstream's `PERCENT` penalty as it stated it
 * (the value a percentage of the price); every other one an `IMPORT` amount in the option's
 * currency. `hoursBefore`: the upstream's own, else the whole hours from the deadline to check-in
 * day 00:00 UTC, rounded up (the fee is never said to start later than it does). The deadline is
 * calculated (`isCalculatedDeadline`) unless an upstream stated it: the embedded inventory's are
 * computed from the plan's free days in the hotel's zone, an upstream's from its hoursBefore.
 */
export const penaltyOf = (p: CancelPolicy["cancelPenalties"][number], checkInMs: number) => {
  const stated = p.supplierPenalty;
  return {
    deadline: p.deadline,
    isCalculatedDeadline: !stated?.deadline,
    hoursBefore: stated?.hoursBefore ?? Math.max(0, Math.ceil((checkInMs - Date.parse(p.deadline)) / HOUR_MS)),
    ...(stated?.penaltyType === "PERCENT"
      ? { penaltyType: "PERCENT" as const, currency: p.currency, value: stated.value }
      : { penaltyType: "IMPORT" as const, currency: p.currency, value: p.value }),
  };
};

/** Hotel-X business rules over the whole answer (the quota counts options per search, not per hotel). */
const applyTgxBusinessRules = (
  options: TgxOption[],
  rules: TgxSearchRequest["settings"]["businessRules"],
): TgxOption[] => {
  if (!rules) return options;
  let kept = [...options].sort((a, b) => a.price.net - b.price.net);
  if (rules.businessRulesType === "ROOM_TYPE") {
    const seen = new Set<string>();
    kept = kept.filter((o) => {
      const key = `${o.hotelCode}|${o.rooms.map((r) => r.code).join("+")}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  return rules.optionsQuota === undefined ? kept : kept.slice(0, rules.optionsQuota);
};

/**
 * Hotel-X `settings.plugins`: the `AGGREGATION` plugin `cheapest_price` runs (of options alike in all
 * but price, the cheapest is kept: one per hotel, board, rooms, payment type, status, refundability,
 * rate rules and currency); any other plugin does not, and a `PLUGIN_NOT_RUN` warning says so.
 */
const runPlugins = (options: TgxOption[], steps: TgxSearchRequest["settings"]["plugins"]) => {
  const asked = (steps ?? []).flatMap((s) => (s.pluginsType ?? []).map((p) => ({ step: s.step, ...p })));
  const cheapest = (p: { type: string; name: string }) =>
    p.type === "AGGREGATION" && p.name.toLowerCase() === CHEAPEST_PRICE;
  const warnings: TgxError[] = asked
    .filter((p) => !cheapest(p))
    .map((p) => ({
      code: "PLUGIN_NOT_RUN",
      type: "PLUGIN",
      description: `${p.type} ${p.name} (${p.step}) did not run: only AGGREGATION ${CHEAPEST_PRICE} runs here, and codes are always Edgestay's`,
    }));
  if (!asked.some(cheapest)) return { options, warnings };
  const kept = new Map<string, TgxOption>();
  for (const o of options) {
    const key = JSON.stringify([
      o.hotelCode,
      o.boardCode,
      o.rooms.map((r) => r.code),
      o.paymentType,
      o.status,
      o.cancelPolicy?.refundable,
      o.rateRules ?? [],
      o.price.currency,
    ]);
    const seen = kept.get(key);
    if (!seen || o.price.net < seen.price.net) kept.set(key, o);
  }
  const cheapestOnes = new Set(kept.values());
  // In the order the search answered them.
  return { options: options.filter((o) => cheapestOnes.has(o)), warnings };
};

/** Each status of a requested hotel without options, as a Hotel-X `Error`/`Warning`. */
const HOTEL_PROBLEMS: Record<
  Exclude<AccommodationStatus, "available">,
  Omit<TgxError, "description"> & { text: string }
> = {
  unknown_code: { code: "HOTEL_NOT_FOUND", type: "SUPPLIER", text: "unknown hotel code" },
  not_mapped: { code: "HOTEL_NOT_MAPPED", type: "SUPPLIER", text: "no supplier of this access maps this hotel" },
  no_availability: { code: "NO_AVAILABILITY", type: "SUPPLIER", text: "no options for these dates and occupancies" },
  filtered_out: {
    code: "FILTERED_OUT",
    type: "CLIENT",
    text: "every option was removed by the request's filters, business rules, rate access or currency",
  },
  supplier_timeout: {
    code: "SUPPLIER_TIMEOUT",
    type: "SUPPLIER",
    text: "no options: a supplier did not answer in time",
  },
  supplier_error: { code: "SUPPLIER_ERROR", type: "SUPPLIER", text: "no options: a supplier failed to answer" },
  supplier_unavailable: {
    code: "SUPPLIER_UNAVAILABLE",
    type: "SUPPLIER",
    text: "no options: a supplier is unavailable after repeated failures",
  },
};

/**
 * One problem per requested hotel without an option in the answer, its code first in the
 * description: the core search's status, and `FILTERED_OUT` for a hotel whose every option the
 * Hotel-X business rules (a quota over the whole answer) removed.
 */
const hotelProblems = (statuses: CodeStatus[], options: TgxOption[], kept: TgxOption[]): TgxError[] => {
  const shown = kept.length === options.length ? null : new Set(kept.map((o) => o.hotelCode));
  const problems: TgxError[] = [];
  for (const { accommodationCode, status } of statuses) {
    const problem =
      status !== "available"
        ? HOTEL_PROBLEMS[status]
        : shown && !shown.has(accommodationCode)
          ? HOTEL_PROBLEMS.filtered_out
          : null;
    if (problem)
      problems.push({ code: problem.code, type: problem.type, description: `${accommodationCode}: ${problem.text}` });
  }
  return problems;
};

const answer = (options: TgxOption[], errors: TgxError[], warnings: TgxError[]): TgxSearchResponse => ({
  data: { hotelX: { search: { context: TGX_CONTEXT, options, errors, warnings } } },
});

/**
 * POST /api/search/tgx: the core search (`searchAvailability`, same supplier, filters and option
 * ids) read back in Hotel-X's shape. Problems of supply (unknown hotels, nothing available, the
 * access filtered out) are `errors`/`warnings` in an HTTP 200, the Hotel-X way; a malformed request
 * is still the API's 400.
 */
export const searchTgx = async (
  deps: BookingDeps,
  connection: CoreConnection,
  request: TgxSearchRequest,
  now = Date.now(),
): Promise<TgxSearchResponse> => {
  const startedAt = Date.now();
  const { criteria, settings } = request;
  const search = (currency: string | undefined) => {
    const core = coreRequestOf(request, currency);
    const supply = supplyOf(request, core.settings.includeProviderTransactions === true);
    return searchAvailability(deps, connection, { ...searchQueryOf(core), supply }, now, tgxTerms);
  };
  // settings.currency is ours and strict (as on /api/search); criteria.currency is Hotel-X's "if
  // supported": a currency without an exchange rate leaves the hotel's, and a warning says so.
  const soft = settings.currency === undefined ? criteria.currency : undefined;
  let core: Awaited<ReturnType<typeof search>>;
  try {
    core = await search(settings.currency ?? criteria.currency);
  } catch (error) {
    if (!(soft && error instanceof ApiError && error.code === "unsupported_currency")) throw error;
    core = await search(undefined);
  }
  const occupancies = criteria.occupancies.map((o, i) => ({ id: i + 1, paxes: o.paxes.map((p) => ({ age: p.age })) }));
  const accessCode = String(connection.code);
  // Every option is sold in every market at one price: an option's markets are those asked.
  const markets = marketsOf(criteria);
  const checkInMs = Date.parse(`${criteria.checkIn}T00:00:00Z`);
  // Codes are Edgestay's (context EDGESTAY). `supplierCode` names the supplier that made the option
  // (EDGESTAY: the embedded inventory); its own codes are beside ours, ours for one that speaks ours.
  const options: TgxOption[] = core.accommodations.flatMap((hotel) =>
    hotel.options.map((option) => ({
      id: hotelxOptionId(accessCode, option.id),
      accessCode,
      supplierCode: option.supplierCode === INVENTORY_SUPPLIER ? TGX_SUPPLIER_CODE : option.supplierCode,
      markets,
      hotelCode: hotel.accommodationCode,
      hotelCodeSupplier: option.hotelCodeSupplier ?? hotel.accommodationCode,
      hotelName: hotel.accommodationName,
      boardCode: option.boardCode,
      boardCodeSupplier: option.boardCodeSupplier ?? option.boardCode,
      paymentType: tgxPaymentType(option.paymentType),
      status: option.status,
      occupancies,
      rooms: option.rooms.map((room, i) => ({
        occupancyRefId: room.occupancyRefId,
        legacyRoomId: `${room.occupancyRefId}|${room.code}`,
        code: room.code,
        supplierCode: room.roomCodeSupplier ?? room.code,
        description: room.description,
        refundable: option.isRefundable,
        roomPrice: { price: priceOf(room.rate, option.paymentType), breakdown: option.breakdowns[i] ?? [] },
        // One plan for the whole stay, named after its board and refundability.
        ratePlans: [
          {
            code: option.ratePlanCodes[i]!,
            supplierCode: option.ratePlanCodes[i]!,
            name: `${option.boardName}${option.isRefundable ? "" : ", non-refundable"}`,
            start: criteria.checkIn,
            end: criteria.checkOut,
          },
        ],
      })),
      price: priceOf(option.rate, option.paymentType),
      surcharges: surchargesOf(option.rate, option.paymentType),
      rateRules: option.rateRules,
      cancelPolicy: {
        refundable: option.cancelPolicy.refundable,
        cancelPenalties: option.cancelPolicy.cancelPenalties.map((p) => penaltyOf(p, checkInMs)),
      },
    })),
  );

  const errors: TgxError[] = [];
  // A supplier that did not answer is a Hotel-X warning (the others' options still come back).
  const warnings: TgxError[] = (core.warnings ?? []).map((w) => ({
    code: w.code.toUpperCase(),
    type: "SUPPLIER",
    description: `${w.supplier}: ${w.message}`,
  }));
  const plugged = runPlugins(options, settings.plugins);
  warnings.push(...plugged.warnings);
  const kept = applyTgxBusinessRules(plugged.options, settings.businessRules);
  // One entry per requested hotel without options: warnings beside options, errors when there are none.
  (kept.length ? warnings : errors).push(...hotelProblems(core.statuses ?? [], options, kept));
  const currencies = [...new Set(kept.map((o) => o.price.currency))];
  if (criteria.currency && currencies.some((c) => c !== criteria.currency!.toUpperCase())) {
    warnings.push({
      code: "CURRENCY_NOT_AVAILABLE",
      type: "PRICE",
      description: `Prices are in ${currencies.join(", ")}; ${criteria.currency} was requested`,
    });
  }
  if (criteria.language && !ENGLISH.test(criteria.language)) {
    warnings.push({
      code: "LANGUAGE_NOT_AVAILABLE",
      type: "CONTENT",
      description: `Texts are in English; ${criteria.language} was requested`,
    });
  }
  const searched = answer(kept, errors, warnings);
  if (!core.providerTransactions) return searched;
  // Hotel-X AuditData. Every supplier request of a search is sent at once, at its start.
  const sentAt = new Date(now).toISOString();
  searched.data.hotelX.search.auditData = {
    transactions: core.providerTransactions.map((t) => ({
      request: t.request,
      response: t.response,
      timeStamp: sentAt,
    })),
    timeStamp: sentAt,
    processTime: Math.max(0, Date.now() - startedAt),
  };
  return searched;
};

/** A search that names no access, or whose access filter leaves none, as Hotel-X answers it. */
const noAccess = (named: boolean): TgxSearchResponse =>
  answer(
    [],
    [
      {
        code: "NO_ACCESS",
        type: "ACCESS",
        description: named
          ? "filterSearch.access leaves no access to search (settings.access.code or the access-code header names the only one)"
          : "No access to search: the partner has no tgx connection in use; name one in filterSearch.access.includes",
      },
    ],
    [],
  );

/** What one access's search came to, for its usage count: its answer, or the API error that refused it. */
export type AccessSearch = { connection: CoreConnection } & (
  | { search: TgxSearchResponse["data"]["hotelX"]["search"] }
  | { refused: ApiError }
);

/**
 * A Hotel-X search on each access it runs on (`searchConnections`), each counted against its own
 * rate limit (`admit`) and priced in its own currency, answered as one HotelSearch: every option
 * names its access (`accessCode`, and its id carries it). One access: its answer and its refusals
 * as before (a 429 is the request's). Several: an access refused (its rate limit) is an error or
 * warning of the answer, not the request's; per-hotel problems are errors only when no access
 * answered an option; business rules apply over the whole answer.
 */
export const searchTgxAccesses = async (
  deps: BookingDeps,
  connections: CoreConnection[],
  request: TgxSearchRequest,
  admit: (connection: CoreConnection) => Promise<void>,
  named: boolean,
): Promise<{ answer: TgxSearchResponse; searches: AccessSearch[] }> => {
  if (!connections.length) return { answer: noAccess(named), searches: [] };
  if (connections.length === 1) {
    const [connection] = connections as [CoreConnection];
    await admit(connection);
    const one = await searchTgx(deps, connection, request);
    return { answer: one, searches: [{ connection, search: one.data.hotelX.search }] };
  }
  const searches: AccessSearch[] = await Promise.all(
    connections.map(async (connection): Promise<AccessSearch> => {
      try {
        await admit(connection);
        return { connection, search: (await searchTgx(deps, connection, request)).data.hotelX.search };
      } catch (error) {
        if (error instanceof ApiError) return { connection, refused: error };
        throw error;
      }
    }),
  );
  const options: TgxOption[] = [];
  const problems: TgxError[] = [];
  const warnings: TgxError[] = [];
  const transactions: NonNullable<TgxSearchResponse["data"]["hotelX"]["search"]["auditData"]>["transactions"] = [];
  for (const each of searches) {
    const on = (p: TgxError) => ({ ...p, description: `access ${each.connection.code}: ${p.description}` });
    if ("refused" in each) {
      problems.push(on({ code: each.refused.code.toUpperCase(), type: "ACCESS", description: each.refused.message }));
      continue;
    }
    options.push(...(each.search.options ?? []));
    problems.push(...(each.search.errors ?? []).map(on));
    warnings.push(...(each.search.warnings ?? []).map(on));
    transactions.push(...(each.search.auditData?.transactions ?? []));
  }
  // cheapest_price aggregates across the accesses too (each access's search has warned of the plugins that do not run).
  const kept = applyTgxBusinessRules(
    runPlugins(options, request.settings.plugins).options,
    request.settings.businessRules,
  );
  const merged = kept.length ? answer(kept, [], [...problems, ...warnings]) : answer([], problems, warnings);
  const audits = searches.flatMap((s) => ("search" in s && s.search.auditData ? [s.search.auditData] : []));
  if (audits.length)
    merged.data.hotelX.search.auditData = {
      transactions,
      timeStamp: audits[0]!.timeStamp,
      processTime: Math.max(...audits.map((a) => a.processTime)),
    };
  return { answer: merged, searches };
};
