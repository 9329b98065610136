import type { z } from "zod";
import { BOOK, BOOKING_READ, CANCEL, COMMIT, HOTEL_LIST, QUOTE, SEARCH } from "./documents";
import { hideUpstreamIdentity, redactTransactionText } from "../provider-transactions";
import {
  bookAnswerSchema,
  bookingAnswerSchema,
  cancelAnswerSchema,
  commitAnswerSchema,
  graphqlErrorsSchema,
  hotelListAnswerSchema,
  quoteAnswerSchema,
  readSearchOptions,
  searchAnswerSchema,
  type BookStatusType,
  type HotelxBookingDetail,
  type HotelxCancelPolicy,
  type HotelxSurcharge,
  type HotelxIssue,
  type HotelxListedHotel,
  type HotelxOption,
  type HotelxPrice,
  type HotelxPriceChange,
  type HotelxReference,
  type StatusType,
} from "./wire";

/**
 * A GraphQL client for the Hotel-X operations search, quote, book (in one step or two), commit,
 * cancel and the booking read by client reference. Pure: plain `fetch` (injectable, e.g. a service binding's), no D1, no Hono.
 */

export type HotelxOperation = "search" | "quote" | "book" | "commit" | "cancel" | "booking";
/** What is sent: the booking flow's operations, and the `hotels` content query (an operator's read, never a partner's). */
type WireOperation = HotelxOperation | "hotels";

/** Where and as whom to call: the connection's upstream. `fetch` defaults to the global one. */
export type HotelxAccess = {
  url: string;
  client: string;
  context: string;
  apiKey: string;
  fetch?: (input: Request) => Promise<Response>;
};

/**
 * One request/response exchanged with the upstream as text (the request as method, URL, headers
 * and body), credentials and card data redacted by the one redaction of provider-transactions.ts.
 */
export type ProviderTransaction = {
  operation: HotelxOperation;
  request: string;
  /** The answer's body, or null when none arrived. */
  response: string | null;
  /** HTTP status, or null when no answer arrived (deadline, network). */
  status: number | null;
  durationMs: number;
};

export type CallOptions = {
  /** Milliseconds the whole call (answer and body) may take. */
  deadlineMs: number;
  /** The caller's own deadline or cancellation; the call stops at whichever comes first. */
  signal?: AbortSignal;
  /** Receives one transaction per call, when the caller asked for them. */
  transactions?: (transaction: ProviderTransaction) => void;
};

/** Book only: `commitRequired` books in two steps (`PENDING_COMMIT`, then `commit`). */
export type BookOptions = CallOptions & { commitRequired?: boolean };

export type SupplierErrorCode = "supplier_timeout" | "supplier_error";

/**
 * What went wrong, for whoever judges the upstream's health: no answer by the deadline (`timeout`),
 * no HTTP answer at all (`unreachable`), an HTTP 5xx (`server`), a 3xx or 4xx (`rejected`: a
 * redirect is never followed), or an answer that refused the request or could not be used (`answer`).
 */
export type CallFault = "timeout" | "unreachable" | "server" | "rejected" | "answer";

const faultOfStatus = (status: number): CallFault => (status >= 500 ? "server" : "rejected");

/** A failed call: the deadline passed (`supplier_timeout`) or the answer was unusable (`supplier_error`). */
export class SupplierCallError extends Error {
  readonly fault: CallFault;
  readonly issues: HotelxIssue[];
  /** The HTTP status when the upstream answered a non-2xx one. */
  readonly httpStatus?: number;

  constructor(
    readonly code: SupplierErrorCode,
    readonly operation: WireOperation,
    message: string,
    details: { fault?: CallFault; issues?: HotelxIssue[]; httpStatus?: number } = {},
  ) {
    super(message);
    this.name = "SupplierCallError";
    this.fault = details.fault ?? (code === "supplier_timeout" ? "timeout" : "answer");
    this.issues = details.issues ?? [];
    if (details.httpStatus !== undefined) this.httpStatus = details.httpStatus;
  }
}

