import { describe, expect, it } from "vitest";
import { architectureDocGaps } from "./architecture-doc";
import { dataAccessProblems } from "./data-access";
import { doorTableExports, tablesDefinedIn } from "./door-tables";
import { importOrderIn, importOrderProblems, importsOf, roomCycles } from "./feature-order";
import { missingPaths, namedPaths, scriptImports } from "./named-paths";
import { pagesWithoutWorker, runWorkerFirstIn } from "./static-pages";

const MARKER = "// Raw SQL: the key lookup runs in one D1 batch\n";

describe("the data-access rule", () => {
  it("accepts drizzle anywhere and raw SQL in a module whose first line says why", () => {
    expect(
      dataAccessProblems("a.ts", "const rows = await db.select().from(bookings).where(eq(bookings.id, id));"),
    ).toEqual([]);
    expect(dataAccessProblems("q.ts", `${MARKER}export const read = (d1) => d1.prepare("SELECT 1").all();`)).toEqual(
      [],
    );
  });

  it("finds raw SQL without the first line, in each form", () => {
    for (const raw of [
      'd1.prepare("SELECT * FROM bookings")',
      "state.storage.sql.exec('SELECT 1')",
      "sql.raw('DELETE FROM ' + table)",
      "await db.all(sql`SELECT 1`)",
      "await db.get<{ n: number }>(sql`SELECT count(*) AS n FROM quotes`)",
      "await db.run(\n  sql`DELETE FROM quotes`)",
    ]) {
      expect([raw, dataAccessProblems("b.ts", raw)]).toEqual([raw, [expect.stringContaining("b.ts: raw SQL outside")]]);
    }
    // The marker counts only on the first line, and only with a reason.
    expect(dataAccessProblems("c.ts", `import x from "y";\n${MARKER}d1.prepare("SELECT 1")`)).toHaveLength(1);
    expect(dataAccessProblems("d.ts", '// Raw SQL: x\nd1.prepare("SELECT 1")')).toHaveLength(1);
  });

  it("finds a row type written by hand, with its line, even in a query module", () => {
    const text = `${MARKER}const a = await s.first<{ code: string }>();\ntype BookingRow = { id: string };\ninterface PlanRow { code: string }\nconst b = await s.raw<unknown[]>();`;
    expect(dataAccessProblems("e.ts", text)).toEqual([
      expect.stringMatching(/^e\.ts:2: row type written by hand/),
      expect.stringMatching(/^e\.ts:3: /),
      expect.stringMatching(/^e\.ts:4: /),
    ]);
    expect(dataAccessProblems("f.ts", "export type HitRow = Pick<SqlRow<typeof accommodations>, 'code'>;")).toEqual([]);
  });
});

describe("doors without tables", () => {
  const files: Record<string, string> = {
    "./tables":
      'export const bookings = sqliteTable("bookings", {});\nexport const quotes = sqliteTable(\n  "quotes", {});\nexport type BookingRow = {};',
    "./bookings": "export const bookingView = (row) => row;",
  };
  const read = (specifier: string) => files[specifier] ?? null;

  it("reads the tables a room's file defines", () => {
    expect([...tablesDefinedIn(files["./tables"]!)]).toEqual(["bookings", "quotes"]);
  });

  it("accepts a door of functions and types", () => {
    const door =
      'export { bookingView } from "./bookings";\nexport type { BookingRow } from "./tables";\nexport { type BookingRow as Row } from "./tables";';
    expect(doorTableExports("src/features/booking/index.ts", door, read)).toEqual([]);
  });

  it("fails on a planted table export, named, renamed or by export *", () => {
    for (const door of [
      'export { bookingView } from "./bookings";\nexport { bookings } from "./tables";',
      'export {\n  quotes as quoteTable,\n  bookings,\n} from "./tables";',
      'export * from "./tables";',
    ])
      expect([door, doorTableExports("src/features/booking/index.ts", door, read)]).toEqual([
        door,
        expect.arrayContaining([
          "src/features/booking/index.ts: exports the drizzle table bookings; export functions that read and write it instead",
        ]),
      ]);
  });
});

describe("the architecture document check", () => {
  const doc = "Migrations: 0001_partners, 0002_booking.\n\n**booking** owns search; **chat** books.";

  it("passes when every migration and room is named", () => {
    expect(architectureDocGaps(doc, ["0001_partners", "0002_booking"], ["booking", "chat"])).toEqual([]);
  });

  it("names each migration and room left out, by whole words and bold room entries only", () => {
    expect(
      architectureDocGaps(
        doc.replace("0001_partners", "0001_partners_custom"),
        ["0001_partners", "0003_quotes"],
        ["booking", "radar"],
      ),
    ).toEqual([
      "migration 0001_partners (migrations/0001_partners.sql)",
      "migration 0003_quotes (migrations/0003_quotes.sql)",
      "room **radar** (src/features/radar/)",
    ]);
    // A room mentioned in passing is not its entry.
    expect(architectureDocGaps("the chat room", [], ["chat"])).toEqual(["room **chat** (src/features/chat/)"]);
  });
});

