import { describe, expect, it } from "vitest";
import {
  isBookingIntent,
  isCompletion,
  mergeSlots,
  missingForSearch,
  MAX_BUDGET,
  readCancelConfirmation,
  readCancelIntent,
  readConfirmation,
  readGuestName,
  readSearch,
  readShortlistPick,
  type SearchSlots,
} from "./understand";

// Saturday 21 November 2026, 13:00 in New York (UTC-5).
const ctx = { now: new Date("2026-11-21T18:00:00Z"), timezoneOffsetMinutes: -300 };

const PHRASINGS: Array<[string, SearchSlots]> = [
  [
    "Hotel in Boston next Friday for 3 nights",
    { destination: "Boston", checkIn: "2026-11-27", checkOut: "2026-11-30", nights: 3 },
  ],
  [
    "I need a room in New York from Dec 3 to Dec 6",
    { destination: "New York", checkIn: "2026-12-03", checkOut: "2026-12-06", nights: 3 },
  ],
  [
    "2 adults in Chicago, Dec 10-12",
    { destination: "Chicago", adults: 2, checkIn: "2026-12-10", checkOut: "2026-12-12" },
  ],
  [
    "Find hotels in San Francisco for 2 adults and 2 kids aged 5 and 8 from January 4 to January 9",
    {
      destination: "San Francisco",
      adults: 2,
      childrenAges: [5, 8],
      checkIn: "2027-01-04",
      checkOut: "2027-01-09",
      nights: 5,
    },
  ],
  ["Somewhere to stay in Miami this weekend", { destination: "Miami", checkIn: "2026-11-21", checkOut: "2026-11-22" }],
  ["Miami next weekend", { destination: "Miami", checkIn: "2026-11-27", checkOut: "2026-11-29" }],
  [
    "Denver hotels tomorrow for 2 nights",
    { destination: "Denver", checkIn: "2026-11-22", checkOut: "2026-11-24", nights: 2 },
  ],
  [
    "me and my wife want to go to Seattle on December 18 for 4 nights",
    { destination: "Seattle", adults: 2, checkIn: "2026-12-18", checkOut: "2026-12-22" },
  ],
  [
    "just me, Austin, 12/01 to 12/03",
    { destination: "Austin", adults: 1, checkIn: "2026-12-01", checkOut: "2026-12-03" },
  ],
  [
    "Austin hotels for just me, 12/01 to 12/03",
    { destination: "Austin", adults: 1, checkIn: "2026-12-01", checkOut: "2026-12-03" },
  ],
  [
    "hotel in Los Angeles under $200 a night next weekend",
    { destination: "Los Angeles", budget: { amount: 200, per: "night" } },
  ],
  [
    "Las Vegas, Dec 31 for 2 nights, budget $1,000 total",
    { destination: "Las Vegas", checkIn: "2026-12-31", checkOut: "2027-01-02", budget: { amount: 1000, per: "total" } },
  ],
  [
    "4-star hotel in Atlanta on Dec 5 for one night",
    { destination: "Atlanta", minStars: 4, checkIn: "2026-12-05", checkOut: "2026-12-06", nights: 1 },
  ],
  [
    "at least five star in Orlando next Monday for a week",
    { destination: "Orlando", minStars: 5, checkIn: "2026-11-23", checkOut: "2026-11-30", nights: 7 },
  ],
  [
    "refundable rooms in Portland from 2026-12-24 to 2026-12-27",
    { destination: "Portland", refundableOnly: true, checkIn: "2026-12-24", checkOut: "2026-12-27" },
  ],
  [
    "free cancellation please, Nashville, Jan 15 - Jan 18",
    { destination: "Nashville", refundableOnly: true, checkIn: "2027-01-15", checkOut: "2027-01-18" },
  ],
  [
    "non-refundable is fine, Phoenix Dec 2-4",
    { destination: "Phoenix", checkIn: "2026-12-02", checkOut: "2026-12-04" },
  ],
  [
    "We are 3 people looking for 2 rooms in Philadelphia Dec 8 to Dec 10",
    { destination: "Philadelphia", adults: 3, rooms: 2 },
  ],
  [
    "a room for 2 adults and a child of 7 in San Diego from Feb 14 for 3 nights",
    { destination: "San Diego", adults: 2, childrenAges: [7], checkIn: "2027-02-14", checkOut: "2027-02-17" },
  ],
  [
    "Houston with my 10 year old son next Friday 2 nights",
    { destination: "Houston", childrenAges: [10], checkIn: "2026-11-27", checkOut: "2026-11-29" },
  ],
  [
    "family trip to Dallas with 2 kids Dec 20-23",
    { destination: "Dallas", childrenWithoutAges: 2, checkIn: "2026-12-20", checkOut: "2026-12-23" },
  ],
  [
    "stay at the Grand Boston Hotel on Dec 12 for 2 nights",
    { destination: "Grand Boston Hotel", checkIn: "2026-12-12", checkOut: "2026-12-14" },
  ],
  [
    "book me something near Times Square from March 3 to March 5",
    { destination: "Times Square", checkIn: "2027-03-03", checkOut: "2027-03-05" },
  ],
  [
    "max 150 per night in New Orleans, 2 adults, Dec 27 for 3 nights",
    {
      destination: "New Orleans",
      adults: 2,
      budget: { amount: 150, per: "night" },
      checkIn: "2026-12-27",
      checkOut: "2026-12-30",
    },
  ],
  ["Hotels in Salt Lake City", { destination: "Salt Lake City" }],
  ["next Friday for 3 nights", { checkIn: "2026-11-27", checkOut: "2026-11-30", nights: 3 }],
  ["two adults", { adults: 2 }],
  ["3 rooms for 6 adults in Minneapolis Dec 1-3", { destination: "Minneapolis", rooms: 3, adults: 6 }],
  [
    "a couple of nights in Baltimore from tomorrow",
    { destination: "Baltimore", checkIn: "2026-11-22", checkOut: "2026-11-24", nights: 2 },
  ],
  [
    "Pittsburgh Dec 9 to Dec 11 under 300 usd total",
    { destination: "Pittsburgh", checkIn: "2026-12-09", checkOut: "2026-12-11", budget: { amount: 300, per: "total" } },
  ],
  [
    "In Kansas City for a party of four, check in Dec 15, 3 nights",
    { destination: "Kansas City", adults: 4, checkIn: "2026-12-15", checkOut: "2026-12-18" },
  ],
  [
    "Looking for a 3 star motel in Reno on the 5th of December for 2 nights",
    { destination: "Reno", minStars: 3, checkIn: "2026-12-05", checkOut: "2026-12-07" },
  ],
  [
    "solo traveller, Boise, 2026-12-01 to 2026-12-04, refundable",
    { destination: "Boise", adults: 1, refundableOnly: true, checkIn: "2026-12-01", checkOut: "2026-12-04", nights: 3 },
  ],
  // Phrasings the chat tests send through the whole flow.
  [
    "refundable rooms, Hotel in New York for 2 adults from 2026-12-21 to 2026-12-23",
    {
      destination: "New York",
      adults: 2,
      refundableOnly: true,
      checkIn: "2026-12-21",
      checkOut: "2026-12-23",
      nights: 2,
    },
  ],
  [
    "4-star Hotel in New York for 2 adults from 2026-12-21 to 2026-12-23",
    { destination: "New York", minStars: 4, adults: 2, checkIn: "2026-12-21" },
  ],
  [
    "Stay at the Liberty New York Resort from 2026-12-21 to 2026-12-23",
    { destination: "Liberty New York Resort", checkIn: "2026-12-21", checkOut: "2026-12-23" },
  ],
  ["In New York please", { destination: "New York" }],
  ["Yes", {}],
  ["Done, card added", {}],
];

