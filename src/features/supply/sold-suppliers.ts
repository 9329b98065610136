import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../platform/db/client";
import { ApiError } from "../../platform/http/api-error";
import { replaceConnectionSuppliers } from "../connections";
import { suppliers } from "./tables";

/**
 * Sets the suppliers a connection sells, in order of preference: every code must name an active
 * supplier (400 naming the first that does not), each once. `currency`, when given, is its new
 * selling currency.
 */
export const sellSuppliers = async (db: Db, connectionId: string, codes: string[], currency?: string) => {
  const seen = new Set<string>();
  for (const code of codes) {
    if (seen.has(code))
      throw new ApiError("invalid_request", `suppliers: ${code} is listed twice`, { field: "suppliers" });
    seen.add(code);
  }
  const rows = await db
    .select({ code: suppliers.code })
    .from(suppliers)
    .where(and(inArray(suppliers.code, codes), eq(suppliers.active, true)));
  const active = new Set(rows.map((r) => r.code));
  const unknown = codes.find((code) => !active.has(code));
  if (unknown)
    throw new ApiError("unknown_supplier", `Unknown supplier: ${unknown}`, { field: "suppliers", supplier: unknown });
  return replaceConnectionSuppliers(db, connectionId, codes, currency);
};
