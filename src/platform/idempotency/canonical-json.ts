/**
 * JSON with object keys sorted, so equal values always give the same text (and digest). The
 * sorting is a JSON.stringify replacer: no recursion of ours, and bodies reaching here are at most
 * MAX_BODY_DEPTH deep (json-body.ts) and MAX_BODY_BYTES long.
 */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value ?? null, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== "object" || Array.isArray(inner)) return inner;
    // fromEntries defines own properties, so a "__proto__" key stays a key.
    return Object.fromEntries(
      Object.keys(inner)
        .sort()
        .map((key) => [key, (inner as Record<string, unknown>)[key]]),
    );
  });
