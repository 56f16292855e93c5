// Recomputes everything derived from idx_tokens (counters, per-owner-contract counts, rank buckets) in bulk SQL:
// for bulk loads (the listing benchmark) and as a repair; the indexer itself maintains them incrementally.
import { writeTransaction, type Db } from '../../../lib/sqlite.js';
import { LIST, type ListCode } from '../listing-keys.js';
import { bumpGeneration, DEFAULT_BUCKET_SIZE, listSource } from './listing-rank-sqlite.js';

export function rebuildDerived(db: Db, bucketSize = DEFAULT_BUCKET_SIZE): void {
  // Inlined as an integer literal: a bound JS number would make the division real and every entry its own bucket.
  const size = Math.max(1, Math.floor(bucketSize));
  writeTransaction(db, () => {
    db.exec(`
      INSERT OR IGNORE INTO idx_pairs (owner_id, contract_id) SELECT DISTINCT owner_id, contract_id FROM idx_tokens WHERE owner_id IS NOT NULL;
      UPDATE idx_tokens SET pair_id = CASE WHEN owner_id IS NULL THEN NULL ELSE
        (SELECT p.id FROM idx_pairs p WHERE p.owner_id = idx_tokens.owner_id AND p.contract_id = idx_tokens.contract_id) END;
      UPDATE idx_accounts SET token_count = (SELECT count(*) FROM idx_tokens t WHERE t.owner_id = idx_accounts.id);
      UPDATE idx_contracts SET token_count = (SELECT count(*) FROM idx_tokens t WHERE t.contract_id = idx_contracts.id AND t.owner_id IS NOT NULL);
      DELETE FROM idx_owner_contract;
      INSERT INTO idx_owner_contract (owner_id, caddr, contract_id, n)
        SELECT t.owner_id, c.addr, c.id, count(*) FROM idx_tokens t JOIN idx_contracts c ON c.id = t.contract_id
        WHERE t.owner_id IS NOT NULL GROUP BY t.owner_id, c.id;
      DELETE FROM idx_rank;
    `);
    for (const code of Object.values(LIST) as ListCode[]) {
      const s = listSource(code);
      // Consecutive runs of bucketSize entries; the first bucket of every list starts at the empty key.
      db.prepare(
        `INSERT INTO idx_rank (list, lo, cnt)
         SELECT s * 8 + ${code}, CASE WHEN g = 0 THEN x'' ELSE min(k) END, count(*) FROM (
           SELECT ${s.scope} AS s, ${s.key} AS k,
                  (row_number() OVER (PARTITION BY ${s.scope} ORDER BY ${s.key}) - 1) / ${size} AS g
           FROM idx_tokens WHERE owner_id IS NOT NULL AND ${s.scope} IS NOT NULL
         ) GROUP BY s, g`,
      ).run();
    }
    bumpGeneration(db);
  })();
}
