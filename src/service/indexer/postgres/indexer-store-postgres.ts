// The index in the PostgreSQL database a fleet shares (the contract: ../indexer-store.ts): each range or rollback is
// prepared by the listing's PostgreSQL writer (which reads the rows it touches), applied in memory through the same
// code as on SQLite, and written in one transaction with the new tip. Writes are serialised in
// this process and, across processes, by a transaction lock plus a check that the committed tip is the one the write
// was built on: a former leader still writing after losing its role fails instead of writing twice.
import { randomUUID } from 'node:crypto';
import { LOCK_CLASS, LOCKS } from '../../db/pg-locks.js';
import { inTransaction, type PgClient, type PgPool } from '../../db/pg-pool.js';
import {
  addressBytes,
  tokenKeys,
  type ContractRow,
  type PostgresListingWriter,
  type PreparedWrite,
  type WriteIntent,
} from '../../listing/listing-writer.js';
import {
  applyBatchInPieces,
  applyUrisInPieces,
  METADATA_UPDATE_CAP,
  metadataBounds,
  metadataTargetsInPieces,
  type BatchSink,
} from '../indexer-apply.js';
import type { MetadataUpdate, Truncation } from '../indexer-events.js';
import { ROLLBACK_SQL, rollbackInPieces, type HistoryRow, type RollbackPlan } from '../indexer-reorg.js';
import { CHECKPOINT_KEEP_BLOCKS, LATEST_TRUNCATED_SQL, PRUNE_CHECKPOINTS_SQL, toTruncatedRow, type IndexStore } from '../indexer-store.js';
import { migrateIndexPg } from './indexer-schema-postgres.js';

/** `?` placeholders as PostgreSQL's `$1, $2, …`. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** The indexer's own rows of one write, collected while it is applied and written with the listing's changes. */
interface Collected {
  blocks: Map<number, { hash: string; parent: string | null }>;
  tip: number | null;
  truncated: Truncation[];
  dropAbove: number | null;
  bump: boolean;
}

function collectingSink(): { sink: BatchSink; collected: Collected } {
  const collected: Collected = { blocks: new Map(), tip: null, truncated: [], dropAbove: null, bump: false };
  const sink: BatchSink = {
    transaction: (fn) => fn(),
    putBlock(n, hash, parent) {
      const prev = collected.blocks.get(n);
      collected.blocks.set(n, { hash, parent: parent ?? prev?.parent ?? null });
    },
    setTip: (block) => void (collected.tip = block),
    putTruncated: (t) => void collected.truncated.push(t),
    dropAbove: (block) => void (collected.dropAbove = block),
    bumpGeneration: () => void (collected.bump = true),
  };
  return { sink, collected };
}

async function writeCollected(c: PgClient, x: Collected): Promise<void> {
  if (x.dropAbove !== null) {
    for (const sql of [
      'DELETE FROM idx_transfers WHERE block > $1',
      'DELETE FROM idx_truncated WHERE block > $1',
      'DELETE FROM idx_blocks WHERE number > $1',
    ]) {
      await c.query(sql, [x.dropAbove]);
    }
  }
  if (x.blocks.size > 0) {
    const rows = [...x.blocks];
    await c.query(
      'INSERT INTO idx_blocks (number, hash, parent_hash) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]) ON ' +
        'CONFLICT (number) DO UPDATE SET hash = excluded.hash, parent_hash = coalesce(excluded.parent_hash, ' +
        'idx_blocks.parent_hash)',
      [rows.map(([n]) => n), rows.map(([, b]) => b.hash), rows.map(([, b]) => b.parent)],
    );
  }
  for (const t of x.truncated) {
    await c.query(
      'INSERT INTO idx_truncated (block, log_index, contract, from_id, to_id, indexed) VALUES ($1, $2, $3, $4, $5, $6) ON ' +
        'CONFLICT (block, log_index) DO UPDATE SET contract = excluded.contract, from_id = excluded.from_id, to_id = ' +
        'excluded.to_id, indexed = excluded.indexed',
      [t.block, t.logIndex, t.contract, t.fromId.toString(), t.toId.toString(), t.indexed],
    );
  }
  if (x.tip !== null) {
    await c.query("INSERT INTO idx_state (key, value) VALUES ('tip', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [
      String(x.tip),
    ]);
  }
  if (x.bump) await bumpGenerationPg(c);
}

