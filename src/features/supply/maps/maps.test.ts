import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, DEMO_KEY, readResponse } from "../../../../test/support/api";
import { seedDemoAccommodations } from "../../../../test/support/demo-content";
import { bearer, demoAdminToken, OPERATOR } from "../../../../test/support/sessions";
import { database } from "../../../platform/db/client";
import { MAX_BODY_BYTES } from "../../../platform/http/json-body";
import { MAX_UPLOAD_BYTES, MAX_UPLOAD_ROWS, NDJSON, readUploadRows } from "../../../platform/http/row-upload";
import { accommodationByCode } from "../accommodations";
import { catalogueFor } from "../catalogue";
import { suppliers } from "../tables";
import { supplierMapsOf, supplierMapsQuery } from "./map-reads";
import { queryPlan } from "../../../../test/support/query-plan";

// One file for the supplier maps (issue 39 item 3): routes no other file covers, sharing one seed.
const db = () => database(env.DB);
const US = (n: number) => `US${String(n).padStart(6, "0")}`;
const base = (supplier: string) => `/api/operator/suppliers/${supplier}`;

const addSupplier = (code: string, active = true) =>
  db().insert(suppliers).values({ code, kind: "hotelx", name: code, sealBinding: code, active }).onConflictDoNothing();

const put = (path: string, body: unknown) => call("PUT", path, body, OPERATOR);
const get = (path: string) => call("GET", path, undefined, OPERATOR);
const putNdjson = (path: string, lines: unknown[]) =>
  call("PUT", path, undefined, {
    ...OPERATOR,
    headers: { ...OPERATOR.headers, "content-type": NDJSON },
    raw: lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n"),
  });

/** A PUT whose body is a stream of `chunks` (no Content-Length: the reader counts bytes as they come). */
const putStream = async (path: string, contentType: string, chunks: Uint8Array[]) => {
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const request = new Request(`https://edgestay.test${path}`, {
    method: "PUT",
    headers: { ...OPERATOR.headers, "content-type": contentType },
    body,
    // @ts-expect-error workerd's RequestInit takes duplex for a streamed body
    duplex: "half",
  });
  return readResponse(await exports.default.fetch(request), request);
};

const roomsOf = async (code: string) => {
  const accommodation = await accommodationByCode(db(), code);
  return catalogueFor(code, accommodation!.starRating).rooms.map((r) => r.code);
};

beforeAll(async () => {
  await seedDemoAccommodations(env.DB, { accommodations: 20 });
  for (const code of ["acme", "beds", "pager", "rooms", "race", "bulk", "limits"]) await addSupplier(code);
  await addSupplier("gone", false);
});

