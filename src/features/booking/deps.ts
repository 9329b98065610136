import { ApiError } from "../../platform/http/api-error";
import { inventorySupplier } from "../supply/inventory-supplier";
import type { Supplier } from "../supply/supplier";
import type { CoreConnection } from "./connection-access";

/** The bindings the booking services use; chat builds the same from its own env. */
export type BookingDeps = {
  d1: D1Database;
  quotes: KVNamespace;
  /** HMAC secret for option ids (the page-token secret, under a derived purpose key). */
  secret: string;
  /** Whether the `test-scenario` header is honoured (env SANDBOX_SCENARIOS = "on"). */
  sandbox: boolean;
  /** Per-connection rate limits: chat's searches and quotes count against them too. */
  rateLimiter: Env["RATE_LIMITER"];
};

export const bookingDeps = (env: Env): BookingDeps => ({
  d1: env.DB,
  quotes: env.CACHE,
  secret: env.PAGE_TOKEN_SECRET,
  sandbox: env.SANDBOX_SCENARIOS === "on",
  rateLimiter: env.RATE_LIMITER,
});

/** The supplier behind a connection: `direct` is the embedded inventory; others are not connected yet. */
export const supplierFor = (deps: BookingDeps, connection: Pick<CoreConnection, "connectionType">): Supplier => {
  if (connection.connectionType === "direct") return inventorySupplier(deps.d1);
  throw new ApiError(501, `No supplier is connected for connectionType ${connection.connectionType} yet; use a direct connection`, "supplier_not_implemented");
};

export const SANDBOX_SCENARIOS = ["price_changed", "room_unavailable", "booking_failed"] as const;
export type SandboxScenario = (typeof SANDBOX_SCENARIOS)[number];

/** The scenario a request asks for, or null when the sandbox is off or the header absent/unknown. */
export const sandboxScenario = (deps: BookingDeps, header: string | undefined): SandboxScenario | null => {
  if (!deps.sandbox || !header) return null;
  const value = header.trim().toLowerCase();
  return (SANDBOX_SCENARIOS as readonly string[]).includes(value) ? (value as SandboxScenario) : null;
};

export const ACCOMMODATION_TYPE_NAMES: Record<string, string> = {
  hotel: "Hotel", motel: "Motel", resort: "Resort", apartment: "Apartment", hostel: "Hostel", guesthouse: "Guesthouse",
};
export const accommodationTypeName = (type: string) => ACCOMMODATION_TYPE_NAMES[type] ?? "Hotel";
