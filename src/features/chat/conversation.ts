import type { Keyring } from "../../platform/crypto/keyring";
import { bookingPageToken } from "./booking-page-token";
import { ApiError } from "../../platform/http/api-error";
import {
  amountJson,
  bookedRate,
  policyJson,
  rateJson,
  bookPricedQuote,
  meteredCall,
  findBookingByPartnerReference,
  partnerBooking,
  cancelBooking,
  previewCancellation,
  type BookingDeps,
  readOptionId,
  priceQuote,
  consumeRateLimit,
  searchAvailability,
} from "../booking";
import { accommodationByCode, type CancelPolicy, type PaymentType, type Rate } from "../supply";
import { chatConnection, type CoreConnection } from "../connections";
import { stayNights } from "../../platform/time/zoned-time";
import { cardById, issueSetupToken, usableCard, type SavedCard } from "../payments";
import { BOOKING_STATUS_WORDS, type BookingStatus } from "./booking-status";
import { buildShortlist, type SearchedStay, type ShortlistEntry, type ShortlistWarning } from "./shortlist";
import {
  isBookingIntent,
  isCompletion,
  mergeSlots,
  missingForSearch,
  readCancelConfirmation,
  readCancelIntent,
  readConfirmation,
  readGuestName,
  readSearch,
  readShortlistPick,
  MAX_BUDGET,
  type GuestName,
  type SearchSlots,
} from "./understand";

/**
 * The six statuses of spec 3.5 plus four documented in docs/api-decisions.md:
 * `needs_input` (the assistant asks for something), `price_change_confirmation_required`, `cancelled`,
 * `cancel_confirmation_required` (a cancellation asked for in text, waiting for a yes).
 */
export const CHAT_STATUSES = [
  "shortlist",
  "guest_name_required",
  "payment_setup_required",
  "payment_confirmation_required",
  "booked",
  "error",
  "needs_input",
  "price_change_confirmation_required",
  "cancelled",
  "cancel_confirmation_required",
] as const;
export type ChatStatus = (typeof CHAT_STATUSES)[number];

export const WRITE_KINDS = [
  "command_book_by_option_id",
  "action_book_option",
  "action_confirm_price_change",
  "action_confirm_payment_card",
  "action_cancel_booking",
] as const;
export const EVENT_KINDS = ["search_query", ...WRITE_KINDS] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export type ChatEvent =
  | { kind: "search_query"; text: string }
  | { kind: "command_book_by_option_id"; payload: { optionId: string; guest?: GuestName } }
  | { kind: "action_book_option"; payload: { optionId: string } }
  | { kind: "action_confirm_price_change"; payload: { accept: boolean } }
  | { kind: "action_confirm_payment_card"; payload: { paymentMethodId: string } }
  | { kind: "action_cancel_booking"; payload: { bookingId: string } };

/** The price parts of a booking artifact, from the booked rate. */
const bookedPrice = (rate: Rate, paymentType: PaymentType) => ({
  totalPrice: rate.chargeTotal,
  currency: rate.currency,
  paymentType,
  totalStayPrice: rate.totalStayPrice,
  dueAtHotel: { amount: rate.dueAtProperty.amount, currency: rate.dueAtProperty.currency },
});

/** What a stay costs: what is charged at booking and, when known, the all-in price and what the hotel collects. */
type StayPrice = {
  /** What is charged at booking (rate.chargeTotal). */
  totalPrice: number;
  currency: string;
  /** The all-in price (rate.totalStayPrice); absent when chosen by option id alone (the id does not carry it). */
  allIn?: number;
  /** What the hotel collects, in its currency (absent as allIn is). */
  dueAtHotel?: { amount: number; currency: string };
  /** Absent as allIn is. */
  paymentType?: PaymentType;
};

/** The option the traveller chose, with what booking it needs. */
type Selection = StayPrice & {
  optionId: string;
  accommodationCode: string;
  name: string;
  stay: SearchedStay;
  /** Fixed when the option is chosen, so a retried confirmation can never book twice. */
  partnerReference: string;
};

export type BookedStay = {
  bookingId: string;
  hotelName: string;
  totalPrice: number;
  currency: string;
  /** As last seen; the bookings table is the truth (upkeep settles a pending booking there). */
  status: BookingStatus;
};

/** How long a cancellation asked for in text waits for its yes. */
export const CANCEL_CONFIRMATION_TTL_MS = 10 * 60 * 1000;

/** A cancellation asked for in text: what it was shown to cost, until a yes carries it out or any other turn drops it. */
export type PendingCancel = {
  bookingId: string;
  /** The penalty shown, in the booking's currency (cancellationPreview's cancelPrice). */
  cancelPrice: number;
  currency: string;
  /** Epoch ms: a yes after this cancels nothing. */
  expiresAt: number;
  /** The status before the question, restored when the confirmation is dropped. */
  previousStatus: ChatStatus | "new";
};

export type ConversationState = {
  status: ChatStatus | "new";
  slots: SearchSlots;
  shortlist: ShortlistEntry[];
  stay?: SearchedStay;
  selection?: Selection;
  guest?: GuestName;
  paymentMethodId?: string;
  priceChange?: { previousTotal: number; currentTotal: number; currency: string };
  selections: number;
  bookings: BookedStay[];
  pendingCancel?: PendingCancel;
  /** Set by a data-subject erasure: the session is read-only from then on. */
  erasedAt?: string;
};

export const newConversation = (): ConversationState => ({
  status: "new",
  slots: {},
  shortlist: [],
  selections: 0,
  bookings: [],
});

export type ChatResult = { status: ChatStatus; message: { text: string }; artifacts: Record<string, unknown> };

