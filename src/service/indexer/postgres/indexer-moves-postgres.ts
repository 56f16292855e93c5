// The index's moves by owner on PostgreSQL (the contract: ../indexer-moves.ts), read in one snapshot: another instance
// may commit a range or a rollback between the statements otherwise.
import { numberedPlaceholders } from '../../../lib/sql-placeholders.js';
import { inTransaction, type PgPool } from '../../db/pg-pool.js';
import {
  MOVES_PER_STEP,
  MOVES_SQL,
  mergeMoves,
  movesCut,
  ownersMovesPg,
  stepEnds,
  toMove,
  type IndexedMove,
  type IndexMovesReads,
  type MoveDbRow,
  type MovesSpan,
} from '../indexer-moves.js';

const SQL = Object.fromEntries(Object.entries(MOVES_SQL).map(([k, v]) => [k, numberedPlaceholders(v)])) as Record<
  keyof typeof MOVES_SQL,
  string
>;
const SIDES = [
  { name: 'from', sql: ownersMovesPg('from_id') },
  { name: 'to', sql: ownersMovesPg('to_id') },
];
/** No limit: PostgreSQL's LIMIT NULL. */
const ALL = null;

export function openPostgresIndexMoves(pool: PgPool): IndexMovesReads {
  return {
    movesOfOwners: (addresses, from, step, limit = MOVES_PER_STEP) =>
      inTransaction(pool, async (c): Promise<MovesSpan> => {
        await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const one = async <T>(sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows[0] as T | undefined;
        const tipText = (await one<{ value: string }>(SQL.tip))?.value;
        if (tipText === undefined) return { tip: null, fromHash: null, to: from, toHash: null, moves: [] };
        const tip = Number(tipText);
        const hashOf = async (block: number) =>
          block > tip ? null : ((await one<{ hash: string }>(SQL.blockHash, [block]))?.hash ?? null);
        const fromHash = await hashOf(from);
        const ends = stepEnds(tip, from, step);
        if (!ends) return { tip, fromHash, to: from, toHash: fromHash, moves: [] };
        const stored = await one<{ number: string; hash: string }>(SQL.firstStored, [ends.target, ends.upTo]);
        const ids = (
          await c.query<{ id: string }>('SELECT id FROM idx_accounts WHERE address = ANY($1::text[])', [[...addresses]])
        ).rows.map((r) => r.id);
        // One list per owner and side, as SQLite reads them one by one.
        const listsUpTo = async (to: number, n: number | null) => {
          const lists = new Map<string, IndexedMove[]>();
          for (const side of SIDES) {
            for (const r of (await c.query<MoveDbRow & { owner_id: string }>(side.sql, [ids, from, to, n])).rows) {
              const key = `${side.name}:${r.owner_id}`;
              (lists.get(key) ?? lists.set(key, []).get(key)!).push(toMove(r));
            }
          }
          // A lateral join's order across owners is not promised; each list is put in chain order.
          return [...lists.values()].map((l) => l.sort((a, b) => a.block - b.block || a.logIndex - b.logIndex || a.sub - b.sub));
        };
        let to = stored ? Number(stored.number) : ends.target;
        let lists = await listsUpTo(to, limit + 1);
        const cut = movesCut(lists, limit);
        if (cut) {
          to = cut.to;
          if (cut.wholeBlock) lists = await listsUpTo(to, ALL);
        }
        return { tip, fromHash, to, toHash: !cut && stored ? stored.hash : await hashOf(to), moves: mergeMoves(lists, to) };
      }),
  };
}