/** A write built on a tip that is no longer the committed one: another instance has indexed since. */
class StaleTip extends Error {
  constructor(committed: number, assumed: number) {
    super(`the index is at block ${committed}, not ${assumed} as this write assumed: another instance is indexing; this write was dropped`);
  }
}

export async function bumpGenerationPg(c: PgClient): Promise<void> {
  await c.query(
    "INSERT INTO idx_state (key, value) VALUES ('gen', '1') ON CONFLICT (key) DO UPDATE SET value = (idx_state.value::bigint + 1)::text",
  );
}

async function readTip(c: PgClient | PgPool): Promise<number | null> {
  const r = await c.query<{ value: string }>("SELECT value FROM idx_state WHERE key = 'tip'");
  return r.rows[0] ? Number(r.rows[0].value) : null;
}

/**
 * Rows one query of a rollback plan reads at most: the answer is parsed on the thread that answers every network, and
 * a deep rollback's 10,000 rows at once held it 40-70 ms (bench/indexer/pg-write-steps.js).
 */
const PLAN_PAGE = 500;

/** The tokens and ids moved above $1, in key order, from just above ($2, $3). */
const AFFECTED_PAGE_SQL = `SELECT a.contract_id, a.k_id, coalesce(c.standard, 'ERC721') AS standard FROM
  (SELECT DISTINCT contract_id, k_id FROM idx_transfers WHERE block > $1 AND (contract_id, k_id) > ($2::bigint, $3::bytea)
    ORDER BY contract_id, k_id LIMIT $4) a
  LEFT JOIN idx_contracts c ON c.id = a.contract_id ORDER BY a.contract_id, a.k_id`;
/** Each ERC-721 token's newest move left at or below $3 (none: the token goes). */
const LAST_MOVE_SQL = `SELECT u.c, u.k, t.block, t.log_index, t.sub, t.from_id, t.to_id, t.amount FROM unnest($1::bigint[], $2::bytea[]) AS u(c, k)
  LEFT JOIN LATERAL (SELECT * FROM idx_transfers x WHERE x.contract_id = u.c AND x.k_id = u.k AND x.block <= $3
    ORDER BY x.block DESC, x.log_index DESC, x.sub DESC LIMIT 1) t ON true`;
/** Each ERC-1155 id's history at or below $3, in chain order, from just after the move ($4 ... $8). */
const HISTORY_PAGE_SQL = `SELECT u.c, u.k, t.block, t.log_index, t.sub, t.from_id, t.to_id, t.amount FROM unnest($1::bigint[], $2::bytea[]) AS u(c, k)
  JOIN idx_transfers t ON t.contract_id = u.c AND t.k_id = u.k AND t.block <= $3
  WHERE (u.c, u.k, t.block, t.log_index, t.sub) > ($4::bigint, $5::bytea, $6::bigint, $7::int, $8::int)
  ORDER BY u.c, u.k, t.block, t.log_index, t.sub LIMIT $9`;

/** The rollback plan of indexer-reorg.ts, read `page` rows a query however many tokens the undone blocks moved. */
export async function readRollbackPlanPg(pool: PgPool, ancestor: number, page = PLAN_PAGE): Promise<RollbackPlan> {
  const counts = await pool.query<{ contract_id: number; minted: string; burned: string }>(numbered(ROLLBACK_SQL.counts), [ancestor]);
  const plan: RollbackPlan = {
    ancestor,
    counts: counts.rows.map((c) => ({ contract_id: c.contract_id, minted: Number(c.minted), burned: Number(c.burned) })),
    tokens: [],
    ids: [],
  };
  const affected: { contract_id: number; k_id: Buffer; standard: string }[] = [];
  for (let after: { contract_id: number; k_id: Buffer } = { contract_id: -1, k_id: Buffer.alloc(0) }; ; ) {
    const r = await pool.query<(typeof affected)[number]>(AFFECTED_PAGE_SQL, [ancestor, after.contract_id, after.k_id, page]);
    affected.push(...r.rows);
    if (r.rows.length < page) break;
    after = r.rows.at(-1)!;
  }
  type Keyed = HistoryRow & { c: number; k: Buffer };
  const row = (r: Keyed): HistoryRow => ({
    block: r.block,
    log_index: r.log_index,
    sub: r.sub,
    from_id: r.from_id,
    to_id: r.to_id,
    amount: r.amount,
  });
  const erc721 = affected.filter((a) => a.standard !== 'ERC1155');
  for (let i = 0; i < erc721.length; i += page) {
    const part = erc721.slice(i, i + page);
    const last = await pool.query<Keyed>(LAST_MOVE_SQL, [part.map((a) => a.contract_id), part.map((a) => a.k_id), ancestor]);
    for (const r of last.rows) plan.tokens.push({ contract_id: r.c, k_id: r.k, prev: r.block === null ? null : row(r) });
  }
  const erc1155 = affected.filter((a) => a.standard === 'ERC1155');
  for (let i = 0; i < erc1155.length; i += page) {
    const part = erc1155.slice(i, i + page);
    const byId = new Map<string, HistoryRow[]>(part.map((a) => [`${a.contract_id}:${a.k_id.toString('hex')}`, []]));
    for (let after: unknown[] = [-1, Buffer.alloc(0), -1, -1, -1]; ; ) {
      const params = [part.map((a) => a.contract_id), part.map((a) => a.k_id), ancestor, ...after, page];
      const history = await pool.query<Keyed>(HISTORY_PAGE_SQL, params);
      for (const r of history.rows) byId.get(`${r.c}:${r.k.toString('hex')}`)!.push(row(r));
      if (history.rows.length < page) break;
      const z = history.rows.at(-1)!;
      after = [z.c, z.k, z.block, z.log_index, z.sub];
    }
    for (const a of part)
      plan.ids.push({ contract_id: a.contract_id, k_id: a.k_id, history: byId.get(`${a.contract_id}:${a.k_id.toString('hex')}`)! });
  }
  return plan;
}

