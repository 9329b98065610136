// English only: the full package would bundle every locale into the Worker.
import * as chrono from "chrono-node/en";
import type { ParsedComponents } from "chrono-node";
import { addDays } from "../../platform/time/zoned-time";

/**
 * Reading a traveller's words without any external service. Each reader handles one kind of
 * message; the conversation state decides which one applies, so "John Smith" is a guest name
 * only when the assistant just asked for one.
 */

export type Budget = { amount: number; per: "night" | "total" };

export type SearchSlots = {
  /** Where: a city or an accommodation name, resolved against the content by the chat service. */
  destination?: string;
  checkIn?: string;
  checkOut?: string;
  nights?: number;
  adults?: number;
  childrenAges?: number[];
  /** Children mentioned without ages: the assistant asks for their ages. */
  childrenWithoutAges?: number;
  rooms?: number;
  budget?: Budget;
  /** A budget as written that is no amount to filter by ("$1e308", above MAX_BUDGET): asked again, never searched. */
  unreadableBudget?: string;
  refundableOnly?: boolean;
  minStars?: number;
};

/** The clock and place of the traveller: ISO-style offset, so UTC-5 is -300. */
export type ReaderContext = { now: Date; timezoneOffsetMinutes: number };

const WORD_NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  single: 1,
  two: 2,
  couple: 2,
  pair: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
};
const NUMBER = String.raw`(\d{1,3}|a|an|one|single|two|couple of|pair of|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen)`;

const toNumber = (word: string): number => {
  const clean = word.toLowerCase().replace(/ of$/, "");
  return /^\d+$/.test(clean) ? Number(clean) : (WORD_NUMBERS[clean] ?? NaN);
};