describe("PUT /api/operator/suppliers/{code}/hotel-map", () => {
  it("applies the good rows and rejects each other row by number and reason", async () => {
    const first = await put(`${base("acme")}/hotel-map`, [
      { supplierHotelCode: "A1", accommodationCode: US(1) },
      { supplierHotelCode: "A2", accommodationCode: "US999999" },
      { supplierHotelCode: "A1", accommodationCode: US(2) },
      { supplierHotelCode: "A3", accommodationCode: US(1) },
      { supplierHotelCode: "bad code", accommodationCode: US(5) },
      { supplierHotelCode: "A4", accommodationCode: US(3) },
      { supplierHotelCode: "A7", accommodationCode: US(7), extra: true },
    ]);
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
      rejected: [
        { row: 2, reason: "unknown_accommodation", message: "No accommodation US999999" },
        { row: 3, reason: "duplicate_in_upload", message: "supplierHotelCode A1 is also on row 1" },
        { row: 4, reason: "duplicate_in_upload", message: `accommodationCode ${US(1)} is also on row 1` },
        { row: 5, reason: "invalid_row", message: expect.stringMatching(/^supplierHotelCode: must be 1 to 64/) },
        { row: 7, reason: "invalid_row", message: expect.stringContaining("extra") },
      ],
    });

    // Judged against the map before the upload: US000003 is A4's until this upload moves A4 away.
    const second = await put(`${base("acme")}/hotel-map`, [
      { supplierHotelCode: "A1", accommodationCode: US(1) },
      { supplierHotelCode: "A4", accommodationCode: US(4) },
      { supplierHotelCode: "A5", accommodationCode: US(3) },
      { supplierHotelCode: "A6", accommodationCode: US(1) },
      { supplierHotelCode: "A8", accommodationCode: US(8) },
    ]);
    expect(second.json.data).toEqual({
      inserted: 1,
      updated: 1,
      unchanged: 1,
      rejected: [
        { row: 3, reason: "already_mapped_elsewhere", message: `${US(3)} is already mapped to supplier hotel A4` },
        { row: 4, reason: "duplicate_in_upload", message: `accommodationCode ${US(1)} is also on row 1` },
      ],
    });
    const elsewhere = await put(`${base("acme")}/hotel-map`, [{ supplierHotelCode: "A6", accommodationCode: US(1) }]);
    expect(elsewhere.json.data.rejected).toEqual([
      { row: 1, reason: "already_mapped_elsewhere", message: `${US(1)} is already mapped to supplier hotel A1` },
    ]);
    // Now free, US000003 can be mapped.
    const third = await put(`${base("acme")}/hotel-map`, [{ supplierHotelCode: "A5", accommodationCode: US(3) }]);
    expect(third.json.data).toEqual({ inserted: 1, updated: 0, unchanged: 0, rejected: [] });

    const all = await get(`${base("acme")}/hotel-map`);
    expect(all.json.data).toEqual({
      rows: [
        { supplierHotelCode: "A1", accommodationCode: US(1) },
        { supplierHotelCode: "A4", accommodationCode: US(4) },
        { supplierHotelCode: "A5", accommodationCode: US(3) },
        { supplierHotelCode: "A8", accommodationCode: US(8) },
      ],
      nextCursor: null,
    });
  });

  it("reads NDJSON line by line: a line that is not JSON is a rejected row, blank lines are not rows", async () => {
    const res = await putNdjson(`${base("beds")}/hotel-map`, [
      { supplierHotelCode: "B1", accommodationCode: US(1) },
      "",
      "{not json",
      { supplierHotelCode: "B2", accommodationCode: US(2) },
      "   ",
      { supplierHotelCode: "B3", accommodationCode: "NOPE" },
    ]);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
      rejected: [
        { row: 2, reason: "invalid_row", message: "not JSON" },
        { row: 4, reason: "unknown_accommodation", message: "No accommodation NOPE" },
      ],
    });
    // One-to-one per supplier, not across suppliers: acme maps US000001 too.
    expect((await get(`${base("beds")}/hotel-map?accommodationCode=${US(1)}`)).json.data.rows).toEqual([
      { supplierHotelCode: "B1", accommodationCode: US(1) },
    ]);
  });

  it("reads a streamed NDJSON body split anywhere, even inside a row", async () => {
    const text = `${JSON.stringify({ supplierHotelCode: "S1", accommodationCode: US(11) })}\n${JSON.stringify({
      supplierHotelCode: "S2",
      accommodationCode: US(12),
    })}\n`;
    const bytes = new TextEncoder().encode(text);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.slice(i * 7, i * 7 + 7));
    const res = await putStream(`${base("beds")}/hotel-map`, NDJSON, chunks);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ inserted: 2, rejected: [] });
  });

  it("is one-to-one both ways under parallel uploads: one wins, the other is refused or rejected, never a 5xx", async () => {
    const answers = await Promise.all(
      ["R1", "R2", "R3", "R4"].map((hotel) =>
        put(`${base("race")}/hotel-map`, [{ supplierHotelCode: hotel, accommodationCode: US(9) }]),
      ),
    );
    for (const answer of answers) expect([200, 409]).toContain(answer.status);
    const applied = answers.filter((a) => a.status === 200 && a.json.data.inserted === 1);
    expect(applied).toHaveLength(1);
    for (const answer of answers.filter((a) => !applied.includes(a))) {
      if (answer.status === 409) expect(answer.json.code).toBe("conflict");
      else expect(answer.json.data.rejected[0].reason).toBe("already_mapped_elsewhere");
    }
    expect((await get(`${base("race")}/hotel-map`)).json.data.rows).toHaveLength(1);
  });
});

