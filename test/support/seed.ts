import { database } from "../../src/platform/db/client";
import { sql } from "drizzle-orm";
import type { AccommodationContent } from "../../src/features/content/schemas";
import { sha256Hex } from "../../src/platform/crypto/digest";
import { apiKeys, partners, users } from "../../src/platform/db/schema";
import { accommodations } from "../../src/features/content/tables";
import { connections } from "../../src/features/connections/tables";
import { DEMO_ACCOUNTS, DEMO_SAVED_CARD, DEMO_UPSTREAM_CONNECTION } from "./accounts";
import { paymentMethods } from "../../src/features/payments/tables";
import { setUpstream } from "../../src/features/supply/upstreams";
import type { DemoAccommodation } from "./accommodations";
import { hotelFor, inventoryCodes, SANDBOX_CITIES } from "../../sandbox/hotelx/src/inventory";

/**
 * Demo partners, admins, API keys and in-use connections, and the demo traveller's saved card
 * (DEMO_SAVED_CARD). Safe to run again: existing rows are kept.
 */
export const seedDemoAccounts = async (d1: D1Database) => {
  const db = database(d1);
  await db
    .insert(paymentMethods)
    .values({ ...DEMO_SAVED_CARD, isDefault: true, createdAt: "2026-01-01T00:00:00.000Z" })
    .onConflictDoNothing();
  for (const account of DEMO_ACCOUNTS) {
    await db.batch([
      db
        .insert(partners)
        .values({ ...account.partner, collectorKeyHash: await sha256Hex(account.collectorKey) })
        .onConflictDoNothing(),
      db
        .insert(users)
        .values({
          id: account.admin.id,
          partnerId: account.partner.id,
          email: account.admin.email,
          passwordHash: account.admin.passwordHash,
          firstName: "Demo",
          lastName: "Admin",
          role: "admin",
        })
        .onConflictDoNothing(),
      db
        .insert(apiKeys)
        .values({
          id: account.apiKey.id,
          partnerId: account.partner.id,
          keyHash: await sha256Hex(account.apiKey.key),
          keyPrefix: account.apiKey.key.slice(0, 8),
          name: "Demo key",
        })
        .onConflictDoNothing(),
      db
        .insert(connections)
        .values({
          id: account.connection.id,
          code: account.connection.code,
          partnerId: account.partner.id,
          apiType: "b2b",
          connectionType: "direct",
          rateLimit: 600,
          rateLimitWindowMs: 60_000,
          netMarkups: 0,
          currentInUse: true,
        })
        .onConflictDoNothing(),
    ]);
  }
};

/**
 * Connection 1002 of the demo partner (b2b, tgx, in use), pointed at the sandbox Hotel-X supplier
 * at `url`. Safe to run again: the connection is kept, and its upstream is set again every time,
 * through the operator route's own code (PUT /api/connections/{id}/upstream, an alias over suppliers: supplier `hotelx-1002`), so a start on another
 * sandbox port (or with another UPSTREAM_CREDENTIALS_KEY) repoints it, whatever the state folder held.
 */
export const seedDemoUpstream = async (
  d1: D1Database,
  options: { credentialsKey: string; url: string; hotels?: boolean },
) => {
  if (options.hotels !== false) await seedSandboxHotels(d1);
  const db = database(d1);
  const { connection, upstream } = DEMO_UPSTREAM_CONNECTION;
  await db
    .insert(connections)
    .values({
      ...connection,
      apiType: "b2b",
      connectionType: "tgx",
      rateLimit: 600,
      rateLimitWindowMs: 60_000,
      netMarkups: 0,
      currentInUse: true,
    })
    .onConflictDoNothing();
  await setUpstream(db, { credentialsKey: options.credentialsKey, local: true }, connection.id, {
    kind: upstream.kind,
    url: options.url,
    client: upstream.client,
    context: upstream.context,
    credentials: { apiKey: upstream.apiKey },
    // The sandbox books in two steps (settings.commitRequired, then commit): holds are sold through 1002.
    twoStepBooking: true,
  });
};

/** The scenario hotels (sandbox/hotelx/README.md) our content index knows, beside the sandbox's inventory. */
export const SANDBOX_SCENARIO_CODES = [
  "HX500",
  "HXBADJSON",
  "HXGQLERR",
  "HXBADSHAPE",
  "HXPRICEUP",
  "HXSOLDOUT",
  "HXREFUSE",
  "HXCOMMIT",
  "HXSLOW2000",
  "HXSLOW5000",
  "HXLOST2000",
  "HXLOST5000",
  "HXLOST10000",
  "HXSLOW10000",
  "HX302",
  "HXBOOK307",
  "HXPACKAGE",
  "HXUSD",
  "HXGBP",
  "HXFEES",
  "HXDIRECT",
  "HXDIRECTFEE",
  "HXQUOTESOLDOUT",
  "HXQUOTENOAVAIL",
  "HXQUOTEGONE",
  "HXQUOTEPRICE",
  "HXQUOTEERROR",
] as const;

/**
 * Our content for the sandbox upstream's hotels: an upstream sells only hotels our content index
 * holds (it is asked for the codes a search resolves here). Inventory hotels sit in their city
 * (the last word of the name; Barcelona when unknown); scenario hotels sit one degree apart on the
 * equator, far from everything, so a geo search never meets one by accident. Rows present are kept.
 */
