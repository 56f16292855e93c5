// The indexer's SQLite sink: blocks, tip, truncated ranges and rollbacks written as they come, inside the caller's
// transaction, and applyBatch / rollbackTo on a single instance's database (PostgreSQL collects instead: ../postgres).
import { writeTransaction, type Db } from '../../../lib/sqlite.js';
import type { IndexWriter } from '../../listing/listing-writer.js';
import { bumpGeneration } from '../../listing/sqlite/listing-rank-sqlite.js';
import { applyBatchTo, type Batch, type BatchSink, type MissingUri } from '../indexer-apply.js';
import { readRollbackPlan, rollbackWith } from '../indexer-reorg.js';

export function sqliteSink(db: Db): BatchSink {
  const putBlock = db.prepare(
    'INSERT INTO idx_blocks (number, hash, parent_hash) VALUES (?, ?, ?) ON CONFLICT (number) DO UPDATE SET hash = ' +
      'excluded.hash, parent_hash = coalesce(excluded.parent_hash, parent_hash)',
  );
  const setTip = db.prepare("INSERT INTO idx_state (key, value) VALUES ('tip', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  const putTruncated = db.prepare(
    'INSERT OR REPLACE INTO idx_truncated (block, log_index, contract, from_id, to_id, indexed) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const drops = [
    db.prepare('DELETE FROM idx_transfers WHERE block > ?'),
    db.prepare('DELETE FROM idx_truncated WHERE block > ?'),
    db.prepare('DELETE FROM idx_blocks WHERE number > ?'),
  ];
  return {
    transaction: (fn) => writeTransaction(db, fn)(),
    putBlock: (n, hash, parent) => void putBlock.run(n, hash, parent),
    setTip: (block) => void setTip.run(String(block)),
    putTruncated: (t) => void putTruncated.run(t.block, t.logIndex, t.contract, t.fromId.toString(), t.toId.toString(), t.indexed),
    dropAbove: (block) => drops.forEach((d) => d.run(block)),
    bumpGeneration: () => bumpGeneration(db),
  };
}

/** applyBatch on a SQLite index, in one transaction. */
export function applyBatch(db: Db, w: IndexWriter, b: Batch): MissingUri[] {
  return applyBatchTo(sqliteSink(db), w, b);
}

/**
 * Undoes everything above `ancestor` in one transaction: transfers are deleted, each affected token goes back to the
 * owner its latest remaining transfer gave it (or disappears when none remains), mint/burn counters are reduced.
 * Returns the addresses of the contracts whose totalSupply must be read again.
 */
export function rollbackTo(db: Db, w: IndexWriter, ancestor: number): string[] {
  const sink = sqliteSink(db);
  return sink.transaction(() => rollbackWith(sink, w, readRollbackPlan(db, ancestor)));
}
