/**
 * The secrets of one purpose during a rotation. New tokens are signed with `current`; a token is
 * accepted when `current` or `previous` (the secret before the rotation, kept until every token it
 * signed has expired) verifies it. Every signed token goes through this one mechanism.
 */
export type Keyring = { readonly current: string; readonly previous: string | null };

export const keyring = (current: string | undefined, previous?: string | null): Keyring => {
  // Fail closed: no key is ever derived from a missing secret (requests get the 503 before this).
  if (!current) throw new Error("A signing secret is missing");
  return { current, previous: previous && previous !== current ? previous : null };
};

/** The same rotation under a purpose-derived key (key separation between token kinds). */
export const deriveKeyring = (keys: Keyring, derive: (secret: string) => string): Keyring => ({
  current: derive(keys.current),
  previous: keys.previous === null ? null : derive(keys.previous),
});

/** Tries the current secret, then the previous one; the first answer that is not null wins. */
export const verifyWithKeyring = async <T>(
  keys: Keyring,
  verify: (secret: string) => Promise<T | null>,
): Promise<T | null> => {
  const answer = await verify(keys.current);
  if (answer !== null || keys.previous === null) return answer;
  return verify(keys.previous);
};