/** What one turn needs from the outside world. */
export type TurnContext = {
  deps: BookingDeps;
  partnerId: string;
  actorId: string;
  sessionId: string;
  timezoneOffsetMinutes: number;
  /** Public origin of the links handed out (PUBLIC_BASE_URL; the request origin only locally). */
  origin: string;
  /** Signs the booking page's link (PAGE_TOKEN_SECRET). */
  pageKeys: Keyring;
  requestId: string;
  now: number;
};

const money = (amount: number, currency: string) =>
  currency === "USD" ? `$${amount.toFixed(2)}` : `${amount.toFixed(2)} ${currency}`;

/** A rate's price as chat tells it. */
const stayPriceOf = (rate: Rate, paymentType: PaymentType): StayPrice => ({
  totalPrice: rate.chargeTotal,
  currency: rate.currency,
  allIn: rate.totalStayPrice,
  dueAtHotel: { amount: rate.dueAtProperty.amount, currency: rate.dueAtProperty.currency },
  paymentType,
});

/** A shortlist entry's price; an entry kept from before the shortlist showed all-in prices has only what is charged. */
const entryPrice = (entry: ShortlistEntry): StayPrice =>
  entry.chargedAtBooking === undefined
    ? { totalPrice: entry.totalPrice, currency: entry.currency }
    : {
        totalPrice: entry.chargedAtBooking,
        currency: entry.currency,
        allIn: entry.totalPrice,
        dueAtHotel: entry.dueAtHotel,
        paymentType: entry.paymentType ?? "MerchantPay",
      };

const isDue = (p: StayPrice) => p.allIn !== undefined && p.dueAtHotel !== undefined && p.dueAtHotel.amount > 0;

/** The all-in price, then how much of it the hotel collects: "250.00 EUR in total (50.00 EUR of it payable at the hotel)". */
const totalWords = (p: StayPrice) => {
  if (!isDue(p)) return `${money(p.totalPrice, p.currency)} in total`;
  const of = p.paymentType === "PayAtProperty" ? "all" : money(p.dueAtHotel!.amount, p.dueAtHotel!.currency);
  return `${money(p.allIn!, p.currency)} in total (${of} of it payable at the hotel)`;
};

/**
 * The price split the way it is paid: the all-in price, what the card is charged at booking and what
 * the hotel collects; at the hotel's own price, nothing is charged and the card is the guarantee.
 */
const paymentWords = (p: StayPrice, card: SavedCard | null, booked: boolean) => {
  const cardWords = card ? `your ${card.brand} card ending ${card.last4}` : "";
  if (!isDue(p)) return `${money(p.totalPrice, p.currency)} in total${card ? `, paid with ${cardWords}` : ""}`;
  const total = `${money(p.allIn!, p.currency)} in total`;
  const due = money(p.dueAtHotel!.amount, p.dueAtHotel!.currency);
  if (p.paymentType === "PayAtProperty")
    return `${total}, all payable at the hotel: nothing ${booked ? "was" : "is"} charged at booking${card ? `, ${cardWords} guarantees the booking` : ""}`;
  return `${total}: ${money(p.totalPrice, p.currency)} charged${card ? ` to ${cardWords}` : ""} at booking and ${due} payable at the hotel`;
};

/** Hotels named in a sentence: "A", "A and B", "A, B, C and 2 other hotels". */
const hotelNames = (names: string[]) => {
  const shown = names.slice(0, 3);
  const more = names.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${more} other hotel${more === 1 ? "" : "s"}`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}` : (shown[0] ?? "A hotel");
};

/** What the search could not show, in plain words (each sentence once). */
const warningWords = (warnings: ShortlistWarning[]) =>
  [
    ...new Set(
      warnings.map(({ warning, hotels }) => {
        if (warning.code === "currency_not_convertible") {
          const one = hotels.length <= 1;
          return `${hotelNames(hotels)} ${one ? "is" : "are"} priced in ${warning.currency}, which I cannot convert to ${warning.requestedCurrency} right now, so I cannot offer ${one ? "it" : "them"}.`;
        }
        return warning.code === "supplier_timeout"
          ? "A supplier did not answer in time, so some hotels may be missing."
          : "A supplier could not be reached, so some hotels may be missing.";
      }),
    ),
  ].join(" ");

const reply = (status: ChatStatus, text: string, artifacts: Record<string, unknown> = {}): ChatResult => ({
  status,
  message: { text },
  artifacts,
});

// One read of the connection per turn, however many steps (search, quote, book) use it.
const turnConnections = new WeakMap<TurnContext, Promise<CoreConnection | null>>();

/** The partner's in-use connection chat books through: b2b and direct preferred. */
const turnConnection = (ctx: TurnContext): Promise<CoreConnection | null> => {
  let found = turnConnections.get(ctx);
  if (!found) turnConnections.set(ctx, (found = chatConnection(ctx.deps.db, ctx.partnerId)));
  return found;
};

const NO_CONNECTION = () =>
  reply(
    "error",
    "Booking is not available: your account has no connection in use. Ask your Edgestay contact to enable one.",
  );

export const describeCancelPolicy = (policy: CancelPolicy | undefined | null): string => {
  if (!policy) return "Cancellation policy not available.";
  if (!policy.refundable) return "Non-refundable: nothing is refunded on cancellation.";
  const penalties = [...policy.cancelPenalties].sort((a, b) => a.deadline.localeCompare(b.deadline));
  if (penalties.length === 0) return "Free cancellation before check-in.";
  const first = penalties[0]!;
  return `Free cancellation until ${first.deadline.slice(0, 16).replace("T", " ")} UTC; after that a penalty of ${money(first.value, first.currency)} applies, and no cancellation from the check-in date.`;
};

