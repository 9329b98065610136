/**
 * Operator CLI: `npm run ops -- <command> [options]`. Talks HTTP to a running Edgestay Worker
 * (local or deployed) with the operator token. Prints the response `data` as JSON on stdout;
 * errors go to stderr with a non-zero exit (1 for an API or network failure, 2 for usage).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const HELP = `Edgestay operator CLI

Usage: npm run ops -- <command> [options]

Partners
  partners create --name NAME --admin-email EMAIL (--admin-password PASSWORD | --admin-password-md5 MD5)
                  [--id ID] [--first-name NAME] [--last-name NAME] [--key-name NAME]
  partners list [--page N] [--size N]

Connections
  connections create --partner ID --api-type public|b2b|cug|mobile --connection-type direct|tgx|metasearch
                     --rate-limit N --window-ms N [--net-markups N] [--rate-name NAME]
                     [--notification-email EMAIL] [--in-use] [--currency CUR]
  connections list [--partner ID] [--page N] [--size N]
  connections get ID
  connections update ID [any create option; --clear-rate-name, --clear-notification-email, --in-use / --not-in-use]
  connections enable ID
  connections disable ID
  connections delete ID
  connections suppliers ID [--supplier CODE ...]   without --supplier: read; with: sell these, in this order

Suppliers (operator data; credentials are write-only)
  suppliers create --body JSON   e.g. '{"code":"hotelx-acme","kind":"hotelx","name":"Acme","settings":{"url":
                                 "https://...","client":"...","context":"...","credentials":{"apiKey":"..."}}}'
  suppliers list
  suppliers get CODE
  suppliers update CODE --body JSON   '{"name":"...","settings":{...}}' replaces the whole settings
                                      (settings.credentials absent keeps them, null clears them)
  suppliers delete CODE               409 while a connection sells it; deactivated when bookings name it

Upstream (the alias of before suppliers: a connection's Hotel-X upstream is its supplier hotelx-<code>)
  upstreams get CONNECTION_ID
  upstreams set CONNECTION_ID --body JSON  e.g. '{"kind":"hotelx","url":"https://...","client":"...",
                                           "context":"...","credentials":{"apiKey":"..."}}'
  upstreams delete CONNECTION_ID           back to the embedded inventory

Exchange rates
  exchange-rates get
  exchange-rates set --base CUR --rate CUR=N [--rate CUR=N ...]   replaces the whole table

Inventory (embedded supplier)
  inventory get CODE --from DATE --to DATE
  inventory room CODE ROOM --body JSON        e.g. '{"from":"2027-03-10","to":"2027-03-10","stopSell":true}'
  inventory rate-plan CODE PLAN --body JSON   e.g. '{"from":"2027-03-10","to":"2027-03-12","price":null}'
  inventory fees CODE --body JSON             the accommodation's taxes and fees

Supplier maps (a supplier's own codes as Edgestay's)
  suppliers hotel-map CODE FILE            upsert {supplierHotelCode, accommodationCode} rows from FILE, a JSON
                                           array or NDJSON; sent 50,000 rows a call; prints what it did, every
                                           rejected row with its number in FILE and the reason
  suppliers room-map CODE FILE             the same for {supplierHotelCode, supplierRoomCode, roomCode} rows
  suppliers board-map CODE [--body JSON]   print the board map, or replace it, e.g. '{"SA":"RO","AD":"BB"}'

Data subjects
  data-subjects erase --email EMAIL        erase one person's personal data (radar, chat, chat bookings)

Housekeeping
  health                                   is the Worker up and its database reachable
  login-failures purge [--email EMAIL]     delete expired login-failure counters, or unlock one account

Options (every command)
  --url URL        base URL (env EDGESTAY_URL, else http://127.0.0.1:$PORT, PORT defaulting to 8787)
  --token TOKEN    operator token (env EDGESTAY_OPERATOR_TOKEN)
  -h, --help       this help
  -V, --version    the CLI's version (package.json)

A flag another command takes is refused (exit 2), never ignored.

Exit status: 0 on success, 1 when the API or the network refuses, 2 for a usage error.
`;

/** package.json's version: the CLI ships with the Worker it drives. */
const cliVersion = (): string =>
  (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

class UsageError extends Error {}
class ApiFailure extends Error {}

const options = {
  url: { type: "string" },
  token: { type: "string" },
  help: { type: "boolean", short: "h" },
  name: { type: "string" },
  id: { type: "string" },
  "admin-email": { type: "string" },
  "admin-password": { type: "string" },
  "admin-password-md5": { type: "string" },
  "first-name": { type: "string" },
  "last-name": { type: "string" },
  "key-name": { type: "string" },
  page: { type: "string" },
  size: { type: "string" },
  partner: { type: "string" },
  "api-type": { type: "string" },
  "connection-type": { type: "string" },
  "rate-limit": { type: "string" },
  "window-ms": { type: "string" },
  "net-markups": { type: "string" },
  "rate-name": { type: "string" },
  "notification-email": { type: "string" },
  "in-use": { type: "boolean" },
  currency: { type: "string" },
  supplier: { type: "string", multiple: true },
  "not-in-use": { type: "boolean" },
  "clear-rate-name": { type: "boolean" },
  "clear-notification-email": { type: "boolean" },
  email: { type: "string" },
  body: { type: "string" },
  base: { type: "string" },
  rate: { type: "string", multiple: true },
  from: { type: "string" },
  to: { type: "string" },
  version: { type: "boolean", short: "V" },
} as const;

type Option = keyof typeof options;
const EVERY_COMMAND: readonly Option[] = ["url", "token", "help", "version"];
const CONNECTION_OPTIONS: readonly Option[] = [
  "partner",
  "api-type",
  "connection-type",
  "rate-limit",
  "window-ms",
  "net-markups",
  "rate-name",
  "notification-email",
  "in-use",
  "currency",
];

/** The options each command takes: any other one is a usage error, not silently ignored. */
const COMMAND_OPTIONS: Record<string, readonly Option[]> = {
  health: [],
  "partners create": [
    "name",
    "admin-email",
    "admin-password",
    "admin-password-md5",
    "id",
    "first-name",
    "last-name",
    "key-name",
  ],
  "partners list": ["page", "size"],
  "connections create": CONNECTION_OPTIONS,
  "connections list": ["partner", "page", "size"],
  "connections get": [],
  "connections update": [...CONNECTION_OPTIONS, "not-in-use", "clear-rate-name", "clear-notification-email"],
  "connections enable": [],
  "connections disable": [],
  "connections delete": [],
  "connections suppliers": ["supplier"],
  "suppliers create": ["body"],
  "suppliers list": [],
  "suppliers get": [],
  "suppliers update": ["body"],
  "suppliers delete": [],
  "upstreams get": [],
  "upstreams set": ["body"],
  "upstreams delete": [],
  "exchange-rates get": [],
  "exchange-rates set": ["base", "rate"],
  "inventory get": ["from", "to"],
  "inventory room": ["body"],
  "inventory rate-plan": ["body"],
  "inventory fees": ["body"],
  "suppliers hotel-map": [],
  "suppliers room-map": [],
  "suppliers board-map": ["body"],
  "data-subjects erase": ["email"],
  "login-failures purge": ["email"],
};

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>["values"];

const required = (values: Values, name: keyof Values & string): string => {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
};

const numberOption = (values: Values, name: keyof Values & string): number | undefined => {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== "string" || raw.trim() === "" || !Number.isFinite(n))
    throw new UsageError(`--${name} must be a number, got "${String(raw)}"`);
  return n;
};

