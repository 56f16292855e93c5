// Reorganisations: find the newest checkpoint the node still agrees with, then undo every transfer above it.
import type { Db } from '../../lib/sqlite.js';
import { transferKey } from '../listing/listing-store-keys.js';
import { bumpGeneration } from '../listing/listing-store-rank.js';
import type { IndexWriter } from '../listing/listing-store-write.js';
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

/**
 * Undoes everything above `ancestor` in one transaction: transfers are deleted, each affected token goes back to the
 * owner its latest remaining transfer gave it (or disappears when none remains), mint/burn counters are reduced.
 * Returns the addresses of the contracts whose totalSupply must be read again.
 */
export function rollbackTo(db: Db, w: IndexWriter, ancestor: number): string[] {
  return db.transaction(() => {
    const affected = db
      .prepare('SELECT DISTINCT contract_id, k_id FROM idx_transfers WHERE block > ?')
      .all(ancestor) as { contract_id: number; k_id: Buffer }[];
    const counts = db
      .prepare(
        'SELECT contract_id, sum(from_id IS NULL) AS minted, sum(to_id IS NULL) AS burned FROM idx_transfers WHERE block > ? GROUP BY contract_id',
      )
      .all(ancestor) as { contract_id: number; minted: number; burned: number }[];
    const touched = new Set<string>();
    for (const c of counts) {
      w.addMintBurn(c.contract_id, -c.minted, -c.burned);
      const row = w.contractById(c.contract_id);
      if (row) touched.add(row.address);
    }
    db.prepare('DELETE FROM idx_transfers WHERE block > ?').run(ancestor);
    const last = db.prepare(
      'SELECT block, log_index, to_id FROM idx_transfers WHERE contract_id = ? AND k_id = ? ORDER BY block DESC, log_index DESC LIMIT 1',
    );
    for (const a of affected) {
      const token = w.token(a.contract_id, a.k_id);
      if (!token) continue;
      const prev = last.get(a.contract_id, a.k_id) as { block: number; log_index: number; to_id: number | null } | undefined;
      if (!prev) w.deleteToken(token);
      else w.setOwner(token, prev.to_id, transferKey(prev.block, prev.log_index));
    }
    w.flush();
    w.dropContractsAbove(ancestor);
    db.prepare('DELETE FROM idx_blocks WHERE number > ?').run(ancestor);
    bumpGeneration(db);
    db.prepare("INSERT INTO idx_state (key, value) VALUES ('tip', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
      String(ancestor),
    );
    return [...touched].filter((addr) => w.contract(addr) !== undefined);
  })();
}