const stayWords = (stay: SearchedStay) => {
  const nights = stayNights(stay.checkIn, stay.checkOut).length;
  const guests = stay.rooms.flat();
  const adults = guests.filter((a) => a >= 18).length;
  const children = guests.length - adults;
  const party = `${adults} adult${adults === 1 ? "" : "s"}${children ? `, ${children} child${children === 1 ? "" : "ren"}` : ""}${stay.rooms.length > 1 ? `, ${stay.rooms.length} rooms` : ""}`;
  return `${stay.checkIn} to ${stay.checkOut} (${nights} night${nights === 1 ? "" : "s"}, ${party})`;
};

// --- search -------------------------------------------------------------------------------------

const search = async (ctx: TurnContext, state: ConversationState, text: string): Promise<ChatResult> => {
  const added = readSearch(text, { now: new Date(ctx.now), timezoneOffsetMinutes: ctx.timezoneOffsetMinutes });
  // "under $1e308" is no tiny budget and no filter at all: asked again, nothing searched.
  if (added.unreadableBudget) {
    state.status = "needs_input";
    return reply(
      "needs_input",
      `I can't use ${added.unreadableBudget} as a budget: please write it in plain digits, at most ${MAX_BUDGET.toLocaleString("en-US")} (for example "under $300 a night"). I have not searched yet.`,
    );
  }
  // A message naming a new place, or a place and dates, is a new search; otherwise it refines what is known.
  const fresh = Boolean(added.destination && (added.checkIn || added.destination !== state.slots.destination));
  const slots = fresh ? added : mergeSlots(state.slots, added);
  state.slots = slots;
  const question = missingForSearch(slots);
  if (question) {
    state.status = "needs_input";
    return reply("needs_input", question);
  }
  const connection = await turnConnection(ctx);
  if (!connection) return NO_CONNECTION();
  let shortlist;
  try {
    shortlist = await meteredCall(ctx.deps, { connection, operation: "search", requestId: ctx.requestId }, () =>
      buildShortlist(
        ctx.deps,
        connection,
        slots as SearchSlots & { destination: string; checkIn: string; checkOut: string },
        (code) => `${ctx.origin}/chat/accommodations/${code}`,
        ctx.now,
      ),
    );
  } catch (error) {
    // A rate limit is the client's to back off from (429 with Retry-After), not a question for the traveller.
    if (!(error instanceof ApiError) || error.status >= 500 || error.code === "rate_limit_exceeded") throw error;
    state.status = "needs_input";
    // The dates are the usual culprit (past, too far ahead, too long): ask for them again.
    if (error.code === "invalid_dates") {
      delete state.slots.checkIn;
      delete state.slots.checkOut;
      delete state.slots.nights;
    }
    return reply(
      "needs_input",
      `I can't search that: ${error.message}. Could you tell me other dates or another place?`,
    );
  }
  // Never a silent gap: what a supplier could not offer is said, and given to the partner as the search's warnings.
  const warned = shortlist.warnings.length ? warningWords(shortlist.warnings) : "";
  const warnings = shortlist.warnings.length ? { warnings: shortlist.warnings.map((w) => w.warning) } : {};
  if (shortlist.entries.length === 0) {
    state.status = "needs_input";
    if (warned)
      return reply(
        "needs_input",
        `I cannot offer rooms in ${shortlist.place} for ${stayWords(shortlist.stay)}: ${warned} Try other dates or another place.`,
        warnings,
      );
    const filters = [
      slots.budget && "budget",
      slots.refundableOnly && "refundable-only",
      slots.minStars && "star rating",
    ].filter(Boolean);
    const hint = filters.length ? ` matching your ${filters.join(", ")} wishes` : "";
    return reply(
      "needs_input",
      `I found no available rooms in ${shortlist.place}${hint} for ${stayWords(shortlist.stay)}. Try other dates, another place${filters.length ? " or looser wishes" : ""}.`,
    );
  }
  state.status = "shortlist";
  state.shortlist = shortlist.entries;
  state.stay = shortlist.stay;
  delete state.selection;
  const lines = shortlist.entries.map(
    (e, i) =>
      `${i + 1}. ${e.name} (${e.rating} star${e.rating === 1 ? "" : "s"}): ${money(e.pricePerNight, e.currency)} per night, ${totalWords(entryPrice(e))}, ${e.refundable ? "refundable" : "non-refundable"}${e.distanceTo ? `, ${e.distanceTo}` : ""}`,
  );
  const defaulted = slots.adults === undefined ? " I assumed 2 adults; tell me if you are more or fewer." : "";
  return reply(
    "shortlist",
    `Here ${shortlist.entries.length === 1 ? "is 1 option" : `are ${shortlist.entries.length} options`} in ${shortlist.place} for ${stayWords(shortlist.stay)}:\n${lines.join("\n")}${warned ? `\n${warned}` : ""}\nWhich one would you like to book?${defaulted}`,
    { shortlist: shortlist.entries, ...warnings },
  );
};

// --- choosing and paying ------------------------------------------------------------------------

const select = (ctx: TurnContext, state: ConversationState, selection: Omit<Selection, "partnerReference">) => {
  state.selections += 1;
  state.selection = { ...selection, partnerReference: `chat-${ctx.sessionId}-${state.selections}` };
  delete state.priceChange;
  delete state.paymentMethodId;
};

const askGuestName = (state: ConversationState): ChatResult => {
  state.status = "guest_name_required";
  const s = state.selection!;
  return reply(
    "guest_name_required",
    `Good choice: ${s.name}, ${totalWords(s)} for ${stayWords(s.stay)}. What is the guest's full name (first and last name)?`,
  );
};

const cardArtifact = (card: SavedCard) => ({
  paymentMethodId: card.paymentMethodId,
  cardBrand: card.brand,
  cardLast4: card.last4,
  expMonth: card.expMonth,
  expYear: card.expYear,
});