const isoDate = (year: number, month: number, day: number) =>
  `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;

export const nightsBetween = (checkIn: string, checkOut: string) =>
  Math.round((Date.parse(`${checkOut}T00:00:00Z`) - Date.parse(`${checkIn}T00:00:00Z`)) / 86_400_000);

/** The actor's calendar date now. */
const readToday = (ctx: ReaderContext) =>
  new Date(ctx.now.getTime() + ctx.timezoneOffsetMinutes * 60_000).toISOString().slice(0, 10);

const readDates = (text: string, ctx: ReaderContext): Pick<SearchSlots, "checkIn" | "checkOut" | "nights"> => {
  const out: Pick<SearchSlots, "checkIn" | "checkOut" | "nights"> = {};
  const nights = new RegExp(String.raw`\b${NUMBER}\s+nights?\b`, "i").exec(text);
  const week = /\b(?:for\s+)?a\s+week\b/i.exec(text);
  if (nights) out.nights = toNumber(nights[1]!);
  else if (week) out.nights = 7;

  // Chrono would read "3 nights" or "2 adults" as dates; hide those phrases from it.
  const datesOnly = text
    .replace(
      new RegExp(
        String.raw`\b${NUMBER}\s+(nights?|adults?|kids?|children|child|rooms?|stars?|people|persons|guests)\b`,
        "gi",
      ),
      " ",
    )
    .replace(/\b(?:for\s+)?a\s+week\b/gi, " ");
  const results = chrono.parse(
    datesOnly,
    { instant: ctx.now, timezone: ctx.timezoneOffsetMinutes },
    { forwardDate: true },
  );
  const dated = results.filter(
    (r) => r.start.isCertain("day") || r.start.isCertain("weekday") || /weekend|week/i.test(r.text),
  );
  const first = dated[0];
  if (!first) return out;
  const day = (c: ParsedComponents) => isoDate(c.get("year")!, c.get("month")!, c.get("day")!);
  out.checkIn = day(first.start);
  const end = first.end ?? dated[1]?.start;
  if (end) out.checkOut = day(end);
  if (!out.checkOut && /weekend/i.test(first.text) && !out.nights) {
    // A weekend stay: Friday night in, Sunday out; from today when the weekend has begun.
    const weekday = new Date(`${out.checkIn}T00:00:00Z`).getUTCDay();
    const saturday = addDays(out.checkIn, weekday === 0 ? -1 : 6 - weekday);
    const today = readToday(ctx);
    const friday = addDays(saturday, -1);
    // biome-ignore lint/complexity/useMathMinMax: ISO dates, compared as strings.
    out.checkIn = friday < today ? today : friday;
    out.checkOut = addDays(saturday, 1);
  }
  if (out.checkOut && out.checkOut <= out.checkIn) delete out.checkOut;
  if (!out.checkOut && out.nights) out.checkOut = addDays(out.checkIn, out.nights);
  if (out.checkOut) out.nights = nightsBetween(out.checkIn, out.checkOut);
  return out;
};

const readParty = (text: string): Pick<SearchSlots, "adults" | "childrenAges" | "childrenWithoutAges" | "rooms"> => {
  const out: Pick<SearchSlots, "adults" | "childrenAges" | "childrenWithoutAges" | "rooms"> = {};
  const adults = new RegExp(String.raw`\b${NUMBER}\s+(?:adults?|grown-?ups?)\b`, "i").exec(text);
  const people =
    new RegExp(String.raw`\b(?:we are|we're|party of|group of)\s+${NUMBER}\b`, "i").exec(text) ??
    new RegExp(String.raw`\b${NUMBER}\s+(?:people|persons|guests|travell?ers|of us)\b`, "i").exec(text);
  if (adults) out.adults = toNumber(adults[1]!);
  else if (
    /\b(couple|my (wife|husband|partner)|me and my (wife|husband|partner|friend)|the two of us|two of us)\b/i.test(text)
  )
    out.adults = 2;
  else if (/\b(just me|only me|myself|solo|by myself|alone|one person)\b/i.test(text)) out.adults = 1;
  else if (people) out.adults = toNumber(people[1]!);

  const ages: number[] = [];
  const agedList =
    /\b(?:kids?|children|child|sons?|daughters?|boys?|girls?)\b[^.]*?\b(?:aged?|ages|of)\s+((?:\d{1,2}(?:\s*(?:,|and|&)\s*)?)+)/i.exec(
      text,
    );
  if (agedList) for (const age of agedList[1]!.match(/\d{1,2}/g) ?? []) ages.push(Number(age));
  if (!agedList) {
    for (const m of text.matchAll(/\b((?:\d{1,2}\s*(?:,|and|&)\s*)*\d{1,2})[- ]?(?:years?|yrs?|yo)\b/gi)) {
      for (const age of m[1]!.match(/\d{1,2}/g) ?? []) ages.push(Number(age));
    }
  }
  const childCount = new RegExp(
    String.raw`\b${NUMBER}\s+(?:kids?|children|child|sons?|daughters?|boys?|girls?|teens?|teenagers?|toddlers?|babies|baby)\b`,
    "i",
  ).exec(text);
  const count = childCount
    ? toNumber(childCount[1]!)
    : /\b(?:with|and)\s+(?:my|our|a|the)\s+(?:kid|child|son|daughter|baby|toddler)\b/i.test(text)
      ? 1
      : 0;
  if (ages.length) out.childrenAges = ages.filter((a) => a < 18);
  if (count > ages.length) out.childrenWithoutAges = count - ages.length;

  const rooms = new RegExp(String.raw`\b${NUMBER}\s+rooms?\b`, "i").exec(text);
  if (rooms) out.rooms = toNumber(rooms[1]!);
  return out;
};

/** Budgets above this are beyond any room price: a mistake to ask about, never a filter. */
export const MAX_BUDGET = 1_000_000;

// Digits with thousands commas and decimals, and an exponent so that "1e308" is read whole (and refused).
const AMOUNT = String.raw`(\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)`;

/** A budget, or the amount as written when it is no budget (exponent notation, above MAX_BUDGET). */
const readBudget = (text: string): Budget | { unreadable: string } | undefined => {
  const m =
    new RegExp(
      String.raw`\b(?:under|below|less than|max(?:imum)?|up to|no more than|at most|budget(?: of| is)?|within)\s*(?:usd|us\$|\$)?\s*${AMOUNT}\s*(k\b)?\s*(?:usd|dollars|bucks)?\s*(per night|a night|\/ ?night|nightly|each night|per day|total|in total|overall|for the (?:whole )?(?:stay|trip))?`,
      "i",
    ).exec(text) ??
    new RegExp(
      String.raw`(?:\$|usd\s?)${AMOUNT}(k\b)?\s*(per night|a night|\/ ?night|nightly|total|in total)`,
      "i",
    ).exec(text);
  if (!m) return undefined;
  const written = m[1]!;
  const amount = Number(written.replace(/,/g, "")) * (m[2] ? 1000 : 1);
  if (/e/i.test(written) || !Number.isFinite(amount) || amount > MAX_BUDGET)
    return { unreadable: `${written}${m[2] ?? ""}` };
  const per = m[3] && /total|overall|stay|trip/i.test(m[3]) ? "total" : "night";
  return { amount, per };
};

