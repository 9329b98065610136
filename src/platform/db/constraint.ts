/**
 * True when `err` (a D1 error, possibly wrapped by drizzle) is a UNIQUE constraint failure.
 * `columns`, when given, must appear in SQLite's message ("UNIQUE constraint failed: t.a, t.b"),
 * which tells apart the indexes of one table.
 */
export const isUniqueViolation = (err: unknown, columns?: string): boolean => {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const match = /UNIQUE constraint failed: ([^:]+)/.exec(e.message);
    if (match) return columns === undefined || match[1]!.includes(columns);
  }
  return false;
};

/** True when `err` (a D1 error, possibly wrapped by drizzle) is a FOREIGN KEY constraint failure. */
export const isForeignKeyViolation = (err: unknown): boolean => {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (/FOREIGN KEY constraint failed/.test(e.message)) return true;
  }
  return false;
};

/**
 * True when `err` (a D1 error, possibly wrapped by drizzle) is a CHECK constraint failure;
 * `name`, when given, must be the constraint SQLite names ("CHECK constraint failed: name").
 */
export const isCheckViolation = (err: unknown, name?: string): boolean => {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const match = /CHECK constraint failed(?::\s*([A-Za-z0-9_]+))?/i.exec(e.message);
    if (match) return name === undefined || match[1] === name;
  }
  return false;
};
