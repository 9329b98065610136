import { env } from "cloudflare:test";
import { coreConnection, readAccess } from "../../src/features/connections";
import { database } from "../../src/platform/db/client";
import { addDays } from "../../src/platform/time/zoned-time";
import { DEMO, OTHER } from "./accounts";
import { call, post } from "./api";
import { inDays } from "./clock";
import { OPERATOR } from "./sessions";

/** Shared request builders for the booking tests (not a test file itself). */
export const DEMO_CODE: number = DEMO.connection.code;
export const OTHER_CODE: number = OTHER.connection.code;

export const searchBody = (criteria: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  searchCriteria: {
    occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
    checkIn: inDays(30),
    checkOut: inDays(32),
    ...criteria,
  },
  settings: { access: { code: DEMO_CODE } },
  ...extra,
});

export type SearchedOption = {
  accommodationCode: string;
  option: any;
  checkIn: string;
  checkOut: string;
  occupancies: any[];
  /** The searched accommodation as the search answered it (name, type, location). */
  hotel?: any;
};

/**
 * Searches one accommodation and returns its cheapest option matching `pick`, with the whole price
 * breakdown (`settings.includePriceBreakdown`), as quote answers it.
 */
export const searchOne = async (
  code: string,
  opts: {
    checkIn?: string;
    checkOut?: string;
    occupancies?: any[];
    pick?: (o: any) => boolean;
    apiKey?: string;
    connection?: number;
  } = {},
): Promise<SearchedOption> => {
  const checkIn = opts.checkIn ?? inDays(30);
  const checkOut = opts.checkOut ?? addDays(checkIn, 2);
  const occupancies = opts.occupancies ?? [{ paxes: [{ age: 30 }, { age: 30 }] }];
  const res = await post(
    "/api/search",
    {
      searchCriteria: { destinations: { accommodations: [{ code }] }, occupancies, checkIn, checkOut },
      settings: { access: { code: opts.connection ?? DEMO_CODE }, includePriceBreakdown: true },
    },
    { apiKey: opts.apiKey },
  );
  if (res.status !== 200) throw new Error(`search ${res.status} ${res.text}`);
  const options = res.json.data.accommodations[0]?.options ?? [];
  const option = options.find(opts.pick ?? (() => true));
  if (!option) throw new Error(`no option for ${code}`);
  return { accommodationCode: code, option, checkIn, checkOut, occupancies, hotel: res.json.data.accommodations[0] };
};

export const quoteBody = (s: SearchedOption, override: Record<string, unknown> = {}, connection = DEMO_CODE) => ({
  quoteCriteria: {
    optionId: s.option.id,
    accommodation: { code: s.accommodationCode },
    occupancies: s.occupancies,
    checkIn: s.checkIn,
    checkOut: s.checkOut,
    ...override,
  },
  settings: { access: { code: connection } },
});

export const bookBody = (
  quote: any,
  partnerReference: string,
  override: Record<string, unknown> = {},
  connection = DEMO_CODE,
) => ({
  bookCriteria: {
    quoteId: quote.id,
    accommodation: { code: quote.accommodation.accommodationCode },
    partnerReference,
    holder: { name: "Ada", surName: "Lovelace" },
    checkIn: quote.checkIn,
    checkOut: quote.checkOut,
    ...override,
  },
  settings: { access: { code: connection } },
});

/** Any reference or connection value (tests send wrong ones); the body's type follows the values given. */
export const cancelBody = <Reference, Connection = number>(bookingReference: Reference, connection?: Connection) => ({
  input: { reference: { bookingReference } },
  settings: { access: { code: connection ?? DEMO_CODE } },
});

export const quoteOf = async (s: SearchedOption, options: { apiKey?: string } = {}) => {
  const res = await post("/api/quote", quoteBody(s), options);
  if (res.status !== 200) throw new Error(`quote ${res.status} ${res.text}`);
  return res.json.data;
};

/** A partner's in-use connection by its code, as the booking services take it (for tests that call them directly). */
export const connectionByCode = async (code: number = DEMO_CODE, partnerId = "demo") =>
  coreConnection(await readAccess(database(env.DB), code), partnerId);

/** A new in-use direct connection of the demo partner, with no rate limit, through the operator route. */
export const createDemoConnection = async (apiType: string, netMarkups: number) => {
  const res = await call(
    "POST",
    "/api/connections",
    {
      partnerId: "demo",
      apiType,
      connectionType: "direct",
      rateLimit: 0,
      rateLimitWindowMs: 0,
      netMarkups,
      currentInUse: true,
    },
    OPERATOR,
  );
  if (res.status !== 201) throw new Error(`connection not created: ${res.status} ${res.text}`);
  return { id: res.json.data.id as string, code: res.json.data.code as number };
};