const readStars = (text: string): number | undefined => {
  const m = new RegExp(String.raw`\b${NUMBER}[- ]?stars?\b`, "i").exec(text);
  return m ? toNumber(m[1]!) : undefined;
};

// Words that end a place name: dates, party, budget and filler.
const MONTH = String.raw`(?:[Jj]an(?:uary)?|[Ff]eb(?:ruary)?|[Mm]ar(?:ch)?|[Aa]pr(?:il)?|[Mm]ay|[Jj]une?|[Jj]uly?|[Aa]ug(?:ust)?|[Ss]ep(?:t(?:ember)?)?|[Oo]ct(?:ober)?|[Nn]ov(?:ember)?|[Dd]ec(?:ember)?)\.?(?![a-z])`;
const PLACE_STOP = String.raw`(?=\s+(?:${MONTH}\s*\d|for|from|on|next|this|tomorrow|tonight|today|with|under|below|between|starting|check|arriving|in\s+(?:january|february|march|april|may|june|july|august|september|october|november|december|\d)|at\s+most|max|and\s+\d|\d|around|during|over|please|that|which|who|refundable|free)\b|[,.;!?]|$)`;
const PLACE = new RegExp(
  String.raw`\b(?:[Ii]n|[Tt]o|[Aa]t|[Nn]ear|[Aa]round|[Vv]isiting|[Ss]tay(?:ing)? at)\s+(?:the\s+)?([A-Z][\w'&.-]*(?:\s+(?!${MONTH})(?:[A-Z][\w'&.-]*|of|the|de|la|del))*)` +
    PLACE_STOP,
);
// A capitalised phrase standing alone at the start or between commas: "Houston with my son", "just me, Austin, 12/01".
const BARE_PLACE = new RegExp(
  String.raw`(?:^|,\s*)([A-Z][a-z'.-]+(?:\s+(?!${MONTH})[A-Z][a-z'.-]+){0,3})` + PLACE_STOP,
);
const NOT_PLACES = new Set([
  "I",
  "We",
  "Find",
  "Book",
  "Hotel",
  "Hotels",
  "Looking",
  "Somewhere",
  "Need",
  "Show",
  "Search",
  "Please",
  "Any",
  "Just",
  "Solo",
  "Me",
  "My",
  "Non",
  "Free",
  "Family",
  "At",
  "Refundable",
  "Max",
  "Next",
  "This",
  "Tomorrow",
  "Today",
  "Two",
  "One",
  "A",
  "The",
  "Room",
  "Rooms",
  "Yes",
  "No",
  "Done",
  "Ok",
  "Okay",
  "Sure",
  "Thanks",
  "Thank",
  "Hi",
  "Hello",
  "Yep",
  "Nope",
  "Cancel",
  "Stop",
  "Finished",
  "Ready",
]);

const readDestination = (text: string): string | undefined => {
  const m = PLACE.exec(text);
  if (m) return m[1]!.replace(/\s+(of|on|the|de|la|del)$/i, "").trim();
  // "Boston hotels", "New York for 2 nights": a capitalised phrase before a search word.
  const lead =
    /\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,3})\s+(?:hotels?|stays?|rooms?|accommodations?|resorts?|motels?)\b/.exec(text);
  if (lead) return lead[1];
  for (const bare of text.matchAll(new RegExp(BARE_PLACE, "g"))) {
    const phrase = bare[1]!;
    if (!NOT_PLACES.has(phrase.split(/\s+/)[0]!) && !new RegExp(`^${MONTH}$`, "i").test(phrase)) return phrase;
  }
  return undefined;
};