describe("readSearch: at least 30 phrasings and the slots each must yield", () => {
  it("has at least 30 phrasings", () => expect(PHRASINGS.length).toBeGreaterThanOrEqual(30));
  it.each(PHRASINGS)("%s", (text, expected) => {
    expect(readSearch(text, ctx)).toMatchObject(expected);
  });

  it("does not read short answers as places", () => {
    for (const answer of ["Yes", "No", "Done", "Okay", "Sure, go ahead", "Thanks"])
      expect(readSearch(answer, ctx).destination).toBeUndefined();
  });

  it("does not invent what was not said", () => {
    const slots = readSearch("Hotel in Boston next Friday for 3 nights", ctx);
    expect(slots.adults).toBeUndefined();
    expect(slots.budget).toBeUndefined();
    expect(slots.refundableOnly).toBeUndefined();
    expect(slots.minStars).toBeUndefined();
    expect(readSearch("non-refundable is fine, Phoenix Dec 2-4", ctx).refundableOnly).toBeUndefined();
  });

  it("resolves relative dates in the actor's own timezone", () => {
    // 03:00 UTC on Sunday is still Saturday evening in Los Angeles (UTC-8).
    const lateSaturday = { now: new Date("2026-11-22T03:00:00Z"), timezoneOffsetMinutes: -480 };
    expect(readSearch("Seattle tomorrow for 1 night", lateSaturday).checkIn).toBe("2026-11-22");
    const tokyo = { now: new Date("2026-11-22T03:00:00Z"), timezoneOffsetMinutes: 540 };
    expect(readSearch("Seattle tomorrow for 1 night", tokyo).checkIn).toBe("2026-11-23");
  });
});

