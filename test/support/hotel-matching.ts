import { readFileSync } from "node:fs";
import { haversineKm } from "../../src/features/supply/accommodations";
import {
  CANDIDATE_RADIUS_METRES,
  type CandidateHotel,
  type HotelMatch,
  matchHotels,
  type SupplierHotel,
} from "../../src/features/supply/hotel-matching/matcher";
import { type DemoAccommodation, generateAccommodations } from "./accommodations";

/** A row of the labelled set (scripts/hotel-matching/labelled-set.ts writes it). */
export type LabelledHotel = SupplierHotel & { expected: string | null; kind: "match" | "decoy" | "absent" };

/** The demo content the labelled set is labelled against: `npm start`'s default count. */
export const LABELLED_SET_ACCOMMODATIONS = 2_000;

export const labelledHotels = (part: "training" | "held-out"): LabelledHotel[] =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/hotel-matching/${part}.json`, import.meta.url), "utf8"),
  ) as LabelledHotel[];

export const candidateOf = (a: DemoAccommodation): CandidateHotel => ({
  code: a.code,
  name: a.name,
  latitude: a.latitude,
  longitude: a.longitude,
  country: a.country,
  state: a.state,
  city: a.city,
  address: a.content.address.address ?? null,
  postalCode: a.content.address.postalCode ?? null,
});

/**
 * The demo hotels within the candidate radius of a point, as the geo index finds them (in memory
 * here, bucketed by 0.02 degree: wider than the radius up to 70 degrees north, so the 3x3
 * buckets around a point hold every hotel within it).
 */
export const demoCandidates = (count = LABELLED_SET_ACCOMMODATIONS) => {
  const bucket = (lat: number, lng: number) => `${Math.floor(lat * 50)}:${Math.floor(lng * 50)}`;
  const buckets = new Map<string, CandidateHotel[]>();
  for (const a of generateAccommodations(count)) {
    const key = bucket(a.latitude, a.longitude);
    buckets.set(key, [...(buckets.get(key) ?? []), candidateOf(a)]);
  }
  return (hotel: SupplierHotel) =>
    [-1, 0, 1]
      .flatMap((dLat) =>
        [-1, 0, 1].flatMap(
          (dLng) => buckets.get(bucket(hotel.latitude + dLat / 50, hotel.longitude + dLng / 50)) ?? [],
        ),
      )
      .filter(
        (c) => haversineKm(hotel.latitude, hotel.longitude, c.latitude, c.longitude) * 1000 <= CANDIDATE_RADIUS_METRES,
      );
};

export type MatcherScore = {
  hotels: number;
  auto: number;
  autoCorrect: number;
  /** Hotels we have (label not null). */
  ours: number;
  precision: number;
  recall: number;
  review: number;
  wrong: Array<{ hotel: LabelledHotel; match: HotelMatch }>;
  missed: Array<{ hotel: LabelledHotel; match: HotelMatch }>;
};

/**
 * Precision of `auto`: the share of auto decisions naming the right accommodation. Recall: the
 * share of the hotels we have that are auto on the right one.
 */
export const scoreMatcher = (hotels: LabelledHotel[], near = demoCandidates()): MatcherScore => {
  const matches = matchHotels(hotels, near);
  const wrong: MatcherScore["wrong"] = [];
  const missed: MatcherScore["missed"] = [];
  let auto = 0;
  let autoCorrect = 0;
  let review = 0;
  matches.forEach((match, i) => {
    const hotel = hotels[i]!;
    if (match.decision === "review") review++;
    const right = match.decision === "auto" && match.best!.accommodationCode === hotel.expected;
    if (match.decision === "auto") {
      auto++;
      if (right) autoCorrect++;
      else wrong.push({ hotel, match });
    }
    if (hotel.expected !== null && !right) missed.push({ hotel, match });
  });
  const ours = hotels.filter((h) => h.expected !== null).length;
  return {
    hotels: hotels.length,
    auto,
    autoCorrect,
    ours,
    precision: auto === 0 ? 1 : autoCorrect / auto,
    recall: ours === 0 ? 1 : autoCorrect / ours,
    review,
    wrong,
    missed,
  };
};
