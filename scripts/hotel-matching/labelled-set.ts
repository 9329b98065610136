/**
 * Writes the labelled set hotel mapping is measured on (issue 39 item 6): one supplier's hotel list,
 * built from the demo content `npm start` seeds the way suppliers really differ, each hotel labelled
 * with the accommodation it is (or null). Seeded: the same run writes the same files.
 *
 *   node --import tsx scripts/hotel-matching/labelled-set.ts
 *
 * Three kinds of rows:
 * - `match`: a demo hotel as a supplier lists it (names abbreviated, reordered, chain prefixes
 *   added or dropped, accents, punctuation, `&`/`and`; coordinates off by up to 300 m; address and
 *   postal code sometimes missing or written otherwise);
 * - `decoy`: a hotel with a different hotel of the same chain a few hundred metres away in our
 *   content: either another demo hotel (label: that one) or a chain hotel we do not have (label: null);
 * - `absent`: a hotel we do not have, near one of ours, sometimes with a name close to it (label: null).
 *
 * A fixed fifth (every hotel whose seeded draw says so) is written to `held-out.json`: it is not
 * read while the matcher is tuned, and evaluated once at the end (docs/benchmarks.md).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { haversineKm } from "../../src/features/supply/accommodations";
import { seededRandom } from "../../src/platform/seeded-random";
import {
  CHAIN_QUALIFIERS,
  CHAINS,
  chainHotelName,
  type DemoAccommodation,
  generateAccommodations,
} from "../../test/support/accommodations";
import { LABELLED_SET_ACCOMMODATIONS, type LabelledHotel } from "../../test/support/hotel-matching";

const MATCHES = 800;
const ABSENT_DECOYS = 200;
const ABSENT = 160;

const random = seededRandom("hotel-matching-labelled-set-v1");
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number) => random() < p;
const shuffle = <T>(items: T[]): T[] => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
};

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
/** A point `metres` away from (lat, lng) on a random bearing. */
const moved = (lat: number, lng: number, metres: number) => {
  const bearing = random() * 2 * Math.PI;
  const km = metres / 1000;
  return {
    latitude: round6(lat + (km * Math.cos(bearing)) / 111.2),
    longitude: round6(lng + (km * Math.sin(bearing)) / (111.2 * Math.cos((lat * Math.PI) / 180))),
  };
};
/** How far a supplier's coordinates of the same hotel are off: mostly a little, at most 300 m. */
const positionError = () => (chance(0.7) ? random() * 80 : chance(0.8) ? 80 + random() * 120 : 200 + random() * 100);

const ABBREVIATIONS: Array<[RegExp, string[]]> = [
  [/\bHotel\b/g, ["Htl", "Htl."]],
  [/\bSuites\b/g, ["Stes", "Ste."]],
  [/\bCenter\b/g, ["Ctr", "Ctr."]],
  [/\bConference\b/g, ["Conf", "Conf."]],
  [/\bConvention\b/g, ["Conv", "Conv."]],
  [/\bAirport\b/g, ["Arpt", "Apt"]],
  [/\bDowntown\b/g, ["Dwtn", "Dtwn"]],
  [/\bUniversity\b/g, ["Univ", "Univ."]],
  [/\bMedical\b/g, ["Med", "Med."]],
  [/\bApartments\b/g, ["Apts"]],
  [/\bResidences\b/g, ["Res."]],
  [/\bInternational\b/g, ["Intl"]],
  [/\bNorth\b/g, ["N", "N."]],
  [/\bSouth\b/g, ["S", "S."]],
  [/\bEast\b/g, ["E", "E."]],
  [/\bWest\b/g, ["W", "W."]],
  [/\bSaint\b/g, ["St", "St."]],
  [/\bSt\. /g, ["Saint "]],
  [/\bMount\b/g, ["Mt"]],
  [/\bFort\b/g, ["Ft"]],
  [/\bBed & Breakfast\b/g, ["B&B"]],
  [/\bExtended Stay\b/g, ["Ext Stay"]],
  [/\bMotor Inn\b/g, ["Motor Inn", "Motorinn"]],
  [/\bHarbor\b/g, ["Harbour"]],
  [/\bHarbour/g, ["Harbor"]],
];
const ACCENTS: Array<[RegExp, string]> = [
  [/\bHotel\b/g, "Hôtel"],
  [/\bResidences\b/g, "Résidences"],
  [/\bGuest House\b/g, "Guest Hóuse"],
  [/\bSolenne\b/g, "Solènne"],
  [/\bAurelia\b/g, "Aurélia"],
  [/\bResort\b/g, "Résort"],
  [/\bSan Jose\b/g, "San José"],
];

