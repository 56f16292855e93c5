// The index's moves by owner on SQLite (the contract: ../indexer-moves.ts), read in one transaction: the indexer's
// writer commits between statements otherwise.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../../lib/sqlite.js';
import {
  MOVES_PER_STEP,
  MOVES_SQL,
  mergeMoves,
  movesCut,
  stepEnds,
  toMove,
  type IndexMovesReads,
  type MoveDbRow,
  type MovesSpan,
} from '../indexer-moves.js';

export function openSqliteIndexMoves(db: Db): IndexMovesReads {
  // Prepared at first use: the index's tables are made by the index store, which need not be opened before this.
  let q: Record<keyof typeof MOVES_SQL, Statement<unknown[]>> | undefined;
  const read = db.transaction((addresses: readonly string[], from: number, step: number, limit: number): MovesSpan => {
    q ??= Object.fromEntries(Object.entries(MOVES_SQL).map(([k, v]) => [k, db.prepare(v)])) as Record<
      keyof typeof MOVES_SQL,
      Statement<unknown[]>
    >;
    const tipText = q.tip.pluck().get() as string | undefined;
    if (tipText === undefined) return { tip: null, fromHash: null, to: from, toHash: null, moves: [] };
    const tip = Number(tipText);
    const hashOf = (block: number) => (block > tip ? null : ((q!.blockHash.pluck().get(block) as string | undefined) ?? null));
    const fromHash = hashOf(from);
    const ends = stepEnds(tip, from, step);
    if (!ends) return { tip, fromHash, to: from, toHash: fromHash, moves: [] };
    const stored = q.firstStored.get(ends.target, ends.upTo) as { number: number; hash: string } | undefined;
    const ids = addresses.map((a) => q!.accountId.pluck().get(a) as number | undefined).filter((id) => id !== undefined);
    const listsUpTo = (to: number, n: number) =>
      ids.flatMap((id) => [q!.movesFrom, q!.movesTo].map((s) => (s.all(id, from, to, n) as MoveDbRow[]).map(toMove)));
    let to = stored?.number ?? ends.target;
    let lists = listsUpTo(to, limit + 1);
    const cut = movesCut(lists, limit);
    if (cut) {
      to = cut.to;
      if (cut.wholeBlock) lists = listsUpTo(to, -1);
    }
    return { tip, fromHash, to, toHash: !cut && stored ? stored.hash : hashOf(to), moves: mergeMoves(lists, to) };
  });
  return {
    movesOfOwners: async (addresses, fromBlock, stepBlocks, maxMoves = MOVES_PER_STEP) => read(addresses, fromBlock, stepBlocks, maxMoves),
  };
}
