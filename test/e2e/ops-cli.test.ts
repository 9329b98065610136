import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalWorker, type LocalWorker } from "../support/local-worker";

const root = resolve(import.meta.dirname, "../..");
const OPERATOR_TOKEN = "demo-operator-token";
const run = promisify(execFile);

let worker: LocalWorker;
let base: string;
// Beside scripts/ops.ts, so that its `../package.json` is the project's; git-ignored.
const cli = join(root, "scripts", `.ops-cli-${process.pid}.mjs`);

/**
 * Runs the CLI as `npm run ops -- <args>` does, returning exit code and output: scripts/ops.ts in its
 * own Node process, bundled once by esbuild (it imports only `node:` modules) rather than loaded
 * through tsx on each of the file's 40 runs (about 0.45 CPU s each, 0.1 bundled). README's blocks
 * (test/e2e/npm-start/readme.ts) run it through `npm run ops` itself.
 */
const ops = async (args: string[], env: Record<string, string> = {}) => {
  try {
    const { stdout, stderr } = await run(process.execPath, [cli, ...args], {
      cwd: root,
      env: { ...process.env, EDGESTAY_URL: base, EDGESTAY_OPERATOR_TOKEN: OPERATOR_TOKEN, ...env },
    });
    let data = null;
    try {
      data = JSON.parse(stdout);
    } catch {
      /* help text */
    }
    return { code: 0, stdout, stderr, data };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr, data: null };
  }
};

const api = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(init.body !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, json: (await res.json()) as any };
};