const askConfirmation = (state: ConversationState, card: SavedCard): ChatResult => {
  state.status = "payment_confirmation_required";
  state.paymentMethodId = card.paymentMethodId;
  const s = state.selection!;
  return reply(
    "payment_confirmation_required",
    `Shall I book ${s.name} for ${state.guest!.firstName} ${state.guest!.lastName}, ${stayWords(s.stay)}, ${paymentWords(s, card, false)}? Reply yes to book or no to stop.`,
    { payment: cardArtifact(card) },
  );
};

/** Guest known: confirm with a saved card, or send a fresh one-time card-setup link. */
const paymentStep = async (ctx: TurnContext, state: ConversationState): Promise<ChatResult> => {
  const card = await usableCard(ctx.deps.db, ctx.partnerId, ctx.actorId, ctx.now);
  if (card) return askConfirmation(state, card);
  state.status = "payment_setup_required";
  const { token } = await issueSetupToken(
    ctx.deps.db,
    ctx.deps.keys,
    { partnerId: ctx.partnerId, actorId: ctx.actorId, sessionId: ctx.sessionId },
    ctx.now,
  );
  const setupUrl = `${ctx.origin}/card-setup?token=${encodeURIComponent(token)}`;
  return reply(
    "payment_setup_required",
    `To book, please add a payment card on this secure page: ${setupUrl} (the link works once, for 30 minutes). Tell me "Done" when you have added it.`,
    { payment: { setupUrl } },
  );
};

/** A shortlist entry chosen: its price as the shortlist showed it. */
const selectEntry = (ctx: TurnContext, state: ConversationState, entry: ShortlistEntry) =>
  select(ctx, state, {
    optionId: entry.optionId,
    accommodationCode: entry.accommodationCode,
    name: entry.name,
    ...entryPrice(entry),
    stay: state.stay!,
  });

const chooseByOptionId = async (ctx: TurnContext, state: ConversationState, optionId: string) => {
  const fromShortlist = state.shortlist.find((e) => e.optionId === optionId);
  if (fromShortlist) return selectEntry(ctx, state, fromShortlist);
  // Any option id this partner got from search carries its hotel, dates and guests (signed).
  const option = await readOptionId(ctx.deps.keys, optionId, ctx.partnerId, ctx.now);
  const accommodation = await accommodationByCode(ctx.deps.db, option.accommodationCode);
  if (!accommodation) throw new ApiError("option_invalid", "Option reference invalid");
  select(ctx, state, {
    optionId,
    accommodationCode: option.accommodationCode,
    name: accommodation.name,
    totalPrice: amountJson(option.chargeTotal, option.currency),
    currency: option.currency,
    stay: { checkIn: option.checkIn, checkOut: option.checkOut, rooms: option.rooms },
  });
};

/** A fresh option for the same room and rate plan at today's price (after the traveller accepted a change). */
const refreshOption = async (ctx: TurnContext, connection: CoreConnection, selection: Selection) => {
  const current = await readOptionId(ctx.deps.keys, selection.optionId, ctx.partnerId, ctx.now);
  const { accommodations } = await meteredCall(
    ctx.deps,
    { connection, operation: "search", requestId: ctx.requestId },
    async () => {
      await consumeRateLimit(ctx.deps.rateLimiter, connection);
      return searchAvailability(
        ctx.deps,
        connection,
        {
          selection: { kind: "codes", codes: [selection.accommodationCode] },
          occupancies: selection.stay.rooms.map((ages) => ({ paxes: ages.map((age) => ({ age })) })),
          checkIn: selection.stay.checkIn,
          checkOut: selection.stay.checkOut,
        },
        ctx.now,
      );
    },
  );
  for (const option of accommodations[0]?.options ?? []) {
    const opened = await readOptionId(ctx.deps.keys, option.id, ctx.partnerId, ctx.now);
    if (opened.roomCode === current.roomCode && opened.ratePlanCode === current.ratePlanCode) return option;
  }
  return null;
};

type BookingArtifact = {
  bookingId: string;
  confirmationBookingId: string;
  hotelName: string;
  /** What was charged at booking (chargeTotal). */
  totalPrice: number;
  currency: string;
  paymentType: PaymentType;
  /** The all-in price (rate.totalStayPrice) and what the hotel collects (rate.dueAtProperty, its currency). */
  totalStayPrice: number;
  dueAtHotel: { amount: number; currency: string };
  confirmationUrl: string;
  cancelPolicy: string;
};

/** The result status a booking's status gives: a failed booking is an error, never "booked". */
const resultStatusOf = (status: BookingStatus): ChatStatus =>
  status === "failed" ? "error" : status === "cancelled" ? "cancelled" : "booked";

/** "Your booking BK... at <hotel> is being confirmed by the supplier. <advice>" (BOOKING_STATUS_WORDS). */
const bookingStatusText = (booking: { bookingId: string; hotelName: string }, status: BookingStatus) => {
  const words = BOOKING_STATUS_WORDS[status];
  return `Your booking ${booking.bookingId} at ${booking.hotelName} ${words.sentence}.${words.advice ? ` ${words.advice}` : ""}`;
};

/**
 * The answer to a booking made (or found made) under the selection's reference. `pending`: the
 * supplier's answer did not arrive in time; upkeep settles it (never "Booked!" before that).
 */