describe("upload limits", () => {
  const rows = (n: number) => Array.from({ length: n }, () => ({}));

  it(`refuses more than ${MAX_UPLOAD_ROWS} rows as JSON or NDJSON (413), and takes exactly that many`, async () => {
    const json = await put(`${base("limits")}/hotel-map`, rows(MAX_UPLOAD_ROWS + 1));
    expect(json.status).toBe(413);
    expect(json.json).toMatchObject({
      code: "body_too_large",
      message: `Request body too large: the limit is ${MAX_UPLOAD_ROWS} rows`,
    });
    const ndjson = await putNdjson(`${base("limits")}/hotel-map`, rows(MAX_UPLOAD_ROWS + 1));
    expect(ndjson.status).toBe(413);
    expect(ndjson.json.message).toBe(`Request body too large: the limit is ${MAX_UPLOAD_ROWS} rows`);
    // Exactly the limit is read (the reader alone: an answer rejecting 50,000 rows is slow to check).
    const full = new Request("https://edgestay.test/", {
      method: "PUT",
      headers: { "content-type": NDJSON },
      body: `${rows(MAX_UPLOAD_ROWS)
        .map((row) => JSON.stringify(row))
        .join("\n")}\n\n`,
    });
    expect(await readUploadRows(full)).toHaveLength(MAX_UPLOAD_ROWS);
  });

  it(`refuses more than ${MAX_UPLOAD_BYTES} bytes, declared or counted in the stream, and takes more than 1 MiB`, async () => {
    const over = `${" ".repeat(MAX_UPLOAD_BYTES - 1)}[]`;
    const declared = await call("PUT", `${base("limits")}/hotel-map`, undefined, {
      ...OPERATOR,
      headers: { ...OPERATOR.headers, "content-type": "application/json", "content-length": String(over.length) },
      raw: over,
    });
    expect(declared.status).toBe(413);
    expect(declared.json.message).toBe(`Request body too large: the limit is ${MAX_UPLOAD_BYTES} bytes`);

    const megabyte = new Uint8Array(1024 * 1024).fill(0x20);
    const streamed = await putStream(`${base("limits")}/hotel-map`, NDJSON, [
      ...Array.from({ length: 8 }, () => megabyte.slice()),
      new TextEncoder().encode("\n{}"),
    ]);
    expect(streamed.status).toBe(413);
    expect(streamed.json.code).toBe("body_too_large");

    // 2 MiB of padding around one row: past the 1 MiB every other route keeps.
    const padded = `[${" ".repeat(2 * 1024 * 1024)}${JSON.stringify({ supplierHotelCode: "L1", accommodationCode: US(15) })}]`;
    const big = await call("PUT", `${base("limits")}/hotel-map`, undefined, {
      ...OPERATOR,
      headers: { ...OPERATOR.headers, "content-type": "application/json" },
      raw: padded,
    });
    expect(big.status).toBe(200);
    expect(big.json.data.inserted).toBe(1);
  });

  it("keeps 1 MiB on every other body route, the board map of the same supplier included", async () => {
    const res = await put(`${base("limits")}/board-map`, { SA: "RO", pad: "x".repeat(MAX_BODY_BYTES) });
    expect(res.status).toBe(413);
    expect(res.json.message).toBe(`Request body too large: the limit is ${MAX_BODY_BYTES} bytes`);
  });

  it("refuses another content type, malformed JSON and a body that is not an array (400)", async () => {
    const text = await call("PUT", `${base("limits")}/hotel-map`, undefined, {
      ...OPERATOR,
      headers: { ...OPERATOR.headers, "content-type": "text/csv" },
      raw: "a,b",
    });
    expect(text.status).toBe(400);
    expect(text.json.code).toBe("unsupported_content_type");
    const malformed = await call("PUT", `${base("limits")}/hotel-map`, undefined, {
      ...OPERATOR,
      headers: { ...OPERATOR.headers, "content-type": "application/json" },
      raw: "[{",
    });
    expect(malformed.json.code).toBe("malformed_json");
    const object = await put(`${base("limits")}/hotel-map`, { supplierHotelCode: "X", accommodationCode: US(1) });
    expect(object.status).toBe(400);
    expect(object.json.message).toBe("Request body: must be an array of rows");
  });
});

