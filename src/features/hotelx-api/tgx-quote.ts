import type { CoreConnection } from "../connections";
import {
  amountJson,
  type BookingDeps,
  type OptionSnapshot,
  quoteOption,
  type QuoteQuery,
  readOptionId,
  type SandboxScenario,
} from "../booking";
import { auditDataOf, cancelPolicyOf, flowSupplyOf, hotelxErrorOf, languageWarnings } from "./tgx-answers";
import type { TgxQuoteRequest, TgxQuoteResponse } from "./tgx-flow-schemas";
import type { TgxError } from "./tgx-schemas";
import { priceOf, surchargesOf, tgxPaymentType } from "./tgx-search";

type Meta = { requestId: string; startedAt: number; scenario: SandboxScenario | null };

/**
 * The core quote of a searched option: the option id carries the hotel, the stay and the guests,
 * so a Hotel-X request (an optionRefId alone) names everything POST /api/quote is sent.
 */
export const searchedOptionQuery = (
  optionId: string,
  option: OptionSnapshot,
): Pick<QuoteQuery, "optionId" | "accommodationCode" | "checkIn" | "checkOut" | "occupancies"> => ({
  optionId,
  accommodationCode: option.accommodationCode,
  checkIn: option.checkIn,
  checkOut: option.checkOut,
  occupancies: option.rooms.map((ages) => ({ paxes: ages.map((age) => ({ age })) })),
});

type Quote = Awaited<ReturnType<typeof quoteOption>>;
type OptionQuote = NonNullable<TgxQuoteResponse["data"]["hotelX"]["quote"]["optionQuote"]>;

/** A core quote as Hotel-X's `HotelOptionQuote`; `searchPrice` when today's price is not the searched one. */
const optionQuoteOf = (quote: Quote, searched: Pick<OptionSnapshot, "chargeTotal" | "currency">): OptionQuote => {
  const price = priceOf(quote.rate, quote.paymentType);
  // The searched total as the id signs it (minor units), written as the quote's price is.
  const searchedTotal = amountJson(searched.chargeTotal, searched.currency);
  return {
    optionRefId: quote.id,
    // Only options confirmable at once are quoted as they are searched (Hotel-X filters RQ by default).
    status: "OK",
    price,
    searchPrice:
      price.net === searchedTotal
        ? null
        : { currency: searched.currency, net: searchedTotal, gross: searchedTotal, binding: false },
    cancelPolicy: cancelPolicyOf(quote.cancelPolicy, quote.checkIn),
    remarks: null,
    surcharges: surchargesOf(quote.rate, quote.paymentType),
    rooms: quote.rooms.map((room) => ({
      // Hotel-X types it ID: a string on the wire.
      occupancyRefId: String(room.occupancyRefId),
      legacyRoomId: `${room.occupancyRefId}|${room.code}`,
      code: room.code,
      supplierCode: room.code,
      description: room.description,
    })),
    paymentType: tgxPaymentType(quote.paymentType),
  };
};

const answer = (quote: TgxQuoteResponse["data"]["hotelX"]["quote"]): TgxQuoteResponse => ({
  data: { hotelX: { quote } },
});

/**
 * POST /api/quote/tgx: Hotel-X's `quote` of a /api/search/tgx option through the core quote
 * (`quoteOption`: the same checks, supplier call and 30-minute quote as POST /api/quote). As
 * Hotel-X does, a price that moved since the search is quoted at today's price with `searchPrice`
 * beside it, never refused; the quote's `optionRefId` books at that price. A refusal is a Hotel-X
 * error in the payload (HTTP 200).
 */
export const quoteTgx = async (
  deps: BookingDeps,
  connection: CoreConnection,
  request: TgxQuoteRequest,
  meta: Meta,
  now = Date.now(),
): Promise<TgxQuoteResponse> => {
  const { criteria, settings } = request;
  const warnings: TgxError[] = languageWarnings(criteria.language);
  try {
    const option = await readOptionId(deps.keys, criteria.optionRefId, connection.partnerId, now);
    const quote = await quoteOption(
      deps,
      connection,
      {
        ...searchedOptionQuery(criteria.optionRefId, option),
        currency: settings.currency,
        supply: flowSupplyOf(settings),
        priceRise: "any",
        ...(criteria.language ? { language: criteria.language } : {}),
      },
      meta,
      now,
    );
    return answer({
      optionQuote: optionQuoteOf(quote, option),
      errors: [],
      warnings,
      ...auditDataOf("providerTransactions" in quote ? quote.providerTransactions : undefined, meta.startedAt),
    });
  } catch (error) {
    const problem = hotelxErrorOf(error);
    if (!problem) throw error;
    return answer({ optionQuote: null, errors: [problem], warnings });
  }
};
