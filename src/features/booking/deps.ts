import { type AfterAnswer, awaitWork } from "../../platform/app-env";
import { signingKeys } from "../../platform/config/secrets";
import type { Keyring } from "../../platform/crypto/keyring";
import { database, type Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { recordUsage } from "../../platform/observability/usage";
import { type BilledCall, type CoreConnection, countCall, type UsageOperation } from "../connections";
import { INVENTORY_SUPPLIER, inventorySupplier, suppliersByCodes, type Supplier } from "../supply";
import type { WebhookMessage } from "../webhooks";
import type { BookingTimer } from "./booking-timers";
/** The bindings the booking services use; chat builds the same from its own env. */
export type BookingDeps = {
  db: Db;
  quotes: KVNamespace;
  /** HMAC keys for option ids (the page-token secrets, under a derived purpose key). */
  keys: Keyring;
  /** Whether the `test-scenario` header is honoured (env SANDBOX_SCENARIOS = "on"). */
  sandbox: boolean;
  /** Where committed booking changes are announced to the partner's webhooks. */
  webhookQueue: Queue<WebhookMessage>;
  /** Delayed messages that come back to a booking (a pending one is asked about in minutes). */
  timers: Queue<BookingTimer>;
  /** Per-connection rate limits: chat's searches and quotes count against them too. */
  rateLimiter: Env["RATE_LIMITER"];
  /** Which suppliers serve a connection, and which one holds a stored booking. */
  supply: SupplyDirectory;
  /** Where a hold's end is set: its rooms go back then (hold-expiry.ts). */
  holdTimers: HoldTimers;
  /** Where every billable call of every face (REST, Hotel-X REST and GraphQL, chat) is counted. */
  meter: UsageMeter;
  /** Work the answer does not wait for (a search's upstream option ids): the request's `waitUntil`, or awaited. */
  afterAnswer: AfterAnswer;
};

/**
 * Counts one billable call: the Analytics Engine point (the operator's billing, at once) and the
 * partner's exact count in its connection's usage object (the promise: the caller hands it to
 * `waitUntil` so the answer does not wait, or awaits it where nothing is answered yet).
 */
export type UsageMeter = (
  call: Omit<BilledCall, "connection"> & { connection: CoreConnection; requestId: string },
) => Promise<void>;

export const usageMeter =
  (env: Env): UsageMeter =>
  (call) => {
    // The operator's billing counts what was done, as before: successes only.
    if (call.outcome === "success")
      recordUsage(env, {
        partnerId: call.connection.partnerId,
        operation: call.operation,
        connectionCode: call.connection.code,
        requestId: call.requestId,
      });
    return countCall(env, call);
  };

/** Sets the moment a hold ends; the booking is read again then, so a hold committed or released meanwhile is left alone. */
export type HoldTimers = { schedule(reference: string, expiresAt: number): Promise<void> };

/**
 * Where suppliers come from: the list that serves a connection (search asks all of them, quote and
 * book the one that made the option) and the supplier a stored booking names (cancel, settling).
 */
export type SupplyDirectory = {
  forConnection(connection: CoreConnection): Promise<Supplier[]>;
  named(name: string): Promise<Supplier | null>;
};

/** Names of suppliers before issue 39, as quotes and option ids made then still carry them. */
const LEGACY_INVENTORY = "inventory";
const legacyUpstreamName = (connection: CoreConnection) => `hotelx-${connection.id}`;

/**
 * The code a supplier name of a quote or option id stands for on a connection: `inventory` was the
 * embedded one, `hotelx-<connection id>` the connection's upstream, migrated to `hotelx-<connection code>`.
 */
export const currentSupplierCode = (connection: CoreConnection, name: string): string =>
  name === LEGACY_INVENTORY
    ? INVENTORY_SUPPLIER
    : name === legacyUpstreamName(connection)
      ? `hotelx-${connection.code}`
      : name;

/**
 * Every connection type (`direct`, `tgx`, `metasearch`) sells the suppliers the operator set
 * (connection_suppliers, read with the connection; the embedded inventory when none), built by
 * their kinds (supply's registry) in one D1 read, in the connection's order of preference. The
 * type decides the request shape and what may be done (metasearch cannot book).
 */
export const supplyDirectory = (
  env: Pick<Env, "UPSTREAM_CIRCUIT" | "UPSTREAM_CREDENTIALS_KEY">,
  db: Db,
): SupplyDirectory => {
  const inventory = inventorySupplier(db);
  return {
    async forConnection(connection) {
      // An embedded-only connection costs no extra round trip.
      if (connection.suppliers.length === 1 && connection.suppliers[0] === INVENTORY_SUPPLIER) return [inventory];
      return suppliersByCodes(env, db, env.UPSTREAM_CREDENTIALS_KEY, connection.suppliers);
    },
    async named(name) {
      if (name === INVENTORY_SUPPLIER || name === LEGACY_INVENTORY) return inventory;
      return (await suppliersByCodes(env, db, env.UPSTREAM_CREDENTIALS_KEY, [name]))[0] ?? null;
    },
  };
};

/**
 * Runs one billable call of a face that answers after more work (chat) and counts it with how it
 * ended; the count is awaited, as nothing is answered yet (`countCall` never throws).
 */
export const meteredCall = async <T>(
  deps: Pick<BookingDeps, "meter">,
  call: { connection: CoreConnection; operation: UsageOperation; requestId: string },
  work: () => Promise<T>,
): Promise<T> => {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await deps.meter({ ...call, outcome: error instanceof ApiError ? error.code : "internal_error" });
    throw error;
  }
  await deps.meter({ ...call, outcome: "success" });
  return result;
};

