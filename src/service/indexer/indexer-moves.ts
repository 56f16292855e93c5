// What the index offers other modules to read: the token moves touching some addresses from a block on, in bounded
// steps, read by owner through the index's own indexes (idx_transfers_from / _to) rather than block by block. Webhooks'
// address activity is its reader; it names no index table. SQLite in sqlite/, PostgreSQL in postgres/.
import { tokenIdFromKey } from '../listing/listing-writer.js';

/** At most this many moves per step (a single block holding more for one address is still read whole). */
export const MOVES_PER_STEP = 1_000;

/** A token move of the index, with the addresses as stored (lowercase; null = the zero address). */
export interface IndexedMove {
  block: number;
  logIndex: number;
  sub: number;
  contract: string;
  standard: 'ERC-721' | 'ERC-1155';
  tokenId: string;
  from: string | null;
  to: string | null;
  /** Decimal; '1' for ERC-721. */
  amount: string;
  /** The index's hash of the move's block, read with the move (null: none stored, as below its checkpoint window). */
  blockHash: string | null;
}

/** One step of a scan of the index, all read at one moment of it. */
export interface MovesSpan {
  /** The index's tip (null: nothing indexed yet). */
  tip: number | null;
  /** The index's hash of the block the step starts after (null: none stored, or above the tip). */
  fromHash: string | null;
  /**
   * Where the step ends: the first block from min(tip, from + step) on, at most one more step up, whose hash the index
   * stores (so a cursor can keep it), else min(tip, from + step); lower when more than the step's moves lie before
   * that (the last block with a move the step still holds whole). `from` itself when the tip is not above it.
   */
  to: number;
  toHash: string | null;
  /** The moves in (from, to] into or out of the addresses asked for, in chain order. */
  moves: IndexedMove[];
}

export interface IndexMovesReads {
  /** One step from `fromBlock`, at most `stepBlocks` blocks and about `maxMoves` moves on, in one snapshot of the index. */
  movesOfOwners(addresses: readonly string[], fromBlock: number, stepBlocks: number, maxMoves?: number): Promise<MovesSpan>;
}

/**
 * The blocks a step from `from` may end at (MovesSpan.to): the first stored one in [target, upTo], else `target`.
 * Every block with a move has a stored hash, so a step that ends above `from + step` reads no more moves than one
 * that ends there. Null: the tip is not above `from`, nothing to read.
 */
export function stepEnds(tip: number, from: number, step: number): { target: number; upTo: number } | null {
  const target = Math.min(tip, from + step);
  return target <= from ? null : { target, upTo: Math.min(tip, target + step) };
}

/**
 * Where a step's moves stop being whole, given each owner's moves as read (chain order, at most `limit + 1` each):
 * a list that came back full is whole only below its last block, and the step keeps at most `limit` moves in all.
 * Null: every list is whole and within the limit. Else `to`, the last block the step holds whole (a block with a
 * move, so its hash is stored), or with `wholeBlock` the one block that alone holds more than the limit: read it
 * again without a limit.
 */
export function movesCut(lists: readonly (readonly { block: number }[])[], limit: number): { to: number; wholeBlock: boolean } | null {
  const fullEnds = lists.filter((l) => l.length > limit).map((l) => l[l.length - 1]!.block);
  let edge = fullEnds.length ? Math.min(...fullEnds) : Infinity;
  const blocks = lists
    .flatMap((l) => l.map((m) => m.block))
    .filter((b) => b < edge)
    .sort((a, b) => a - b);
  if (blocks.length > limit) edge = blocks[limit]!;
  if (edge === Infinity) return null;
  const below = blocks.filter((b) => b < edge).at(-1);
  return below === undefined ? { to: edge, wholeBlock: true } : { to: below, wholeBlock: false };
}

/** Each owner's moves merged in chain order, once each (a move between two watched owners is in both lists). */
export function mergeMoves(lists: readonly (readonly IndexedMove[])[], to: number): IndexedMove[] {
  const seen = new Map<string, IndexedMove>();
  for (const m of lists.flat()) if (m.block <= to) seen.set(`${m.block}:${m.logIndex}:${m.sub}`, m);
  return [...seen.values()].sort((a, b) => a.block - b.block || a.logIndex - b.logIndex || a.sub - b.sub);
}

/** The rows of MOVES_OF_OWNER_SQL. */
export interface MoveDbRow {
  block: number | string;
  log_index: number;
  sub: number;
  contract: string;
  standard: string;
  k_id: Buffer;
  from_addr: string | null;
  to_addr: string | null;
  amount: string | null;
  block_hash: string | null;
}

export const toMove = (r: MoveDbRow): IndexedMove => ({
  block: Number(r.block),
  logIndex: r.log_index,
  sub: r.sub,
  contract: r.contract,
  standard: r.standard === 'ERC1155' ? 'ERC-1155' : 'ERC-721',
  tokenId: tokenIdFromKey(r.k_id).toString(),
  from: r.from_addr,
  to: r.to_addr,
  amount: r.amount ?? '1',
  blockHash: r.block_hash,
});

const MOVES_SELECT = `SELECT t.block, t.log_index, t.sub, c.address AS contract, c.standard, t.k_id, fa.address AS from_addr, ta.address AS to_addr, t.amount,
    b.hash AS block_hash
    FROM idx_transfers t JOIN idx_contracts c ON c.id = t.contract_id
    LEFT JOIN idx_accounts fa ON fa.id = t.from_id LEFT JOIN idx_accounts ta ON ta.id = t.to_id LEFT JOIN idx_blocks b ON b.number = t.block`;
const ownerMoves = (side: 'from_id' | 'to_id') =>
  `${MOVES_SELECT} WHERE t.${side} = ? AND t.block > ? AND t.block <= ? ORDER BY t.block, t.log_index, t.sub LIMIT ?`;

/**
 * PostgreSQL's: every owner's moves on one side in one statement, each owner's at most `limit` (NULL: all), tagged
 * with the owner: (account ids, after block, up to block, limit).
 */
export const ownersMovesPg = (side: 'from_id' | 'to_id') => `SELECT w.id AS owner_id, m.* FROM unnest($1::bigint[]) AS w(id)
  CROSS JOIN LATERAL (${MOVES_SELECT} WHERE t.${side} = w.id AND t.block > $2 AND t.block <= $3 ORDER BY t.block, t.log_index, t.sub LIMIT $4) m`;

/** The same text in both dialects but for the placeholders (`?` here; numbered for PostgreSQL by its store). */
export const MOVES_SQL = {
  tip: "SELECT value FROM idx_state WHERE key = 'tip'",
  /** (address): its account id, if it ever held a token. */
  accountId: 'SELECT id FROM idx_accounts WHERE address = ?',
  /** (block) */
  blockHash: 'SELECT hash FROM idx_blocks WHERE number = ?',
  /** (from, to): the first block in [from, to] whose hash is stored. */
  firstStored: 'SELECT number, hash FROM idx_blocks WHERE number >= ? AND number <= ? ORDER BY number LIMIT 1',
  /** (account id, after block, up to block, limit): an owner's moves out of, and into, its account. */
  movesFrom: ownerMoves('from_id'),
  movesTo: ownerMoves('to_id'),
} as const;
