import { z } from "@hono/zod-openapi";
import { inventorySupplier } from "../../inventory-supplier";
import type { SupplierKind } from "../kind";

/** The embedded inventory (our own D1): the one built-in supplier, code `embedded`, no settings. */
export const embeddedKind: SupplierKind = {
  kind: "embedded",
  description: "Edgestay's own inventory (built in: one supplier, code `embedded`)",
  settings: z.object({}).strict(),
  capabilities: () => ({ localWrites: true, twoStepBooking: true, modifications: true }),
  create: (_env, db) => inventorySupplier(db),
  builtIn: true,
};
