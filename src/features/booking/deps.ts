import { signingKeys } from "../../platform/config/secrets";
import type { Keyring } from "../../platform/crypto/keyring";
import { database, type Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { recordUsage } from "../../platform/observability/usage";
import { type BilledCall, type CoreConnection, countCall, type UsageOperation, upstreamFor } from "../connections";
import { connectionOfHotelxSupplier, hotelxSupplier, inventorySupplier, type Supplier } from "../supply";
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

/**
 * Every connection type (`direct`, `tgx`, `metasearch`) sells the embedded inventory unless the
 * operator pointed it at an upstream (connection_upstreams): then it sells the upstream's, or both
 * with `withEmbedded` (embedded first, so its order leads a merged search). The type decides the
 * request shape and what may be done (metasearch cannot book).
 */
export const supplyDirectory = (
  env: Pick<Env, "UPSTREAM_CIRCUIT" | "UPSTREAM_CREDENTIALS_KEY">,
  db: Db,
): SupplyDirectory => {
  const inventory = inventorySupplier(db);
  const upstreamOf = async (connectionId: string): Promise<{ supplier: Supplier; withEmbedded: boolean } | null> => {
    const upstream = await upstreamFor(db, env.UPSTREAM_CREDENTIALS_KEY, connectionId);
    return upstream
      ? { supplier: hotelxSupplier(env, db, connectionId, upstream), withEmbedded: upstream.withEmbedded }
      : null;
  };
  return {
    async forConnection(connection) {
      // Read with the connection: an embedded-only connection costs no extra round trip.
      if (!connection.hasUpstream) return [inventory];
      const upstream = await upstreamOf(connection.id);
      if (!upstream) return [inventory];
      return upstream.withEmbedded ? [inventory, upstream.supplier] : [upstream.supplier];
    },
    async named(name) {
      if (name === inventory.name) return inventory;
      const connectionId = connectionOfHotelxSupplier(name);
      return connectionId ? ((await upstreamOf(connectionId))?.supplier ?? null) : null;
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

export const bookingDeps = (env: Env): BookingDeps => {
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
): Promise<Supplier | null> => (await suppliersFor(deps, connection)).find((s) => s.name === name) ?? null;

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
