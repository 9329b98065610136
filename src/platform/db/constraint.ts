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

/** True when `err` (a D1 error, possibly wrapped by drizzle) is a CHECK constraint failure. */
export const isCheckViolation = (err: unknown): boolean => {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (/CHECK constraint failed/i.test(e.message)) return true;
  }
  return false;
};
