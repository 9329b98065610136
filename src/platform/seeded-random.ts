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
