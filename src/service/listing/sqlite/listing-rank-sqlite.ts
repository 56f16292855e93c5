// Counted buckets over the token indexes: find the entry at rank r of a scope's ordered list without an OFFSET scan.
//
// Each ordered list (an owner's tokens by transfer, by id, by contract; a contract's tokens by transfer, by id; an
// (owner, contract) pair's tokens by transfer) is an index range of idx_tokens. idx_rank partitions every list into
// buckets of `lo` key and entry count; the first bucket starts at the empty key. Rank r is found from the bucket
// prefix sums (binary search over a cached copy, or a running sum in SQL from the nearer end) and then by stepping at
// most one bucket (< 2*bucketSize entries) inside the index. Changes move counts in the writer's copy as they come;
// once per batch, buckets above 2*bucketSize are cut at keys read from the index, buckets below bucketSize/4 fold
// into a neighbour, and each changed count is written once.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../../lib/sqlite.js';
import { LIST, listId, type ListCode } from '../listing-keys.js';

export const DEFAULT_BUCKET_SIZE = 256;

/**
 * Every write to the index bumps this counter in the same transaction, so readers can keep derived data (bucket
 * prefix sums, contract rows) in memory and drop it the moment anything changes.
 */
export function bumpGeneration(db: Db): void {
  db.prepare(
    "INSERT INTO idx_state (key, value) VALUES ('gen', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
  ).run();
}

export function readGeneration(db: Db): () => string {
  const st = db.prepare("SELECT value FROM idx_state WHERE key = 'gen'").pluck();
  return () => (st.get() as string | undefined) ?? '0';
}

/** Where each list lives: the index range that holds it. Contract lists skip burned tokens (partial indexes). */
const LIST_SOURCES: Record<ListCode, { scope: string; key: string; index: string; extra: string }> = {
  [LIST.OWNER_TR]: { scope: 'owner_id', key: 'k_tr', index: 'idx_tokens_owner_tr', extra: '' },
  [LIST.OWNER_ID]: { scope: 'owner_id', key: 'k_id', index: 'idx_tokens_owner_id', extra: '' },
  [LIST.OWNER_CT]: { scope: 'owner_id', key: 'k_ct', index: 'idx_tokens_owner_ct', extra: '' },
  [LIST.CONTRACT_TR]: { scope: 'contract_id', key: 'k_tr', index: 'idx_tokens_contract_tr', extra: ' AND owner_id IS NOT NULL' },
  [LIST.CONTRACT_ID]: { scope: 'contract_id', key: 'k_cid', index: 'idx_tokens_contract_id', extra: ' AND owner_id IS NOT NULL' },
  [LIST.PAIR_TR]: { scope: 'pair_id', key: 'k_tr', index: 'idx_tokens_pair_tr', extra: '' },
};

export function listSource(code: ListCode) {
  return LIST_SOURCES[code];
}

/** SQL for the key of the entry at OFFSET ? among keys >= ? of the scope. */
function listSql(code: ListCode): { nth: string } {
  const s = LIST_SOURCES[code];
  return {
    nth: `SELECT ${s.key} AS k FROM idx_tokens INDEXED BY ${s.index} WHERE ${s.scope} = ? AND ${s.key} >= ?${s.extra} ORDER BY ${s.key} LIMIT 1 OFFSET ?`,
  };
}

export interface RankLists {
  /**
   * Moves one entry into (+1) or out of (-1) a list: the count of the bucket its key falls in moves in the writer's
   * copy of the list's buckets (read once). Nothing is written until settle().
   */
  add(code: ListCode, scopeId: number, key: Buffer, delta: 1 | -1): void;
  /**
   * Writes what add() moved, once per bucket: buckets that grew past 2x bucketSize are cut at keys read from the
   * index, tiny ones fold into a neighbour. Call after the token rows hold their final keys and before the
   * transaction ends.
   */
  settle(): void;
  /** Key at ascending rank `rank` (0-based) of a list holding `total` entries; null past the end. */
  keyAt(code: ListCode, scopeId: number, rank: number, total: number): Buffer | null;
  /** Sum of bucket counts; tests compare it with the real size of the list. */
  countOf(code: ListCode, scopeId: number): number;
}