describe("GET and DELETE /api/operator/suppliers/{code}/hotel-map", () => {
  it("pages in supplier hotel code order with nextCursor, and filters by either code", async () => {
    await put(
      `${base("pager")}/hotel-map`,
      [5, 4, 3, 2, 1].map((n) => ({ supplierHotelCode: `P${n}`, accommodationCode: US(n) })),
    );
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<typeof get>> = await get(
        `${base("pager")}/hotel-map?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.json.data.rows.map((r: { supplierHotelCode: string }) => r.supplierHotelCode));
      cursor = page.json.data.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(["P1", "P2", "P3", "P4", "P5"]);
    expect(pages).toBe(3);
    expect((await get(`${base("pager")}/hotel-map?supplierHotelCode=P4`)).json.data.rows).toEqual([
      { supplierHotelCode: "P4", accommodationCode: US(4) },
    ]);
    expect((await get(`${base("pager")}/hotel-map?accommodationCode=${US(2)}`)).json.data.rows).toEqual([
      { supplierHotelCode: "P2", accommodationCode: US(2) },
    ]);
    const bad = await get(`${base("pager")}/hotel-map?cursor=nonsense`);
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("invalid_cursor");
  });

  it("deletes one mapping with its room map; deleting it again is 404", async () => {
    await put(`${base("pager")}/hotel-map`, [{ supplierHotelCode: "P9", accommodationCode: US(10) }]);
    const [room] = await roomsOf(US(10));
    await put(`${base("pager")}/room-map`, [{ supplierHotelCode: "P9", supplierRoomCode: "DBL", roomCode: room }]);
    const gone = await call("DELETE", `${base("pager")}/hotel-map/P9`, undefined, OPERATOR);
    expect(gone.status).toBe(204);
    expect((await get(`${base("pager")}/room-map?supplierHotelCode=P9`)).json.data.rows).toEqual([]);
    const again = await call("DELETE", `${base("pager")}/hotel-map/P9`, undefined, OPERATOR);
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({
      code: "hotel_mapping_not_found",
      message: "Supplier pager has no mapping of hotel P9",
    });
  });
});

describe("a supplier erased takes its maps", () => {
  it("DELETE /api/operator/suppliers/{code} of a supplier without bookings erases its hotel, room and board maps", async () => {
    await addSupplier("erased");
    await put(`${base("erased")}/hotel-map`, [{ supplierHotelCode: "E1", accommodationCode: US(1) }]);
    const [room] = await roomsOf(US(1));
    await put(`${base("erased")}/room-map`, [{ supplierHotelCode: "E1", supplierRoomCode: "DBL", roomCode: room }]);
    await put(`${base("erased")}/board-map`, { SA: "RO" });
    const erased = await call("DELETE", base("erased"), undefined, OPERATOR);
    expect(erased.status).toBe(200);
    // A new supplier of the same code starts with no maps.
    await addSupplier("erased");
    expect((await get(`${base("erased")}/hotel-map`)).json.data.rows).toEqual([]);
    expect((await get(`${base("erased")}/room-map`)).json.data.rows).toEqual([]);
    expect((await get(`${base("erased")}/board-map`)).json.data).toEqual({});
  });
});

describe("board and room maps", () => {
  it("replaces the whole board map and reads it back; only Edgestay's boards are targets", async () => {
    expect((await get(`${base("rooms")}/board-map`)).json.data).toEqual({});
    const first = await put(`${base("rooms")}/board-map`, { SA: "RO", AD: "BB", MP: "HB", PC: "FB", TI: "AI" });
    expect(first.status).toBe(200);
    expect(first.json.data).toEqual({ AD: "BB", MP: "HB", PC: "FB", SA: "RO", TI: "AI" });
    const replaced = await put(`${base("rooms")}/board-map`, { BB: "BB" });
    expect(replaced.json.data).toEqual({ BB: "BB" });
    expect((await get(`${base("rooms")}/board-map`)).json.data).toEqual({ BB: "BB" });
    const wrong = await put(`${base("rooms")}/board-map`, { SA: "XX" });
    expect(wrong.status).toBe(400);
    expect(wrong.json.code).toBe("invalid_request");
    // A supplier's codes as it writes them (R/O, B&B): any printable text; a control character or an edge space is not.
    const written = await put(`${base("rooms")}/board-map`, { "R/O": "RO", "B&B": "BB", "Half board": "HB" });
    expect([written.status, written.json.data]).toEqual([200, { "B&B": "BB", "Half board": "HB", "R/O": "RO" }]);
    for (const code of [" BB", "BB ", "B\u0000B", ""]) {
      const refused = await put(`${base("rooms")}/board-map`, { [code]: "BB" });
      expect([code, refused.status]).toEqual([code, 400]);
    }
  });

  it("maps a mapped hotel's rooms to that accommodation's rooms, rejecting the rest by row", async () => {
    await put(`${base("rooms")}/hotel-map`, [
      { supplierHotelCode: "H1", accommodationCode: US(1) },
      { supplierHotelCode: "H2", accommodationCode: US(2) },
    ]);
    const rooms1 = await roomsOf(US(1));
    const first = await put(`${base("rooms")}/room-map`, [
      { supplierHotelCode: "H1", supplierRoomCode: "DBL", roomCode: rooms1[0] },
      { supplierHotelCode: "H1", supplierRoomCode: "DBL-NR", roomCode: rooms1[0] },
      { supplierHotelCode: "H9", supplierRoomCode: "DBL", roomCode: "STD" },
      { supplierHotelCode: "H1", supplierRoomCode: "SUITE", roomCode: "PENTHOUSE" },
      { supplierHotelCode: "H1", supplierRoomCode: "DBL", roomCode: rooms1[0] },
    ]);
    expect(first.json.data).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
      rejected: [
        { row: 3, reason: "hotel_not_mapped", message: "Supplier hotel H9 is not in this supplier's hotel map" },
        { row: 4, reason: "unknown_room", message: `${US(1)} has no room PENTHOUSE (its rooms: ${rooms1.join(", ")})` },
        {
          row: 5,
          reason: "duplicate_in_upload",
          message: "supplierHotelCode and supplierRoomCode H1 DBL is also on row 1",
        },
      ],
    });
    const second = await putNdjson(`${base("rooms")}/room-map`, [
      { supplierHotelCode: "H1", supplierRoomCode: "DBL", roomCode: rooms1.at(-1) },
      { supplierHotelCode: "H1", supplierRoomCode: "DBL-NR", roomCode: rooms1[0] },
    ]);
    expect(second.json.data).toEqual({ inserted: 0, updated: 1, unchanged: 1, rejected: [] });
    const page = await get(`${base("rooms")}/room-map?limit=1`);
    expect(page.json.data.rows).toEqual([
      { supplierHotelCode: "H1", supplierRoomCode: "DBL", roomCode: rooms1.at(-1) },
    ]);
    const next = await get(`${base("rooms")}/room-map?limit=1&cursor=${page.json.data.nextCursor}`);
    expect(next.json.data).toEqual({
      rows: [{ supplierHotelCode: "H1", supplierRoomCode: "DBL-NR", roomCode: rooms1[0] }],
      nextCursor: null,
    });

    // Mapped to another accommodation, a hotel's room map goes: those were the other one's rooms.
    const moved = await put(`${base("rooms")}/hotel-map`, [{ supplierHotelCode: "H1", accommodationCode: US(6) }]);
    expect(moved.json.data.updated).toBe(1);
    expect((await get(`${base("rooms")}/room-map`)).json.data.rows).toEqual([]);
  });

  it("reads every map of a search's accommodations and suppliers in one statement, any number of codes", async () => {
    await put(`${base("rooms")}/board-map`, { SA: "RO", AD: "BB" });
    // The test above left H1 on US000006 and H2 on US000002 (and pager's P1 to P5 on US000001 to 5).
    const rooms2 = await roomsOf(US(2));
    await put(`${base("rooms")}/room-map`, [
      { supplierHotelCode: "H2", supplierRoomCode: "TWIN", roomCode: rooms2[0] },
    ]);
    let statements = 0;
    const counting = new Proxy(env.DB, {
      get(target, name, receiver) {
        if (name === "prepare") {
          statements++;
          return target.prepare.bind(target);
        }
        const value = Reflect.get(target, name, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    // 150 codes and 3 suppliers: more than D1's 100 bound parameters would allow one by one.
    const codes = Array.from({ length: 150 }, (_, i) => US(i + 1));
    const maps = await supplierMapsOf(database(counting), ["rooms", "pager", "nobody"], codes);
    expect(statements).toBe(1);
    const rooms = maps.get("rooms")!;
    expect(rooms.hotelCodes.get(US(2))).toBe("H2");
    expect(rooms.hotelCodes.get(US(6))).toBe("H1");
    expect(rooms.accommodations.get("H2")).toBe(US(2));
    expect(rooms.rooms.get("H2")).toEqual(new Map([["TWIN", rooms2[0]]]));
    expect(rooms.boards).toEqual(
      new Map([
        ["AD", "BB"],
        ["SA", "RO"],
      ]),
    );
    expect(maps.get("pager")!.hotelCodes.get(US(5))).toBe("P5");
    expect(maps.get("nobody")).toEqual({
      hotelCodes: new Map(),
      accommodations: new Map(),
      rooms: new Map(),
      boards: new Map(),
    });
    // Each map is sought through an index, never scanned, whatever the codes.
    const plan = await queryPlan(supplierMapsQuery(db(), ["rooms", "pager"], codes).toSQL());
    expect(plan).not.toMatch(/\bSCAN supplier_/);
    expect(plan).toContain("SEARCH supplier_hotel_map USING INDEX supplier_hotel_map_accommodation");
    expect(plan).toMatch(/SEARCH supplier_room_map USING (INDEX sqlite_autoindex_supplier_room_map_1|PRIMARY KEY)/);
    expect(plan).toMatch(/SEARCH supplier_board_map USING (INDEX sqlite_autoindex_supplier_board_map_1|PRIMARY KEY)/);
    // Only the accommodations asked: US000006 left out, H1 is not in the answer.
    const narrow = await supplierMapsOf(db(), ["rooms"], [US(2)]);
    expect([...narrow.get("rooms")!.hotelCodes.keys()]).toEqual([US(2)]);
  });
});

describe("who may call", () => {
  const routes = [
    ["PUT", "hotel-map", []],
    ["GET", "hotel-map", undefined],
    ["DELETE", "hotel-map/X", undefined],
    ["PUT", "board-map", {}],
    ["GET", "board-map", undefined],
    ["PUT", "room-map", []],
    ["GET", "room-map", undefined],
  ] as const;

  it.each(routes)("%s %s: an unknown or deleted supplier is 404", async (method, path, body) => {
    for (const supplier of ["nobody", "gone"]) {
      const res = await call(method, `${base(supplier)}/${path}`, body, OPERATOR);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ code: "supplier_not_found", message: `Supplier ${supplier} not found` });
    }
  });

  it.each(routes)(
    "%s %s: a partner's API key or login token is refused (operator only)",
    async (method, path, body) => {
      const withKey = await call(method, `${base("acme")}/${path}`, body, { apiKey: DEMO_KEY });
      expect(withKey.status).toBe(401);
      expect(withKey.json.code).toBe("operator_token_required");
      const withToken = await call(method, `${base("acme")}/${path}`, body, bearer(await demoAdminToken()));
      expect(withToken.status).toBe(403);
      expect(withToken.json.code).toBe("invalid_operator_token");
    },
  );
});
