// Bookkeeping of transaction records in the renderer: merging pushed changes, grouping replacement chains by nonce,
// and the figures the dashboard shows. Pure functions over the shared TxRecord type.
import type { TxEvent, TxRecord } from '../../../shared/tx-record.js';
import { nonceState, type NonceState } from './nonce-state.js';

export type TxMap = Readonly<Record<string, TxRecord>>;

/** Merges one record into the map; an older copy (by updatedAt) never overwrites a newer one. Returns the same map when nothing changes. */
export function upsertRecord(map: TxMap, record: TxRecord): TxMap {
  const current = map[record.transactionHash];
  if (current) {
    if (record.updatedAt < current.updatedAt) return map;
    if (record.updatedAt === current.updatedAt && JSON.stringify(record) === JSON.stringify(current)) return map;
  }
  return { ...map, [record.transactionHash]: record };
}

/**
 * Whether a record belongs on the dashboard of chain `shown`: records carry the chain they were signed for, and one
 * chain's nonce must never be filed under another's (a list or push that left before a network switch lands after it).
 * A record without a chain (an older core) and a dashboard that does not know its chain yet keep everything.
 */
export function onShownChain(record: TxRecord, shown: number | null): boolean {
  return record.chainId === undefined || shown === null || record.chainId === shown;
}

export function recordsToMap(records: readonly TxRecord[]): TxMap {
  let map: TxMap = {};
  for (const r of records) map = upsertRecord(map, r);
  return map;
}

export interface NonceGroup {
  key: string;
  from: string;
  nonce: number;
  /** Oldest attempt first. */
  attempts: TxRecord[];
  /** The attempt that was mined, if any. */
  winner: TxRecord | null;
  /** Where the nonce stands, in the app's one vocabulary (store/nonce-state.ts). */
  state: NonceState;
  /** When the nonce was first signed, for "waiting 3 min". */
  createdAt: string;
  /** Newest change in the group, for ordering. */
  updatedAt: string;
}

const byAttempt = (a: TxRecord, b: TxRecord) => a.attempt - b.attempt || a.createdAt.localeCompare(b.createdAt);

/** Histories by hash, where loaded; the newest attempt's tells a nonce's problem when the core does not set `problem`. */
export type HistoryMap = Readonly<Record<string, readonly TxEvent[] | undefined>>;

/** Replacement chains grouped by sender and nonce, newest nonce first. */
export function groupByNonce(map: TxMap, histories: HistoryMap = {}): NonceGroup[] {
  const groups = new Map<string, TxRecord[]>();
  for (const r of Object.values(map)) {
    const key = `${r.from.toLowerCase()}:${r.nonce}`;
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  }
  const out: NonceGroup[] = [];
  for (const [key, attempts] of groups) {
    attempts.sort(byAttempt);
    const winner = attempts.find((a) => a.status === 'receipt' || a.status === 'confirmation') ?? null;
    const newest = attempts.reduce((b, r) => (r.attempt > b.attempt || (r.attempt === b.attempt && r.createdAt >= b.createdAt) ? r : b));
    const first = attempts[0]!;
    out.push({
      key,
      from: first.from,
      nonce: first.nonce,
      attempts,
      winner,
      state: nonceState(attempts, histories[newest.transactionHash]),
      createdAt: attempts.reduce((m, a) => (a.createdAt < m ? a.createdAt : m), first.createdAt),
      updatedAt: attempts.reduce((m, a) => (a.updatedAt > m ? a.updatedAt : m), first.updatedAt),
    });
  }
  return out.sort((a, b) => b.nonce - a.nonce || b.updatedAt.localeCompare(a.updatedAt));
}

/** The dashboard's figures: transactions are nonces (what the user asked for), attempts are every signed record. */
export interface TxCounts {
  transactions: number;
  attempts: number;
  open: number;
  needsYou: number;
  confirmed: number;
}

export function countGroups(groups: readonly NonceGroup[]): TxCounts {
  const counts: TxCounts = { transactions: groups.length, attempts: 0, open: 0, needsYou: 0, confirmed: 0 };
  for (const g of groups) {
    counts.attempts += g.attempts.length;
    if (g.state.open) counts.open++;
    if (g.state.name === 'needs-you') counts.needsYou++;
    if (g.state.name === 'confirmed' || g.state.name === 'cancelled') counts.confirmed++;
  }
  return counts;
}

/** Block number and gas used from the stored receipt, when there is one. */
export function receiptFacts(r: TxRecord): { blockNumber: number | null; gasUsed: string | null } {
  const d = r.data as { blockNumber?: unknown; gasUsed?: unknown };
  const blockNumber = typeof d.blockNumber === 'number' ? d.blockNumber : typeof d.blockNumber === 'string' ? Number(d.blockNumber) : null;
  const gasUsed = typeof d.gasUsed === 'number' || typeof d.gasUsed === 'string' ? String(d.gasUsed) : null;
  return { blockNumber: Number.isFinite(blockNumber) ? blockNumber : null, gasUsed };
}

/** The chain of attempts a hash belongs to (same sender and nonce). */
export function chainOf(map: TxMap, hash: string): TxRecord[] {
  const r = map[hash];
  if (!r) return [];
  return Object.values(map)
    .filter((o) => o.nonce === r.nonce && o.from.toLowerCase() === r.from.toLowerCase())
    .sort(byAttempt);
}

/** Percent change between two decimal-wei fees, one decimal: "+27.0%". */
export function bumpPercent(previousWei: string, nextWei: string): string {
  try {
    const prev = BigInt(previousWei);
    if (prev === 0n) return '';
    const tenths = ((BigInt(nextWei) - prev) * 1000n) / prev;
    const sign = tenths >= 0n ? '+' : '−';
    const abs = tenths < 0n ? -tenths : tenths;
    return `${sign}${abs / 10n}.${abs % 10n}%`;
  } catch {
    return '';
  }
}
