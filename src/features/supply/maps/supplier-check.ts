import { and, eq } from "drizzle-orm";
import type { Db } from "../../../platform/db/client";
import { supplierNotFound } from "../suppliers";
import { suppliers } from "../tables";

/** A map belongs to a supplier the operator has (a deactivated one is deleted for the operator): else 404. */
export const requireSupplier = async (db: Db, code: string) => {
  const [found] = await db
    .select({ code: suppliers.code })
    .from(suppliers)
    .where(and(eq(suppliers.code, code), eq(suppliers.active, true)));
  if (!found) throw supplierNotFound(code);
};
