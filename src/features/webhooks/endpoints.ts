import { and, asc, eq } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { randomToken } from "../../platform/crypto/digest";
import { openSecret, sealSecret } from "../../platform/crypto/secret-box";
import { ApiError } from "../../platform/http/api-error";
import { insertEndpointWithinCap } from "./endpoint-registration";
import { checkEndpointUrl } from "../../platform/http/public-https-url";
import type { CreateWebhook } from "./schemas";
import { webhookDeliveries, webhookEndpoints, type WebhookEndpoint } from "./tables";

/** Endpoints per partner: enough for production, staging and a few tools; more is a mistake. */
export const MAX_ENDPOINTS_PER_PARTNER = 10;
export const WEBHOOK_SECRET_PREFIX = "whsec_";
const SECRET_PURPOSE = "webhook-signing-secret";

export type WebhookView = { id: string; url: string; events: string[]; createdAt: string };

/** What the deploy provides: the key material that seals secrets, and whether this is local development. */
export type WebhookKeys = { secretKey: string; local: boolean };

export const webhookView = (row: WebhookEndpoint): WebhookView => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  createdAt: row.createdAt,
});

export const webhookNotFound = () => new ApiError("webhook_not_found", "Webhook endpoint not found");

/** The signing secret in clear, for signing one delivery; never logged, never returned after creation. */
export const signingSecretOf = (secretKey: string, row: Pick<WebhookEndpoint, "id" | "sealedSecret">) =>
  openSecret(secretKey, SECRET_PURPOSE, row.id, row.sealedSecret);

/**
 * Registers an endpoint and returns its secret, once. The cap is enforced by the insert itself
 * (INSERT ... SELECT ... WHERE count < cap), so parallel requests cannot exceed it.
 */
export const createWebhook = async (db: Db, keys: WebhookKeys, partnerId: string, input: CreateWebhook) => {
  const verdict = checkEndpointUrl(input.url, keys.local);
  if (!verdict.ok) throw new ApiError("invalid_webhook_url", verdict.reason);
  const id = `wh_${crypto.randomUUID().replaceAll("-", "")}`;
  const secret = `${WEBHOOK_SECRET_PREFIX}${randomToken(32)}`;
  const sealed = await sealSecret(keys.secretKey, SECRET_PURPOSE, id, secret);
  const events = JSON.stringify(input.events);
  const createdAt = await insertEndpointWithinCap(
    db,
    { id, partnerId, url: verdict.url, events, sealedSecret: sealed },
    MAX_ENDPOINTS_PER_PARTNER,
  );
  if (createdAt === null) {
    throw new ApiError(
      "webhook_limit_reached",
      `A partner can have at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints`,
    );
  }
  return { id, url: verdict.url, events: input.events, secret, createdAt };
};

/**
 * Replaces the endpoint's signing secret with a new one, shown in this answer only. Every delivery
 * from now on, retries of earlier events included, is signed with it: a delivery opens the secret
 * it is sent with (delivery.ts). No overlap: the receiver switches when it stores the new secret.
 */
export const rotateWebhookSecret = async (
  db: Db,
  keys: Pick<WebhookKeys, "secretKey">,
  partnerId: string,
  id: string,
) => {
  const row = await findWebhook(db, partnerId, id);
  const secret = `${WEBHOOK_SECRET_PREFIX}${randomToken(32)}`;
  const sealed = await sealSecret(keys.secretKey, SECRET_PURPOSE, row.id, secret);
  const [updated] = await db
    .update(webhookEndpoints)
    .set({ sealedSecret: sealed })
    .where(and(eq(webhookEndpoints.id, row.id), eq(webhookEndpoints.partnerId, partnerId)))
    .returning();
  if (!updated) throw webhookNotFound();
  return { ...webhookView(updated), secret };
};

export const listWebhooks = async (db: Db, partnerId: string): Promise<WebhookView[]> =>
  (
    await db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.partnerId, partnerId))
      .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id))
  ).map(webhookView);

/** The partner's own endpoint; another partner's is "not found", never "forbidden". */
export const findWebhook = async (db: Db, partnerId: string, id: string): Promise<WebhookEndpoint> => {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.partnerId, partnerId)))
    .limit(1);
  if (!row) throw webhookNotFound();
  return row;
};

/** Deletes the endpoint and its delivery records; queued messages for it are dropped by the consumer. */
export const deleteWebhook = async (db: Db, partnerId: string, id: string): Promise<WebhookView> => {
  const row = await findWebhook(db, partnerId, id);
  const [, deleted] = await db.batch([
    db.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, row.id)),
    db
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, row.id), eq(webhookEndpoints.partnerId, partnerId)))
      .returning(),
  ]);
  if (deleted.length === 0) throw webhookNotFound();
  return webhookView(deleted[0]!);
};