const bookedReply = (state: ConversationState, booking: BookingArtifact, status: BookingStatus): ChatResult => {
  const selection = state.selection!;
  const guest = state.guest!;
  state.status = resultStatusOf(status);
  const known = state.bookings.find((b) => b.bookingId === booking.bookingId);
  if (known) known.status = status;
  else
    state.bookings.push({
      bookingId: booking.bookingId,
      hotelName: booking.hotelName,
      totalPrice: booking.totalPrice,
      currency: booking.currency,
      status,
    });
  const artifacts = { booking: { ...booking, status } };
  const price = paymentWords(
    {
      totalPrice: booking.totalPrice,
      currency: booking.currency,
      allIn: booking.totalStayPrice,
      dueAtHotel: booking.dueAtHotel,
      paymentType: booking.paymentType,
    },
    null,
    true,
  );
  if (status === "success") {
    return reply(
      "booked",
      `Booked! ${booking.hotelName} for ${guest.firstName} ${guest.lastName}, ${stayWords(selection.stay)}, ${price}. Confirmation ${booking.confirmationBookingId}. ${booking.cancelPolicy}`,
      artifacts,
    );
  }
  if (status === "pending") {
    return reply(
      "booked",
      `Your booking of ${booking.hotelName} for ${guest.firstName} ${guest.lastName}, ${stayWords(selection.stay)}, ${price}, ${BOOKING_STATUS_WORDS.pending.sentence}. Reference ${booking.bookingId}: its page shows when it is confirmed. ${BOOKING_STATUS_WORDS.pending.advice}`,
      artifacts,
    );
  }
  return reply(state.status, bookingStatusText(booking, status), artifacts);
};

/** A repeated "yes" after booking: the last booking's status as it stands now, never assumed confirmed. */
const lastBookingReply = async (ctx: TurnContext, state: ConversationState): Promise<ChatResult> => {
  const last = state.bookings[state.bookings.length - 1]!;
  last.status = (await partnerBooking(ctx.deps.db, ctx.partnerId, last.bookingId)).status;
  state.status = resultStatusOf(last.status);
  return reply(state.status, bookingStatusText(last, last.status), {});
};

/** The confirmationUrl: the booking page opens only with the signed token it carries. */
const bookingPageUrl = async (ctx: TurnContext, reference: string) =>
  `${ctx.origin}/chat/bookings/${reference}?token=${encodeURIComponent(await bookingPageToken(ctx.pageKeys, reference))}`;

/** Quote then book through the same services as POST /api/quote and POST /api/book. */
const book = async (ctx: TurnContext, state: ConversationState): Promise<ChatResult> => {
  const selection = state.selection!;
  const guest = state.guest!;
  const connection = await turnConnection(ctx);
  if (!connection) return NO_CONNECTION();
  // Booked already under this reference (an answer lost after the booking was made): report it.
  const existing = await findBookingByPartnerReference(ctx.deps.db, ctx.partnerId, selection.partnerReference);
  if (existing)
    return bookedReply(
      state,
      {
        bookingId: existing.reference,
        confirmationBookingId: existing.hotelConfirmationNumber ?? existing.reference,
        hotelName: existing.accommodationName,
        ...bookedPrice(rateJson(bookedRate(existing)), existing.paymentType),
        confirmationUrl: await bookingPageUrl(ctx, existing.reference),
        cancelPolicy: describeCancelPolicy(existing.cancelPolicy && policyJson(existing.cancelPolicy)),
      },
      existing.status,
    );
  const meta = { requestId: ctx.requestId, startedAt: Date.now(), scenario: null };
  const occupancies = selection.stay.rooms.map((ages) => ({ paxes: ages.map((age) => ({ age })) }));
  try {
    // The quote is booked at once, never kept: the same checks as POST /api/quote then /api/book.
    const { quote, stored } = await meteredCall(
      ctx.deps,
      { connection, operation: "quote", requestId: ctx.requestId },
      async () => {
        // Chat quotes count against the connection's own limit too.
        await consumeRateLimit(ctx.deps.rateLimiter, connection);
        return priceQuote(
          ctx.deps,
          connection,
          {
            optionId: selection.optionId,
            accommodationCode: selection.accommodationCode,
            occupancies,
            checkIn: selection.stay.checkIn,
            checkOut: selection.stay.checkOut,
          },
          meta,
          ctx.now,
        );
      },
    );
    const booked = await meteredCall(ctx.deps, { connection, operation: "book", requestId: ctx.requestId }, () =>
      bookPricedQuote(
        ctx.deps,
        connection,
        {
          quoteId: quote.id,
          accommodationCode: selection.accommodationCode,
          partnerReference: selection.partnerReference,
          holder: { name: guest.firstName, surName: guest.lastName },
          checkIn: selection.stay.checkIn,
          checkOut: selection.stay.checkOut,
          // The card step's card: the guarantee a PayAtProperty option needs (unused otherwise).
          ...(state.paymentMethodId
            ? { paymentCard: { actorId: ctx.actorId, paymentMethodId: state.paymentMethodId } }
            : {}),
        },
        stored,
        meta,
        ctx.now,
      ),
    );
    return bookedReply(
      state,
      {
        bookingId: booked.bookingReference,
        confirmationBookingId: booked.hotelConfirmationNumber ?? booked.bookingReference,
        hotelName: quote.accommodation.accommodationName,
        ...bookedPrice(booked.rate, booked.paymentType),
        confirmationUrl: await bookingPageUrl(ctx, booked.bookingReference),
        cancelPolicy: describeCancelPolicy(quote.cancelPolicy),
      },
      booked.status,
    );
  } catch (error) {
    // The connection's rate limit (counted with the quote, inside the try) is the client's 429, as before.
    if (!(error instanceof ApiError) || error.status >= 500 || error.code === "rate_limit_exceeded") throw error;
    // Only a change with both totals can be offered at the new price (a supplier may refuse without naming it).
    if (error.code === "price_changed" && typeof error.details?.currentTotal === "number") {
      const { previousTotal, currentTotal, currency } = error.details as {
        previousTotal: number;
        currentTotal: number;
        currency: string;
      };
      state.status = "price_change_confirmation_required";
      state.priceChange = { previousTotal, currentTotal, currency };
      return reply(
        "price_change_confirmation_required",
        `The price of ${selection.name} has changed from ${money(previousTotal, currency)} to ${money(currentTotal, currency)}. Book at the new price? Reply yes or no.`,
        { priceChange: state.priceChange },
      );
    }
    // Sold out, expired option or a refusal: nothing was booked; the shortlist stays to pick again.
    state.status = "error";
    return reply(
      "error",
      `I could not book ${selection.name}: ${error.message} Nothing was booked or charged. Pick another option or search again.`,
      { error: { code: error.code, message: error.message } },
    );
  }
};

