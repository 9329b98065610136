import { eq } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { openSecret, sealSecret } from "../../platform/crypto/secret-box";
import { connections, connectionUpstreams } from "./tables";
import { ApiError } from "../../platform/http/api-error";
import { connectionNotFound } from "./partner-connections";
import { checkEndpointUrl } from "../../platform/http/public-https-url";
/** What the supply layer needs to call a connection's upstream, credentials opened. */
export type Upstream = {
  kind: "hotelx";
  url: string;
  client: string;
  context: string;
  apiKey: string;
  withEmbedded: boolean;
  /** The supplier behind the access books in two steps (Hotel-X commitRequired, then commit): holds are sold. */
  twoStepBooking: boolean;
};
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
export type UpstreamView = Omit<Upstream, "apiKey"> & {
  connectionId: string;
  credentials: { apiKey: string };
  createdAt: string;
  updatedAt: string;
};

export type UpstreamKeys = { credentialsKey: string; local: boolean };

const SEAL_PURPOSE = "upstream-credentials";
const MASK = "********";

const upstreamNotFound = () => new ApiError("upstream_not_found", "Connection has no upstream");

const viewOf = (row: typeof connectionUpstreams.$inferSelect): UpstreamView => ({
  connectionId: row.connectionId,
  kind: row.kind,
  url: row.url,
  client: row.client,
  context: row.context,
  credentials: { apiKey: MASK },
  withEmbedded: row.withEmbedded,
  twoStepBooking: row.twoStepBooking,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

const requireConnection = async (db: Db, connectionId: string) => {
  const [row] = await db
    .select({ id: connections.id })
    .from(connections)
    .where(eq(connections.id, connectionId))
    .limit(1);
  if (!row) throw connectionNotFound();
};

/**
 * Points a connection at an upstream (replacing any earlier one). The URL must be public https
 * (http://127.0.0.1:<port> only in local development); credentials are sealed with a fresh IV.
 */
export const setUpstream = async (
  db: Db,
  keys: UpstreamKeys,
  connectionId: string,
  input: UpstreamInput,
): Promise<UpstreamView> => {
  const verdict = checkEndpointUrl(input.url, keys.local);
  if (!verdict.ok) throw new ApiError("invalid_upstream_url", verdict.reason);
  await requireConnection(db, connectionId);
  const sealedCredentials = await sealSecret(
    keys.credentialsKey,
    SEAL_PURPOSE,
    connectionId,
    JSON.stringify({ apiKey: input.credentials.apiKey }),
  );
  const fields = {
    kind: input.kind,
    url: verdict.url,
    client: input.client,
    context: input.context,
    sealedCredentials,
    withEmbedded: input.withEmbedded ?? false,
    twoStepBooking: input.twoStepBooking ?? false,
  };
  const [row] = await db
    .insert(connectionUpstreams)
    .values({ connectionId, ...fields })
    .onConflictDoUpdate({
      target: connectionUpstreams.connectionId,
      set: { ...fields, updatedAt: new Date().toISOString() },
    })
    .returning();
  return viewOf(row!);
};

export const getUpstream = async (db: Db, connectionId: string): Promise<UpstreamView> => {
  await requireConnection(db, connectionId);
  const [row] = await db
    .select()
    .from(connectionUpstreams)
    .where(eq(connectionUpstreams.connectionId, connectionId))
    .limit(1);
  if (!row) throw upstreamNotFound();
  return viewOf(row);
};

/** Returns the connection to the embedded inventory; answers what was removed. */
export const removeUpstream = async (db: Db, connectionId: string): Promise<UpstreamView> => {
  await requireConnection(db, connectionId);
  const [row] = await db
    .delete(connectionUpstreams)
    .where(eq(connectionUpstreams.connectionId, connectionId))
    .returning();
  if (!row) throw upstreamNotFound();
  return viewOf(row);
};

/**
 * The upstream a connection sells from, credentials opened, or null for the embedded inventory.
 * For the supply layer; its answer must never reach a response or a log line.
 */
export const upstreamFor = async (db: Db, credentialsKey: string, connectionId: string): Promise<Upstream | null> => {
  const [row] = await db
    .select()
    .from(connectionUpstreams)
    .where(eq(connectionUpstreams.connectionId, connectionId))
    .limit(1);
  if (!row) return null;
  const { apiKey } = JSON.parse(
    await openSecret(credentialsKey, SEAL_PURPOSE, connectionId, row.sealedCredentials),
  ) as { apiKey: string };
  return {
    kind: row.kind,
    url: row.url,
    client: row.client,
    context: row.context,
    apiKey,
    withEmbedded: row.withEmbedded,
    twoStepBooking: row.twoStepBooking,
  };
};
