/**
 * A room's door exports functions and types, never a drizzle table: another room that held a table
 * would read and write its storage form (JSON columns, units) itself. A door's `export { a, b } from
 * "./file"` and `export * from "./file"` are followed one step into the room's own file, where a
 * table is an `export const <name> = sqliteTable(`.
 */
const EXPORT_FROM = /^\s*export\s+(type\s+)?(\*|\{([^}]*)\})\s*from\s*["'](\.[^"']+)["']/gm;
const TABLE = /^\s*export\s+const\s+(\w+)\s*=\s*sqliteTable\s*\(/gm;

/** The names `source` (a room's file) defines as drizzle tables. */
export const tablesDefinedIn = (source: string): Set<string> =>
  new Set([...source.matchAll(TABLE)].map((match) => match[1]!));

/**
 * The drizzle tables a door (`src/features/<room>/index.ts`) exports, each as a problem naming the
 * door and the table; `read` gives the text of a file of the room by its specifier ("./tables"), or null.
 */
export const doorTableExports = (
  door: string,
  source: string,
  read: (specifier: string) => string | null,
): string[] => {
  const problems: string[] = [];
  for (const match of source.matchAll(EXPORT_FROM)) {
    if (match[1]) continue; // `export type { ... }` carries no table at run time
    const tables = tablesDefinedIn(read(match[4]!) ?? "");
    const names =
      match[2] === "*"
        ? [...tables]
        : match[3]!
            .split(",")
            .map((part) => part.trim())
            .filter((part) => part && !part.startsWith("type "))
            .map((part) => part.split(/\s+as\s+/)[0]!.trim())
            .filter((name) => tables.has(name));
    for (const name of names)
      problems.push(`${door}: exports the drizzle table ${name}; export functions that read and write it instead`);
  }
  return problems;
};