const acceptPriceChange = async (ctx: TurnContext, state: ConversationState): Promise<ChatResult> => {
  const connection = await turnConnection(ctx);
  if (!connection) return NO_CONNECTION();
  const fresh = await refreshOption(ctx, connection, state.selection!);
  if (!fresh) {
    state.status = "error";
    return reply(
      "error",
      `${state.selection!.name} is no longer available for these dates. Nothing was booked or charged.`,
    );
  }
  state.selection = { ...state.selection!, optionId: fresh.id, ...stayPriceOf(fresh.rate, fresh.paymentType) };
  delete state.priceChange;
  return book(ctx, state);
};

const decline = (state: ConversationState, what: string): ChatResult => {
  state.status = "error";
  delete state.paymentMethodId;
  delete state.priceChange;
  return reply(
    "error",
    `Understood, I have not booked ${what}. Nothing was booked and nothing was charged. Tell me if you want to look at other options.`,
  );
};

// --- one turn -----------------------------------------------------------------------------------

const invalidState = (kind: string, state: ConversationState) =>
  new ApiError("invalid_session_state", `${kind} is not possible now: the session is at status ${state.status}`, {
    status: state.status,
  });

const pickFromText = (state: ConversationState, text: string): ShortlistEntry | null => {
  if (state.shortlist.length === 0) return null;
  const pick = readShortlistPick(
    text,
    state.shortlist.map((e) => e.name),
  );
  if (!pick) return null;
  if ("position" in pick) return state.shortlist[pick.position - 1] ?? null;
  if ("cheapest" in pick) return [...state.shortlist].sort((a, b) => a.totalPrice - b.totalPrice)[0]!;
  return state.shortlist.find((e) => e.name === pick.name) ?? null;
};

/** The states whose question a message answers first: there "cancel" means "no", not a cancellation. */
const ANSWERING: ReadonlySet<ConversationState["status"]> = new Set<ConversationState["status"]>([
  "guest_name_required",
  "payment_setup_required",
  "payment_confirmation_required",
  "price_change_confirmation_required",
]);

/**
 * Cancels a booking of this session through the booking service POST /api/cancel uses (the same
 * rules: a pending booking is not cancelled, it is being confirmed).
 */
const cancelInSession = async (
  ctx: TurnContext,
  state: ConversationState,
  booked: ConversationState["bookings"][number],
): Promise<ChatResult> => {
  try {
    const connection = await turnConnection(ctx);
    const cancel = () => cancelBooking(ctx.deps, ctx.partnerId, booked.bookingId, ctx.now);
    const cancelled = connection
      ? await meteredCall(ctx.deps, { connection, operation: "cancel", requestId: ctx.requestId }, cancel)
      : await cancel();
    booked.status = "cancelled";
    state.status = "cancelled";
    return reply(
      "cancelled",
      `Your booking ${booked.bookingId} at ${booked.hotelName} is cancelled.${cancelled.cancelPrice.amount > 0 ? ` A cancellation fee of ${money(cancelled.cancelPrice.amount, cancelled.cancelPrice.currency)} applies.` : " Nothing is charged."}`,
      {
        cancellation: {
          bookingId: booked.bookingId,
          status: cancelled.status,
          cancelledAt: cancelled.cancelledAt,
          cancelPrice: cancelled.cancelPrice,
        },
      },
    );
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    return cancelRefusal(booked, error);
  }
};

/** The booking a cancel message is about: the one it names, else the session's last one not cancelled yet. */
const bookingToCancel = (state: ConversationState, reference: string | null): BookedStay | ChatResult => {
  const booked = reference
    ? state.bookings.find((b) => b.bookingId === reference)
    : [...state.bookings].reverse().find((b) => b.status !== "cancelled");
  if (booked) return booked;
  return reply(
    "needs_input",
    reference
      ? `Booking ${reference} was not booked in this conversation, so I cannot cancel it here.`
      : "There is no booking in this conversation to cancel.",
  );
};

/** A refusal of the cancellation service as the assistant says it (the same words whether asked or carried out). */
const cancelRefusal = (booked: BookedStay, error: ApiError): ChatResult => {
  // Not known to exist at the supplier yet: said in the words of its status, never "cancelled".
  if (error.code === "booking_pending")
    return reply(
      "error",
      `I could not cancel ${booked.bookingId} yet. ${bookingStatusText(booked, "pending")} Ask me again once it is confirmed.`,
      { error: { code: error.code, message: error.message } },
    );
  return reply("error", `I could not cancel ${booked.bookingId}: ${error.message}`, {
    error: { code: error.code, message: error.message },
  });
};

type CancelPreview = Awaited<ReturnType<typeof previewCancellation>>;

/** What cancelling costs now, by booking's own cancellation preview (the figures POST /api/cancel charges). */
const previewOrRefusal = async (
  ctx: TurnContext,
  booked: BookedStay,
): Promise<{ preview: CancelPreview } | { refused: ChatResult }> => {
  try {
    return { preview: await previewCancellation(ctx.deps.db, ctx.partnerId, booked.bookingId, ctx.now) };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status >= 500) throw error;
    return { refused: cancelRefusal(booked, error) };
  }
};

