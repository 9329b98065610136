/**
 * Deterministic pseudo-randomness from a string: what the embedded inventory derives per accommodation
 * (room catalogue, fee schedule) is the same on every request and every location, with nothing stored.
 */

/** 32-bit FNV-1a of a string: a stable seed. */
export const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
};

/** mulberry32: small deterministic PRNG in [0, 1). */
export const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

/** A seeded PRNG for a string. */
export const seededRandom = (text: string) => prng(fnv1a(text));

/**
 * `items` in a seeded order: what `items.sort(() => random() - 0.5)` gives in the Worker's V8 (a
 * binary insertion, one draw per comparison), spelled out because a sort's comparisons are the
 * engine's choice: Node 20's V8 first looks for a run and draws in another order, so the same
 * seed gave another order under Node (the demo catalogue differed between the Worker and the
 * scripts that write the sandbox suppliers' rooms). Returns a new array.
 */
export const seededOrder = <T>(items: readonly T[], random: () => number): T[] => {
  const ordered = [...items];
  for (let start = 1; start < ordered.length; start++) {
    const pivot = ordered[start]!;
    let left = 0;
    let right = start;
    while (left < right) {
      const mid = left + ((right - left) >> 1);
      if (random() - 0.5 < 0) right = mid;
      else left = mid + 1;
    }
    for (let p = start; p > left; p--) ordered[p] = ordered[p - 1]!;
    ordered[left] = pivot;
  }
  return ordered;
};
