/** The sandbox's own small inventory, and the scenario hotels chosen by code (README.md). */
export type SandboxRoom = { code: string; description: string; board: string; nightly: number; refundable: boolean };
export type SandboxHotel = { code: string; name: string; currency: string; rooms: SandboxRoom[] };

const standardRooms = (base: number): SandboxRoom[] => [
  { code: "DBL", description: "Double room", board: "RO", nightly: base, refundable: true },
  { code: "DBL-BB", description: "Double room with breakfast", board: "BB", nightly: base + 18, refundable: true },
  { code: "STD-NR", description: "Standard room, non-refundable", board: "RO", nightly: base - 15, refundable: false },
];

const HOTELS: SandboxHotel[] = [
  { code: "HX001", name: "Hotel Sandbox Barcelona", currency: "EUR", rooms: standardRooms(120) },
  { code: "HX002", name: "Hotel Sandbox Madrid", currency: "EUR", rooms: standardRooms(95) },
  { code: "HX003", name: "Hotel Sandbox Lisbon", currency: "EUR", rooms: standardRooms(80) },
  { code: "HX004", name: "Hotel Sandbox Paris", currency: "EUR", rooms: standardRooms(160) },
  { code: "HX005", name: "Hotel Sandbox Rome", currency: "EUR", rooms: standardRooms(110) },
];

export type Scenario =
  | { kind: "normal" }
  | { kind: "slow"; delayMs: number }
  | { kind: "http_500" }
  | { kind: "bad_json" }
  | { kind: "graphql_errors" }
  | { kind: "bad_shape" }
  | { kind: "price_up" }
  | { kind: "sold_out" }
  | { kind: "refused" }
  | { kind: "answer_lost"; delayMs: number };

/** Longest delay a code may ask for, so a typo cannot hold a request for hours. */
const MAX_DELAY_MS = 60_000;
const FIXED: Record<string, Scenario> = {
  HX500: { kind: "http_500" },
  HXBADJSON: { kind: "bad_json" },
  HXGQLERR: { kind: "graphql_errors" },
  HXBADSHAPE: { kind: "bad_shape" },
  HXPRICEUP: { kind: "price_up" },
  HXSOLDOUT: { kind: "sold_out" },
  HXREFUSE: { kind: "refused" },
};

export const scenarioOf = (code: string): Scenario => {
  const fixed = FIXED[code];
  if (fixed) return fixed;
  const delayed = /^HX(SLOW|LOST)(\d{1,5})$/.exec(code);
  if (delayed) {
    const delayMs = Math.min(Number(delayed[2]), MAX_DELAY_MS);
    return delayed[1] === "SLOW" ? { kind: "slow", delayMs } : { kind: "answer_lost", delayMs };
  }
  return { kind: "normal" };
};

/** Inventory hotels, and every scenario code as a hotel too (priced like HX001) so it can be searched. */
export const hotelFor = (code: string): SandboxHotel | null => {
  const listed = HOTELS.find((h) => h.code === code);
  if (listed) return listed;
  return scenarioOf(code).kind === "normal" ? null : { code, name: `Sandbox scenario ${code}`, currency: "EUR", rooms: standardRooms(100) };
};

export const inventoryCodes = () => HOTELS.map((h) => h.code);
