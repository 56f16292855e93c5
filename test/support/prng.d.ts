// Types for prng.js (seeded mulberry32 random numbers shared by benchmarks and tests).

/** Returns a function giving the next number in [0, 1) of the sequence for `seed` (a 32-bit integer). */
export function prng(seed: number): () => number;