/** The command's arguments after its two words, exactly as many as `names` (URL-encoded). */
const args = (positionals: string[], ...names: string[]): string[] => {
  const given = positionals.slice(2);
  if (given.length < names.length)
    throw new UsageError(`${positionals.slice(0, 2).join(" ")} needs ${names.slice(given.length).join(" and ")}`);
  if (given.length > names.length) throw new UsageError(`unexpected argument "${given[names.length]}"`);
  return given.map(encodeURIComponent);
};
const positionalId = (positionals: string[]): string => args(positionals, "a connection ID")[0]!;

/** --body: a JSON object, sent as the request body. */
const jsonBody = (values: Values): unknown => {
  const raw = required(values, "body");
  try {
    const body = JSON.parse(raw);
    if (typeof body === "object" && body !== null && !Array.isArray(body)) return body;
  } catch {
    /* reported below */
  }
  throw new UsageError("--body must be a JSON object");
};

/** --rate CUR=N, repeated: the exchange-rate table. */
const ratesOf = (values: Values): Record<string, number> => {
  const rates: Record<string, number> = {};
  for (const pair of values.rate ?? []) {
    const [currency, value, extra] = pair.split("=");
    const n = Number(value);
    if (!currency || extra !== undefined || value === undefined || value.trim() === "" || !Number.isFinite(n))
      throw new UsageError(`--rate takes CUR=N, e.g. EUR=0.92; got "${pair}"`);
    rates[currency] = n;
  }
  if (Object.keys(rates).length === 0) throw new UsageError("--rate is required (CUR=N, repeated)");
  return rates;
};

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
};