export const seedSandboxHotels = async (
  d1: D1Database,
  /** Only some of them (a file whose other tests must not meet the rest). */
  only?: readonly string[],
) => {
  const codes = [...inventoryCodes(), ...SANDBOX_SCENARIO_CODES];
  const wanted = only && new Set(only);
  const rows = codes.flatMap((code, i) => {
    if (wanted && !wanted.has(code)) return [];
    const hotel = hotelFor(code)!;
    const scenario = (SANDBOX_SCENARIO_CODES as readonly string[]).includes(code);
    // Inventory hotels are named after their city ("Hotel Sandbox Lisbon").
    const city = scenario
      ? { name: "Sandbox", country: "ES", latitude: 0, longitude: i, timezone: "UTC" }
      : (SANDBOX_CITIES.find((c) => hotel.name.endsWith(` ${c.name}`)) ?? {
          ...SANDBOX_CITIES[0]!,
          latitude: SANDBOX_CITIES[0]!.latitude + i * 0.001,
        });
    return [sandboxHotelContentRow({ code, name: hotel.name, city, starRating: 4 })];
  });
  await insertContentRows(d1, rows);
};

type SandboxPlace = { name: string; country: string; latitude: number; longitude: number; timezone: string };

/** Our content row (accommodations) for a hotel the sandbox Hotel-X supplier sells: the upstream prices, the content is ours. */
export const sandboxHotelContentRow = (hotel: {
  code: string;
  name: string;
  city: SandboxPlace;
  starRating: number;
}) => {
  const { code, name, city, starRating } = hotel;
  const content: AccommodationContent = {
    code,
    location: [city.longitude, city.latitude],
    images: [],
    contact: { phone: "", fax: "", email: "" },
    address: { address: "", city: city.name, state: "", country: city.country, postalCode: "" },
    localizedName: [{ language: "en", region: "US", locale: "en-US", content: name }],
    localizedDescription: [
      {
        language: "en",
        region: "US",
        locale: "en-US",
        content: [{ type: "GENERAL", content: `<p>${name}, sold by the sandbox Hotel-X supplier.</p>` }],
      },
    ],
    type: "hotel",
    amenities: [],
    timezone: city.timezone,
    checkInPolicy: {
      checkInFrom: "15:00",
      checkInUntil: "23:59",
      checkOutFrom: "06:00",
      checkOutUntil: "11:00",
      minAge: 18,
      checkinInstructions: [],
      checkinSpecialInstructions: [],
      checkoutSpecialInstructions: [],
    },
    starRating,
  };
  return {
    code,
    name,
    type: "hotel",
    country: city.country,
    state: "",
    city: city.name,
    latitude: city.latitude,
    longitude: city.longitude,
    starRating,
    timezone: city.timezone,
    content: JSON.stringify(content),
  };
};

/** Inserts content rows in one batch, as many per statement as D1's 100 bound parameters allow; rows present are kept. */
export const insertContentRows = async (d1: D1Database, rows: Array<ReturnType<typeof sandboxHotelContentRow>>) => {
  const db = database(d1);
  const inserts = [];
  for (let at = 0; at < rows.length; at += ROWS_PER_INSERT)
    inserts.push(
      db
        .insert(accommodations)
        .values(rows.slice(at, at + ROWS_PER_INSERT))
        .onConflictDoNothing(),
    );
  if (inserts.length) await db.batch(inserts as [(typeof inserts)[0], ...typeof inserts]);
};

// D1 allows 100 bound parameters per statement: 11 columns, so 9 rows per insert.
const ROWS_PER_INSERT = 9;
const INSERTS_PER_BATCH = 50;

const toRow = (a: DemoAccommodation) => ({ ...a, content: JSON.stringify(a.content) });

/**
 * Inserts demo accommodations (test/support/accommodations.ts makes them; `npm start` passes the
 * generator, the workerd tests the same rows generated once outside workerd, see demo-content.ts);
 * rows already present are kept as they are.
 */
export const insertDemoAccommodations = async (
  d1: D1Database,
  demo: Iterable<DemoAccommodation>,
  onProgress?: (done: number) => void,
) => {
  const db = database(d1);
  let rows: ReturnType<typeof toRow>[] = [];
  let inserts: Array<ReturnType<typeof insertRows>> = [];
  let done = 0;
  const insertRows = (chunk: typeof rows) => db.insert(accommodations).values(chunk).onConflictDoNothing();
  const flush = async () => {
    if (rows.length) inserts.push(insertRows(rows));
    rows = [];
    if (inserts.length) await db.batch(inserts as [(typeof inserts)[0], ...typeof inserts]);
    inserts = [];
    onProgress?.(done);
  };
  for (const accommodation of demo) {
    rows.push(toRow(accommodation));
    done++;
    if (rows.length === ROWS_PER_INSERT) {
      inserts.push(insertRows(rows));
      rows = [];
      if (inserts.length === INSERTS_PER_BATCH) await flush();
    }
  }
  await flush();
};

export const countAccommodations = async (d1: D1Database): Promise<number> => {
  const [row] = await database(d1).select({ n: sql<number>`count(*)` }).from(accommodations);
  return row?.n ?? 0;
};