beforeAll(async () => {
  const [started] = await Promise.all([
    startLocalWorker(),
    build({
      entryPoints: [join(root, "scripts/ops.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: cli,
      logLevel: "warning",
    }),
  ]);
  worker = started;
  base = worker.url;
});

afterAll(async () => {
  await worker?.stop();
  rmSync(cli, { force: true });
});

describe("operator CLI against a running Worker", () => {
  it("onboards a partner whose admin logs in, creates a user and an API key, and calls content with it", async () => {
    expect((await ops(["--help"])).stdout).toContain("partners create");

    const onboarded = await ops([
      "partners",
      "create",
      "--id",
      "e2e-travel",
      "--name",
      "E2E Travel",
      "--admin-email",
      "owner@e2e.test",
      "--admin-password",
      "owner-password",
      "--key-name",
      "first key",
    ]);
    expect(onboarded.code, onboarded.stderr).toBe(0);
    expect(onboarded.stderr).toContain("not shown again");
    expect(onboarded.data.partner).toMatchObject({ id: "e2e-travel", name: "E2E Travel" });
    expect(onboarded.data.admin).toMatchObject({ email: "owner@e2e.test", role: "admin" });
    const firstKey = onboarded.data.apiKey.apiKey as string;

    const listed = await ops(["partners", "list"]);
    expect(listed.data.items.map((p: { id: string }) => p.id)).toContain("e2e-travel");

    // The admin logs in with the MD5 of the password, as clients do.
    const md5 = createHash("md5").update("owner-password").digest("hex");
    const login = await api("POST", "/api/auth/login", {
      body: { accountType: "email", accountValue: "owner@e2e.test", password: md5 },
    });
    expect(login.status).toBe(200);
    const auth = { authorization: `Bearer ${login.json.data.token.accessToken}` };

    const user = await api("POST", "/api/users", {
      headers: auth,
      body: { email: "agent@e2e.test", password: createHash("md5").update("agent").digest("hex"), role: "user" },
    });
    expect(user.status).toBe(201);
    const key = await api("POST", "/api/partner/api-keys", { headers: auth, body: { name: "booking server" } });
    expect(key.status).toBe(201);

    for (const apiKey of [firstKey, key.json.data.apiKey]) {
      const content = await api("POST", "/api/v1/content/accommodations", {
        headers: { "api-key": apiKey },
        body: { size: 1 },
      });
      expect(content.status).toBe(200);
      expect(content.json.message).toBe("success");
    }

    // The partner's first connection, made by the operator, shows up for the partner.
    const connection = await ops([
      "connections",
      "create",
      "--partner",
      "e2e-travel",
      "--api-type",
      "b2b",
      "--connection-type",
      "direct",
      "--rate-limit",
      "60",
      "--window-ms",
      "60000",
      "--in-use",
    ]);
    expect(connection.code, connection.stderr).toBe(0);
    const mine = await api("GET", "/api/partners/e2e-travel/connections", { headers: auth });
    expect(mine.json.data.map((c: { code: number }) => c.code)).toEqual([connection.data.code]);
  });

  it("manages connections: create, list, get, update, enable, disable, delete, with clear errors", async () => {
    const made = await ops([
      "connections",
      "create",
      "--partner",
      "e2e-travel",
      "--api-type",
      "cug",
      "--connection-type",
      "tgx",
      "--rate-limit",
      "10",
      "--window-ms",
      "1000",
      "--rate-name",
      "CUG",
    ]);
    expect(made.code, made.stderr).toBe(0);
    const id = made.data.id as string;
    expect(made.data).toMatchObject({
      apiType: "cug",
      connectionType: "tgx",
      rateName: "CUG",
      currentInUse: false,
      netMarkups: 0,
    });

    expect(
      (await ops(["connections", "list", "--partner", "e2e-travel", "--size", "1"])).data.pagination,
    ).toMatchObject({ size: 1, total: 2 });
    expect((await ops(["connections", "get", id])).data.id).toBe(id);
    expect((await ops(["connections", "update", id, "--rate-limit", "20", "--clear-rate-name"])).data).toMatchObject({
      rateLimit: 20,
      rateName: null,
    });
    expect((await ops(["connections", "enable", id])).data.currentInUse).toBe(true);

    const second = await ops([
      "connections",
      "create",
      "--partner",
      "e2e-travel",
      "--api-type",
      "cug",
      "--connection-type",
      "tgx",
      "--rate-limit",
      "10",
      "--window-ms",
      "1000",
    ]);
    const clash = await ops(["connections", "enable", second.data.id]);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toContain(
      "409 Another connection is already currentInUse for this partner/apiType/connectionType",
    );

    expect((await ops(["connections", "disable", id])).data.currentInUse).toBe(false);
    expect((await ops(["connections", "delete", id])).data.id).toBe(id);
    const gone = await ops(["connections", "get", id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/404 Connection not found \(request id [\w-]+\)/);

    const noPartner = await ops([
      "connections",
      "create",
      "--partner",
      "ghost",
      "--api-type",
      "b2b",
      "--connection-type",
      "direct",
      "--rate-limit",
      "1",
      "--window-ms",
      "1",
    ]);
    expect(noPartner.code).toBe(1);
    expect(noPartner.stderr).toContain("404 Partner not found");
  });

  it("covers suppliers and the suppliers a connection sells (issue 39)", async () => {
    const body = JSON.stringify({
      code: "hotelx-cli",
      kind: "hotelx",
      name: "CLI supplier",
      settings: { url: "http://127.0.0.1:9/", client: "cli", context: "CLI", credentials: { apiKey: "cli-secret" } },
    });
    const created = await ops(["suppliers", "create", "--body", body]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.data).toMatchObject({ code: "hotelx-cli", credentials: { apiKey: "********" } });
    expect(created.stdout).not.toContain("cli-secret");
    expect((await ops(["suppliers", "list"])).data.items.map((s: any) => s.code)).toContain("hotelx-cli");
    const update = JSON.stringify({
      name: "CLI 2",
      settings: { url: "http://127.0.0.1:9/", client: "cli", context: "CLI" },
    });
    expect((await ops(["suppliers", "update", "hotelx-cli", "--body", update])).data).toMatchObject({
      name: "CLI 2",
      credentials: { apiKey: "********" },
    });
    const sold = await ops([
      "connections",
      "suppliers",
      "con_demo_b2b",
      "--supplier",
      "hotelx-cli",
      "--supplier",
      "embedded",
    ]);
    expect(sold.code, sold.stderr).toBe(0);
    expect((await ops(["connections", "suppliers", "con_demo_b2b"])).data).toEqual({
      suppliers: [{ code: "hotelx-cli" }, { code: "embedded" }],
    });
    expect((await ops(["suppliers", "delete", "hotelx-cli"])).stderr).toMatch(/^ops: 409 /);
    expect((await ops(["connections", "suppliers", "con_demo_b2b", "--supplier", "embedded"])).code).toBe(0);
    expect((await ops(["suppliers", "delete", "hotelx-cli"])).code).toBe(0);
    expect((await ops(["suppliers", "get", "hotelx-cli"])).stderr).toMatch(/^ops: 404 /);
    expect((await ops(["suppliers", "get"])).code).toBe(2);
  });

  it("covers upstreams, exchange rates, inventory and data-subject erasure", async () => {
    const upstream = await ops(["upstreams", "get", "con_demo_hotelx"]);
    expect(upstream.code, upstream.stderr).toBe(0);
    expect(upstream.data).toMatchObject({
      kind: "hotelx",
      client: "edgestay-demo",
      credentials: { apiKey: "********" },
    });
    const { url, client, context } = upstream.data;
    const body = JSON.stringify({ kind: "hotelx", url, client, context, credentials: { apiKey: "demo-hotelx-key" } });
    expect((await ops(["upstreams", "delete", "con_demo_hotelx"])).code).toBe(0);
    expect((await ops(["upstreams", "get", "con_demo_hotelx"])).stderr).toMatch(/^ops: 404 /);
    const restored = await ops(["upstreams", "set", "con_demo_hotelx", "--body", body]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.data).toMatchObject({ kind: "hotelx", url, client, context });
    expect((await ops(["upstreams", "set", "con_demo_hotelx", "--body", "[1]"])).stderr).toContain(
      "--body must be a JSON object",
    );

    const rates = await ops(["exchange-rates", "set", "--base", "USD", "--rate", "EUR=0.92", "--rate", "GBP=0.79"]);
    expect(rates.code, rates.stderr).toBe(0);
    expect((await ops(["exchange-rates", "get"])).data).toMatchObject({ base: "USD", rates: { EUR: 0.92, GBP: 0.79 } });
    expect((await ops(["exchange-rates", "set", "--base", "USD", "--rate", "EUR"])).code).toBe(2);

    // No demo accommodations in this Worker: the CLI reaches the inventory routes, which answer 404.
    const inventory = await ops(["inventory", "get", "US000001", "--from", "2027-03-10", "--to", "2027-03-12"]);
    expect(inventory.code).toBe(1);
    expect(inventory.stderr).toMatch(/^ops: 404 /);
    expect((await ops(["inventory", "room", "US000001"])).stderr).toContain("needs a ROOM code");
    expect((await ops(["inventory", "fees", "US000001"])).stderr).toContain("--body is required");

    const erased = await ops(["data-subjects", "erase", "--email", "nobody@e2e.test"]);
    expect(erased.code, erased.stderr).toBe(0);
    expect(erased.data).toEqual({ erased: { radarChecks: 0, chatSessions: 0, bookings: 0 } });
  });

  it("uploads a supplier's map files (JSON array or NDJSON) and sets its board map", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgestay-maps-"));
    const ndjson = join(dir, "hotels.ndjson");
    writeFileSync(ndjson, '{"supplierHotelCode":"E-1","accommodationCode":"US000001"}\n\n{oops\n');
    // No demo accommodations in this Worker: every well-formed row is rejected as unknown, by its number.
    const hotels = await ops(["suppliers", "hotel-map", "embedded", ndjson]);
    expect(hotels.code, hotels.stderr).toBe(0);
    expect(hotels.data).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 0,
      rejected: [
        { row: 1, reason: "unknown_accommodation", message: "No accommodation US000001" },
        { row: 2, reason: "invalid_row", message: "not JSON" },
      ],
    });
    const array = join(dir, "rooms.json");
    writeFileSync(array, JSON.stringify([{ supplierHotelCode: "E-1", supplierRoomCode: "DBL", roomCode: "STD" }]));
    const rooms = await ops(["suppliers", "room-map", "embedded", array]);
    expect(rooms.data.rejected).toEqual([
      { row: 1, reason: "hotel_not_mapped", message: "Supplier hotel E-1 is not in this supplier's hotel map" },
    ]);
    const boards = await ops(["suppliers", "board-map", "embedded", "--body", '{"SA":"RO","AD":"BB"}']);
    expect(boards.code, boards.stderr).toBe(0);
    expect((await ops(["suppliers", "board-map", "embedded"])).data).toEqual({ AD: "BB", SA: "RO" });
    expect((await ops(["suppliers", "hotel-map", "nobody", array])).stderr).toMatch(
      /^ops: 404 Supplier nobody not found/,
    );
    expect((await ops(["suppliers", "hotel-map", "embedded", join(dir, "missing.json")])).code).toBe(2);
  });

  it("refuses a flag its command does not take, says its version, and finds the server by PORT", async () => {
    const foreign = await ops(["connections", "get", "con_demo", "--partner", "demo"]);
    expect(foreign.code).toBe(2);
    expect(foreign.stderr).toContain('--partner is not an option of "connections get"');
    expect((await ops(["health", "--email", "x@y.test"])).code).toBe(2);
    const version = await ops(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe("edgestay ops 0.1.0\n");
    const byPort = await ops(["health"], { EDGESTAY_URL: "", PORT: new URL(base).port });
    expect(byPort.data).toEqual({ status: "ok" });
  });

  it("runs housekeeping and fails clearly on usage errors, bad tokens and unreachable servers", async () => {
    expect((await ops(["health"])).data).toEqual({ status: "ok" });
    expect((await ops(["login-failures", "purge"])).data).toEqual({ deleted: expect.any(Number) });

    const usage = await ops(["connections", "create", "--partner", "x"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("--api-type is required");
    expect((await ops(["connections", "frobnicate"])).code).toBe(2);
    expect((await ops(["connections", "list", "--size", "ten"])).stderr).toContain("--size must be a number");
    expect((await ops(["partners", "list", "--bogus"])).code).toBe(2);

    const badToken = await ops(["partners", "list"], { EDGESTAY_OPERATOR_TOKEN: "wrong" });
    expect(badToken.code).toBe(1);
    expect(badToken.stderr).toContain("403 Invalid operator token");
    const noToken = await ops(["partners", "list"], { EDGESTAY_OPERATOR_TOKEN: "" });
    expect(noToken.code).toBe(2);
    const down = await ops(["partners", "list", "--url", "http://127.0.0.1:9"]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("cannot reach http://127.0.0.1:9");
  });
});
