import { eq } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import {
  DEFAULT_SELLING_CURRENCY,
  EMBEDDED_SUPPLIER,
  connectionBasics,
  connectionSupplierCodes,
  replaceConnectionSuppliers,
} from "../connections";
import { sealSecret } from "../../platform/crypto/secret-box";
import { checkHotelxSettings, hotelxSettings } from "./kinds/hotelx/settings";
import { sellSuppliers } from "./sold-suppliers";
import type { SupplierKeys } from "./suppliers";
import { suppliers } from "./tables";

/**
 * The routes `/api/connections/{id}/upstream` of before issue 39, kept as a thin alias over
 * suppliers (docs/api-decisions.md): a connection's upstream is the `hotelx` supplier coded
 * `hotelx-<connection code>`, which it sells alone (or after the embedded inventory with
 * `withEmbedded`), in that supplier's currency, as it did.
 */
export type UpstreamInput = {
  kind: "hotelx";
  url: string;
  client: string;
  context: string;
  credentials: { apiKey: string };
  withEmbedded?: boolean;
  twoStepBooking?: boolean;
};
/** The operator's view: never the credentials, only that they are set. */
export type UpstreamView = {
  connectionId: string;
  kind: "hotelx";
  url: string;
  client: string;
  context: string;
  credentials: { apiKey: string };
  withEmbedded: boolean;
  twoStepBooking: boolean;
  createdAt: string;
  updatedAt: string;
};

const upstreamCodeOf = (connectionCode: number) => `hotelx-${connectionCode}`;
const upstreamNotFound = () => new ApiError("upstream_not_found", "Connection has no upstream");

const readUpstream = async (db: Db, connectionId: string) => {
  const { code } = await connectionBasics(db, connectionId);
  const supplierCode = upstreamCodeOf(code);
  const codes = await connectionSupplierCodes(db, connectionId);
  if (!codes.includes(supplierCode)) return null;
  const [row] = await db.select().from(suppliers).where(eq(suppliers.code, supplierCode)).limit(1);
  if (!row) return null;
  const settings = hotelxSettings.parse(JSON.parse(row.settings));
  const view: UpstreamView = {
    connectionId,
    kind: "hotelx",
    url: settings.url,
    client: settings.client,
    context: settings.context,
    credentials: { apiKey: "********" },
    withEmbedded: codes.includes(EMBEDDED_SUPPLIER),
    twoStepBooking: settings.twoStepBooking,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
  return view;
};

/** Points a connection at a Hotel-X upstream (replacing any earlier one): its supplier, written, then sold. */
export const setUpstream = async (
  db: Db,
  keys: SupplierKeys,
  connectionId: string,
  input: UpstreamInput,
): Promise<UpstreamView> => {
  const settings = checkHotelxSettings(
    hotelxSettings.parse({
      url: input.url,
      client: input.client,
      context: input.context,
      hotelCodes: "identity",
      twoStepBooking: input.twoStepBooking ?? false,
    }),
    keys.local,
  );
  const { code } = await connectionBasics(db, connectionId);
  const supplierCode = upstreamCodeOf(code);
  const sealedCredentials = await sealSecret(
    keys.credentialsKey,
    "upstream-credentials",
    supplierCode,
    JSON.stringify({ apiKey: input.credentials.apiKey }),
  );
  const fields = {
    kind: "hotelx",
    name: `Hotel-X upstream of connection ${code}`,
    settings: JSON.stringify(settings),
    sealedCredentials,
    sealBinding: supplierCode,
    active: true,
  };
  await db
    .insert(suppliers)
    .values({ code: supplierCode, ...fields })
    .onConflictDoUpdate({ target: suppliers.code, set: { ...fields, updatedAt: new Date().toISOString() } });
  await sellSuppliers(
    db,
    connectionId,
    input.withEmbedded ? [EMBEDDED_SUPPLIER, supplierCode] : [supplierCode],
    settings.currency,
  );
  return (await readUpstream(db, connectionId))!;
};

export const getUpstream = async (db: Db, connectionId: string): Promise<UpstreamView> => {
  const view = await readUpstream(db, connectionId);
  if (!view) throw upstreamNotFound();
  return view;
};

/** Returns the connection to the embedded inventory, in USD (the supplier row stays); answers what was removed. */
export const removeUpstream = async (db: Db, connectionId: string): Promise<UpstreamView> => {
  const view = await getUpstream(db, connectionId);
  await replaceConnectionSuppliers(db, connectionId, [EMBEDDED_SUPPLIER], DEFAULT_SELLING_CURRENCY);
  return view;
};