export const bookingDeps = (env: Env, afterAnswer: AfterAnswer = awaitWork): BookingDeps => {
  const db = database(env.DB);
  return {
    db,
    quotes: env.CACHE,
    keys: signingKeys(env, "PAGE_TOKEN_SECRET"),
    sandbox: env.SANDBOX_SCENARIOS === "on",
    webhookQueue: env.WEBHOOK_QUEUE as Queue<WebhookMessage>,
    timers: env.BOOKING_TIMERS as Queue<BookingTimer>,
    rateLimiter: env.RATE_LIMITER,
    supply: supplyDirectory(env, db),
    holdTimers: {
      // One Durable Object per hold, named by its booking reference: its alarm is the hold's end.
      schedule: (reference, expiresAt) => env.HOLD_EXPIRY.getByName(reference).schedule(reference, expiresAt),
    },
    meter: usageMeter(env),
    afterAnswer,
  };
};

/** The suppliers behind a connection, in the order their results are merged. */
export const suppliersFor = (deps: BookingDeps, connection: CoreConnection): Promise<Supplier[]> =>
  deps.supply.forConnection(connection);

/** The supplier of a connection that made an option or quote (by name); null when it no longer serves the connection. */
export const connectionSupplier = async (
  deps: BookingDeps,
  connection: CoreConnection,
  name: string,
): Promise<Supplier | null> => {
  const code = currentSupplierCode(connection, name);
  return (await suppliersFor(deps, connection)).find((s) => s.name === code) ?? null;
};

export const SANDBOX_SCENARIOS = ["price_changed", "room_unavailable", "booking_failed"] as const;
export type SandboxScenario = (typeof SANDBOX_SCENARIOS)[number];

/**
 * The scenario a request asks for, or null when the sandbox is off or the header absent. An unknown
 * value is a 400 naming the known ones: ignoring a typo would run the real flow the caller meant to avoid.
 */
export const sandboxScenario = (deps: BookingDeps, header: string | undefined): SandboxScenario | null => {
  if (!deps.sandbox || !header) return null;
  const value = header.trim().toLowerCase();
  if ((SANDBOX_SCENARIOS as readonly string[]).includes(value)) return value as SandboxScenario;
  throw new ApiError("invalid_request", `test-scenario must be one of: ${SANDBOX_SCENARIOS.join(", ")}`, {
    field: "test-scenario",
  });
};

export const ACCOMMODATION_TYPE_NAMES: Record<string, string> = {
  hotel: "Hotel",
  motel: "Motel",
  resort: "Resort",
  apartment: "Apartment",
  hostel: "Hostel",
  guesthouse: "Guesthouse",
};
export const accommodationTypeName = (type: string) => ACCOMMODATION_TYPE_NAMES[type] ?? "Hotel";

declare module "../../platform/app-env" {
  interface Services {
    /** The bindings the booking services use (search, quote, book, cancel, reads). */
    booking: BookingDeps;
  }
}
