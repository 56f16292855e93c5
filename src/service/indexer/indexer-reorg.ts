// Reorganisations: find the newest checkpoint the node still agrees with, then undo every transfer above it.
import { runInPieces, runWhole } from '../../lib/event-loop-pieces.js';
import type { Db } from '../../lib/sqlite.js';
import { tokenIdFromKey, type ContractRow, type IndexWriter } from '../listing/listing-writer.js';
import { APPLY_PIECE_MOVES, moveKey, pieceCounter, type BatchSink, type PieceCounter } from './indexer-apply.js';
import type { BlockHeader } from './indexer-rpc.js';

export interface Checkpoint {
  number: number;
  hash: string;
}

/** Pure: the newest checkpoint whose hash the node reports for the same height (both lists newest first), else null. */
export function commonAncestor(stored: readonly Checkpoint[], canonical: readonly (BlockHeader | null)[]): number | null {
  for (let i = 0; i < stored.length; i++) {
    const c = canonical[i];
    if (c && c.hash.toLowerCase() === stored[i]!.hash.toLowerCase()) return stored[i]!.number;
  }
  return null;
}

export function checkpointsBelow(db: Db, below: number, limit: number): Checkpoint[] {
  return db.prepare('SELECT number, hash FROM idx_blocks WHERE number <= ? ORDER BY number DESC LIMIT ?').all(below, limit) as Checkpoint[];
}

export function storedHash(db: Db, number: number): string | null {
  return (db.prepare('SELECT hash FROM idx_blocks WHERE number = ?').pluck().get(number) as string | undefined) ?? null;
}

/** One row of a token's transfer history. */
export interface HistoryRow {
  block: number;
  log_index: number;
  sub: number;
  from_id: number | null;
  to_id: number | null;
  amount: string | null;
}

/** What a rollback to `ancestor` must undo, read before anything changes (rollbackWith applies it). */
export interface RollbackPlan {
  ancestor: number;
  /** Mints and burns above the ancestor, per contract. */
  counts: { contract_id: number; minted: number; burned: number }[];
  /** ERC-721 tokens moved above the ancestor, with the newest move left at or below it (none: the token goes). */
  tokens: { contract_id: number; k_id: Buffer; prev: HistoryRow | null }[];
  /** ERC-1155 ids moved above the ancestor, with their whole history at or below it (replayed). */
  ids: { contract_id: number; k_id: Buffer; history: HistoryRow[] }[];
}

/**
 * SQL of the plan's reads. `counts` serves both stores (PostgreSQL numbers the `?`); PostgreSQL reads the rest a page
 * of rows at a time instead (postgres/indexer-store-postgres.ts).
 */
export const ROLLBACK_SQL = {
  affected:
    "SELECT DISTINCT t.contract_id, t.k_id, coalesce(c.standard, 'ERC721') AS standard FROM idx_transfers t LEFT JOIN " +
    'idx_contracts c ON c.id = t.contract_id WHERE t.block > ?',
  counts:
    'SELECT contract_id, sum(CASE WHEN from_id IS NULL THEN 1 ELSE 0 END) AS minted, sum(CASE WHEN to_id IS NULL THEN 1 ' +
    'ELSE 0 END) AS burned FROM idx_transfers WHERE block > ? GROUP BY contract_id',
  last:
    'SELECT block, log_index, sub, from_id, to_id, amount FROM idx_transfers WHERE contract_id = ? AND k_id = ? AND ' +
    'block <= ? ORDER BY block DESC, log_index DESC, sub DESC LIMIT 1',
  history:
    'SELECT block, log_index, sub, from_id, to_id, amount FROM idx_transfers WHERE contract_id = ? AND k_id = ? AND block <= ? ORDER BY block, log_index, sub',
};

export function readRollbackPlan(db: Db, ancestor: number): RollbackPlan {
  const affected = db.prepare(ROLLBACK_SQL.affected).all(ancestor) as { contract_id: number; k_id: Buffer; standard: string }[];
  const counts = db.prepare(ROLLBACK_SQL.counts).all(ancestor) as RollbackPlan['counts'];
  const last = db.prepare(ROLLBACK_SQL.last);
  const history = db.prepare(ROLLBACK_SQL.history);
  const plan: RollbackPlan = { ancestor, counts, tokens: [], ids: [] };
  for (const a of affected) {
    if (a.standard === 'ERC1155')
      plan.ids.push({ contract_id: a.contract_id, k_id: a.k_id, history: history.all(a.contract_id, a.k_id, ancestor) as HistoryRow[] });
    else
      plan.tokens.push({
        contract_id: a.contract_id,
        k_id: a.k_id,
        prev: (last.get(a.contract_id, a.k_id, ancestor) as HistoryRow | undefined) ?? null,
      });
  }
  return plan;
}

