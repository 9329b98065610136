/**
 * Hotel names compared as suppliers write them (issue 39 item 6). A name is folded (case, accents,
 * punctuation, `&`/`+` as "and"), cut into words, abbreviations read out, and split into its core
 * words (what tells one hotel from its neighbours: a brand, a stem, a location qualifier) and its
 * kind words (hotel, inn, suites...: what kind of house, often dropped or abbreviated by suppliers).
 * Word order never counts: the words are compared as sets.
 *
 * Written here rather than taken from a string-similarity package: the comparison hotel names need
 * is word-level (sets, abbreviations, kind words), which the character-level packages (Levenshtein,
 * Jaro-Winkler, Dice on bigrams) do not do, and the Worker's bundle has a size cap.
 */

/** Standard abbreviations of hotel lists; longer ones are also found as a word's letters in order. */
const ABBREVIATIONS: Record<string, string> = {
  n: "north",
  s: "south",
  e: "east",
  w: "west",
  ne: "northeast",
  nw: "northwest",
  se: "southeast",
  sw: "southwest",
  st: "saint",
  ste: "suites",
  mt: "mount",
  ft: "fort",
  pt: "point",
  apt: "airport",
  bb: "bed and breakfast",
  centre: "center",
  harbour: "harbor",
  theatre: "theater",
  motorinn: "motor inn",
  intl: "international",
};

/** Kind words: what kind of house a name says; a difference counts less than in the core words. */
const KIND_WORDS = new Set([
  "hotel",
  "hotels",
  "inn",
  "suites",
  "suite",
  "motel",
  "motor",
  "lodge",
  "resort",
  "spa",
  "golf",
  "beach",
  "residences",
  "apartments",
  "extended",
  "stay",
  "hostel",
  "backpackers",
  "guest",
  "house",
  "bed",
  "breakfast",
  "boutique",
  "conference",
  "collection",
  "express",
  "plaza",
]);
const KIND_LIST = [...KIND_WORDS];
/** Words that say nothing about which hotel it is. */
const FILLER_WORDS = new Set(["and", "the", "a", "an", "of", "at", "by", "in", "on", "us", "usa"]);

/** Lower case, accents and punctuation gone, `&` and `+` read as "and". */
export const foldName = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[&+]/g, " and ")
    .replace(/['’.]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/** A name's words, abbreviations read out, its place's words left out first ("NE" is Nebraska there, not northeast). */
const words = (text: string, place: Set<string>) => {
  const folded = foldName(text)
    // "B&B" reads "b and b".
    .replace(/\bb and b\b/g, "bb");
  return folded
    .split(" ")
    .filter((word) => word && !place.has(word))
    .flatMap((word) => (ABBREVIATIONS[word] ?? word).split(" "));
};

export type NameWords = { core: string[]; kind: string[] };

/**
 * A name's words, without the words of its place (`placeWords`: the city and state, which every
 * hotel nearby shares and a supplier adds or drops at will).
 */
export const nameWords = (name: string, placeWords: Iterable<string>): NameWords => {
  const place = new Set(placeWords);
  const core: string[] = [];
  const kind: string[] = [];
  for (const word of words(name, place)) {
    if (FILLER_WORDS.has(word) || place.has(word)) continue;
    // "htl", "stes", "apts": an abbreviated kind word is that kind word.
    const kindWord = KIND_WORDS.has(word) ? word : KIND_LIST.find((k) => abbreviates(word, k));
    if (kindWord) kind.push(kindWord);
    else core.push(word);
  }
  return { core: [...new Set(core)], kind: [...new Set(kind)] };
};

/** The words of a place name ("New York", "NY"), folded as names are. */
export const placeWords = (...places: Array<string | null | undefined>) =>
  places.flatMap((place) => (place ? foldName(place).split(" ").filter(Boolean) : []));

/**
 * `short` stands for `long`: the same word, or an abbreviation made of the word's letters in order
 * starting with its first ("htl" hotel, "dwtn" downtown, "conv" convention), at least 3 letters.
 */
const abbreviates = (short: string, long: string) => {
  if (short === long) return true;
  if (short.length < 3 || short.length >= long.length || short[0] !== long[0]) return false;
  let at = 0;
  for (const letter of long) if (letter === short[at]) at++;
  return at === short.length;
};

/**
 * Dice coefficient of two word sets: 2 * shared / (|a| + |b|), a word matching once, exact
 * matches first, then abbreviations (counted 0.9: "med" may stand for another word than "medical").
 * Null when both are empty (nothing to compare).
 */
export const wordSetSimilarity = (a: string[], b: string[]): number | null => {
  if (a.length + b.length === 0) return null;
  const leftA = a.filter((w) => !b.includes(w));
  const leftB = b.filter((w) => !a.includes(w));
  let shared = a.length - leftA.length;
  for (const short of leftA) {
    const i = leftB.findIndex((long) => abbreviates(short, long) || abbreviates(long, short));
    if (i < 0) continue;
    leftB.splice(i, 1);
    shared += 0.9;
  }
  return (2 * shared) / (a.length + b.length);
};

/**
 * How alike two hotel names are, in [0, 1]: the core words' similarity, lowered when both say
 * what kind of house they are and say different kinds ("Liberty Lodge" is not "Liberty Suites").
 * A name whose core words are all missing compares by its kind words alone, weakly.
 */
export const nameSimilarity = (a: NameWords, b: NameWords): number => {
  const core = wordSetSimilarity(a.core, b.core);
  const kind = a.kind.length > 0 && b.kind.length > 0 ? wordSetSimilarity(a.kind, b.kind) : null;
  if (core === null) return 0.5 * (kind ?? 0);
  return kind === null ? core : core * (0.7 + 0.3 * kind);
};
