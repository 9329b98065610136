import { z } from "@hono/zod-openapi";

/** Field types every feature validates the same way. */
export const emailSchema = z.email().max(254).openapi({ example: "jane@demo.test" });