/** The booking a message names (or the session's one) and what cancelling it costs now, or the answer why not. */
const cancelPreviewOf = async (
  ctx: TurnContext,
  state: ConversationState,
  reference: string | null,
): Promise<{ booked: BookedStay; preview: CancelPreview } | { refused: ChatResult }> => {
  const booked = bookingToCancel(state, reference);
  if (!("bookingId" in booked)) return { refused: booked };
  const found = await previewOrRefusal(ctx, booked);
  return "refused" in found ? found : { booked, preview: found.preview };
};

/** "costs a penalty of $40.00 (of $200.00 charged)" / "is free". */
const cancelCostWords = (preview: CancelPreview) => {
  if (preview.cancelPrice > 0)
    return `costs a cancellation fee of ${money(preview.cancelPrice, preview.currency)} (of ${money(preview.rate.chargeTotal, preview.currency)} charged)`;
  const until =
    preview.deadline && Date.parse(preview.deadline) > Date.parse(preview.at)
      ? ` until ${preview.deadline.slice(0, 16).replace("T", " ")} UTC`
      : "";
  return `is free${until}: nothing is charged`;
};

/** Why a booking cannot be cancelled at all now: the refusal POST /api/cancel would answer, in words. */
const notCancellableWords = (booked: BookedStay, preview: CancelPreview) =>
  preview.refundable
    ? `Booking ${booked.bookingId} at ${booked.hotelName} can no longer be cancelled: its check-in date has come.`
    : `Booking ${booked.bookingId} at ${booked.hotelName} is non-refundable: it cannot be cancelled and nothing would be refunded.`;

const previewArtifact = (booked: BookedStay, preview: CancelPreview, expiresAt?: number) => ({
  cancelPreview: {
    bookingId: booked.bookingId,
    cancellable: preview.cancellable,
    cancelPrice: { amount: preview.cancelPrice, currency: preview.currency },
    deadline: preview.deadline,
    ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }),
  },
});

/** The answer for a booking that cannot be cancelled now: why, in words, with its preview. */
const notCancellable = (
  status: "needs_input" | "error",
  booked: BookedStay,
  preview: CancelPreview,
  done: string,
): ChatResult => reply(status, `${notCancellableWords(booked, preview)} ${done}`, previewArtifact(booked, preview));

/** A question about cancelling ("what happens if I cancel my booking?"): its cost now, and nothing done. */
const answerCancelQuestion = async (
  ctx: TurnContext,
  state: ConversationState,
  reference: string | null,
): Promise<ChatResult> => {
  const found = await cancelPreviewOf(ctx, state, reference);
  if ("refused" in found) return found.refused;
  const { booked, preview } = found;
  if (!preview.cancellable) return notCancellable("needs_input", booked, preview, "Nothing was changed.");
  return reply(
    "needs_input",
    `Cancelling booking ${booked.bookingId} at ${booked.hotelName} now ${cancelCostWords(preview)}. I have not cancelled anything; to cancel it, say "cancel my booking" and I will ask you to confirm.`,
    previewArtifact(booked, preview),
  );
};

/**
 * "cancel my booking": never carried out at once. The traveller is shown what it costs now and the
 * session waits CANCEL_CONFIRMATION_TTL_MS for an affirmative next turn (docs/api-decisions.md).
 */
const askCancelConfirmation = async (
  ctx: TurnContext,
  state: ConversationState,
  reference: string | null,
): Promise<ChatResult> => {
  const found = await cancelPreviewOf(ctx, state, reference);
  if ("refused" in found) return found.refused;
  const { booked, preview } = found;
  if (!preview.cancellable) return notCancellable("error", booked, preview, "Nothing was cancelled.");
  const expiresAt = ctx.now + CANCEL_CONFIRMATION_TTL_MS;
  state.pendingCancel = {
    bookingId: booked.bookingId,
    cancelPrice: preview.cancelPrice,
    currency: preview.currency,
    expiresAt,
    previousStatus: state.status,
  };
  state.status = "cancel_confirmation_required";
  return reply(
    "cancel_confirmation_required",
    `Cancelling booking ${booked.bookingId} at ${booked.hotelName} now ${cancelCostWords(preview)}. Shall I cancel it? Reply yes to cancel, or no to keep it (this question stays open for 10 minutes).`,
    previewArtifact(booked, preview, expiresAt),
  );
};

/** The yes to a pending cancellation: carried out only at the cost shown; a changed cost is asked again. */
const confirmCancel = async (
  ctx: TurnContext,
  state: ConversationState,
  pending: PendingCancel,
): Promise<ChatResult> => {
  const booked = state.bookings.find((b) => b.bookingId === pending.bookingId)!;
  const found = await previewOrRefusal(ctx, booked);
  if ("refused" in found) return found.refused;
  const { preview } = found;
  if (!preview.cancellable || preview.cancelPrice !== pending.cancelPrice || preview.currency !== pending.currency)
    return askCancelConfirmation(ctx, state, booked.bookingId);
  return cancelInSession(ctx, state, booked);
};

/**
 * A pending cancellation meets the next text: a yes within its time cancels; a no keeps the booking;
 * anything else drops it and is read as a message of its own. Null: go on reading the text.
 */
const answerPendingCancel = (
  ctx: TurnContext,
  state: ConversationState,
  pending: PendingCancel,
  text: string,
): Promise<ChatResult> | ChatResult | null => {
  const answer = readCancelConfirmation(text);
  if (answer === "yes") {
    if (ctx.now > pending.expiresAt)
      return reply(
        "needs_input",
        `Your request to cancel booking ${pending.bookingId} expired after 10 minutes, so nothing was cancelled. Say "cancel my booking" again to see what it costs now.`,
      );
    return confirmCancel(ctx, state, pending);
  }
  if (answer === "no") return keptReply(pending.bookingId);
  return null;
};

