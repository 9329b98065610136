import { and, eq } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../platform/app-env";
import { sha256Hex } from "../../platform/crypto/digest";
import { partners } from "../../platform/db/schema";
import { ApiError } from "../../platform/http/api-error";

export type CollectorEnv = AppEnv & { Variables: AppEnv["Variables"] & { collectorPartnerId: string } };

/**
 * Section 5, collector key: `x-radar-collector-key` matched by SHA-256 against
 * partners.collector_key_hash. It is a different secret from any API key (api_keys holds those),
 * so neither works in the other's place; it authorises only the signals endpoint.
 */
export const collectorKeyAuth = (): MiddlewareHandler<CollectorEnv> =>
  async function collectorKeyAuth(c, next) {
    const key = c.req.header("x-radar-collector-key");
    if (!key) throw new ApiError("collector_key_required", "Collector key is required");
    const [row] = await c
      .get("db")
      .select({ id: partners.id })
      .from(partners)
      .where(and(eq(partners.collectorKeyHash, await sha256Hex(key)), eq(partners.isActive, true)))
      .limit(1);
    if (!row) throw new ApiError("invalid_collector_key", "Invalid collector key");
    c.set("collectorPartnerId", row.id);
    await next();
  };
