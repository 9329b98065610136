import { eq } from "drizzle-orm";
import albionBoards from "../../sandbox/hotelx/fixtures/albion/board-map.json";
import albionHotels from "../../sandbox/hotelx/fixtures/albion/hotel-map.json";
import albionRooms from "../../sandbox/hotelx/fixtures/albion/room-map.json";
import iberbedsBoards from "../../sandbox/hotelx/fixtures/iberbeds/board-map.json";
import iberbedsHotels from "../../sandbox/hotelx/fixtures/iberbeds/hotel-map.json";
import iberbedsRooms from "../../sandbox/hotelx/fixtures/iberbeds/room-map.json";
import roomnexusBoards from "../../sandbox/hotelx/fixtures/roomnexus/board-map.json";
import roomnexusHotels from "../../sandbox/hotelx/fixtures/roomnexus/hotel-map.json";
import roomnexusRooms from "../../sandbox/hotelx/fixtures/roomnexus/room-map.json";
import { SANDBOX_SUPPLIERS } from "../../sandbox/hotelx/src/suppliers";
import { connections } from "../../src/features/connections/tables";
import { EMBEDDED_SUPPLIER } from "../../src/features/connections/connection-suppliers";
import { readExchangeRates, replaceExchangeRates } from "../../src/features/supply/exchange-rates";
import type { BoardMap } from "../../src/features/supply/maps/board-map";
import { replaceBoardMap } from "../../src/features/supply/maps/board-map";
import { importHotelMap } from "../../src/features/supply/maps/hotel-map";
import { importRoomMap } from "../../src/features/supply/maps/room-map";
import { sellSuppliers } from "../../src/features/supply/sold-suppliers";
import { createSupplier, updateSupplier } from "../../src/features/supply/suppliers";
import { suppliers } from "../../src/features/supply/tables";
import { database } from "../../src/platform/db/client";
import { DEMO_SUPPLIERS_CONNECTION, sandboxSupplierUrl } from "./accounts";

/** The truth maps of each sandbox supplier (sandbox/hotelx/fixtures/README.md), the bodies the map routes take. */
export const SANDBOX_SUPPLIER_MAPS: Record<string, { hotels: unknown[]; rooms: unknown[]; boards: BoardMap }> = {
  iberbeds: { hotels: iberbedsHotels, rooms: iberbedsRooms, boards: iberbedsBoards as BoardMap },
  roomnexus: { hotels: roomnexusHotels, rooms: roomnexusRooms, boards: roomnexusBoards as BoardMap },
  albion: { hotels: albionHotels, rooms: albionRooms, boards: albionBoards as BoardMap },
};

/**
 * The demo's exchange rates (units per US dollar), written only when the operator has set none:
 * connection 1003 sells in USD what its suppliers price in EUR and GBP.
 */
export const DEMO_EXCHANGE_RATES = { base: "USD", rates: { EUR: 0.92, GBP: 0.79 } };

const numbered = (rows: unknown[]) => async () => rows.map((value, i) => ({ row: i + 1, value }));

/**
 * Connection 1003 of the demo partner (DEMO_SUPPLIERS_CONNECTION): the sandbox's three suppliers
 * as operator data, pointed at the sandbox on `sandboxPort` (set again on every start, as 1002's
 * upstream is), their hotel, room and board maps written through the map routes' own services
 * (rows already mapped count as unchanged), and the connection selling `[embedded, the three]` in
 * USD. Safe to run again on the same state. Answers one line for npm start to print.
 */
export const seedDemoSuppliers = async (
  d1: D1Database,
  options: { credentialsKey: string; sandboxPort: number | string },
): Promise<string> => {
  const db = database(d1);
  const keys = { credentialsKey: options.credentialsKey, local: true };
  const { connection, hotelx } = DEMO_SUPPLIERS_CONNECTION;
  if ((await readExchangeRates(db)).base === null) await replaceExchangeRates(db, DEMO_EXCHANGE_RATES);
  let mapped = 0;
  let rejected = 0;
  for (const code of DEMO_SUPPLIERS_CONNECTION.suppliers) {
    const sandbox = SANDBOX_SUPPLIERS.find((s) => s.code === code)!;
    const settings = {
      url: sandboxSupplierUrl(code, options.sandboxPort),
      client: hotelx.client,
      context: hotelx.context,
      currency: sandbox.currency,
      hotelCodes: "mapped",
      credentials: { apiKey: hotelx.apiKey },
    };
    const name = `${code} (sandbox)`;
    const [present] = await db.select({ code: suppliers.code }).from(suppliers).where(eq(suppliers.code, code));
    if (present) await updateSupplier(db, keys, code, { name, settings });
    else await createSupplier(db, keys, { code, kind: "hotelx", name, settings });
    const maps = SANDBOX_SUPPLIER_MAPS[code]!;
    const hotels = await importHotelMap(db, code, numbered(maps.hotels));
    const rooms = await importRoomMap(db, code, numbered(maps.rooms));
    await replaceBoardMap(db, code, maps.boards);
    mapped += maps.hotels.length - hotels.rejected.length;
    rejected += hotels.rejected.length + rooms.rejected.length;
  }
  await db
    .insert(connections)
    .values({
      ...connection,
      // One connection in use per partner, apiType and connectionType: 1001 is (b2b, direct) and
      // 1002 (b2b, tgx), so 1003 is the demo partner's closed-user-group one.
      apiType: "cug",
      connectionType: "tgx",
      rateLimit: 600,
      rateLimitWindowMs: 60_000,
      netMarkups: 0,
      currentInUse: true,
    })
    .onConflictDoNothing();
  const sold = [EMBEDDED_SUPPLIER, ...DEMO_SUPPLIERS_CONNECTION.suppliers];
  await sellSuppliers(db, connection.id, sold, DEMO_SUPPLIERS_CONNECTION.currency);
  return `Connection ${connection.code}: ${sold.join(", ")} in ${DEMO_SUPPLIERS_CONNECTION.currency}; ${mapped} supplier hotels mapped${rejected ? ` (${rejected} rows rejected: fewer demo accommodations seeded?)` : ""}.`;
};