/** Everything a search request says; what it does not say stays undefined. */
export const readSearch = (text: string, ctx: ReaderContext): SearchSlots => {
  const slots: SearchSlots = { ...readDates(text, ctx), ...readParty(text) };
  const destination = readDestination(text);
  if (destination) slots.destination = destination;
  const budget = readBudget(text);
  if (budget && "unreadable" in budget) slots.unreadableBudget = budget.unreadable;
  else if (budget) slots.budget = budget;
  if (
    /\b(refundable|free cancell?ation|flexible (?:rate|booking|cancell?ation)|cancell?able)\b/i.test(text) &&
    !/\bnon[- ]?refundable\b/i.test(text)
  ) {
    slots.refundableOnly = true;
  }
  const stars = readStars(text);
  if (stars) slots.minStars = stars;
  return slots;
};

/** The question the assistant asks for the first thing a search still lacks, or null when complete. */
export const missingForSearch = (slots: SearchSlots): string | null => {
  if (!slots.destination) return "Where would you like to stay? Tell me a city or a hotel name.";
  if (!slots.checkIn) return "When would you like to check in?";
  if (!slots.checkOut) return "How many nights will you stay?";
  if (slots.childrenWithoutAges) return "How old are the children? I need their ages to price the rooms.";
  return null;
};

/** Merges what a follow-up message adds to what the conversation already knows. */
export const mergeSlots = (known: SearchSlots, added: SearchSlots): SearchSlots => {
  const merged: SearchSlots = { ...known, ...added };
  if (added.checkIn && !added.checkOut && known.nights && !added.nights)
    merged.checkOut = addDays(added.checkIn, known.nights);
  if (!added.checkIn && added.nights && known.checkIn) merged.checkOut = addDays(known.checkIn, added.nights);
  if (added.childrenAges && known.childrenWithoutAges && !added.childrenWithoutAges) {
    merged.childrenAges = [...(known.childrenAges ?? []), ...added.childrenAges];
    delete merged.childrenWithoutAges;
  }
  return merged;
};

const ORDINALS: Record<string, number> = {
  first: 1,
  "1st": 1,
  second: 2,
  "2nd": 2,
  third: 3,
  "3rd": 3,
  fourth: 4,
  "4th": 4,
  fifth: 5,
  "5th": 5,
  sixth: 6,
  "6th": 6,
  seventh: 7,
  "7th": 7,
  eighth: 8,
  "8th": 8,
  ninth: 9,
  "9th": 9,
  tenth: 10,
  "10th": 10,
};

export type ShortlistPick = { position: number } | { cheapest: true } | { name: string };

