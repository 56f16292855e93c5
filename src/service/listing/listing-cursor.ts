// Pure page arithmetic of the listing: which ranks a page covers and how a page spans concatenated slices.
import type { OrderDirection } from '../../shared/listing.js';

/** First rank (0-based, in the requested direction) of a page; null when it lies past `total` or overflows. */
export function pageStartRank(page: number, size: number, total: number): number | null {
  const start = page * size;
  if (!Number.isSafeInteger(start) || start < 0 || start >= total) return null;
  return start;
}

/** The ascending rank of the entry at `rank` in `direction` of a list of `total` entries. */
export function ascendingRank(rank: number, total: number, direction: OrderDirection): number {
  return direction === 'asc' ? rank : total - 1 - rank;
}

export interface SlicePart {
  /** Index of the slice in the input (already in listing order). */
  slice: number;
  /** First rank inside the slice, counted in the listing direction. */
  from: number;
  take: number;
}

/**
 * How ranks [rank, rank + size) of a list made of consecutive slices (sizes given in listing order) fall into the
 * slices. Used for contract_address order under a contracts filter: each contract's tokens are one contiguous slice.
 */
export function planSlices(sizes: readonly number[], rank: number, size: number): SlicePart[] {
  const parts: SlicePart[] = [];
  let before = 0;
  let want = size;
  for (let i = 0; i < sizes.length && want > 0; i++) {
    const n = sizes[i]!;
    if (rank < before + n) {
      const from = Math.max(0, rank - before);
      const take = Math.min(n - from, want);
      if (take > 0) {
        parts.push({ slice: i, from, take });
        want -= take;
      }
    }
    before += n;
  }
  return parts;
}

/**
 * Merges lists each sorted in listing order (compare: negative when a comes first) and returns entries
 * [skip, skip + take). Used for a contracts filter in transfer or token-id order. Only the first skip + take entries
 * of each list can matter; those are pooled and sorted (k lists of n: O(kn log kn), not O(kn * k)).
 */
export function mergeWindow<T>(lists: readonly (readonly T[])[], compare: (a: T, b: T) => number, skip: number, take: number): T[] {
  const pool: T[] = [];
  for (const l of lists) for (let i = 0; i < l.length && i < skip + take; i++) pool.push(l[i]!);
  return pool.sort(compare).slice(skip, skip + take);
}

/** A sorted list with random access by rank and rank lookup by key (both backed by counted buckets). */
export interface RankedList<K> {
  size: number;
  keyAt(index: number): K;
  /** How many keys of the list are smaller than `key`. */
  countLess(key: K): number;
}

/**
 * The key at ascending rank `rank` of the union of disjoint sorted lists, without walking the ranks before it.
 * Each list keeps a window [lo, hi) that must hold the answer's position; the middle key of the widest window is
 * ranked in every list, and the windows shrink to the side the answer is on. When the windows hold `small` keys or
 * fewer, they are merged directly. O(k log n) rounds of k rank lookups for k lists.
 */
export function selectRank<K>(lists: readonly RankedList<K>[], rank: number, compare: (a: K, b: K) => number, small = 8): K | null {
  const total = lists.reduce((s, l) => s + l.size, 0);
  if (rank < 0 || rank >= total) return null;
  const lo = lists.map(() => 0);
  const hi = lists.map((l) => l.size);
  for (;;) {
    let widest = -1;
    let width = 0;
    let sum = 0;
    for (let j = 0; j < lists.length; j++) {
      const w = hi[j]! - lo[j]!;
      sum += w;
      if (w > width) [widest, width] = [j, w];
    }
    if (sum <= small || widest < 0) break;
    const m = (lo[widest]! + hi[widest]!) >> 1;
    const pivot = lists[widest]!.keyAt(m);
    const less = lists.map((l, j) => (j === widest ? m : l.countLess(pivot)));
    const below = less.reduce((s, n) => s + n, 0);
    if (below === rank) return pivot;
    if (below < rank) {
      // The answer is above the pivot: every key up to the pivot is out.
      for (let j = 0; j < lists.length; j++) lo[j] = Math.max(lo[j]!, j === widest ? m + 1 : less[j]!);
    } else {
      for (let j = 0; j < lists.length; j++) hi[j] = Math.min(hi[j]!, less[j]!);
    }
  }
  // Every key below a window is below the answer and every key above one is above it, so the answer is the
  // (rank - sum of lo)-th smallest key left in the windows.
  const rest: K[] = [];
  for (let j = 0; j < lists.length; j++) for (let i = lo[j]!; i < hi[j]!; i++) rest.push(lists[j]!.keyAt(i));
  rest.sort(compare);
  return rest[rank - lo.reduce((s, n) => s + n, 0)] ?? null;
}