const connectionFields = (values: Values) => {
  if (values["in-use"] && values["not-in-use"]) throw new UsageError("--in-use and --not-in-use exclude each other");
  if (values["rate-name"] !== undefined && values["clear-rate-name"])
    throw new UsageError("--rate-name and --clear-rate-name exclude each other");
  if (values["notification-email"] !== undefined && values["clear-notification-email"]) {
    throw new UsageError("--notification-email and --clear-notification-email exclude each other");
  }
  const fields: Record<string, unknown> = {
    partnerId: values.partner,
    apiType: values["api-type"],
    connectionType: values["connection-type"],
    rateLimit: numberOption(values, "rate-limit"),
    rateLimitWindowMs: numberOption(values, "window-ms"),
    netMarkups: numberOption(values, "net-markups"),
    rateName: values["clear-rate-name"] ? null : values["rate-name"],
    notificationEmail: values["clear-notification-email"] ? null : values["notification-email"],
    currentInUse: values["in-use"] ? true : values["not-in-use"] ? false : undefined,
    currency: values.currency,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
};

/** `ndjson`: a body sent as it is, `application/x-ndjson` (a map upload), in place of `body`. */
type Request = { method: string; path: string; body?: unknown; ndjson?: string; auth?: boolean };

/** Maps a command line to one HTTP request. */
const requestFor = (positionals: string[], values: Values): Request => {
  const [group, action] = positionals;
  const command = `${group ?? ""} ${action ?? ""}`.trim();
  switch (command) {
    case "health":
      return { method: "GET", path: "/health", auth: false };
    case "partners create": {
      const plain = values["admin-password"];
      const md5 = values["admin-password-md5"];
      if (plain !== undefined && md5 !== undefined)
        throw new UsageError("give --admin-password or --admin-password-md5, not both");
      if (plain === undefined && md5 === undefined)
        throw new UsageError("--admin-password (or --admin-password-md5) is required");
      const password = md5 ?? createHash("md5").update(plain!).digest("hex");
      return {
        method: "POST",
        path: "/api/partners",
        body: {
          id: values.id,
          name: required(values, "name"),
          admin: {
            email: required(values, "admin-email"),
            password,
            firstName: values["first-name"],
            lastName: values["last-name"],
          },
          apiKeyName: values["key-name"],
        },
      };
    }
    case "partners list":
      return {
        method: "GET",
        path: `/api/partners${query({ page: numberOption(values, "page"), size: numberOption(values, "size") })}`,
      };
    case "connections create": {
      for (const name of ["partner", "api-type", "connection-type", "rate-limit", "window-ms"] as const)
        required(values, name);
      return { method: "POST", path: "/api/connections", body: { netMarkups: 0, ...connectionFields(values) } };
    }
    case "connections list":
      return {
        method: "GET",
        path: `/api/connections${query({ partnerId: values.partner, page: numberOption(values, "page"), size: numberOption(values, "size") })}`,
      };
    case "connections get":
      return { method: "GET", path: `/api/connections/${positionalId(positionals)}` };
    case "connections update": {
      const body = connectionFields(values);
      const id = positionalId(positionals);
      if (Object.keys(body).length === 0) throw new UsageError("connections update needs at least one field to change");
      return { method: "PATCH", path: `/api/connections/${id}`, body };
    }
    case "connections enable":
    case "connections disable":
      return { method: "PUT", path: `/api/connections/${positionalId(positionals)}/${action}` };
    case "connections delete":
      return { method: "DELETE", path: `/api/connections/${positionalId(positionals)}` };
    case "connections suppliers": {
      const id = positionalId(positionals);
      const codes = values.supplier as string[] | undefined;
      return codes?.length
        ? {
            method: "PUT",
            path: `/api/connections/${id}/suppliers`,
            body: { suppliers: codes.map((code) => ({ code })) },
          }
        : { method: "GET", path: `/api/connections/${id}/suppliers` };
    }
    case "suppliers create":
      return { method: "POST", path: "/api/operator/suppliers", body: jsonBody(values) };
    case "suppliers list":
      args(positionals);
      return { method: "GET", path: "/api/operator/suppliers" };
    case "suppliers get":
      return { method: "GET", path: `/api/operator/suppliers/${args(positionals, "a supplier CODE")[0]}` };
    case "suppliers update":
      return {
        method: "PUT",
        path: `/api/operator/suppliers/${args(positionals, "a supplier CODE")[0]}`,
        body: jsonBody(values),
      };
    case "suppliers delete":
      return { method: "DELETE", path: `/api/operator/suppliers/${args(positionals, "a supplier CODE")[0]}` };
    case "upstreams get":
      return { method: "GET", path: `/api/connections/${positionalId(positionals)}/upstream` };
    case "upstreams set":
      return { method: "PUT", path: `/api/connections/${positionalId(positionals)}/upstream`, body: jsonBody(values) };
    case "upstreams delete":
      return { method: "DELETE", path: `/api/connections/${positionalId(positionals)}/upstream` };
    case "exchange-rates get":
      return { method: "GET", path: "/api/operator/exchange-rates" };
    case "exchange-rates set":
      return {
        method: "PUT",
        path: "/api/operator/exchange-rates",
        body: { base: required(values, "base"), rates: ratesOf(values) },
      };
    case "inventory get": {
      const [code] = args(positionals, "an accommodation CODE");
      const range = query({ from: required(values, "from"), to: required(values, "to") });
      return { method: "GET", path: `/api/inventory/${code}${range}` };
    }
    case "inventory room": {
      const [code, room] = args(positionals, "an accommodation CODE", "a ROOM code");
      return { method: "PUT", path: `/api/inventory/${code}/rooms/${room}`, body: jsonBody(values) };
    }
    case "inventory rate-plan": {
      const [code, plan] = args(positionals, "an accommodation CODE", "a rate PLAN code");
      return { method: "PUT", path: `/api/inventory/${code}/rate-plans/${plan}`, body: jsonBody(values) };
    }
    case "inventory fees": {
      const [code] = args(positionals, "an accommodation CODE");
      return { method: "PUT", path: `/api/inventory/${code}/fees`, body: jsonBody(values) };
    }
    case "suppliers board-map": {
      const [code] = args(positionals, "a supplier CODE");
      const path = `/api/operator/suppliers/${code}/board-map`;
      return values.body === undefined ? { method: "GET", path } : { method: "PUT", path, body: jsonBody(values) };
    }
    case "data-subjects erase":
      args(positionals);
      return {
        method: "POST",
        path: "/api/operator/data-subjects/erase",
        body: { email: required(values, "email") },
      };
    case "login-failures purge":
      return {
        method: "POST",
        path: "/api/operator/login-failures/purge",
        body: values.email ? { email: values.email } : {},
      };
    default:
      throw new UsageError(command ? `unknown command "${command}"` : "no command given");
  }
};

const send = async (baseUrl: string, token: string | undefined, request: Request) => {
  const headers: Record<string, string> = { accept: "application/json" };
  if (request.auth !== false) {
    if (!token) throw new UsageError("an operator token is required: --token or EDGESTAY_OPERATOR_TOKEN");
    headers.authorization = `Bearer ${token}`;
  }
  if (request.ndjson !== undefined) headers["content-type"] = "application/x-ndjson";
  else if (request.body !== undefined) headers["content-type"] = "application/json";
  const url = `${baseUrl.replace(/\/+$/, "")}${request.path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers,
      body: request.ndjson ?? (request.body === undefined ? undefined : JSON.stringify(request.body)),
    });
  } catch (err) {
    throw new ApiFailure(
      `cannot reach ${baseUrl}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
    );
  }
  const text = await response.text();
  let body: { data?: unknown; message?: string; requestId?: string; details?: unknown } | null = null;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: reported below */
  }
  if (!response.ok) {
    const message = body?.message ?? (text.slice(0, 200) || response.statusText);
    const requestId = body?.requestId ?? response.headers.get("x-request-id");
    throw new ApiFailure(`${response.status} ${message}${requestId ? ` (request id ${requestId})` : ""}`);
  }
  if (!body) throw new ApiFailure(`${response.status} but the response is not JSON`);
  return body.data;
};