/** ERC-4906 ranges as the write will list them (metadataTargets asks with these bounds). */
const metadataRanges = (updates: readonly MetadataUpdate[]) =>
  updates.map((u) => ({ contract: u.contract, ...metadataBounds(u, addressBytes(u.contract)), limit: METADATA_UPDATE_CAP }));

/** What undoing down to the plan's ancestor writes: each token back to its previous owner, each ERC-1155 id replayed. */
const rollbackIntent = (plan: RollbackPlan): WriteIntent => ({
  undo: {
    contractIds: plan.counts.map((c) => c.contract_id),
    tokens: plan.tokens.map((t) => ({ contractId: t.contract_id, kId: t.k_id, owner: t.prev?.to_id ?? null })),
    ids: plan.ids.map((i) => ({
      contractId: i.contract_id,
      kId: i.k_id,
      receivers: i.history.flatMap((h) => (h.to_id === null ? [] : [h.to_id])),
    })),
  },
});

/** `listing`: the listing's PostgreSQL write side, through which every write goes. */
/** `lockClass`: the network's (SharedDatabase.lockClass), so writes of two networks' indexes never wait on each other. */
export async function openPostgresIndexStore(pool: PgPool, listing: PostgresListingWriter, lockClass = LOCK_CLASS): Promise<IndexStore> {
  await migrateIndexPg(pool, listing.schemaSteps);
  let queue: Promise<unknown> = Promise.resolve();
  // One write at a time in this process: each loads rows the previous one may change.
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn);
    queue = run.catch(() => {});
    return run;
  };
  // The read-ahead's view: contracts known to the index (never change once added, until a rollback drops them) and
  // ERC-1155 ids known (their uri is stored).
  const contracts = new Map<string, ContractRow>();
  const knownIds = new Set<string>();
  const idKey = (c: ContractRow, id: bigint) => `${c.id}:${tokenKeys(c.addr, id).kId.toString('hex')}`;

  /**
   * Loads, applies in memory, then writes in one transaction on top of `tip` (undefined: no tip check). Each write
   * leaves its own mark in idx_state: when the connection is lost around COMMIT, the mark says whether the write
   * landed (then it succeeded, and the uris it names are still read) or not (then it is retried).
   */
  async function write<T>(
    intent: WriteIntent,
    tip: number | undefined,
    apply: (w: PreparedWrite, sink: BatchSink) => T | Promise<T>,
  ): Promise<T> {
    const w = await listing.prepare(intent);
    const { sink, collected } = collectingSink();
    const out = await apply(w, sink);
    const mark = randomUUID();
    try {
      await inTransaction(pool, async (c) => {
        await c.query('SELECT pg_advisory_xact_lock($1, $2)', [lockClass, LOCKS.indexWrite]);
        if (tip !== undefined) {
          const committed = await readTip(c);
          if (committed !== null && committed !== tip) throw new StaleTip(committed, tip);
        }
        await w.commit(c);
        await writeCollected(c, collected);
        await c.query(
          "INSERT INTO idx_state (key, value) VALUES ('last_write', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          [mark],
        );
      });
    } catch (e) {
      if (e instanceof StaleTip || !(await landed(mark))) throw e;
    }
    return out;
  }

  /** Whether the write that left `mark` committed; false when that cannot be told now (it is then retried). */
  async function landed(mark: string): Promise<boolean> {
    try {
      const r = await pool.query<{ value: string }>("SELECT value FROM idx_state WHERE key = 'last_write'");
      return r.rows[0]?.value === mark;
    } catch {
      return false;
    }
  }

  return {
    readerFile: null,
    lookups: {
      contractOf: (a) => contracts.get(a),
      idKnown: (c, id) => knownIds.has(idKey(c, id)),
      async preload(moves) {
        const addresses = [...new Set(moves.map((m) => m.contract))].filter((a) => !contracts.has(a));
        if (addresses.length > 0) {
          const r = await pool.query<ContractRow>(
            'SELECT id, address, addr, has_uri, total_supply, standard FROM idx_contracts WHERE address = ANY($1::text[])',
            [addresses],
          );
          for (const c of r.rows) contracts.set(c.address, c);
        }
        const mints = moves.filter((m) => m.amount !== null && contracts.has(m.contract));
        if (mints.length === 0) return;
        const cs = mints.map((m) => contracts.get(m.contract)!);
        const r = await pool.query<{ contract_id: number; k_id: Buffer }>(
          'SELECT i.contract_id, i.k_id FROM unnest($1::bigint[], $2::bytea[]) AS u(c, k) JOIN idx_ids i ON i.contract_id = u.c AND i.k_id = u.k',
          [cs.map((c) => c.id), mints.map((m, i) => tokenKeys(cs[i]!.addr, m.id).kId)],
        );
        if (knownIds.size > 100_000) knownIds.clear();
        for (const row of r.rows) knownIds.add(`${row.contract_id}:${row.k_id.toString('hex')}`);
      },
    },
    tip: () => readTip(pool),
    async storedHash(block) {
      const r = await pool.query<{ hash: string }>('SELECT hash FROM idx_blocks WHERE number = $1', [block]);
      return r.rows[0]?.hash ?? null;
    },
    async checkpointsBelow(below, limit) {
      const r = await pool.query<{ number: number; hash: string }>(
        'SELECT number, hash FROM idx_blocks WHERE number <= $1 ORDER BY number DESC LIMIT $2',
        [below, limit],
      );
      return r.rows;
    },
    apply: (batch, tip) =>
      serial(() => {
        const contracts = [...batch.newContracts.keys(), ...batch.supplies.keys()];
        const intent = {
          contracts,
          moves: batch.logs,
          idUris: batch.uriEvents ?? [],
          idRanges: metadataRanges(batch.metadataUpdates ?? []),
        };
        // In pieces: a 10,000-move range applied at once held the event loop 80-120 ms (APPLY_PIECE_MOVES).
        return write(intent, tip, (w, sink) => applyBatchInPieces(sink, w, batch));
      }),
    rollback: (ancestor, tip) =>
      serial(async () => {
        const plan = await readRollbackPlanPg(pool, ancestor);
        contracts.clear();
        knownIds.clear();
        return write(rollbackIntent(plan), tip, (w, sink) => rollbackInPieces(sink, w, plan));
      }),
    writeUris: (missing, uris) =>
      serial(() =>
        write({ contractIds: missing.map((m) => m.contractId) }, undefined, async (w, sink) => {
          await applyUrisInPieces(w, missing, uris);
          sink.bumpGeneration();
        }),
      ),
    metadataTargets: (updates) =>
      serial(async () => {
        return metadataTargetsInPieces(await listing.prepare({ idRanges: metadataRanges(updates) }), updates);
      }),
    async truncated() {
      const [count, latest] = await Promise.all([
        pool.query<{ n: string }>('SELECT count(*) AS n FROM idx_truncated'),
        pool.query<Parameters<typeof toTruncatedRow>[0]>(LATEST_TRUNCATED_SQL),
      ]);
      return { count: Number(count.rows[0]!.n), latest: latest.rows.map(toTruncatedRow) };
    },
    async pruneCheckpoints(tip) {
      await pool.query(numbered(PRUNE_CHECKPOINTS_SQL), [tip - CHECKPOINT_KEEP_BLOCKS]);
    },
  };
}