describe("missing slots and follow-ups", () => {
  it("asks for the first thing missing, in plain words", () => {
    expect(missingForSearch({})).toMatch(/where/i);
    expect(missingForSearch({ destination: "Boston" })).toMatch(/check in/i);
    expect(missingForSearch({ destination: "Boston", checkIn: "2026-12-01" })).toMatch(/how many nights/i);
    expect(
      missingForSearch({
        destination: "Boston",
        checkIn: "2026-12-01",
        checkOut: "2026-12-02",
        childrenWithoutAges: 2,
      }),
    ).toMatch(/how old/i);
    expect(missingForSearch({ destination: "Boston", checkIn: "2026-12-01", checkOut: "2026-12-02" })).toBeNull();
  });

  it("merges a follow-up into what is known", () => {
    const first = readSearch("Hotel in Boston for 3 nights", ctx);
    expect(first.checkIn).toBeUndefined();
    const merged = mergeSlots(first, readSearch("next Friday", ctx));
    expect(merged).toMatchObject({ destination: "Boston", checkIn: "2026-11-27", checkOut: "2026-11-30" });
    const kids = mergeSlots(
      readSearch("Dallas with 2 kids Dec 20-23", ctx),
      readSearch("they are 4 and 9 years old", ctx),
    );
    expect(kids.childrenAges).toEqual([4, 9]);
    expect(kids.childrenWithoutAges).toBeUndefined();
  });
});

describe("shortlist references, confirmations, completion and guest names", () => {
  const names = ["Grand Boston Hotel", "Harborview Boston Inn & Suites", "Marriott Copley Place"];
  it.each([
    ["the second one", { position: 2 }],
    ["book the 3rd", { position: 3 }],
    ["option 1 please", { position: 1 }],
    ["#2", { position: 2 }],
    ["2", { position: 2 }],
    ["the last one", { position: 3 }],
    ["the cheapest", { cheapest: true }],
    ["book the Marriott", { name: "Marriott Copley Place" }],
    ["I'll take Harborview", { name: "Harborview Boston Inn & Suites" }],
  ])("%s", (text, pick) => expect(readShortlistPick(text, names)).toEqual(pick));

  it("finds no pick in unrelated text", () => expect(readShortlistPick("what about parking?", names)).toBeNull());

  it("tells booking intent from refinement", () => {
    expect(isBookingIntent("book the second one")).toBe(true);
    expect(isBookingIntent("I'll take the Marriott")).toBe(true);
    expect(isBookingIntent("show me cheaper ones")).toBe(false);
  });

  it.each([
    ["yes", "yes"],
    ["Yes please", "yes"],
    ["ok go ahead", "yes"],
    ["confirm", "yes"],
    ["no", "no"],
    ["No thanks", "no"],
    ["cancel", "no"],
    ["don't book it", "no"],
    ["maybe later?", null],
  ])("confirmation %s -> %s", (text, answer) => expect(readConfirmation(text)).toBe(answer));

  it("recognises completion of the card step", () => {
    expect(isCompletion("Done")).toBe(true);
    expect(isCompletion("I've added my card")).toBe(true);
    expect(isCompletion("what card?")).toBe(false);
  });

  it.each([
    ["John Smith", { firstName: "John", lastName: "Smith" }],
    ["The guest is Ana María López", { firstName: "Ana María", lastName: "López" }],
    ["Name: Mary-Jane O'Neil.", { firstName: "Mary-Jane", lastName: "O'Neil" }],
    ["book it under Chen Wei", { firstName: "Chen", lastName: "Wei" }],
  ])("guest name %s", (text, name) => expect(readGuestName(text)).toEqual(name));

  it.each(["Smith", "book the second one please now today", "42 Main St"])("no guest name in %s", (text) =>
    expect(readGuestName(text)).toBeNull(),
  );
});

