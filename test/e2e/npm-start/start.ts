import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { quietWranglerEnv, wranglerBin } from "../../../local/platform";
import { freePort } from "../../../local/server";
import {
  DEMO,
  DEMO_OPERATOR_TOKEN,
  DEMO_SAVED_CARD,
  DEMO_SUPPLIERS_CONNECTION,
  SANDBOX_DEFAULT_PORT,
  sandboxSupplierUrl,
} from "../../support/accounts";
import { SANDBOX_SUPPLIER_MAPS } from "../../support/seed-suppliers";
import { npmStart } from "./server";

const root = resolve(import.meta.dirname, "../../..");

/**
 * Every request on a connection of its own (Connection: close). The calls here come seconds apart,
 * while the servers are started, stopped and restarted; a pooled socket the server closed meanwhile
 * failed a request with "other side closed" (seen twice on a loaded machine, on the upkeep call).
 */
const fetch: typeof globalThis.fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("connection", "close");
  return globalThis.fetch(input, { ...init, headers });
};

/** Until `url` answers with a status `isReady` accepts (a 2xx unless told). */
const waitFor = async (url: string, child: ChildProcess, ms: number, isReady = (res: Response) => res.ok) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited early with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (isReady(res)) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} not ready within ${ms} ms`);
};

const processesUsing = (marker: string) =>
  execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && !line.includes("ps -eo"));

describe("npm start, out of process", () => {
  // The shared npm start's, read once it runs (test/e2e/npm-start.test.ts).
  let child: ChildProcess;
  let base: string;
  let stateDir: string;
  let sandboxPort: number;
  const server = () => npmStart();

  beforeAll(() => {
    ({ child, base, stateDir, sandboxPort } = npmStart());
  });

  it("serves seeded content over HTTP with the demo key, as README shows", async () => {
    const res = await fetch(`${base}/api/v1/content/accommodations`, {
      method: "POST",
      headers: { "content-type": "application/json", "api-key": DEMO.apiKey.key },
      body: JSON.stringify({ size: 2 }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = (await res.json()) as any;
    expect(body.message).toBe("success");
    expect(body.data.accommodations.map((a: { code: string }) => a.code)).toEqual(["US000001", "US000002"]);
    const next = await fetch(`${base}/api/v1/content/accommodations`, {
      method: "POST",
      headers: { "content-type": "application/json", "api-key": DEMO.apiKey.key },
      body: JSON.stringify({ pageToken: body.data.nextPageToken }),
    });
    expect(((await next.json()) as any).data.accommodations[0].code).toBe("US000003");
  });

  it("books README's PayAtProperty example with the seeded demo card: nothing charged, the card kept masked", async () => {
    const core = (path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "content-type": "application/json", "api-key": DEMO.apiKey.key },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (res) => ({ status: res.status, json: (await res.json()) as any }));
    const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    const stay = {
      accommodation: { code: "US000003" },
      occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
      checkIn: day(30),
      checkOut: day(32),
    };
    const settings = { access: { code: 1001 } };
    const found = await core("/api/search", {
      searchCriteria: {
        destinations: { accommodations: [stay.accommodation] },
        occupancies: stay.occupancies,
        checkIn: stay.checkIn,
        checkOut: stay.checkOut,
      },
      settings,
    });
    const option = found.json.data.accommodations[0].options.find((o: any) => o.paymentType === "PayAtProperty");
    const quote = await core("/api/quote", {
      quoteCriteria: { optionId: option.id, paymentType: "PayAtProperty", ...stay },
      settings,
    });
    expect(quote.status).toBe(200);
    const card = DEMO_SAVED_CARD;
    const booked = await core("/api/book", {
      bookCriteria: {
        quoteId: quote.json.data.id,
        accommodation: stay.accommodation,
        partnerReference: `e2e-pah-${Date.now()}`,
        paymentType: "PayAtProperty",
        paymentCard: { actorId: card.actorId, paymentMethodId: card.paymentMethodId },
        holder: { name: "Ada", surName: "Lovelace" },
        checkIn: stay.checkIn,
        checkOut: stay.checkOut,
      },
      settings,
    });
    expect(booked.status, JSON.stringify(booked.json)).toBe(200);
    expect(booked.json.data).toMatchObject({ chargeTotal: 0, paymentType: "PayAtProperty" });
    const read = await core(`/api/bookings/${booked.json.data.bookingReference}`);
    expect(read.json.data.paymentCard).toEqual({
      paymentMethodId: card.paymentMethodId,
      brand: card.brand,
      last4: card.last4,
    });
  });

  it("says each thing once: one migration line, no false types warning, one log line per request", async () => {
    expect(server().output.match(/^D1 migrations: applied \d+ \(\d+ in migrations\/\)\.$/gm)).toHaveLength(1);
    expect(server().output).not.toContain("┌");
    expect(server().output).not.toContain("types might be out of date");
    expect(server().output).toContain(
      `Sandbox Hotel-X supplier (connection 1002) starting on http://127.0.0.1:${sandboxPort}.`,
    );
    const res = await fetch(`${base}/health`);
    const requestId = res.headers.get("x-request-id")!;
    const deadline = Date.now() + 5_000;
    while (!server().output.includes(requestId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(
      server()
        .output.split("\n")
        .filter((line) => line.includes(requestId)),
    ).toHaveLength(1);
    expect(server().output).not.toMatch(/\[wrangler:info\] GET \/health 200/);
  });

  it("records the migrations as wrangler does: its own command finds none to apply", () => {
    const listed = execFileSync(
      process.execPath,
      [wranglerBin, "d1", "migrations", "list", "DB", "--local", "--persist-to", stateDir],
      { cwd: root, env: { ...quietWranglerEnv(), WRANGLER_LOG: "log" }, encoding: "utf8" },
    );
    expect(listed).toContain("No migrations to apply");
  });

  it("runs the upkeep on demand with the command it prints (every task logs its line)", async () => {
    const printed = /Run the hourly upkeep now: curl "([^"]+)"/.exec(server().output)?.[1];
    expect(printed).toBe(`${base}/__scheduled?cron=17+*+*+*+*`);
    expect(server().output).not.toContain("/cdn-cgi/handler/scheduled");
    const before = server().output.length;
    const res = await fetch(printed!);
    expect(res.status).toBe(200);
    const deadline = Date.now() + 10_000;
    const ran = () =>
      server()
        .output.slice(before)
        .match(/"event":"upkeep","task":"[^"]+"/g) ?? [];
    while (!server().output.slice(before).includes('"task":"expired-holds"') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(ran()).toEqual(
      expect.arrayContaining(['"event":"upkeep","task":"expired-quotes"', '"event":"upkeep","task":"expired-holds"']),
    );
  });

  it("seeds connection 1003: the sandbox's three suppliers on this start's sandbox port, their maps, sold with embedded in USD", async () => {
    const operator = (path: string) =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${DEMO_OPERATOR_TOKEN}` } }).then(async (res) => ({
        status: res.status,
        json: (await res.json()) as any,
      }));
    const { connection, suppliers } = DEMO_SUPPLIERS_CONNECTION;
    const sold = await operator(`/api/connections/${connection.id}/suppliers`);
    expect(sold.status, JSON.stringify(sold.json)).toBe(200);
    expect(sold.json.data.suppliers).toEqual([{ code: "embedded" }, ...suppliers.map((code) => ({ code }))]);
    expect((await operator(`/api/connections/${connection.id}`)).json.data).toMatchObject({
      code: connection.code,
      partnerId: "demo",
      currency: "USD",
      currentInUse: true,
    });
    // Every row of each truth map, counted page by page (1,000 a page at most).
    const rowsOf = async (path: string) => {
      let rows = 0;
      let cursor: string | null = null;
      do {
        const page = await operator(`${path}?limit=1000${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.status, JSON.stringify(page.json)).toBe(200);
        rows += page.json.data.rows.length;
        cursor = page.json.data.nextCursor;
      } while (cursor);
      return rows;
    };
    for (const code of suppliers) {
      const supplier = (await operator(`/api/operator/suppliers/${code}`)).json.data;
      expect(supplier).toMatchObject({
        kind: "hotelx",
        active: true,
        settings: { url: sandboxSupplierUrl(code, sandboxPort), hotelCodes: "mapped" },
        credentials: { apiKey: "********" },
      });
      const truth = SANDBOX_SUPPLIER_MAPS[code]!;
      expect([code, await rowsOf(`/api/operator/suppliers/${code}/hotel-map`)]).toEqual([code, truth.hotels.length]);
      expect([code, await rowsOf(`/api/operator/suppliers/${code}/room-map`)]).toEqual([code, truth.rooms.length]);
      expect((await operator(`/api/operator/suppliers/${code}/board-map`)).json.data).toEqual(truth.boards);
    }
  });

  it("serves static assets and the docs", async () => {
    expect((await fetch(`${base}/docs`)).status).toBe(200);
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
  });

  it("every page says which version answered, as the Worker does (wrangler's own asset routing)", async () => {
    const version = (await fetch(`${base}/health`)).headers.get("x-edgestay-version");
    expect(version).toMatch(/\S/);
    for (const page of ["/", "/docs", "/index.html", "/docs.html", "/card-setup"]) {
      const res = await fetch(`${base}${page}`, { redirect: "manual" });
      expect([page, res.headers.get("x-edgestay-version")]).toEqual([page, version]);
    }
  });

  it("stops every process it started on Ctrl-C (SIGINT to the job's process group)", async () => {
    expect(processesUsing(stateDir).length).toBeGreaterThan(0);
    const exited = new Promise<void>((ok) => child.on("exit", () => ok()));
    process.kill(-child.pid!, "SIGINT");
    await exited;
    const deadline = Date.now() + 10_000;
    while (processesUsing(stateDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(processesUsing(stateDir)).toEqual([]);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
  });

  // The same state folder, already migrated and seeded (the demo data is not seeded again), on
  // another sandbox port: connection 1002 follows it.
  it("on a restart with another sandbox port, points connection 1002 at it; stops wrangler and workerd when only the start process gets SIGINT (as a supervisor or a backgrounded job would send)", async () => {
    const port = await freePort();
    // The sandbox's default port taken (by this test when nothing else holds it): the start picks
    // another, as it does for the API's, instead of failing or sharing it.
    const holder = createServer().on("error", () => {});
    await new Promise<void>((ok) =>
      holder.listen(SANDBOX_DEFAULT_PORT, "127.0.0.1", () => ok()).once("error", () => ok()),
    );
    // The first start's sandbox port held too (a listener that never answers HTTP), so this start
    // surely serves its sandbox elsewhere, and a 1002 left on the old URL could not reach a sandbox.
    const oldSandbox = createServer().on("error", () => {});
    await new Promise<void>((ok) => oldSandbox.listen(sandboxPort, "127.0.0.1", () => ok()).once("error", () => ok()));
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), EDGESTAY_STATE_DIR: stateDir };
    delete (env as NodeJS.ProcessEnv).HOTELX_SANDBOX_PORT;
    const restarted = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let restartOutput = "";
    restarted.stdout!.on("data", (d) => (restartOutput += d));
    restarted.stderr!.on("data", (d) => (restartOutput += d));
    try {
      await waitFor(`http://127.0.0.1:${port}/health`, restarted, 100_000).catch((e) => {
        throw new Error(`${e.message}\n${restartOutput}`);
      });
      const newSandboxPort = Number(
        /Sandbox Hotel-X supplier \(connection 1002\) starting on http:\/\/127\.0\.0\.1:(\d+)\./.exec(
          restartOutput,
        )?.[1],
      );
      expect(newSandboxPort).not.toBe(sandboxPort);
      const upstream = await fetch(`http://127.0.0.1:${port}/api/connections/con_demo_hotelx/upstream`, {
        headers: { authorization: `Bearer ${DEMO_OPERATOR_TOKEN}` },
      });
      expect(((await upstream.json()) as any).data.url).toBe(`http://127.0.0.1:${newSandboxPort}/`);
      // Connection 1003's suppliers follow too (the seed ran again on the same state: its maps unchanged).
      const iberbeds = await fetch(`http://127.0.0.1:${port}/api/operator/suppliers/iberbeds`, {
        headers: { authorization: `Bearer ${DEMO_OPERATOR_TOKEN}` },
      });
      expect(((await iberbeds.json()) as any).data.settings.url).toBe(sandboxSupplierUrl("iberbeds", newSandboxPort));
      expect(restartOutput).toMatch(
        /^Connection 1003: embedded, iberbeds, roomnexus, albion in USD; 334 supplier hotels mapped\.$/m,
      );
      await waitFor(`http://127.0.0.1:${newSandboxPort}/`, restarted, 60_000, () => true);
      const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
      const found = await fetch(`http://127.0.0.1:${port}/api/search`, {
        method: "POST",
        headers: { "content-type": "application/json", "api-key": DEMO.apiKey.key },
        body: JSON.stringify({
          searchCriteria: {
            destinations: { accommodations: [{ code: "HX001" }] },
            occupancies: [{ paxes: [{ age: 30 }, { age: 30 }] }],
            checkIn: day(30),
            checkOut: day(32),
          },
          settings: { access: { code: 1002 } },
        }),
      });
      const searched = (await found.json()) as any;
      expect(found.status, JSON.stringify(searched)).toBe(200);
      expect(
        searched.data.accommodations.map((a: any) => a.accommodationCode),
        JSON.stringify(searched),
      ).toEqual(["HX001"]);
      expect(processesUsing(stateDir).length).toBeGreaterThan(0);
      const exited = new Promise<void>((ok) => restarted.on("exit", () => ok()));
      restarted.kill("SIGINT");
      await exited;
      const deadline = Date.now() + 10_000;
      while (processesUsing(stateDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect(processesUsing(stateDir)).toEqual([]);
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    } finally {
      holder.close();
      oldSandbox.close();
      if (restarted.exitCode === null) restarted.kill("SIGKILL");
      for (const line of processesUsing(stateDir)) process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
    }
  });
});