/** Applies a rollback plan through the listing's writer and the indexer's sink, inside the sink's transaction. */
export function rollbackWith(sink: BatchSink, w: IndexWriter, plan: RollbackPlan): string[] {
  return sink.transaction(() => runWhole(rollbackSteps(sink, w, plan, pieceCounter(Number.POSITIVE_INFINITY))));
}

/**
 * The same, giving the event loop a turn every `pieceRows` tokens, history rows and holdings: for PostgreSQL, which
 * holds no transaction while it applies (as applyBatchInPieces), so a deep rollback never holds the thread that answers
 * every network for long.
 */
export function rollbackInPieces(sink: BatchSink, w: IndexWriter, plan: RollbackPlan, pieceRows = APPLY_PIECE_MOVES): Promise<string[]> {
  return runInPieces(rollbackSteps(sink, w, plan, pieceCounter(pieceRows)));
}

/** rollbackWith's work, yielding whenever `piece` says so. Exported for the test that counts the work between yields. */
export function* rollbackSteps(sink: BatchSink, w: IndexWriter, plan: RollbackPlan, piece: PieceCounter): Generator<void, string[]> {
  const touched = new Set<string>();
  for (const c of plan.counts) {
    w.addMintBurn(c.contract_id, -c.minted, -c.burned);
    const row = w.contractById(c.contract_id);
    if (row) touched.add(row.address);
  }
  for (const a of plan.tokens) {
    if (piece()) yield;
    const token = w.token(a.contract_id, a.k_id);
    if (!token) continue;
    if (!a.prev) w.deleteToken(token);
    else w.setOwner(token, a.prev.to_id, moveKey({ block: a.prev.block, logIndex: a.prev.log_index, sub: a.prev.sub }));
  }
  const erc1155 = new Set<number>();
  for (const a of plan.ids) {
    if (piece()) yield;
    const c = w.contractById(a.contract_id);
    if (!c) continue;
    yield* replayId(w, c, a.k_id, a.history, piece);
    erc1155.add(c.id);
  }
  w.flush();
  for (const cid of erc1155) w.setTotalSupply(cid, String(w.countNonZeroIds(cid)));
  sink.dropAbove(plan.ancestor);
  w.dropContractsAbove(plan.ancestor);
  sink.bumpGeneration();
  sink.setTip(plan.ancestor);
  return [...touched].filter((addr) => w.contract(addr) !== undefined);
}

/**
 * Rebuilds every holding and the supply of one ERC-1155 id by replaying its remaining history, with the rules of
 * forward indexing (balances never below zero; a holding's key is the newest move that gave the owner some).
 */
function* replayId(
  w: IndexWriter,
  c: ContractRow,
  kId: Buffer,
  history: readonly HistoryRow[],
  piece: PieceCounter,
): Generator<void, void> {
  for (const t of w.holdingsOfId(c.id, kId)) {
    if (piece()) yield;
    w.deleteToken(t);
  }
  const balances = new Map<number, { balance: bigint; kTr: Buffer }>();
  let supply = 0n;
  for (const h of history) {
    if (piece()) yield;
    const amount = BigInt(h.amount ?? '0');
    if (h.from_id === null) supply += amount;
    else {
      const b = balances.get(h.from_id);
      if (b) b.balance = b.balance > amount ? b.balance - amount : 0n;
    }
    if (h.to_id === null) supply = supply > amount ? supply - amount : 0n;
    else {
      const b = balances.get(h.to_id) ?? { balance: 0n, kTr: Buffer.alloc(0) };
      b.balance += amount;
      b.kTr = moveKey({ block: h.block, logIndex: h.log_index, sub: h.sub });
      balances.set(h.to_id, b);
    }
  }
  const idRow = w.idRow(c.id, kId);
  w.putId(c.id, kId, { supply: supply.toString(), uri: idRow?.uri ?? '' });
  const id = tokenIdFromKey(kId);
  for (const [ownerId, b] of balances) {
    if (piece()) yield;
    if (b.balance === 0n) continue;
    w.createToken(c, id, ownerId, b.kTr, idRow?.uri ?? '', { address: w.accountAddress(ownerId)!, balance: b.balance.toString() });
  }
}