// Issue 37: "What happens if I cancel my booking?" and "don’t cancel my booking" cancelled a booking.
// Only a plain request is a request, and it is only ever answered with a confirmation to give.
const CANCEL_PHRASINGS: Array<[string, ReturnType<typeof readCancelIntent>]> = [
  // Requests: asked back with their cost, never carried out at once.
  ["cancel my booking", { kind: "request", reference: null }],
  ["Please cancel the reservation", { kind: "request", reference: null }],
  ["I want to cancel booking bkabc123def456", { kind: "request", reference: "BKABC123DEF456" }],
  ["cancel BKABC123DEF456 please", { kind: "request", reference: "BKABC123DEF456" }],
  ["I’d like to cancel my stay", { kind: "request", reference: null }],
  ["I want to cancel", { kind: "request", reference: null }],
  ["Could you cancel my booking please?", { kind: "request", reference: null }],
  ["cancel it", { kind: "request", reference: null }],
  // Questions and hypotheticals: answered with the cost, nothing done.
  ["What happens if I cancel my booking?", { kind: "question", reference: null }],
  ["can I cancel?", { kind: "question", reference: null }],
  ["Can I cancel my booking", { kind: "question", reference: null }],
  ["if I cancel, what do I pay?", { kind: "question", reference: null }],
  ["would cancelling cost anything", { kind: "question", reference: null }],
  ["How much does it cost to cancel my reservation", { kind: "question", reference: null }],
  ["what is the cancellation fee for my booking", { kind: "question", reference: null }],
  ["I'm thinking about cancelling my booking", { kind: "question", reference: null }],
  ["Is it free to cancel BKABC123DEF456?", { kind: "question", reference: "BKABC123DEF456" }],
  ["Could you cancel my booking if it is free?", { kind: "question", reference: null }],
  ["cancel my booking?", { kind: "question", reference: null }],
  // Negations, with every apostrophe: acknowledged, nothing done.
  ["don't cancel my booking", { kind: "refusal" }],
  ["don’t cancel my booking", { kind: "refusal" }],
  ["don‘t cancel my booking", { kind: "refusal" }],
  ["don＇t cancel my booking", { kind: "refusal" }],
  ["dont cancel my booking", { kind: "refusal" }],
  ["Please do not cancel the reservation", { kind: "refusal" }],
  ["never cancel my booking", { kind: "refusal" }],
  ["I don’t want to cancel my stay", { kind: "refusal" }],
  ["no, keep it", { kind: "refusal" }],
  ["keep my booking", { kind: "refusal" }],
  ["please don't cancel it", { kind: "refusal" }],
  // Nothing about cancelling a booking: a bare "cancel", searches, other languages.
  ["cancel", null],
  ["free cancellation hotels in Paris", null],
  ["refundable rooms with free cancellation, New York", null],
  ["annuler ma réservation", null],
  ["cancelar mi reserva, por favor", null],
  ["Stornieren Sie meine Buchung", null],
  ["予約をキャンセルしてください", null],
  ["No", null],
];

describe("readCancelIntent: what a message says about cancelling", () => {
  it("has at least 30 phrasings", () => expect(CANCEL_PHRASINGS.length).toBeGreaterThanOrEqual(30));
  it.each(CANCEL_PHRASINGS)("%s -> %j", (text, intent) => expect(readCancelIntent(text)).toEqual(intent));
});

describe("readCancelConfirmation: only an affirmative answer confirms a cancellation", () => {
  it.each([
    ["yes", "yes"],
    ["Yes!", "yes"],
    ["yes please cancel", "yes"],
    ["yes, cancel it", "yes"],
    ["cancel it", "yes"],
    ["Please cancel it", "yes"],
    ["ok go ahead", "yes"],
    ["confirm", "yes"],
    ["go ahead and cancel my booking", "yes"],
    ["no", "no"],
    ["No, keep it", "no"],
    ["please don’t", "no"],
    ["please don't", "no"],
    ["don＇t cancel it", "no"],
    ["never mind", "no"],
    ["wait", "no"],
    ["no, cancel it", "no"],
    ["yes but keep my booking", "no"],
    ["cancel", null],
    ["please", null],
    ["yes?", null],
    ["what does it cost?", null],
    ["oui", null],
    ["sí, cancélala", null],
    ["Hotel in Boston next Friday for 3 nights", null],
  ])("%s -> %s", (text, answer) => expect(readCancelConfirmation(text)).toBe(answer));
});

describe("budgets beyond any real price", () => {
  it.each([
    ["hotel in Miami under $1e308", "1e308"],
    ["hotel in Miami under 1E5 a night", "1E5"],
    ["hotel in Miami under $2.5e3 total", "2.5e3"],
    ["hotel in Miami budget $99999999999999999999999", "99999999999999999999999"],
    ["hotel in Miami under $2,000,000 total", "2,000,000"],
    ["hotel in Miami under $5000k", "5000k"],
  ])("%s is no budget (%s)", (text, written) => {
    const slots = readSearch(text, ctx);
    expect(slots.budget).toBeUndefined();
    expect(slots.unreadableBudget).toBe(written);
  });

  it("keeps every real budget up to the cap", () => {
    expect(readSearch(`hotel in Miami under $${MAX_BUDGET} total`, ctx).budget).toEqual({
      amount: MAX_BUDGET,
      per: "total",
    });
    expect(readSearch("hotel in Miami under $250 each night", ctx).budget).toEqual({ amount: 250, per: "night" });
    expect(readSearch("hotel in Miami under $2k total", ctx).unreadableBudget).toBeUndefined();
  });
});
