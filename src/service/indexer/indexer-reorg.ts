// Reorganisations: find the newest checkpoint the node still agrees with, then undo every transfer above it.
import type { Db } from '../../lib/sqlite.js';
import { bumpGeneration, tokenIdFromKey, type ContractRow, type IndexWriter } from '../listing/listing-writer.js';
import { moveKey } from './indexer-apply.js';
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
      'SELECT block, log_index, sub, to_id FROM idx_transfers WHERE contract_id = ? AND k_id = ? ORDER BY block DESC, log_index DESC, sub DESC LIMIT 1',
    );
    const erc1155 = new Set<number>();
    for (const a of affected) {
      const c = w.contractById(a.contract_id);
      if (c?.standard === 'ERC1155') {
        replayId(db, w, c, a.k_id);
        erc1155.add(c.id);
        continue;
      }
      const token = w.token(a.contract_id, a.k_id);
      if (!token) continue;
      const prev = last.get(a.contract_id, a.k_id) as { block: number; log_index: number; sub: number; to_id: number | null } | undefined;
      if (!prev) w.deleteToken(token);
      else w.setOwner(token, prev.to_id, moveKey({ block: prev.block, logIndex: prev.log_index, sub: prev.sub }));
    }
    w.flush();
    for (const cid of erc1155) w.setTotalSupply(cid, String(w.countNonZeroIds(cid)));
    db.prepare('DELETE FROM idx_truncated WHERE block > ?').run(ancestor);
    w.dropContractsAbove(ancestor);
    db.prepare('DELETE FROM idx_blocks WHERE number > ?').run(ancestor);
    bumpGeneration(db);
    db.prepare("INSERT INTO idx_state (key, value) VALUES ('tip', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
      String(ancestor),
    );
    return [...touched].filter((addr) => w.contract(addr) !== undefined);
  })();
}

/**
 * Rebuilds every holding and the supply of one ERC-1155 id by replaying its remaining history, with the rules of
 * forward indexing (balances never below zero; a holding's key is the newest move that gave the owner some).
 */
function replayId(db: Db, w: IndexWriter, c: ContractRow, kId: Buffer): void {
  for (const t of w.holdingsOfId(c.id, kId)) w.deleteToken(t);
  const history = db
    .prepare('SELECT block, log_index, sub, from_id, to_id, amount FROM idx_transfers WHERE contract_id = ? AND k_id = ? ORDER BY block, log_index, sub')
    .all(c.id, kId) as { block: number; log_index: number; sub: number; from_id: number | null; to_id: number | null; amount: string }[];
  const balances = new Map<number, { balance: bigint; kTr: Buffer }>();
  let supply = 0n;
  for (const h of history) {
    const amount = BigInt(h.amount);
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
    if (b.balance === 0n) continue;
    w.createToken(c, id, ownerId, b.kTr, idRow?.uri ?? '', { address: w.accountAddress(ownerId)!, balance: b.balance.toString() });
  }
}