export function createRankLists(db: Db, bucketSize = DEFAULT_BUCKET_SIZE): RankLists {
  const split = bucketSize * 2;
  const mergeBelow = Math.max(1, Math.floor(bucketSize / 4));
  const stmts = {
    get: db.prepare('SELECT cnt FROM idx_rank WHERE list = ? AND lo = ?').pluck(),
    prev: db.prepare('SELECT lo, cnt FROM idx_rank WHERE list = ? AND lo < ? ORDER BY lo DESC LIMIT 1'),
    next: db.prepare('SELECT lo, cnt FROM idx_rank WHERE list = ? AND lo > ? ORDER BY lo ASC LIMIT 1'),
    add: db.prepare('UPDATE idx_rank SET cnt = cnt + ? WHERE list = ? AND lo = ?'),
    buckets: db.prepare('SELECT lo, cnt FROM idx_rank WHERE list = ? ORDER BY lo'),
    upsert: db.prepare('INSERT INTO idx_rank (list, lo, cnt) VALUES (?, ?, ?) ON CONFLICT (list, lo) DO UPDATE SET cnt = excluded.cnt'),
    setCnt: db.prepare('UPDATE idx_rank SET cnt = ? WHERE list = ? AND lo = ?'),
    ins: db.prepare('INSERT INTO idx_rank (list, lo, cnt) VALUES (?, ?, ?)'),
    del: db.prepare('DELETE FROM idx_rank WHERE list = ? AND lo = ?'),
    sum: db.prepare('SELECT coalesce(sum(cnt), 0) AS n FROM idx_rank WHERE list = ?'),
    // Running sums stream in key order, so the outer LIMIT stops at the bucket holding the rank.
    fwd: db.prepare(
      'SELECT lo, cnt, cum FROM (SELECT lo, cnt, sum(cnt) OVER (ORDER BY lo ROWS UNBOUNDED PRECEDING) AS cum FROM idx_rank ' +
        'WHERE list = ?) WHERE cum > ? LIMIT 1',
    ),
    back: db.prepare(
      'SELECT lo, cnt, cum FROM (SELECT lo, cnt, sum(cnt) OVER (ORDER BY lo DESC ROWS UNBOUNDED PRECEDING) AS cum FROM ' +
        'idx_rank WHERE list = ?) WHERE cum > ? LIMIT 1',
    ),
  };
  const nth = new Map<ListCode, Statement<unknown[]>>();
  for (const code of Object.values(LIST)) nth.set(code, db.prepare(listSql(code).nth).pluck());

  // `was`: the count before the first add() since the last settle() (null: untouched); `list`: the list it belongs to.
  type Bucket = { lo: Buffer; cnt: number; was: number | null; list: number };
  const EMPTY = Buffer.alloc(0);
  const hex = (b: Buffer) => b.toString('hex');

  function nthKey(code: ListCode, scopeId: number, from: Buffer, offset: number): Buffer | null {
    return (nth.get(code)!.get(scopeId, from, offset) as Buffer | undefined) ?? null;
  }

  // The writer's copy of the buckets of lists it changed, sorted by lo: a list is read once, then its counts move in
  // memory. Valid while this writer's transactions commit: the indexer makes a new writer after a failed write or a
  // rollback, and a list is read again after its buckets were folded or cut in SQL.
  const known = new Map<number, Bucket[]>();
  const KNOWN_MAX = 200_000;
  // Buckets add() moved since the last settle(), each once. Counts are moved as entries come and go, not collected
  // as operations first: a 10,000-transfer range makes ~120,000 moves, and objects for them cost more than the moves.
  const touched: Bucket[] = [];
  // Buckets whose moved counts are not yet written (each knows its list).
  const held = new Set<Bucket>();
  function commit(): void {
    for (const b of held) stmts.upsert.run(b.list, b.lo, b.cnt);
    held.clear();
  }

  function bucketsOf(list: number): Bucket[] {
    let rows = known.get(list);
    if (!rows) {
      rows = stmts.buckets.all(list) as Bucket[];
      for (const r of rows) {
        r.was = null;
        r.list = list;
      }
      known.set(list, rows);
    }
    return rows;
  }

  function add(code: ListCode, scopeId: number, key: Buffer, delta: 1 | -1): void {
    const list = listId(code, scopeId);
    const rows = bucketsOf(list);
    // An empty list: its first bucket starts at the empty key.
    if (rows.length === 0) rows.push({ lo: EMPTY, cnt: 0, was: null, list });
    // Last bucket whose lo <= key.
    let lo = 0;
    let hi = rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (Buffer.compare(rows[mid]!.lo, key) <= 0) lo = mid;
      else hi = mid - 1;
    }
    const b = rows[lo]!;
    if (b.was === null) {
      b.was = b.cnt;
      touched.push(b);
    }
    b.cnt += delta;
  }

  function settle(): void {
    // Buckets whose count moved on balance, per list (an entry that left and came back moves nothing).
    const changed = new Map<number, Bucket[]>();
    for (const b of touched) {
      if (b.cnt !== b.was) {
        held.add(b);
        const same = changed.get(b.list);
        if (same) same.push(b);
        else changed.set(b.list, [b]);
      }
      b.was = null;
    }
    touched.length = 0;
    for (const [list, bs] of changed) normalize((list % 8) as ListCode, Math.floor(list / 8), list, bs);
    commit();
    // Only between ranges: a list forgotten while it holds unwritten counts would be read again without them.
    if (known.size >= KNOWN_MAX) known.clear();
  }

  /** Folds tiny buckets into a neighbour, then cuts big ones into runs of bucketSize read from the final index. */
  function normalize(code: ListCode, scopeId: number, list: number, touched: readonly Bucket[]): void {
    // Buckets to cut, by lo (their counts are read again from SQL before cutting).
    const big = new Map<string, { lo: Buffer; cnt: number }>();
    for (const b of touched) if (b.cnt > split) big.set(hex(b.lo), b);
    // A list's only bucket stays however small it is; it goes only when empty.
    const alone = (known.get(list)?.length ?? 2) === 1;
    const small = touched.filter((b) => b.cnt < mergeBelow && (!alone || b.cnt <= 0)).sort((a, b) => Buffer.compare(b.lo, a.lo));
    if (big.size === 0 && small.length === 0) return;
    // Folding and cutting work in SQL on written counts; the list is read again next time.
    commit();
    known.delete(list);
    for (const b of small) {
      // Re-read: an earlier merge in this loop may have changed it.
      const cnt = stmts.get.get(list, b.lo) as number | undefined;
      if (cnt === undefined || cnt >= mergeBelow) continue;
      const prev = b.lo.length > 0 ? (stmts.prev.get(list, b.lo) as Bucket | undefined) : undefined;
      if (prev) {
        stmts.del.run(list, b.lo);
        stmts.add.run(cnt, list, prev.lo);
        big.delete(hex(b.lo));
        if (prev.cnt + cnt > split) big.set(hex(prev.lo), { lo: prev.lo, cnt: prev.cnt + cnt });
        continue;
      }
      const next = stmts.next.get(list, b.lo) as Bucket | undefined;
      if (next) {
        // The first bucket keeps the empty key and takes the next one in.
        stmts.del.run(list, next.lo);
        stmts.setCnt.run(cnt + next.cnt, list, b.lo);
        big.delete(hex(next.lo));
        if (cnt + next.cnt > split) big.set(hex(b.lo), { lo: b.lo, cnt: cnt + next.cnt });
      } else if (cnt <= 0) {
        stmts.del.run(list, b.lo);
      }
    }
    for (const { lo } of big.values()) {
      const cnt = stmts.get.get(list, lo) as number | undefined;
      if (cnt === undefined || cnt <= split) continue;
      // Runs of bucketSize; the last run takes the remainder so every piece holds bucketSize..2*bucketSize-1.
      const pieces = Math.floor(cnt / bucketSize);
      stmts.setCnt.run(bucketSize, list, lo);
      let from = lo;
      for (let i = 1; i < pieces; i++) {
        const cut = nthKey(code, scopeId, from, bucketSize);
        if (!cut) throw new Error(`rank list ${list}: the index holds fewer entries than its buckets count`);
        stmts.ins.run(list, cut, i === pieces - 1 ? cnt - bucketSize * (pieces - 1) : bucketSize);
        from = cut;
      }
    }
  }

  return {
    add,
    settle,

    keyAt(code, scopeId, rank, total) {
      if (rank < 0 || rank >= total) return null;
      const list = listId(code, scopeId);
      if (rank < total / 2) {
        const b = stmts.fwd.get(list, rank) as (Bucket & { cum: number }) | undefined;
        if (!b) return null;
        return nthKey(code, scopeId, b.lo, rank - (b.cum - b.cnt));
      }
      const fromEnd = total - 1 - rank;
      const b = stmts.back.get(list, fromEnd) as (Bucket & { cum: number }) | undefined;
      if (!b) return null;
      const inBucketFromTop = fromEnd - (b.cum - b.cnt);
      return nthKey(code, scopeId, b.lo, b.cnt - 1 - inBucketFromTop);
    },

    countOf(code, scopeId) {
      return (stmts.sum.get(listId(code, scopeId)) as { n: number }).n;
    },
  };
}