export type Occupancy = { paxes: { age: number }[] };
export type SearchCriteria = {
  checkIn: string;
  checkOut: string;
  hotels: string[];
  occupancies: Occupancy[];
  currency?: string;
  nationality?: string;
  language?: string;
  markets?: string[];
};
export type SearchResult = { options: HotelxOption[]; warnings: HotelxIssue[] };

export type QuoteResult = {
  optionRefId: string;
  status: StatusType;
  price: HotelxPrice;
  /** The search price when the upstream reports one; `priceChanged` compares nets. */
  searchPrice: HotelxPriceChange | null;
  priceChanged: boolean;
  cancelPolicy: HotelxCancelPolicy;
  remarks: string | null;
  /** The quoted option's surcharges (empty when it lists none). */
  surcharges: HotelxSurcharge[];
  /** The quoted option's rooms, when the upstream lists them. */
  rooms: { occupancyRefId: number; code: string; description: string | null }[] | null;
  /** Hotel-X's `PaymentType` of the quoted option, when the upstream answers one. */
  paymentType: string | null;
  warnings: HotelxIssue[];
};

/**
 * A quote is an answer either way: the option quoted, or refused by a code we know: sold out, `gone`
 * (an option id the upstream no longer knows: its ids age, the room may still be sold), or no longer
 * at its searched price. Any other payload error is a `supplier_error`.
 */
export type QuoteOutcome =
  | ({ outcome: "quoted" } & QuoteResult)
  | { outcome: "refused"; reason: "sold_out" | "gone" | "price_changed"; issues: HotelxIssue[] };

export type BookInput = {
  optionRefId: string;
  /** Our booking reference: the upstream refuses a second booking with it. */
  clientReference: string;
  holder: { name: string; surname: string };
  rooms: { occupancyRefId: number; paxes: { name: string; surname: string; age: number }[] }[];
  remarks?: string;
  language?: string;
  deltaPrice?: { amount?: number; percent?: number; applyBoth: boolean };
  paymentCard?: Record<string, unknown>;
};

export type BookRefusalReason = "sold_out" | "refused" | "duplicate_client_reference";
export type BookOutcome =
  | {
      outcome: "confirmed";
      /** Only `OK` is confirmed by the hotel; `ON_REQUEST` and `PENDING_COMMIT` exist upstream, not yet confirmed. */
      status: "OK" | "ON_REQUEST" | "PENDING_COMMIT";
      reference: HotelxReference;
      price: HotelxPrice | null;
      cancelPolicy: HotelxCancelPolicy | null;
      warnings: HotelxIssue[];
    }
  | { outcome: "refused"; reason: BookRefusalReason; issues: HotelxIssue[] }
  | { outcome: "price_changed"; price: HotelxPrice | null; quotePrice: HotelxPriceChange | null; issues: HotelxIssue[] }
  /** Sent, but no usable answer: the booking may exist upstream. Settle it by `bookingByClientReference`. */
  | { outcome: "answer_lost"; clientReference: string; cause: SupplierErrorCode; fault: CallFault; message: string };

/**
 * Hotel-X finds a booking to cancel by its `bookingID`, or by all of `accessCode`, `hotelCode` and
 * `reference`: the bookingID is sent alone when known, else the other three.
 */
export type CancelInput = {
  hotelCode: string;
  accessCode?: string;
  clientReference?: string;
  supplierReference?: string;
  bookingID?: string;
  language?: string;
};
export type CancelOutcome =
  | {
      outcome: "cancelled";
      status: BookStatusType;
      cancelReference: string | null;
      price: HotelxPrice | null;
      warnings: HotelxIssue[];
    }
  | { outcome: "refused"; issues: HotelxIssue[] };

/** The second step of a two-step book: the booking by the access it was made through and its references. */
export type CommitInput = {
  accessCode: string;
  clientReference: string;
  supplierReference?: string;
  language?: string;
};
export type CommitOutcome =
  | { outcome: "committed"; reference: HotelxReference; warnings: HotelxIssue[] }
  | { outcome: "refused"; issues: HotelxIssue[] };

