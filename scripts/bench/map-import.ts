import { join } from "node:path";
import { bootstrap, LARGE_ACCOMMODATIONS } from "../../local/bootstrap";
import { devVar, root } from "../../local/platform";
import { startLocalServer } from "../../local/server";
import { accommodationCode } from "../../test/support/accommodations";

// Issue 39 item 3: 100,000 hotel-map rows (two uploads of 50,000, the per-call limit) imported
// locally in under 30 s. Run: node --import tsx scripts/bench/map-import.ts (seeds the 100,000
// demo accommodations into .wrangler/bench-100000 on its first run, as `npm run bench -- --large` does).
const SUPPLIER = "bench-maps";
const ROWS = 100_000;
const PER_CALL = 50_000;

const stateDir = join(root, ".wrangler", `bench-${LARGE_ACCOMMODATIONS}`);
await bootstrap(LARGE_ACCOMMODATIONS, stateDir, async (db) => {
  // A supplier of its own, its maps emptied, so every run imports the same 100,000 new rows.
  await db.batch([
    db
      .prepare(
        "INSERT OR IGNORE INTO suppliers (code, kind, name, settings, seal_binding) VALUES (?, 'hotelx', ?, '{}', ?)",
      )
      .bind(SUPPLIER, "Bench maps", SUPPLIER),
    db.prepare("DELETE FROM supplier_hotel_map WHERE supplier_code = ?").bind(SUPPLIER),
  ]);
});

const server = await startLocalServer(stateDir);
const operator = { authorization: `Bearer ${devVar("OPERATOR_TOKEN")}` };
try {
  const ndjson = (from: number) =>
    Array.from({ length: PER_CALL }, (_, i) =>
      JSON.stringify({ supplierHotelCode: `BM-${from + i}`, accommodationCode: accommodationCode(from + i) }),
    ).join("\n");
  const upload = async (label: string, from: number) => {
    const body = ndjson(from);
    const started = performance.now();
    const res = await fetch(`${server.base}/api/operator/suppliers/${SUPPLIER}/hotel-map`, {
      method: "PUT",
      headers: { ...operator, "content-type": "application/x-ndjson" },
      body,
    });
    const answer = (await res.json()) as {
      data?: { inserted: number; updated: number; unchanged: number; rejected: unknown[] };
    };
    const ms = performance.now() - started;
    if (res.status !== 200 || !answer.data) throw new Error(`${label}: ${res.status} ${JSON.stringify(answer)}`);
    const { inserted, updated, unchanged, rejected } = answer.data;
    console.log(
      `${label}: ${(ms / 1000).toFixed(2)} s, ${(body.length / 1024 / 1024).toFixed(2)} MiB, inserted ${inserted}, updated ${updated}, unchanged ${unchanged}, rejected ${rejected.length}`,
    );
    return ms;
  };
  let total = 0;
  for (let from = 1; from <= ROWS; from += PER_CALL)
    total += await upload(`new rows ${from}-${from + PER_CALL - 1}`, from);
  console.log(`100,000 new rows: ${(total / 1000).toFixed(2)} s (target under 30 s)`);
  let again = 0;
  for (let from = 1; from <= ROWS; from += PER_CALL)
    again += await upload(`same rows ${from}-${from + PER_CALL - 1}`, from);
  console.log(`100,000 rows again (all unchanged): ${(again / 1000).toFixed(2)} s`);
} finally {
  await server.stop();
}