/** A name as another supplier writes it: one to three of the ways names really differ. */
const varyName = (name: string, city: string, state: string) => {
  let text = name;
  const ways = shuffle(["abbreviate", "reorder", "chain", "accents", "punctuation", "and", "city", "case"]).slice(
    0,
    1 + Math.floor(random() * 3),
  );
  for (const way of ways) {
    switch (way) {
      case "abbreviate":
        for (const [pattern, short] of ABBREVIATIONS) if (chance(0.6)) text = text.replace(pattern, () => pick(short));
        break;
      case "reorder": {
        // The city moved to the end, or the type word to the front.
        const withoutCity = text.replace(` ${city}`, "").replace(`${city} `, "");
        if (withoutCity !== text && chance(0.6)) text = `${withoutCity} ${pick([city, `- ${city}`, `(${city})`])}`;
        else {
          const words = text.split(" ");
          const last = words.pop()!;
          text = [last, ...words].join(" ");
        }
        break;
      }
      case "chain": {
        const chain = CHAINS.find((c) => text.startsWith(c.brand));
        if (chain?.parent && chance(0.5)) text = text.replace(` by ${chain.parent}`, "");
        else if (chain?.parent) text = `${chain.parent} ${text.replace(` by ${chain.parent}`, "")}`;
        else if (chain) {
          // The variant dropped ("Stayford Inn & Suites Chicago Downtown" -> "Stayford Chicago Downtown").
          const variant = Object.values(chain.variants)
            .flat()
            .find((v) => v && text.startsWith(`${chain.brand} ${v} `));
          if (variant) text = text.replace(`${chain.brand} ${variant} `, `${chain.brand} `);
        } else if (chance(0.5)) text = text.replace(/ (Hotel|Suites|Inn & Suites|Motel|Resort)$/, "");
        break;
      }
      case "accents":
        for (const [pattern, accented] of ACCENTS) text = text.replace(pattern, accented);
        break;
      case "punctuation":
        text = pick([
          () => text.replace(` ${city}`, `, ${city}`),
          () => text.replace(/ /, " - "),
          () => text.replace(/ (\S+)$/, ", $1"),
          () => `${text}.`,
          () => text.replace(/-/g, " "),
        ])();
        break;
      case "and":
        text = text.includes("&") ? text.replace(/&/g, pick(["and", "And", "+"])) : text.replace(/ and /gi, " & ");
        break;
      case "city":
        text = chance(0.5) ? `${text}, ${city}, ${state}` : text.replace(` ${city}`, "");
        break;
      case "case":
        text = chance(0.5) ? text.toUpperCase() : text.toLowerCase();
        break;
    }
  }
  return text.replace(/\s+/g, " ").trim();
};

const STREET_ABBREVIATIONS: Array<[RegExp, string]> = [
  [/\bStreet\b/, "St"],
  [/\bAvenue\b/, "Ave"],
  [/\bRoad\b/, "Rd"],
  [/\bDrive\b/, "Dr"],
  [/\bBoulevard\b/, "Blvd"],
  [/\bLane\b/, "Ln"],
  [/\bCourt\b/, "Ct"],
  [/\bParkway\b/, "Pkwy"],
];
/** The address as another supplier writes it, or none. */
const varyAddress = (address: string) => {
  if (chance(0.2)) return undefined;
  let text = address;
  if (chance(0.4)) for (const [pattern, short] of STREET_ABBREVIATIONS) text = text.replace(pattern, short);
  if (chance(0.15)) text = text.toUpperCase();
  if (chance(0.1)) text = `${text}, Suite ${1 + Math.floor(random() * 400)}`;
  return text;
};
const varyPostalCode = (postalCode: string) =>
  chance(0.25)
    ? undefined
    : chance(0.12)
      ? `${postalCode}-${String(Math.floor(random() * 10_000)).padStart(4, "0")}`
      : postalCode;

const otherAddress = (streets: string[]) =>
  `${1 + Math.floor(random() * 9_999)} ${pick(streets).replace(/^\d+\s+/, "")}`;
const otherPostalCode = (near: string) =>
  chance(0.4) ? near : `${near.slice(0, 3)}${String(Math.floor(random() * 100)).padStart(2, "0")}`;

const supplierHotel = (
  from: { name: string; latitude: number; longitude: number; address: string; postalCode: string },
  place: DemoAccommodation,
  metresOff: number,
) => {
  const at = moved(from.latitude, from.longitude, metresOff);
  const city = chance(0.85) ? place.city : undefined;
  const address = varyAddress(from.address);
  const postalCode = varyPostalCode(from.postalCode);
  return {
    name: varyName(from.name, place.city, place.state),
    ...at,
    ...(address !== undefined ? { address } : {}),
    ...(postalCode !== undefined ? { postalCode } : {}),
    ...(city ? { city } : {}),
    ...(chance(0.9) ? { countryCode: "US" } : {}),
  };
};

const FRESH_STEMS = [
  "Bluebird",
  "Foxglove",
  "Sandpiper",
  "Copperleaf",
  "Wildrose",
  "Stonebridge",
  "Larkspur",
  "Driftwood",
  "Evergreen",
  "Kingfisher",
  "Thistle",
  "Blackstone",
];
const KIND_WORDS = ["Hotel", "Suites", "Inn", "Inn & Suites", "Motel", "Lodge", "Resort", "Plaza Hotel"];