/** The map uploads (suppliers hotel-map and room-map): the file's rows are sent in calls of this many, the route's limit. */
const MAP_UPLOADS: Record<string, string> = { "suppliers hotel-map": "hotel-map", "suppliers room-map": "room-map" };
const UPLOAD_ROWS = 50_000;
type MapAnswer = { inserted: number; updated: number; unchanged: number; rejected: Array<{ row: number }> };

/** A map file's rows, each as one NDJSON line: a JSON array, or NDJSON (blank lines are not rows, as the API counts them). */
const mapFileRows = (path: string): string[] => {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as Error).message}`);
  }
  if (!text.trimStart().startsWith("[")) return text.split("\n").filter((line) => line.trim() !== "");
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    rows = null;
  }
  if (!Array.isArray(rows)) throw new UsageError(`${path} is neither a JSON array nor NDJSON`);
  return rows.map((row) => JSON.stringify(row));
};

/** Uploads a map file in calls of UPLOAD_ROWS rows: one answer, each rejected row numbered as in the file. */
const importMapFile = async (baseUrl: string, token: string | undefined, positionals: string[], map: string) => {
  const [code, file] = args(positionals, "a supplier CODE", "a FILE");
  const lines = mapFileRows(decodeURIComponent(file!));
  const total: MapAnswer = { inserted: 0, updated: 0, unchanged: 0, rejected: [] };
  for (let start = 0; start === 0 || start < lines.length; start += UPLOAD_ROWS) {
    const ndjson = lines.slice(start, start + UPLOAD_ROWS).join("\n");
    const answer = (await send(baseUrl, token, {
      method: "PUT",
      path: `/api/operator/suppliers/${code}/${map}`,
      ndjson,
    })) as MapAnswer;
    total.inserted += answer.inserted;
    total.updated += answer.updated;
    total.unchanged += answer.unchanged;
    total.rejected.push(...answer.rejected.map((rejection) => ({ ...rejection, row: rejection.row + start })));
  }
  return total;
};

export const runOps = async (argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> => {
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const { values, positionals } = parsed;
    if (values.version) {
      process.stdout.write(`edgestay ops ${cliVersion()}\n`);
      return 0;
    }
    if (values.help || positionals.length === 0) {
      process.stdout.write(HELP);
      return values.help ? 0 : 2;
    }
    const command = positionals.slice(0, 2).join(" ");
    const allowed = COMMAND_OPTIONS[command] ?? COMMAND_OPTIONS[positionals[0]!];
    if (allowed) {
      const foreign = (Object.keys(values) as Option[]).filter(
        (o) => !allowed.includes(o) && !EVERY_COMMAND.includes(o),
      );
      if (foreign.length > 0)
        throw new UsageError(`${foreign.map((o) => `--${o}`).join(", ")} is not an option of "${command}"`);
    }
    const baseUrl = values.url ?? (env.EDGESTAY_URL || `http://127.0.0.1:${env.PORT || "8787"}`);
    const token = values.token ?? env.EDGESTAY_OPERATOR_TOKEN;
    const mapUpload = MAP_UPLOADS[command];
    const data = mapUpload
      ? await importMapFile(baseUrl, token, positionals, mapUpload)
      : await send(baseUrl, token, requestFor(positionals, values));
    process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    if (positionals[0] === "partners" && positionals[1] === "create") {
      process.stderr.write("Store apiKey.apiKey and collectorKey now: they are not shown again.\n");
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`ops: ${err.message}\nRun "npm run ops -- --help" for usage.\n`);
      return 2;
    }
    process.stderr.write(`ops: ${err instanceof ApiFailure ? err.message : String(err)}\n`);
    return 1;
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runOps(process.argv.slice(2));
}