/** `accessCode`: the access the booking was made through (Hotel-X needs it to read by references). */
export type BookingReadInput = { hotelCode: string; currency: string; clientReference: string; accessCode?: string };
export type BookingReadResult = { found: false } | { found: true; booking: HotelxBookingDetail };

/**
 * Error codes of a refusal at quote and at book (the sandbox's; see docs/api-decisions.md, issue 18):
 * the option is sold out, gone (its id unknown upstream), or not sold at its searched price any more.
 */
const SOLD_OUT_CODES = new Set(["SOLD_OUT", "NO_AVAILABILITY"]);
const GONE_CODES = new Set(["OPTION_NOT_FOUND"]);
const PRICE_CHANGED_CODES = new Set(["PRICE_CHANGED"]);
const DUPLICATE_CODES = new Set(["DUPLICATED_CLIENT_REFERENCE"]);

const settingsOf = (access: HotelxAccess, options: BookOptions) => ({
  client: access.client,
  context: access.context,
  // Hotel-X cuts its own supplier connection at this; we keep our own deadline too.
  timeout: options.deadlineMs,
  auditTransactions: false,
  ...(options.commitRequired ? { commitRequired: true } : {}),
});

const readAnswer = async (
  access: HotelxAccess,
  operation: WireOperation,
  query: string,
  variables: Record<string, unknown>,
  options: BookOptions,
): Promise<unknown> => {
  // The content query takes no HotelSettingsInput: its variables go as they are.
  const body = {
    query,
    variables: operation === "hotels" ? variables : { ...variables, settings: settingsOf(access, options) },
  };
  const headers = {
    "content-type": "application/json",
    accept: "application/json",
    authorization: `Apikey ${access.apiKey}`,
  };
  const started = Date.now();
  let status: number | null = null;
  let text: string | null = null;
  const record = () => {
    if (!options.transactions || operation === "hotels") return;
    const request = `POST ${access.url}\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n")}\n\n${JSON.stringify(body)}`;
    // The partner sees the exchange, never the operator's upstream account (URL, client, context).
    const shown = (t: string) => hideUpstreamIdentity(redactTransactionText(t), access);
    options.transactions({
      operation,
      request: shown(request),
      response: text === null ? null : shown(text),
      status,
      durationMs: Date.now() - started,
    });
  };

  const timeout = AbortSignal.timeout(options.deadlineMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  // The race guarantees the deadline even where a fetcher ignores `signal` (e.g. a slow body).
  const deadline = new Promise<never>((_, reject) => {
    const fire = () =>
      reject(
        new SupplierCallError(
          "supplier_timeout",
          operation,
          `Hotel-X ${operation} did not answer within ${options.deadlineMs} ms`,
        ),
      );
    if (signal.aborted) fire();
    else signal.addEventListener("abort", fire, { once: true });
  });
  deadline.catch(() => {});
  const exchange = async () => {
    // A redirect is an answer (a 3xx, `supplier_error`), never followed: it could lead anywhere
    // the upstream URL rule refuses, and a 307 would re-post the body (guest names) there.
    const res = await (access.fetch ?? fetch)(
      new Request(access.url, { method: "POST", headers, body: JSON.stringify(body), signal, redirect: "manual" }),
    );
    status = res.status;
    text = await res.text();
    return res;
  };
  let res: Response;
  try {
    res = await Promise.race([exchange(), deadline]);
  } catch (err) {
    record();
    if (err instanceof SupplierCallError || signal.aborted) {
      throw err instanceof SupplierCallError
        ? err
        : new SupplierCallError(
            "supplier_timeout",
            operation,
            `Hotel-X ${operation} did not answer within ${options.deadlineMs} ms`,
          );
    }
    throw new SupplierCallError("supplier_error", operation, `Hotel-X ${operation} could not be reached`, {
      fault: "unreachable",
    });
  }
  record();
  if (!res.ok)
    throw new SupplierCallError("supplier_error", operation, `Hotel-X ${operation} answered HTTP ${res.status}`, {
      fault: faultOfStatus(res.status),
      httpStatus: res.status,
    });
  try {
    return JSON.parse(text ?? "");
  } catch {
    throw new SupplierCallError("supplier_error", operation, `Hotel-X ${operation} answered malformed JSON`);
  }
};

/** Checks GraphQL-level errors, then the payload's shape; returns the operation's payload. */
const payloadOf = <S extends z.ZodType>(operation: WireOperation, answer: unknown, schema: S): z.infer<S> => {
  const failed = graphqlErrorsSchema.safeParse(answer);
  if (failed.success) {
    throw new SupplierCallError(
      "supplier_error",
      operation,
      `Hotel-X ${operation} failed: ${failed.data.errors.map((e) => e.message).join("; ")}`,
    );
  }
  const parsed = schema.safeParse(answer);
  if (!parsed.success)
    throw new SupplierCallError("supplier_error", operation, `Hotel-X ${operation} answered an unexpected shape`);
  return parsed.data;
};

/** Payload `errors` abort the operation (Hotel-X's own words: "Errors that abort services"). */
const abortOnIssues = (operation: WireOperation, errors: HotelxIssue[]) => {
  if (errors.length > 0) {
    throw new SupplierCallError(
      "supplier_error",
      operation,
      `Hotel-X ${operation} refused: ${errors.map((e) => `${e.code} ${e.description}`).join("; ")}`,
      { issues: errors },
    );
  }
};

export const search = async (
  access: HotelxAccess,
  criteria: SearchCriteria,
  options: CallOptions,
): Promise<SearchResult> => {
  const answer = await readAnswer(access, "search", SEARCH, { criteria }, options);
  const payload = payloadOf("search", answer, searchAnswerSchema).data.hotelX.search;
  const found = readSearchOptions(payload.options);
  if (!found) throw new SupplierCallError("supplier_error", "search", "Hotel-X search answered an unexpected shape");
  abortOnIssues("search", payload.errors);
  return { options: found, warnings: payload.warnings };
};

/** Quotes one option. A refusal by a known code is an answer, as at book; any other error throws `supplier_error`. */
export const quote = async (
  access: HotelxAccess,
  optionRefId: string,
  options: CallOptions & { language?: string },
): Promise<QuoteOutcome> => {
  const criteria = { optionRefId, ...(options.language ? { language: options.language } : {}) };
  const answer = await readAnswer(access, "quote", QUOTE, { criteria }, options);
  const payload = payloadOf("quote", answer, quoteAnswerSchema).data.hotelX.quote;
  const codes = payload.errors.map((e) => e.code);
  if (codes.some((c) => PRICE_CHANGED_CODES.has(c)))
    return { outcome: "refused", reason: "price_changed", issues: payload.errors };
  if (codes.some((c) => SOLD_OUT_CODES.has(c)))
    return { outcome: "refused", reason: "sold_out", issues: payload.errors };
  if (codes.some((c) => GONE_CODES.has(c))) return { outcome: "refused", reason: "gone", issues: payload.errors };
  abortOnIssues("quote", payload.errors);
  const found = payload.optionQuote;
  if (!found) throw new SupplierCallError("supplier_error", "quote", "Hotel-X quote answered no optionQuote");
  const searchPrice = found.searchPrice ?? null;
  return {
    outcome: "quoted",
    optionRefId: found.optionRefId,
    status: found.status,
    price: found.price,
    searchPrice,
    priceChanged:
      searchPrice !== null && (searchPrice.net !== found.price.net || searchPrice.currency !== found.price.currency),
    cancelPolicy: found.cancelPolicy,
    surcharges: found.surcharges,
    remarks: found.remarks ?? null,
    rooms: found.rooms?.map((r) => ({ ...r, description: r.description ?? null })) ?? null,
    paymentType: found.paymentType ?? null,
    warnings: payload.warnings,
  };
};

/**
 * Books once. A refusal is an answer; no usable answer is `answer_lost`, never a failure: the
 * upstream may have committed, so the caller keeps the booking pending and reads it back later.
 * Only a 3xx, a 4xx or GraphQL-level `errors` (the request was rejected as a whole) throw `supplier_error`.
 */
export const book = async (access: HotelxAccess, input: BookInput, options: BookOptions): Promise<BookOutcome> => {
  let answer: unknown;
  try {
    answer = await readAnswer(access, "book", BOOK, { input }, options);
  } catch (err) {
    if (!(err instanceof SupplierCallError)) throw err;
    // A 4xx refused the request itself (authentication, validation), a 3xx sent it elsewhere (not followed): nothing was booked.
    if (err.fault === "rejected") throw err;
    return {
      outcome: "answer_lost",
      clientReference: input.clientReference,
      cause: err.code,
      fault: err.fault,
      message: err.message,
    };
  }
  // GraphQL-level errors: the request was rejected as a whole, nothing was booked.
  if (graphqlErrorsSchema.safeParse(answer).success) payloadOf("book", answer, bookAnswerSchema);
  const parsed = bookAnswerSchema.safeParse(answer);
  if (!parsed.success) {
    return {
      outcome: "answer_lost",
      clientReference: input.clientReference,
      cause: "supplier_error",
      fault: "answer",
      message: "Hotel-X book answered an unexpected shape",
    };
  }
  const payload = parsed.data.data.hotelX.book;
  const codes = payload.errors.map((e) => e.code);
  if (codes.some((c) => PRICE_CHANGED_CODES.has(c))) {
    return {
      outcome: "price_changed",
      price: payload.booking?.price ?? null,
      quotePrice: payload.booking?.quotePrice ?? null,
      issues: payload.errors,
    };
  }
  if (codes.some((c) => DUPLICATE_CODES.has(c)))
    return { outcome: "refused", reason: "duplicate_client_reference", issues: payload.errors };
  // Gone at book is sold out too: the option quoted minutes ago is not there to book.
  if (codes.some((c) => SOLD_OUT_CODES.has(c) || GONE_CODES.has(c)))
    return { outcome: "refused", reason: "sold_out", issues: payload.errors };
  const booking = payload.booking;
  if (payload.errors.length > 0 || !booking) return { outcome: "refused", reason: "refused", issues: payload.errors };
  switch (booking.status) {
    case "OK":
    case "ON_REQUEST":
    case "PENDING_COMMIT":
      return {
        outcome: "confirmed",
        status: booking.status,
        reference: booking.reference,
        price: booking.price ?? null,
        cancelPolicy: booking.cancelPolicy ?? null,
        warnings: payload.warnings,
      };
    case "UNKNOWN":
      return {
        outcome: "answer_lost",
        clientReference: input.clientReference,
        cause: "supplier_error",
        fault: "answer",
        message: "Hotel-X book answered status UNKNOWN",
      };
    default:
      return {
        outcome: "refused",
        reason: "refused",
        issues: [{ code: booking.status, type: "BOOK_STATUS", description: `Booking status ${booking.status}` }],
      };
  }
};

export const cancel = async (
  access: HotelxAccess,
  input: CancelInput,
  options: CallOptions,
): Promise<CancelOutcome> => {
  const language = input.language ? { language: input.language } : {};
  const reference =
    input.clientReference || input.supplierReference
      ? {
          ...(input.clientReference ? { client: input.clientReference } : {}),
          ...(input.supplierReference ? { supplier: input.supplierReference } : {}),
        }
      : undefined;
  const variables = {
    input: input.bookingID
      ? { bookingID: input.bookingID, ...language }
      : {
          ...(input.accessCode ? { accessCode: input.accessCode } : {}),
          hotelCode: input.hotelCode,
          ...(reference ? { reference } : {}),
          ...language,
        },
  };
  const answer = await readAnswer(access, "cancel", CANCEL, variables, options);
  const payload = payloadOf("cancel", answer, cancelAnswerSchema).data.hotelX.cancel;
  if (payload.errors.length > 0) return { outcome: "refused", issues: payload.errors };
  const cancellation = payload.cancellation;
  if (!cancellation?.status)
    throw new SupplierCallError("supplier_error", "cancel", "Hotel-X cancel answered no cancellation status");
  if (cancellation.status !== "CANCELLED") {
    return {
      outcome: "refused",
      issues: [
        { code: cancellation.status, type: "BOOK_STATUS", description: `Cancellation status ${cancellation.status}` },
      ],
    };
  }
  return {
    outcome: "cancelled",
    status: cancellation.status,
    cancelReference: cancellation.cancelReference ?? null,
    price: cancellation.price ?? null,
    warnings: payload.warnings,
  };
};

/**
 * Confirms a booking made in two steps. `OK` is committed; payload errors or any other status are a
 * refusal (the booking stays as it was upstream); no usable answer throws, as every other operation.
 */
export const commit = async (
  access: HotelxAccess,
  input: CommitInput,
  options: CallOptions,
): Promise<CommitOutcome> => {
  const variables = {
    input: {
      accessCode: input.accessCode,
      ...(input.language ? { language: input.language } : {}),
      reference: {
        client: input.clientReference,
        ...(input.supplierReference ? { supplier: input.supplierReference } : {}),
      },
    },
  };
  const answer = await readAnswer(access, "commit", COMMIT, variables, options);
  const payload = payloadOf("commit", answer, commitAnswerSchema).data.hotelX.commit;
  if (payload.errors.length > 0) return { outcome: "refused", issues: payload.errors };
  const details = payload.commitDetails;
  if (!details) throw new SupplierCallError("supplier_error", "commit", "Hotel-X commit answered no commitDetails");
  if (details.status !== "OK")
    return {
      outcome: "refused",
      issues: [{ code: details.status, type: "BOOK_STATUS", description: `Commit status ${details.status}` }],
    };
  return { outcome: "committed", reference: details.reference, warnings: payload.warnings };
};

/** The booking the upstream holds under our client reference (`typeSearch: REFERENCES`). */
export const bookingByClientReference = async (
  access: HotelxAccess,
  input: BookingReadInput,
  options: CallOptions,
): Promise<BookingReadResult> => {
  const criteria = {
    ...(input.accessCode ? { accessCode: input.accessCode } : {}),
    typeSearch: "REFERENCES",
    references: {
      hotelCode: input.hotelCode,
      currency: input.currency,
      references: [{ client: input.clientReference }],
    },
  };
  const answer = await readAnswer(access, "booking", BOOKING_READ, { criteria }, options);
  const payload = payloadOf("booking", answer, bookingAnswerSchema).data.hotelX.booking;
  abortOnIssues("booking", payload.errors);
  const booking = (payload.bookings ?? []).find((b) => b.reference.client === input.clientReference);
  return booking ? { found: true, booking } : { found: false };
};

/** One page of an access's hotel list: its hotels, the whole list's `count`, and the `token` of the next page (null on the last). */
export type HotelListPage = { hotels: HotelxListedHotel[]; count: number; token: string | null };

/**
 * One page of Hotel-X's `hotels` content query, `maxSize` hotels at most, after `token` (absent:
 * the first page). A node without hotel data is dropped.
 */
export const hotelList = async (
  access: HotelxAccess,
  page: { maxSize: number; token?: string | null },
  options: Omit<CallOptions, "transactions">,
): Promise<HotelListPage> => {
  const variables = { criteria: { maxSize: page.maxSize }, relay: {}, token: page.token ?? null };
  const answer = await readAnswer(access, "hotels", HOTEL_LIST, variables, options);
  const hotels = payloadOf("hotels", answer, hotelListAnswerSchema).data.hotelX.hotels;
  return {
    hotels: (hotels.edges ?? []).flatMap((edge) => (edge?.node?.hotelData ? [edge.node.hotelData] : [])),
    count: hotels.count,
    token: hotels.token ?? null,
  };
};
