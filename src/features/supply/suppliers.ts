import { asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { openSecret, sealSecret } from "../../platform/crypto/secret-box";
import { ApiError } from "../../platform/http/api-error";
import { EMBEDDED_SUPPLIER, connectionsSelling } from "../connections";
import type { SupplierEnv, SupplierKind } from "./kinds/kind";
import { supplierKind } from "./kinds/registry";
import type { SupplierHotel } from "./hotel-matching/matcher";
import type { Supplier } from "./supplier";
import { suppliers } from "./tables";

/** The secret-box purpose of supplier credentials (the one connection_upstreams used, so migrated rows open). */
const SEAL_PURPOSE = "upstream-credentials";
const MASK = "********";

export type SupplierKeys = { credentialsKey: string; local: boolean };

/** A supplier as the operator reads it: its settings, and of its credentials only whether they are set. */
export type SupplierView = {
  code: string;
  kind: string;
  name: string;
  settings: Record<string, unknown>;
  credentials: Record<string, string> | null;
  active: boolean;
  createdAt: string;
  updatedAt: string;
};

export type SupplierInput = { code: string; kind: string; name: string; settings: Record<string, unknown> };

type SupplierRow = typeof suppliers.$inferSelect;

export const supplierNotFound = (code: string) => new ApiError("supplier_not_found", `Supplier ${code} not found`);

const kindOf = (kind: string): SupplierKind => {
  const found = supplierKind(kind);
  if (!found) throw new ApiError("invalid_request", `kind ${kind} is not a supplier kind`, { field: "kind" });
  return found;
};

/** The row's credentials masked key by key (never their value). */
const maskedOf = (row: SupplierRow, kind: SupplierKind | undefined): Record<string, string> | null => {
  if (!row.sealedCredentials) return null;
  const shape = (kind?.credentials as { shape?: Record<string, unknown> } | undefined)?.shape;
  return Object.fromEntries(Object.keys(shape ?? { apiKey: true }).map((key) => [key, MASK]));
};

const viewOf = (row: SupplierRow): SupplierView => ({
  code: row.code,
  kind: row.kind,
  name: row.name,
  settings: JSON.parse(row.settings) as Record<string, unknown>,
  credentials: maskedOf(row, supplierKind(row.kind)),
  active: row.active,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/**
 * The settings a kind accepts, split from the credentials: `settings.credentials` absent keeps
 * the sealed ones, null clears them, an object replaces them (validated by the kind).
 */
const parsedSettings = (kind: SupplierKind, raw: Record<string, unknown>, local: boolean) => {
  const { credentials, ...rest } = raw;
  const parsed = kind.settings.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = ["settings", ...issue.path.map(String)].join(".");
    throw new ApiError("invalid_request", `${field}: ${issue.message}`, { field });
  }
  const settings = kind.check ? kind.check(parsed.data, local) : parsed.data;
  if (credentials === undefined || credentials === null) return { settings, credentials };
  if (!kind.credentials)
    throw new ApiError("invalid_request", `settings.credentials: a ${kind.kind} supplier takes none`, {
      field: "settings.credentials",
    });
  const secret = kind.credentials.safeParse(credentials);
  if (!secret.success) {
    const issue = secret.error.issues[0]!;
    const field = ["settings", "credentials", ...issue.path.map(String)].join(".");
    throw new ApiError("invalid_request", `${field}: ${issue.message}`, { field });
  }
  return { settings, credentials: secret.data as unknown };
};

const seal = (keys: SupplierKeys, binding: string, credentials: unknown) =>
  sealSecret(keys.credentialsKey, SEAL_PURPOSE, binding, JSON.stringify(credentials));

const readRow = async (db: Db, code: string): Promise<SupplierRow> => {
  const [row] = await db.select().from(suppliers).where(eq(suppliers.code, code)).limit(1);
  if (!row) throw supplierNotFound(code);
  return row;
};

/** A new supplier (409 when the code is taken; a built-in kind cannot be created). */
export const createSupplier = async (db: Db, keys: SupplierKeys, input: SupplierInput): Promise<SupplierView> => {
  const kind = kindOf(input.kind);
  if (kind.builtIn)
    throw new ApiError("invalid_request", `kind ${kind.kind} is built in: its one supplier exists`, { field: "kind" });
  const { settings, credentials } = parsedSettings(kind, input.settings, keys.local);
  if (kind.credentials && (credentials === undefined || credentials === null))
    throw new ApiError("invalid_request", "settings.credentials: required", { field: "settings.credentials" });
  const [row] = await db
    .insert(suppliers)
    .values({
      code: input.code,
      kind: kind.kind,
      name: input.name,
      settings: JSON.stringify(settings),
      sealedCredentials: credentials ? await seal(keys, input.code, credentials) : null,
      sealBinding: input.code,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new ApiError("supplier_exists", `Supplier ${input.code} already exists`);
  return viewOf(row);
};

export const listSuppliers = async (db: Db): Promise<SupplierView[]> =>
  (await db.select().from(suppliers).orderBy(asc(suppliers.code))).map(viewOf);

export const getSupplier = async (db: Db, code: string): Promise<SupplierView> => viewOf(await readRow(db, code));

/**
 * Replaces a supplier's name and whole settings. Credentials: absent keeps the sealed ones (still
 * bound as they were), null clears them, new ones are sealed bound to the row's `seal_binding`.
 */
export const updateSupplier = async (
  db: Db,
  keys: SupplierKeys,
  code: string,
  input: { name: string; settings: Record<string, unknown> },
): Promise<SupplierView> => {
  const row = await readRow(db, code);
  const kind = kindOf(row.kind);
  const { settings, credentials } = parsedSettings(kind, input.settings, keys.local);
  const sealedCredentials =
    credentials === undefined
      ? row.sealedCredentials
      : credentials === null
        ? null
        : await seal(keys, row.sealBinding, credentials);
  const [updated] = await db
    .update(suppliers)
    .set({
      name: input.name,
      settings: JSON.stringify(settings),
      sealedCredentials,
      updatedAt: new Date().toISOString(),
    })
    .where(eq(suppliers.code, code))
    .returning();
  return viewOf(updated!);
};

/**
 * Removes a supplier: 409 while a connection sells it (or for the built-in one); with bookings
 * (`hasBookings`, the booking room's word) it is deactivated, never erased, so they still cancel.
 */
export const deleteSupplier = async (
  db: Db,
  code: string,
  hasBookings: (code: string) => Promise<boolean>,
): Promise<SupplierView & { deleted: boolean }> => {
  const row = await readRow(db, code);
  if (supplierKind(row.kind)?.builtIn)
    throw new ApiError("supplier_in_use", `Supplier ${code} is built in and cannot be deleted`);
  const selling = await connectionsSelling(db, code);
  if (selling.length)
    throw new ApiError(
      "supplier_in_use",
      `Supplier ${code} is sold by ${selling.length} connection(s); remove it from them first`,
    );
  if (await hasBookings(code)) {
    const [kept] = await db
      .update(suppliers)
      .set({ active: false, updatedAt: new Date().toISOString() })
      .where(eq(suppliers.code, code))
      .returning();
    return { ...viewOf(kept!), deleted: false };
  }
  await db.delete(suppliers).where(eq(suppliers.code, code));
  return { ...viewOf(row), deleted: true };
};

/** A row as its kind's factory takes it: settings parsed by the kind, credentials opened (never to be shown or logged). */
const storedOf = async (row: SupplierRow, kind: SupplierKind, credentialsKey: string) => ({
  code: row.code,
  name: row.name,
  settings: kind.settings.parse(JSON.parse(row.settings)),
  credentials: row.sealedCredentials
    ? (JSON.parse(await openSecret(credentialsKey, SEAL_PURPOSE, row.sealBinding, row.sealedCredentials)) as unknown)
    : null,
});

/**
 * A supplier's own hotel list, read through its kind (hotel-map/suggest with `fromSupplier`): 404
 * for an unknown or deactivated supplier, 400 for a kind that has no list to read.
 */
export const supplierHotelList = async (
  env: SupplierEnv,
  db: Db,
  credentialsKey: string,
  code: string,
  limits: { maxHotels: number },
): Promise<SupplierHotel[]> => {
  const row = await readRow(db, code);
  if (!row.active) throw supplierNotFound(code);
  const kind = kindOf(row.kind);
  if (!kind.hotelList)
    throw new ApiError(
      "invalid_request",
      `fromSupplier: supplier ${code} is of kind ${row.kind}, which has no hotel list to read; send its hotels instead`,
      { field: "fromSupplier" },
    );
  return kind.hotelList(env, await storedOf(row, kind, credentialsKey), limits);
};

/** A Supplier built by the directory: what its kind can do is its kind's word (booking asks these, never the kind). */
export type DirectorySupplier = Supplier;

/**
 * The suppliers the codes name, in their order, built by their kinds with their credentials
 * opened (one D1 statement); a code without a row, or of a kind not registered, is left out.
 * Their credentials must never reach a response or a log line.
 */
export const suppliersByCodes = async (
  env: SupplierEnv,
  db: Db,
  credentialsKey: string,
  codes: string[],
): Promise<DirectorySupplier[]> => {
  if (codes.length === 0) return [];
  const rows = await db.select().from(suppliers).where(inArray(suppliers.code, codes));
  const built = await Promise.all(
    rows.map(async (row) => {
      const kind = supplierKind(row.kind);
      if (!kind) return null;
      const stored = await storedOf(row, kind, credentialsKey);
      const supplier = kind.create(env, db, stored);
      return [row.code, Object.assign(supplier, { capabilities: kind.capabilities(stored.settings) })] as const;
    }),
  );
  const byCode = new Map(built.filter((s) => s !== null));
  return codes.flatMap((code) => byCode.get(code) ?? []);
};

/** The built-in supplier, without a read: what an embedded-only connection sells. */
export const embeddedSupplierCode = EMBEDDED_SUPPLIER;