/** Lists with more buckets than this get their prefix sums cached between index changes. */
const CACHE_MIN_BUCKETS = 8;
const CACHE_MAX_LISTS = 512;

/**
 * The read side of the buckets: `keyAt` with the bucket prefix sums of big lists held in memory (binary search
 * instead of a running sum) until the index generation changes. Small lists and cache misses use the SQL path.
 */
export interface RankReader extends Pick<RankLists, 'keyAt'> {
  /** How many entries of the list have a key below `key`. */
  rankOf(code: ListCode, scopeId: number, key: Buffer): number;
}

export function createRankReader(db: Db, generation: () => string): RankReader {
  const lists = createRankLists(db);
  const bucketOf = db.prepare('SELECT lo FROM idx_rank WHERE list = ? AND lo <= ? ORDER BY lo DESC LIMIT 1').pluck();
  const countBelow = db.prepare('SELECT coalesce(sum(cnt), 0) FROM idx_rank WHERE list = ? AND lo < ?').pluck();
  const between = new Map<ListCode, Statement<unknown[]>>();
  for (const code of Object.values(LIST)) {
    const src = LIST_SOURCES[code];
    between.set(
      code,
      db
        .prepare(
          `SELECT count(*) FROM idx_tokens INDEXED BY ${src.index} WHERE ${src.scope} = ? AND ${src.key} >= ? AND ${src.key} < ?${src.extra}`,
        )
        .pluck(),
    );
  }
  const all = db.prepare('SELECT lo, cnt FROM idx_rank WHERE list = ? ORDER BY lo');
  const countBuckets = db.prepare('SELECT count(*) FROM (SELECT 1 FROM idx_rank WHERE list = ? LIMIT ?)').pluck();
  const nth = new Map<ListCode, Statement<unknown[]>>();
  for (const code of Object.values(LIST)) nth.set(code, db.prepare(listSql(code).nth).pluck());
  let cacheGen = '';
  const cache = new Map<number, { los: Buffer[]; ends: number[] } | null>();

  function cached(list: number): { los: Buffer[]; ends: number[] } | null {
    const gen = generation();
    if (gen !== cacheGen) {
      cache.clear();
      cacheGen = gen;
    }
    let entry = cache.get(list);
    if (entry === undefined) {
      entry = null;
      if ((countBuckets.get(list, CACHE_MIN_BUCKETS + 1) as number) > CACHE_MIN_BUCKETS) {
        const rows = all.all(list) as { lo: Buffer; cnt: number }[];
        const ends: number[] = [];
        let sum = 0;
        for (const r of rows) ends.push((sum += r.cnt));
        entry = { los: rows.map((r) => r.lo), ends };
      }
      if (cache.size >= CACHE_MAX_LISTS) cache.clear();
      cache.set(list, entry);
    }
    return entry;
  }

  return {
    rankOf(code, scopeId, key) {
      const list = listId(code, scopeId);
      const entry = cached(list);
      let lo: Buffer;
      let before: number;
      if (entry) {
        // Last bucket whose lo <= key (bucket 0 starts at the empty key).
        let a = 0;
        let b = entry.los.length - 1;
        while (a < b) {
          const mid = (a + b + 1) >> 1;
          if (Buffer.compare(entry.los[mid]!, key) <= 0) a = mid;
          else b = mid - 1;
        }
        lo = entry.los[a]!;
        before = a === 0 ? 0 : entry.ends[a - 1]!;
      } else {
        const found = bucketOf.get(list, key) as Buffer | undefined;
        if (found === undefined) return 0;
        lo = found;
        before = countBelow.get(list, lo) as number;
      }
      return before + (between.get(code)!.get(scopeId, lo, key) as number);
    },

    keyAt(code, scopeId, rank, total) {
      if (rank < 0 || rank >= total) return null;
      const list = listId(code, scopeId);
      const entry = cached(list);
      if (!entry) return lists.keyAt(code, scopeId, rank, total);
      // First bucket whose running end exceeds the rank.
      let lo = 0;
      let hi = entry.ends.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (entry.ends[mid]! > rank) hi = mid;
        else lo = mid + 1;
      }
      const before = lo === 0 ? 0 : entry.ends[lo - 1]!;
      return (nth.get(code)!.get(scopeId, entry.los[lo]!, rank - before) as Buffer | undefined) ?? null;
    },
  };
}
