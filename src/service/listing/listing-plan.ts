// The listing's query plan, decided once for both backends (pure): which list a page is read from, and how an owner's
// filtered contracts combine. sqlite/listing-reads-sqlite.ts and postgres/listing-reads-postgres.ts only carry it out.
import type { OrderBy, Standard } from '../../shared/listing.js';
import { pageStartRank, planSlices } from './listing-cursor.js';
import type { TokenQueryInput } from './listing-reads.js';

/** An owner's list is ordered by one of three keys; a contract's by transfer or token id. */
export type OwnerOrder = 'transfer' | 'token_id' | 'contract_address';

/** The plan before anything is read: a whole list, or the owner's holdings first. */
export type QueryPlan =
  | { kind: 'empty' }
  | { kind: 'contract'; address: string; order: 'transfer' | 'token_id'; standard: Standard | undefined }
  | { kind: 'owner'; owner: string; order: OwnerOrder }
  /** A contracts filter or a standard: the owner's holdings are read, then `planHoldings` decides. */
  | { kind: 'holdings'; owner: string; filter: string[] | null; standard: Standard | undefined };

const ownerOrder = (o: OrderBy): OwnerOrder =>
  o === 'transfer_block_number' ? 'transfer' : o === 'token_id' ? 'token_id' : 'contract_address';

export function planQuery(q: TokenQueryInput): QueryPlan {
  const filter = q.contracts && q.contracts.length > 0 ? [...new Set(q.contracts.map((a) => a.toLowerCase()))] : null;
  if (q.contract !== undefined) {
    const address = q.contract.toLowerCase();
    // A contract passes a filter exactly when the filter names it.
    if (filter && !filter.includes(address)) return { kind: 'empty' };
    return { kind: 'contract', address, order: q.orderBy === 'transfer_block_number' ? 'transfer' : 'token_id', standard: q.standard };
  }
  if (q.owner === undefined) throw new Error('queryTokens needs an owner or a contract');
  const owner = q.owner.toLowerCase();
  if (!filter && !q.standard) return { kind: 'owner', owner, order: ownerOrder(q.orderBy) };
  return { kind: 'holdings', owner, filter, standard: q.standard };
}

/** How several contracts' lists (transfer or token-id order) give one page: merge their heads, select the page's first
 * key by rank lookups (SQLite's counted buckets), or scan the owner's whole list for them (PostgreSQL). */
export type Combine = Exclude<NonNullable<TokenQueryInput['several']>, 'auto'>;
export type Backend = 'sqlite' | 'postgres';
const COMBINES: Record<Backend, readonly Combine[]> = { sqlite: ['merge', 'select'], postgres: ['merge', 'scan'] };

/** A held contract and the owner's token count in it. */
export interface Held<T> {
  of: T;
  n: number;
}

/** The plan once the owner's holdings are known. Ranks count in the page's direction; `total` is the filtered count. */
export type HoldingsPlan<T> =
  | { kind: 'empty' }
  /** The standard filters nothing out (every contract of the owner has it): the owner's whole list. */
  | { kind: 'owner'; order: OwnerOrder }
  | { kind: 'past-end'; total: number }
  /** One contract in transfer order: the (owner, contract) pair's own list. */
  | { kind: 'pair'; held: Held<T>; total: number; start: number }
  /** Contract order (or token-id order of one contract): consecutive slices of the owner's contract-ordered list. */
  | { kind: 'slices'; parts: { held: Held<T>; from: number; take: number }[]; total: number; start: number }
  | { kind: 'several'; held: Held<T>[]; byTransfer: boolean; combine: Combine; total: number; start: number };

export interface Holdings<T> {
  /** The owner's contracts that pass the filter and the standard. */
  kept: readonly T[];
  /** How many contracts the owner holds in all, for a standard alone; null under a contracts filter. */
  mine: number | null;
  /** Each contract's key (its address bytes: the listing's contract order). */
  addr(c: T): Buffer;
  /** The owner's tokens in `c` (may be 0); asked only once the whole list is ruled out. */
  count(c: T): number;
  /** The owner's tokens in all (the scan's cost). */
  tokenCount: number;
}