const keptReply = (bookingId: string) =>
  reply("needs_input", `Understood: booking ${bookingId} is kept, nothing was cancelled.`);

const textTurn = async (
  ctx: TurnContext,
  state: ConversationState,
  text: string,
  pending: PendingCancel | undefined,
): Promise<ChatResult> => {
  const s = state.selection;
  if (pending) {
    const answered = answerPendingCancel(ctx, state, pending, text);
    if (answered) return answered;
  }
  // Text never cancels at once: a request is asked back with its cost, a question answered, a refusal
  // acknowledged; unless the message answers the question just asked.
  const intent = ANSWERING.has(state.status) ? null : readCancelIntent(text);
  if (intent?.kind === "request") return askCancelConfirmation(ctx, state, intent.reference);
  if (intent?.kind === "question") return answerCancelQuestion(ctx, state, intent.reference);
  if (intent?.kind === "refusal") return reply("needs_input", "Understood: nothing was cancelled.");
  switch (state.status) {
    case "guest_name_required": {
      const guest = readGuestName(text);
      if (!guest) break; // maybe a new pick or search; else ask again below
      state.guest = guest;
      return paymentStep(ctx, state);
    }
    case "payment_setup_required": {
      if (readConfirmation(text) === "no") return decline(state, s!.name);
      // "Done" (or "yes, I did") re-checks for a saved card.
      if (isCompletion(text) || readConfirmation(text) === "yes") return paymentStep(ctx, state);
      break;
    }
    case "payment_confirmation_required": {
      const answer = readConfirmation(text);
      if (answer === "yes") return book(ctx, state);
      if (answer === "no") return decline(state, s!.name);
      break;
    }
    case "price_change_confirmation_required": {
      const answer = readConfirmation(text);
      if (answer === "yes") return acceptPriceChange(ctx, state);
      if (answer === "no") return decline(state, `${s!.name} at the new price`);
      break;
    }
    case "booked": {
      if (readConfirmation(text) === "yes") return lastBookingReply(ctx, state);
      break;
    }
  }
  // Choosing from the shortlist: "book the second one", "the Marriott", "I'll take the cheapest".
  const searchWords = readSearch(text, { now: new Date(ctx.now), timezoneOffsetMinutes: ctx.timezoneOffsetMinutes });
  // A short answer ("Yes", "Done") is never a new search, whatever its capital letter suggests.
  const looksLikeSearch = Boolean(
    searchWords.checkIn || (searchWords.destination && readConfirmation(text) === null && !isCompletion(text)),
  );
  const picked = pickFromText(state, text);
  if (picked && (isBookingIntent(text) || (state.status === "shortlist" && !looksLikeSearch))) {
    selectEntry(ctx, state, picked);
    return askGuestName(state);
  }
  // Still waiting for an answer the message did not give: ask again.
  switch (state.status) {
    case "guest_name_required":
      if (!looksLikeSearch)
        return reply(
          "guest_name_required",
          'Please tell me the guest\'s first and last name, for example "Jane Smith".',
        );
      break;
    case "payment_setup_required":
      if (!looksLikeSearch) return paymentStep(ctx, state);
      break;
    case "payment_confirmation_required":
    case "price_change_confirmation_required":
      if (!looksLikeSearch)
        return reply(
          state.status,
          "Please reply yes to book or no to stop.",
          state.priceChange ? { priceChange: state.priceChange } : {},
        );
      break;
  }
  return search(ctx, state, text);
};

/** One event against the conversation; mutates `state` and returns the assistant's result. */
export const takeTurn = async (ctx: TurnContext, state: ConversationState, event: ChatEvent): Promise<ChatResult> => {
  // A cancellation asked for waits for the very next event only: whatever that is, it is dropped here.
  const pending = state.pendingCancel;
  if (pending) {
    delete state.pendingCancel;
    state.status = pending.previousStatus;
  }
  switch (event.kind) {
    case "search_query":
      return textTurn(ctx, state, event.text, pending);
    case "command_book_by_option_id": {
      await chooseByOptionId(ctx, state, event.payload.optionId);
      if (!event.payload.guest) return askGuestName(state);
      state.guest = event.payload.guest;
      return paymentStep(ctx, state);
    }
    case "action_book_option": {
      if (!state.shortlist.some((e) => e.optionId === event.payload.optionId)) {
        throw new ApiError(
          "option_not_in_shortlist",
          "optionId is not in this session's shortlist; use command_book_by_option_id for an option from POST /api/search",
        );
      }
      await chooseByOptionId(ctx, state, event.payload.optionId);
      return askGuestName(state);
    }
    case "action_confirm_payment_card": {
      if (state.status !== "payment_confirmation_required" && state.status !== "payment_setup_required")
        throw invalidState(event.kind, state);
      const card = await cardById(ctx.deps.db, ctx.partnerId, ctx.actorId, event.payload.paymentMethodId);
      if (!card) throw new ApiError("payment_method_not_found", "paymentMethodId is not a card saved for this actor");
      state.paymentMethodId = card.paymentMethodId;
      return book(ctx, state);
    }
    case "action_confirm_price_change": {
      if (state.status !== "price_change_confirmation_required") throw invalidState(event.kind, state);
      return event.payload.accept
        ? acceptPriceChange(ctx, state)
        : decline(state, `${state.selection!.name} at the new price`);
    }
    case "action_cancel_booking": {
      const booked = state.bookings.find((b) => b.bookingId === event.payload.bookingId);
      if (!booked) throw new ApiError("booking_not_in_session", "bookingId was not booked in this session");
      return cancelInSession(ctx, state, booked);
    }
  }
};