export const buildLabelledSet = (): LabelledHotel[] => {
  const demo = [...generateAccommodations(LABELLED_SET_ACCOMMODATIONS)];
  const streets = demo.map((a) => a.content.address.address);
  const brandOf = (a: DemoAccommodation) => CHAINS.findIndex((c) => a.name.startsWith(`${c.brand} `));
  const chainHotels = demo.filter((a) => brandOf(a) >= 0);
  const km = (a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }) =>
    haversineKm(a.latitude, a.longitude, b.latitude, b.longitude);
  const facts = (a: DemoAccommodation) => ({
    name: a.name,
    latitude: a.latitude,
    longitude: a.longitude,
    address: a.content.address.address,
    postalCode: a.content.address.postalCode ?? "",
  });
  const used = new Set<string>();
  const rows: Array<Omit<LabelledHotel, "supplierHotelCode">> = [];

  // Decoys we have: a chain hotel with a sibling of its brand within 800 m, listed by the supplier.
  for (const a of chainHotels) {
    const sibling = chainHotels.find((b) => b !== a && brandOf(b) === brandOf(a) && km(a, b) <= 0.8);
    if (!sibling) continue;
    used.add(a.code);
    rows.push({ ...supplierHotel(facts(a), a, positionError()), expected: a.code, kind: "decoy" });
  }
  // Decoys we do not have: a hotel of the same brand, another qualifier, 150-500 m from one of ours.
  for (const b of shuffle([...chainHotels]).slice(0, ABSENT_DECOYS)) {
    const chain = CHAINS[brandOf(b)]!;
    const taken = new Set(
      chainHotels.filter((h) => h.city === b.city && brandOf(h) === brandOf(b)).map((h) => h.name.split(" ").pop()),
    );
    const qualifier = pick(CHAIN_QUALIFIERS.filter((q) => !taken.has(q.split(" ").pop())));
    const variant = pick(chance(0.5) ? (chain.variants[b.type] ?? [""]) : Object.values(chain.variants).flat());
    const at = moved(b.latitude, b.longitude, 150 + random() * 350);
    rows.push({
      ...supplierHotel(
        {
          name: chainHotelName(chain, variant, b.city, qualifier),
          ...at,
          address: otherAddress(streets),
          postalCode: otherPostalCode(b.content.address.postalCode ?? "00000"),
        },
        b,
        0,
      ),
      expected: null,
      kind: "decoy",
    });
  }
  // Hotels we do not have, 30-400 m from one of ours; a third named much like it (another kind of house).
  for (const b of shuffle([...demo]).slice(0, ABSENT)) {
    const stem = b.name.split(" ")[0]!;
    const lookAlike = brandOf(b) < 0 && chance(0.35);
    const kind = pick(KIND_WORDS.filter((k) => !b.name.endsWith(` ${k}`)));
    const name = lookAlike ? `${stem} ${b.city} ${kind}` : `${pick(FRESH_STEMS)} ${b.city} ${kind}`;
    const at = moved(b.latitude, b.longitude, 30 + random() * 370);
    rows.push({
      ...supplierHotel(
        {
          name,
          ...at,
          address: otherAddress(streets),
          postalCode: otherPostalCode(b.content.address.postalCode ?? ""),
        },
        b,
        0,
      ),
      expected: null,
      kind: "absent",
    });
  }
  // Hotels we have, as the supplier lists them.
  for (const a of shuffle(demo.filter((d) => !used.has(d.code))).slice(0, MATCHES)) {
    used.add(a.code);
    rows.push({ ...supplierHotel(facts(a), a, positionError()), expected: a.code, kind: "match" });
  }
  return shuffle(rows).map((row, i) => ({ supplierHotelCode: `SUP${String(i + 1).padStart(5, "0")}`, ...row }));
};

const main = () => {
  const hotels = buildLabelledSet();
  // The held-out fifth: a seeded draw per hotel, fixed by the file, never by the matcher.
  const split = seededRandom("hotel-matching-split-v1");
  const heldOut: LabelledHotel[] = [];
  const training: LabelledHotel[] = [];
  for (const hotel of hotels) (split() < 0.2 ? heldOut : training).push(hotel);
  const dir = join(import.meta.dirname, "../../test/fixtures/hotel-matching");
  mkdirSync(dir, { recursive: true });
  const write = (file: string, rows: LabelledHotel[]) =>
    writeFileSync(join(dir, file), `[\n${rows.map((r) => JSON.stringify(r)).join(",\n")}\n]\n`);
  write("training.json", training);
  write("held-out.json", heldOut);
  const count = (kind: LabelledHotel["kind"]) => hotels.filter((h) => h.kind === kind).length;
  console.log(
    `${hotels.length} supplier hotels: ${count("match")} match, ${count("decoy")} decoys, ${count("absent")} absent, ` +
      `${hotels.filter((h) => h.expected === null).length} not ours; training ${training.length}, held out ${heldOut.length}.`,
  );
};

if (import.meta.url === `file://${process.argv[1]}`) main();
