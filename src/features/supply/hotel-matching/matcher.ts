/**
 * Which of our accommodations a supplier's hotel is (issue 39 item 6): a pure judgement over the
 * candidates the geo index found near it (hotel-candidates.ts). Each candidate is scored on its
 * name (hotel-names.ts), its distance and its address (street number, postal code); the best one
 * is `auto` only when it is clearly right and clearly ahead of the next, `review` when it may be,
 * `none` when nothing near is alike. Thresholds were tuned on the training part of the labelled set
 * (test/fixtures/hotel-matching); the precision and recall measured are in docs/benchmarks.md.
 */
import { haversineKm } from "../accommodations";
import { nameSimilarity, nameWords, placeWords } from "./hotel-names";

/** How far from a supplier's position a hotel is looked for: suppliers' coordinates are off by up to a few hundred metres. */
export const CANDIDATE_RADIUS_METRES = 500;
export const MAX_CANDIDATES = 3;

export type SupplierHotel = {
  supplierHotelCode: string;
  name: string;
  latitude: number;
  longitude: number;
  address?: string | undefined;
  postalCode?: string | undefined;
  city?: string | undefined;
  countryCode?: string | undefined;
};

/** One of our accommodations near a supplier's hotel, as the geo index reads it. */
export type CandidateHotel = {
  code: string;
  name: string;
  latitude: number;
  longitude: number;
  country: string;
  state: string;
  city: string;
  address: string | null;
  postalCode: string | null;
};

export type MatchDecision = "auto" | "review" | "none";

export type ScoredCandidate = {
  accommodationCode: string;
  score: number;
  distanceMeters: number;
  nameSimilarity: number;
};

export type HotelMatch = {
  supplierHotelCode: string;
  decision: MatchDecision;
  /** The best candidate (null when none is near). */
  best: ScoredCandidate | null;
  /** The best few, best first (the first is `best`). */
  candidates: ScoredCandidate[];
};

/** The tuned thresholds (training part only). */
export const MATCH_THRESHOLDS = {
  /** Lowest score of an `auto` decision. */
  auto: 0.8,
  /** Lowest name similarity of an `auto` decision, whatever the address says. */
  autoName: 0.75,
  /** How far ahead of the second candidate an `auto` one must be. */
  margin: 0.12,
  /** Lowest score worth a human look. */
  review: 0.45,
};

const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** Street number: the first number of the address line ("1554 Josie Greens, Suite 208" -> "1554"). */
const streetNumber = (address: string | null | undefined) => /^\s*(\d+)/.exec(address ?? "")?.[1] ?? null;
/** The five-digit ZIP of a US postal code ("12345-6789" -> "12345"), other codes folded. */
const postalKey = (code: string | null | undefined) => {
  const folded = (code ?? "").toUpperCase().replace(/[^A-Z0-9]/g, "");
  return folded === "" ? null : /^\d{9}$/.test(folded) ? folded.slice(0, 5) : folded;
};

/**
 * Address agreement in [-1, 1]: the street number is strong evidence either way (neighbours share
 * a street, rarely a number), the postal code weak (neighbours share it); unknown counts 0.
 */
const addressAgreement = (hotel: SupplierHotel, candidate: CandidateHotel) => {
  let agreement = 0;
  const numbers = [streetNumber(hotel.address), streetNumber(candidate.address)];
  if (numbers[0] && numbers[1]) agreement += numbers[0] === numbers[1] ? 1 : -1;
  const postal = [postalKey(hotel.postalCode), postalKey(candidate.postalCode)];
  if (postal[0] && postal[1]) agreement += postal[0] === postal[1] ? 0.3 : -0.5;
  return Math.max(-1, Math.min(1, agreement));
};

/** One candidate's score: mostly the name, then the address, then the distance. */
export const scoreCandidate = (hotel: SupplierHotel, candidate: CandidateHotel): ScoredCandidate => {
  const place = placeWords(hotel.city, candidate.city, candidate.state);
  const similarity = nameSimilarity(nameWords(hotel.name, place), nameWords(candidate.name, place));
  const distanceMeters = haversineKm(hotel.latitude, hotel.longitude, candidate.latitude, candidate.longitude) * 1000;
  const nearness = 1 - Math.min(distanceMeters, CANDIDATE_RADIUS_METRES) / CANDIDATE_RADIUS_METRES;
  const score = 0.7 * similarity + 0.15 * nearness + 0.15 * addressAgreement(hotel, candidate);
  return {
    accommodationCode: candidate.code,
    score: round3(Math.max(0, score)),
    distanceMeters: Math.round(distanceMeters),
    nameSimilarity: round3(similarity),
  };
};

/** The decision on one supplier hotel, from the accommodations near it. */
export const matchHotel = (hotel: SupplierHotel, near: CandidateHotel[]): HotelMatch => {
  const country = hotel.countryCode?.toUpperCase();
  const scored = near
    .filter((c) => !country || c.country.toUpperCase() === country)
    .map((c) => scoreCandidate(hotel, c))
    .filter((c) => c.distanceMeters <= CANDIDATE_RADIUS_METRES)
    .sort(
      (a, b) =>
        b.score - a.score ||
        a.distanceMeters - b.distanceMeters ||
        (a.accommodationCode < b.accommodationCode ? -1 : 1),
    );
  const [best, second] = scored;
  if (!best || best.score < MATCH_THRESHOLDS.review)
    return {
      supplierHotelCode: hotel.supplierHotelCode,
      decision: "none",
      best: best ?? null,
      candidates: scored.slice(0, MAX_CANDIDATES),
    };
  const clear =
    best.score >= MATCH_THRESHOLDS.auto &&
    best.nameSimilarity >= MATCH_THRESHOLDS.autoName &&
    best.score - (second?.score ?? 0) >= MATCH_THRESHOLDS.margin;
  return {
    supplierHotelCode: hotel.supplierHotelCode,
    decision: clear ? "auto" : "review",
    best,
    candidates: scored.slice(0, MAX_CANDIDATES),
  };
};

/**
 * Decisions for a supplier's list: each hotel on its own, then one-to-one: when two hotels of the
 * list would both be `auto` on one accommodation, neither is (both go to review).
 */
export const matchHotels = (
  hotels: SupplierHotel[],
  nearOf: (hotel: SupplierHotel) => CandidateHotel[],
): HotelMatch[] => {
  const matches = hotels.map((hotel) => matchHotel(hotel, nearOf(hotel)));
  const autoCount = new Map<string, number>();
  for (const m of matches)
    if (m.decision === "auto")
      autoCount.set(m.best!.accommodationCode, (autoCount.get(m.best!.accommodationCode) ?? 0) + 1);
  return matches.map((m) =>
    m.decision === "auto" && autoCount.get(m.best!.accommodationCode)! > 1 ? { ...m, decision: "review" } : m,
  );
};
