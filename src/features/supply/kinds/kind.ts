import type { z } from "@hono/zod-openapi";
import type { Db } from "../../../platform/db/client";
import type { SupplierHotel } from "../hotel-matching/matcher";
import type { Supplier, SupplierCapabilities } from "../supplier";

/** The bindings a kind's factory may use. */
export type SupplierEnv = Pick<Env, "UPSTREAM_CIRCUIT"> & { ENVIRONMENT?: string };

export type { SupplierCapabilities };

/** A stored supplier as a kind's factory gets it: its settings parsed by the kind's schema, its credentials opened. */
export type StoredSupplier<S, C> = { code: string; name: string; settings: S; credentials: C | null };

/**
 * One kind of supplier: an entry of the registry (registry.ts). `settings` validates what the
 * operator sends and stores (never secrets; the operator request and /openapi.json are built from
 * it); `credentials`, when the kind has secrets, validates them (sealed apart, never shown back);
 * `check` refuses what a schema cannot (a URL that is not public https); `create` makes the
 * Supplier from a stored row; `hotelList`, when the kind can read a supplier's hotel list (what
 * hotel-map/suggest with `fromSupplier` matches), reads at most `maxHotels` of them. `builtIn`: its one row is made by the migration; the operator can
 * neither create nor delete one.
 */
export type SupplierKind<S extends Record<string, unknown> = Record<string, unknown>, C = unknown> = {
  kind: string;
  description: string;
  settings: z.ZodType<S>;
  credentials?: z.ZodType<C>;
  check?(settings: S, local: boolean): S;
  capabilities(settings: S): SupplierCapabilities;
  create(env: SupplierEnv, db: Db, stored: StoredSupplier<S, C>): Supplier;
  hotelList?(env: SupplierEnv, stored: StoredSupplier<S, C>, limits: { maxHotels: number }): Promise<SupplierHotel[]>;
  builtIn?: boolean;
};