/** Which shortlist entry a booking intent points at: by position, by name, or the cheapest. */
export const readShortlistPick = (text: string, names: string[]): ShortlistPick | null => {
  const lower = text.toLowerCase();
  const ordinal =
    /\b(first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|sixth|6th|seventh|7th|eighth|8th|ninth|9th|tenth|10th|last)\b/.exec(
      lower,
    );
  if (ordinal) return { position: ordinal[1] === "last" ? names.length : ORDINALS[ordinal[1]!]! };
  const numbered =
    /(?:#|\bno\.?\s*|\bnumber\s+|\boption\s+|\bhotel\s+)(\d{1,2})\b/.exec(lower) ??
    /^\s*(?:book\s+)?(\d{1,2})\s*[.!]?\s*$/.exec(lower);
  if (numbered) return { position: Number(numbered[1]) };
  if (/\bcheapest\b|\blowest price\b/.test(lower)) return { cheapest: true };
  // "book the Marriott": the entry whose name shares the most distinctive words with the text.
  const words = new Set(lower.match(/[a-z0-9']{3,}/g) ?? []);
  const filler = new Set([
    "book",
    "the",
    "one",
    "hotel",
    "inn",
    "suites",
    "please",
    "want",
    "take",
    "reserve",
    "that",
    "and",
    "with",
    "resort",
    "motel",
  ]);
  let best: { name: string; score: number } | null = null;
  for (const name of names) {
    const score = (name.toLowerCase().match(/[a-z0-9']{3,}/g) ?? []).filter(
      (w) => words.has(w) && !filler.has(w),
    ).length;
    if (score > 0 && (!best || score > best.score)) best = { name, score };
  }
  return best ? { name: best.name } : null;
};

/** Whether a message asks to book (as opposed to refining the search). */
export const isBookingIntent = (text: string) =>
  /\b(book|reserve|i'?ll take|we'?ll take|take the|go with|choose|pick|select|i want the|let'?s do)\b/i.test(text);

/** Every apostrophe a keyboard or phone types (’ ‘ ＇ ` ´ ʼ) read as the plain one, and lower case. */
const plainText = (text: string) =>
  text
    .replace(/[’‘＇`´ʼ]/g, "'")
    .toLowerCase()
    .trim();

const CANCEL_WORD = "cancel(?:l?ing|l?ed|s)?";
// Any of these before "cancel" in the same sentence makes it a refusal: "don't cancel", "please never cancel".
const NEGATION = new RegExp(
  String.raw`\b(?:don'?t|do not|does not|doesn'?t|not|never|no need to|won'?t|will not|wouldn'?t|shouldn'?t|can'?t|cannot|stop)\b[^.!?;]*?\b${CANCEL_WORD}\b`,
);
const KEEP = /^(?:no|nope|nah)\b|\bkeep (?:it|that|this|my|the|our)\b|\b(?:leave|let) it\b/;
// A polite request phrased as a question still asks for a cancellation ("could you cancel my booking?").
const POLITE_REQUEST = new RegExp(
  String.raw`^(?:please\s+)?(?:can|could|would|will) you\s+(?:please\s+)?${CANCEL_WORD}\b`,
);
// Asking about a cancellation, or imagining one: answered with its cost, never carried out.
const QUESTION =
  /\?|^(?:what|how|can|could|would|will|is|are|am|do|does|did|should|may|might|when|why|where|which|whether|if)\b|\b(?:if|what if|suppose|supposing|in case|hypothetical(?:ly)?|would|could|might|maybe|perhaps|wonder(?:ing)?|thinking (?:about|of)|considering|whether|what happens|how much)\b/;
const BOOKING_WORD = /\b(?:booking|reservation|stay|room|it|that|this one)\b/;
const WISH = new RegExp(
  String.raw`\b(?:i|we)\s+(?:want|wanna|need|would like|'d like|wish|have)\s+to\s+${CANCEL_WORD}\b`,
);
const COST_ASK = /\bcancell?ation\s+(?:fee|cost|penalty|charge|policy|terms)\b/;
const REFERENCE = /\b(BK[A-Z0-9]{8,})\b/i;

export type CancelIntent =
  | { kind: "request"; reference: string | null }
  | { kind: "question"; reference: string | null }
  | { kind: "refusal" };

/**
 * What a message says about cancelling a booking. Only a plain request ("cancel my booking",
 * "please cancel reservation BK…", "I want to cancel") is a `request`, and even that is only
 * answered with a confirmation to give. A question or a hypothetical ("what happens if I cancel my
 * booking?", "would cancelling cost anything") is a `question`; a negation with any apostrophe
 * ("don’t cancel", "no, keep it") a `refusal`; a bare "cancel" (which answers a question with no),
 * a search ("free cancellation hotels") or words in another language are null.
 */
export const readCancelIntent = (text: string): CancelIntent | null => {
  const t = plainText(text);
  const reference = REFERENCE.exec(t)?.[1]?.toUpperCase() ?? null;
  const mentionsCancel = new RegExp(String.raw`\b${CANCEL_WORD}\b`).test(t);
  const costAsk =
    COST_ASK.test(t) && (reference !== null || /\b(?:my|our|this|the) (?:booking|reservation|stay)\b/.test(t));
  if (!mentionsCancel && !costAsk)
    return KEEP.test(t) && /\b(?:booking|reservation|stay)\b|^no\b.*\bkeep\b/.test(t) ? { kind: "refusal" } : null;
  if (NEGATION.test(t) || KEEP.test(t)) return { kind: "refusal" };
  if (POLITE_REQUEST.test(t) && !/\b(?:if|what if|suppose|would it|how much)\b/.test(t.replace(POLITE_REQUEST, "")))
    return reference || BOOKING_WORD.test(t) ? { kind: "request", reference } : null;
  if (QUESTION.test(t) || costAsk) return { kind: "question", reference };
  if (!reference && !BOOKING_WORD.test(t) && !WISH.test(t)) return null;
  return { kind: "request", reference };
};

const YES_WORD =
  /^(?:yes|yep|yeah|yup|sure|ok|okay|confirm|confirmed|correct|absolutely|definitely|y|go ahead|please do|do it|please)\b[\s,.!]*/;
const CANCEL_OBJECT = String.raw`(?:\s+(?:it|that|this|the booking|my booking|the reservation|my reservation|the stay|my stay|now|please|for me))`;
const CANCEL_PHRASE = (objects: "*" | "+") =>
  new RegExp(
    String.raw`^(?:and\s+)?(?:please\s+)?(?:go ahead and\s+)?(?:confirm(?:\s+the)?\s+cancell?ation|${CANCEL_WORD}${CANCEL_OBJECT}${objects})[\s,.!]*$`,
  );
// After a "yes" a bare "cancel" confirms; alone it names nothing ("cancel" also means "stop").
const CANCEL_AFTER_YES = CANCEL_PHRASE("*");
const CANCEL_IT = CANCEL_PHRASE("+");
const DECLINE = /^(?:nope|nah|not now|never ?mind|stop|decline|wait|hold on|(?:please )?don'?t|do not)\b/;

/**
 * The answer to "cancel this booking for $X? reply yes": "yes" only for an affirmative with
 * nothing else ("yes", "cancel it", "yes please cancel"); "no" for a refusal ("no, keep it",
 * "please don’t"); null for anything else (a question, another language), which is not an answer.
 */
export const readCancelConfirmation = (text: string): "yes" | "no" | null => {
  const t = plainText(text);
  if (DECLINE.test(t) || NEGATION.test(t) || KEEP.test(t)) return "no";
  if (t.includes("?")) return null;
  let rest = t;
  let affirmed = false;
  for (let m = YES_WORD.exec(rest); m && m[0].length > 0; m = YES_WORD.exec(rest)) {
    // "please" alone says nothing; "yes please" does.
    if (!/^please[\s,.!]*$/.test(m[0])) affirmed = true;
    rest = rest.slice(m[0].length);
  }
  if (rest === "") return affirmed ? "yes" : null;
  return (affirmed ? CANCEL_AFTER_YES : CANCEL_IT).test(rest) ? "yes" : null;
};

/** "yes"/"no" to a confirmation question; null when the message is neither. */
export const readConfirmation = (text: string): "yes" | "no" | null => {
  const t = text.trim().toLowerCase();
  if (/^(no|nope|nah|don'?t|do not|cancel|stop|decline|not now|never ?mind|no thanks|no,? thank you)\b/.test(t))
    return "no";
  if (
    /^(yes|yep|yeah|yup|sure|ok|okay|confirm|confirmed|go ahead|please do|do it|book it|sounds good|absolutely|correct|y)\b/.test(
      t,
    )
  )
    return "yes";
  return null;
};

/** "Done", "finished", "card added": the traveller says the card step is complete. */
export const isCompletion = (text: string) =>
  /\b(done|finished|completed?|all set|added (?:the|my) card|card (?:is )?(?:added|saved|attached)|i'?ve added|ready)\b/i.test(
    text,
  );

export type GuestName = { firstName: string; lastName: string };

/** A guest's first and last name from "The guest is Ana María López", "Name: John Smith" or "John Smith". */
export const readGuestName = (text: string): GuestName | null => {
  const cleaned = text
    .trim()
    .replace(
      /^(?:the\s+)?(?:guest(?:'s)?(?:\s+name)?|name|it'?s|it is|book (?:it )?(?:under|for)|under|for)\s*(?:is|:)?\s*/i,
      "",
    )
    .replace(/[.!]+$/, "")
    .trim();
  const parts = cleaned.split(/\s+/).filter(Boolean);
  if (parts.length < 2 || parts.length > 5) return null;
  if (!parts.every((p) => /^[\p{L}][\p{L}'’.-]*$/u.test(p))) return null;
  return { firstName: parts.slice(0, -1).join(" "), lastName: parts[parts.length - 1]! };
};