describe("the import order of rooms", () => {
  const order = importOrderIn("Import order: `platform < connections, partners < supply < booking < app.ts`\n")!;
  const module = (file: string, ...imports: string[]) => ({ file, imports });

  it("reads the order docs/architecture.md writes down", () => {
    expect(order).toEqual([["platform"], ["connections", "partners"], ["supply"], ["booking"], ["app.ts"]]);
    expect(importOrderIn("no order here")).toBeNull();
  });

  it("accepts imports down the order through each room's index.ts, inside a room, and of platform anywhere", () => {
    expect(
      importOrderProblems(
        [
          module("src/features/booking/book.ts", "src/features/supply/index.ts", "src/features/booking/tables.ts"),
          module("src/features/supply/index.ts", "src/features/supply/catalogue.ts", "src/platform/db/client.ts"),
          module("src/features/supply/catalogue.ts", "src/features/connections/index.ts"),
          module("src/app.ts", "src/features/booking/index.ts", "src/platform/http/router.ts"),
          module("src/platform/http/router.ts", "src/platform/http/errors.ts"),
        ],
        order,
      ),
    ).toEqual([]);
  });

  it("fails on a planted deep import, an import up or across the order, and a room importing its own door", () => {
    expect(
      importOrderProblems(
        [
          module("src/features/booking/book.ts", "src/features/supply/catalogue.ts"),
          module("src/features/supply/catalogue.ts", "src/features/booking/index.ts"),
          module("src/features/connections/access.ts", "src/features/partners/index.ts"),
          module("src/platform/http/router.ts", "src/features/supply/index.ts"),
          module("src/features/supply/routes.ts", "src/features/supply/index.ts"),
          module("src/features/radar/rules.ts", "src/platform/db/client.ts"),
        ],
        order,
      ),
    ).toEqual([
      expect.stringMatching(
        /^src\/features\/booking\/book\.ts: .* entered only through src\/features\/supply\/index\.ts/,
      ),
      expect.stringMatching(/^src\/features\/supply\/catalogue\.ts: .*supply may not import booking/),
      expect.stringMatching(/^src\/features\/connections\/access\.ts: .*connections may not import partners/),
      expect.stringMatching(/^src\/platform\/http\/router\.ts: .*platform may not import supply/),
      expect.stringMatching(/^src\/features\/supply\/routes\.ts: imports its own room's index\.ts/),
      "src/features/radar/rules.ts: room radar is not in the import order",
      "import cycle between rooms: booking -> supply -> booking",
    ]);
  });

  it("lets a room's tables.ts name a lower room's tables.ts (a foreign key), and nothing else through that side door", () => {
    expect(
      importOrderProblems(
        [
          module("src/features/booking/tables.ts", "src/features/connections/tables.ts"),
          module("src/features/booking/book.ts", "src/features/connections/tables.ts"),
          module("src/features/connections/tables.ts", "src/features/booking/tables.ts"),
        ],
        order,
      ),
    ).toEqual([
      expect.stringMatching(/^src\/features\/booking\/book\.ts: .* entered only through/),
      expect.stringMatching(/^src\/features\/connections\/tables\.ts: .*connections may not import booking/),
      "import cycle between rooms: booking -> connections -> booking",
    ]);
  });

  it("lets the Worker's entry alone import a room's durable-objects.ts beside its door", () => {
    expect(
      importOrderProblems(
        [
          module("src/index.ts", "src/features/connections/durable-objects.ts"),
          module("src/app.ts", "src/features/connections/durable-objects.ts"),
          module("src/features/booking/book.ts", "src/features/connections/durable-objects.ts"),
        ],
        order,
      ),
    ).toEqual([
      expect.stringMatching(/^src\/app\.ts: .* entered only through src\/features\/connections\/index\.ts/),
      expect.stringMatching(/^src\/features\/booking\/book\.ts: .* entered only through/),
    ]);
  });

  it("names a planted cycle once, whatever room it is entered from", () => {
    expect(
      roomCycles([
        module("src/features/supply/a.ts", "src/features/booking/index.ts"),
        module("src/features/booking/b.ts", "src/features/connections/index.ts"),
        module("src/features/connections/c.ts", "src/features/supply/index.ts"),
      ]),
    ).toEqual(["booking -> connections -> supply -> booking"]);
  });

  it("resolves relative imports of every form to repository paths", () => {
    const files = new Set([
      "src/features/supply/index.ts",
      "src/features/booking/tables.ts",
      "src/platform/db/client.ts",
    ]);
    const source = [
      'import { a } from "../supply";',
      'import type { B } from "./tables";',
      'export { c } from "../../platform/db/client";',
      "import {\n  d,\n  e,\n} from '../supply';",
      'const lazy = () => import("./tables");',
      'import { z } from "zod";',
    ].join("\n");
    expect(importsOf("src/features/booking/book.ts", source, (p) => files.has(p))).toEqual([
      "src/features/supply/index.ts",
      "src/features/booking/tables.ts",
      "src/platform/db/client.ts",
      "src/features/supply/index.ts",
      "src/features/booking/tables.ts",
    ]);
  });
});

describe("the named-paths check (docs/architecture.md, wrangler.toml)", () => {
  const files = ["src/upkeep.ts", "src/features/booking/book.ts", "snippet/docs.html", "migrations/0001_partners.sql"];
  const topLevel = new Set(["src", "snippet", "migrations", "docs"]);

  it("reads the paths a document names, and leaves URL paths, packages, placeholders and prose alone", () => {
    const doc =
      "`src/upkeep.ts`, `booking/book.ts`, `snippet/`, `docs.html`, `/api/book`, `@hono/zod-openapi`, `hono/secure-headers`, `src/features/<name>/`, `*.test.ts`, `.js`, `api.get/post`";
    expect(namedPaths(doc, "markdown", topLevel)).toEqual([
      "src/upkeep.ts",
      "booking/book.ts",
      "snippet/",
      "docs.html",
    ]);
    const toml =
      'main = "src/index.ts"\ndirectory = "./snippet"\n# Upkeep (src/features/upkeep): produced by book/cancel, see https://x.test/a/b.\nmigrations_dir = "migrations"';
    expect(namedPaths(toml, "toml", topLevel)).toEqual(["src/index.ts", "snippet", "src/features/upkeep"]);
  });

  it("finds a planted stale name, and accepts a file named by the end of its path or a generated file", () => {
    expect(missingPaths(["src/upkeep.ts", "booking/book.ts", "snippet", "src/features/", "docs.html"], files)).toEqual(
      [],
    );
    expect(missingPaths(["src/features/upkeep", "booking/gone.ts", "ook.ts"], files)).toEqual([
      "src/features/upkeep",
      "booking/gone.ts",
      "ook.ts",
    ]);
    expect(missingPaths(["examples/generated/api.d.ts"], files, (p) => p.startsWith("examples/generated/"))).toEqual(
      [],
    );
  });

  it("finds a test or source importing scripts/, and nothing else", () => {
    const sources = [
      {
        file: "src/features/booking/search.test.ts",
        text: 'import { seed } from "../../../scripts/bench/sandbox-hotels";',
      },
      {
        file: "test/support/seed.ts",
        text: 'import { x } from "../../scripts/bootstrap";\nimport { y } from "./accounts";',
      },
      { file: "test/unit/a.test.ts", text: 'import { y } from "../support/accounts";\nimport { z } from "zod";' },
    ];
    expect(scriptImports(sources, (p) => p === "test/support/accounts.ts")).toEqual([
      expect.stringMatching(/^src\/features\/booking\/search\.test\.ts: imports scripts\/bench\/sandbox-hotels\.ts: /),
      expect.stringMatching(/^test\/support\/seed\.ts: imports scripts\/bootstrap\.ts: /),
    ]);
  });
});

describe("the static pages check (run_worker_first)", () => {
  it("reads wrangler.toml's list, and passes when every page's URLs run the Worker first", () => {
    const toml = '[assets]\ndirectory = "./snippet"\nrun_worker_first = ["/", "/index.html", "/docs", "/docs.html"]\n';
    expect(runWorkerFirstIn(toml)).toEqual(["/", "/index.html", "/docs", "/docs.html"]);
    expect(runWorkerFirstIn("run_worker_first = true")).toEqual(["/*"]);
    expect(pagesWithoutWorker(["index.html", "docs.html", "docs.js", "site.css"], runWorkerFirstIn(toml))).toEqual([]);
    expect(pagesWithoutWorker(["help/faq.html"], ["/help/*"])).toEqual([]);
    expect(
      pagesWithoutWorker(
        ["console/index.html", "console/console.js"],
        ["/console", "/console/", "/console/index.html"],
      ),
    ).toEqual([]);
  });

  it("finds a planted page the asset router would serve alone", () => {
    expect(pagesWithoutWorker(["docs.html", "status.html"], ["/docs"])).toEqual([
      "snippet/docs.html: /docs.html is not in run_worker_first",
      "snippet/status.html: /status is not in run_worker_first",
      "snippet/status.html: /status.html is not in run_worker_first",
    ]);
    // A folder's page (the partner console): the folder with and without its slash, and the file.
    expect(pagesWithoutWorker(["console/index.html"], ["/console/"])).toEqual([
      "snippet/console/index.html: /console is not in run_worker_first",
      "snippet/console/index.html: /console/index.html is not in run_worker_first",
    ]);
  });
});
