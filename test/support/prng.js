// Seeded random numbers (mulberry32) for benchmark data and randomised tests: the same seed gives the same data on every
// run. Plain ESM so the benchmarks (bench/) run it under node as is, with prng.d.ts for the TypeScript tests.

/** Returns a function giving the next number in [0, 1) of the sequence for `seed` (a 32-bit integer). */
export function prng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
