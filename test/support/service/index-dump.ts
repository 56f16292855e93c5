// The token index as plain rows by natural keys (row ids are each store's own), one SQL text for SQLite and
// PostgreSQL: two indexes of the same chain compare equal table by table.
import type { Db } from '../../../src/lib/sqlite.js';
import type { PgPool } from '../../../src/service/db/pg-pool.js';

export const INDEX_TABLES = [
  'idx_state',
  'idx_accounts',
  'idx_contracts',
  'idx_tokens',
  'idx_owner_contract',
  'idx_pairs',
  'idx_ids',
  'idx_blocks',
  'idx_transfers',
  'idx_truncated',
];

/** Every table of the index by natural keys; one SQL text for both stores. */
// A burned token's uri is left out: whether it was read depends on whether its mint and its burn fell into one range
// (then it never is), which differs between runs; no listing shows it.
export const INDEX_DUMPS: Record<string, string> = {
  state: "SELECT key, value FROM idx_state WHERE key = 'tip' ORDER BY key",
  accounts: 'SELECT address, token_count FROM idx_accounts ORDER BY address',
  contracts:
    'SELECT address, addr, name, symbol, total_supply, has_uri, minted, burned, token_count, first_block, standard FROM idx_contracts ORDER BY address',
  tokens:
    `SELECT c.address AS contract, t.token_id, a.address AS owner, t.k_tr, t.k_id, t.k_ct, t.k_cid, t.balance, CASE ` +
    `WHEN t.owner_id IS NULL THEN '' ELSE t.uri END AS uri,
      CASE WHEN t.pair_id IS NULL THEN t.owner_id IS NULL ELSE (p.owner_id = t.owner_id AND p.contract_id = t.contract_id) END AS pair_ok
    FROM idx_tokens t JOIN idx_contracts c ON c.id = t.contract_id LEFT JOIN idx_accounts a ON a.id = t.owner_id LEFT JOIN idx_pairs p ON p.id = t.pair_id
    ORDER BY c.address, t.k_cid`,
  ownerContract: `SELECT a.address AS owner, o.caddr, c.address AS contract, o.n FROM idx_owner_contract o JOIN idx_accounts a ON a.id = o.owner_id
    JOIN idx_contracts c ON c.id = o.contract_id ORDER BY a.address, o.caddr`,
  ids: 'SELECT c.address AS contract, i.k_id, i.supply, i.uri FROM idx_ids i JOIN idx_contracts c ON c.id = i.contract_id ORDER BY c.address, i.k_id',
  transfers: `SELECT t.block, t.log_index, t.sub, c.address AS contract, t.k_id, f.address AS from_a, o.address AS to_a, t.amount FROM idx_transfers t
    JOIN idx_contracts c ON c.id = t.contract_id LEFT JOIN idx_accounts f ON f.id = t.from_id LEFT JOIN idx_accounts o ON o.id = t.to_id
    ORDER BY t.block, t.log_index, t.sub`,
  blocks: 'SELECT number, hash, parent_hash FROM idx_blocks ORDER BY number',
};

/** Buffers as hex and booleans as 0/1, so both drivers' rows compare equal. */
const plain = (rows: Record<string, unknown>[]) =>
  rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('hex') : typeof v === 'boolean' ? Number(v) : v]),
    ),
  );

/**
 * `checkpoints: false` leaves out idx_blocks and the tip: which blocks an indexer keeps as checkpoints depends on how
 * it split its reads into ranges, and how far it got on a chain that keeps mining, neither of which two runs share.
 */
export interface DumpOptions {
  checkpoints?: boolean;
}

const dumps = (o: DumpOptions) =>
  Object.entries(INDEX_DUMPS).filter(([name]) => o.checkpoints !== false || (name !== 'blocks' && name !== 'state'));

export function dumpSqlite(db: Db, o: DumpOptions = {}): Record<string, unknown[]> {
  return Object.fromEntries(dumps(o).map(([name, sql]) => [name, plain(db.prepare(sql).all() as Record<string, unknown>[])]));
}

export async function dumpPg(pool: PgPool, o: DumpOptions = {}): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [name, sql] of dumps(o)) out[name] = plain((await pool.query(sql)).rows);
  return out;
}
