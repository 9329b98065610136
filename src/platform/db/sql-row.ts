import type { Table } from "drizzle-orm";

/**
 * A row as raw SQL returns it (`SELECT *`): the schema's own column names, each typed as drizzle
 * types it. Raw query modules use this instead of writing a row type by hand, so a column added,
 * renamed or made nullable in the schema changes the row type with it.
 */
export type SqlRow<T extends Table> = {
  [K in keyof T["_"]["columns"] & keyof T["$inferSelect"] as T["_"]["columns"][K]["_"]["name"]]: T["$inferSelect"][K];
};
