import type { Table } from "drizzle-orm";

/** SQLite stores a boolean column as an integer, and a raw read returns that integer (drizzle maps it, raw SQL does not). */
type Stored<V> = V extends boolean ? 0 | 1 : V;

/**
 * A row as raw SQL returns it (`SELECT *`): the schema's own column names, each typed as drizzle
 * types it, except booleans, which come back as 0 or 1. Raw query modules use this instead of
 * writing a row type by hand, so a column added, renamed or made nullable in the schema changes the
 * row type with it.
 */
export type SqlRow<T extends Table> = {
  [K in keyof T["_"]["columns"] & keyof T["$inferSelect"] as T["_"]["columns"][K]["_"]["name"]]: Stored<
    T["$inferSelect"][K]
  >;
};