/** `several` forces a way to combine several contracts (tests); 'auto' or unset estimates the cheaper. */
export function planHoldings<T>(q: TokenQueryInput, h: Holdings<T>, backend: Backend): HoldingsPlan<T> {
  if (h.kept.length === h.mine) return { kind: 'owner', order: ownerOrder(q.orderBy) };
  if (h.kept.length === 0) return { kind: 'empty' };
  const held = h.kept
    .map((of) => ({ of, n: h.count(of), addr: h.addr(of) }))
    .filter((x) => x.n > 0)
    .sort((a, b) => Buffer.compare(a.addr, b.addr))
    .map(({ of, n }) => ({ of, n }));
  const total = held.reduce((s, x) => s + x.n, 0);
  const start = pageStartRank(q.page, q.size, total);
  if (start === null) return { kind: 'past-end', total };
  if (q.orderBy === 'transfer_block_number' && held.length === 1) return { kind: 'pair', held: held[0]!, total, start };
  if (q.orderBy === 'contract_address' || (q.orderBy === 'token_id' && held.length === 1)) {
    const slices = q.direction === 'desc' ? [...held].reverse() : held;
    const parts = planSlices(
      slices.map((x) => x.n),
      start,
      q.size,
    ).map((p) => ({ held: slices[p.slice]!, from: p.from, take: p.take }));
    return { kind: 'slices', parts, total, start };
  }
  const byTransfer = q.orderBy === 'transfer_block_number';
  const forced = q.several && q.several !== 'auto' ? q.several : null;
  if (forced && !COMBINES[backend].includes(forced)) throw new Error(`the ${backend} listing cannot ${forced} several contracts`);
  const combine =
    forced ??
    (backend === 'sqlite'
      ? filterPlan(
          held.length,
          held.reduce((n, x) => Math.max(n, x.n), 1),
          held.reduce((n, x) => n + Math.min(x.n, start + q.size), 0),
        )
      : severalPlan(held, nearerEnd(start, q.size, total).reach, total, h.tokenCount, byTransfer));
  return { kind: 'several', held, byTransfer, combine, total, start };
}

/**
 * SQLite: merge or select, by estimated cost (measured on the benchmark data: a merged key costs about 0.5 us, a rank
 * lookup about 3 us and a selection needs about k^2 log2 n of them).
 */
export function filterPlan(lists: number, widest: number, mergeKeys: number): 'merge' | 'select' {
  const select = lists * lists * Math.log2(widest + 2) * 3;
  const merge = mergeKeys * 0.5 + lists * 5;
  return merge <= select ? 'merge' : 'select';
}

/** Past this many contracts, one filtered scan of the owner's list beats planning and running a subquery per contract. */
const MERGE_MAX_LISTS = 32;

/**
 * PostgreSQL: merge or scan, by estimated cost. A merge reads up to `reach` entries of each contract's list: by
 * transfer PostgreSQL merges the index-ordered lists as it reads them (about 0.05 us an entry on 500k tokens,
 * PostgreSQL 18), by token id it must sort them (about 0.35 us, the key being computed). A scan walks about
 * reach * tokenCount / total entries of the owner's whole list and visits the table for each to see its contract
 * (about 0.15 us).
 */
export function severalPlan(
  held: readonly { n: number }[],
  reach: number,
  total: number,
  tokenCount: number,
  byTransfer: boolean,
): 'merge' | 'scan' {
  if (held.length > MERGE_MAX_LISTS) return 'scan';
  const merged = held.reduce((s, x) => s + Math.min(x.n, reach), 0) * (byTransfer ? 0.05 : 0.35);
  const scanned = ((reach * tokenCount) / total) * 0.15;
  return merged <= scanned ? 'merge' : 'scan';
}

/**
 * Where PostgreSQL reads ranks [start, start + size) of a list of `total` entries from: forward in `dir` over the first
 * `reach` entries, or, for a page in the back half, backwards from the far end.
 */
export function nearerEnd(start: number, size: number, total: number): { backwards: boolean; reach: number; skip: number; take: number } {
  if (2 * start + size <= total) return { backwards: false, reach: start + size, skip: start, take: size };
  const reach = total - start;
  return { backwards: true, reach, skip: Math.max(reach - size, 0), take: Math.min(size, reach) };
}
