// A least-recently-used cache bounded by entry count and by total size: pure bookkeeping over a Map (whose insertion
// order is the recency order), so it can be tested without any I/O.

export interface LruCache<V> {
  get(key: string): V | undefined;
  /** Stores `value` as most recent; a value larger than the whole budget is not stored. */
  set(key: string, value: V, size: number): void;
  readonly count: number;
  readonly bytes: number;
}

export function createLruCache<V>(limits: { maxEntries: number; maxBytes: number }): LruCache<V> {
  const entries = new Map<string, { value: V; size: number }>();
  let bytes = 0;
  const drop = (key: string) => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    bytes -= e.size;
  };
  return {
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      entries.delete(key);
      entries.set(key, e);
      return e.value;
    },
    set(key, value, size) {
      drop(key);
      if (size > limits.maxBytes || limits.maxEntries < 1) return;
      entries.set(key, { value, size });
      bytes += size;
      for (const oldest of entries.keys()) {
        if (entries.size <= limits.maxEntries && bytes <= limits.maxBytes) break;
        drop(oldest);
      }
    },
    get count() {
      return entries.size;
    },
    get bytes() {
      return bytes;
    },
  };
}
