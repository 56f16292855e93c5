// Tables of the ERC-721 index (see docs/indexer.md): tokens with byte-sortable order keys, counted rank buckets, counters, history.
import { migrate, type Db } from '../../lib/sqlite.js';

const V1 = `
CREATE TABLE idx_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);

-- Checkpoints for reorganisation checks: every block that carried a transfer plus every range boundary.
CREATE TABLE idx_blocks (number INTEGER PRIMARY KEY, hash TEXT NOT NULL, parent_hash TEXT);

CREATE TABLE idx_accounts (
  id INTEGER PRIMARY KEY,
  address TEXT NOT NULL UNIQUE,
  token_count INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE idx_contracts (
  id INTEGER PRIMARY KEY,
  address TEXT NOT NULL UNIQUE,
  addr BLOB NOT NULL,
  name TEXT NOT NULL,
  symbol TEXT NOT NULL,
  total_supply TEXT,               -- totalSupply() as read; NULL when the contract does not implement it
  has_uri INTEGER NOT NULL,
  minted INTEGER NOT NULL DEFAULT 0,
  burned INTEGER NOT NULL DEFAULT 0,
  token_count INTEGER NOT NULL DEFAULT 0,
  first_block INTEGER NOT NULL
);

-- One row per token ever seen; owner_id NULL = burned. k_* are the order keys of listing-store-keys.ts.
CREATE TABLE idx_tokens (
  id INTEGER PRIMARY KEY,
  contract_id INTEGER NOT NULL,
  token_id TEXT NOT NULL,
  owner_id INTEGER,
  k_tr BLOB NOT NULL,
  k_id BLOB NOT NULL,
  k_ct BLOB NOT NULL,
  uri TEXT NOT NULL
);
CREATE UNIQUE INDEX idx_tokens_by_contract ON idx_tokens (contract_id, k_id);
CREATE INDEX idx_tokens_owner_tr ON idx_tokens (owner_id, k_tr);
CREATE INDEX idx_tokens_owner_id ON idx_tokens (owner_id, k_id);
CREATE INDEX idx_tokens_owner_ct ON idx_tokens (owner_id, k_ct);
CREATE INDEX idx_tokens_contract_tr ON idx_tokens (contract_id, k_tr) WHERE owner_id IS NOT NULL;
CREATE INDEX idx_tokens_contract_id ON idx_tokens (contract_id, k_id) WHERE owner_id IS NOT NULL;
CREATE INDEX idx_tokens_owner_contract_tr ON idx_tokens (owner_id, contract_id, k_tr);

-- Counted buckets: each row counts the list entries with key in [lo, next lo). See listing-store-rank.ts.
CREATE TABLE idx_rank (list INTEGER NOT NULL, lo BLOB NOT NULL, cnt INTEGER NOT NULL, PRIMARY KEY (list, lo)) WITHOUT ROWID;

-- Tokens per (owner, contract), keyed by the contract's address bytes so prefix sums follow contract_address order.
CREATE TABLE idx_owner_contract (
  owner_id INTEGER NOT NULL,
  caddr BLOB NOT NULL,
  contract_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (owner_id, caddr)
) WITHOUT ROWID;

-- Every transfer, so a rollback can restore the previous owner. from/to NULL = the zero address.
CREATE TABLE idx_transfers (
  block INTEGER NOT NULL,
  log_index INTEGER NOT NULL,
  contract_id INTEGER NOT NULL,
  k_id BLOB NOT NULL,
  from_id INTEGER,
  to_id INTEGER,
  PRIMARY KEY (block, log_index)
) WITHOUT ROWID;
CREATE INDEX idx_transfers_token ON idx_transfers (contract_id, k_id, block, log_index);
`;

// Per (owner, contract) pair lists, so a one-contract filter in transfer order is a seek too. pair_id is the token's
// current pair (NULL when burned); pair ids are never reused.
const V2 = `
CREATE TABLE idx_pairs (id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL, contract_id INTEGER NOT NULL, UNIQUE (owner_id, contract_id));
ALTER TABLE idx_tokens ADD COLUMN pair_id INTEGER;
INSERT INTO idx_pairs (owner_id, contract_id) SELECT DISTINCT owner_id, contract_id FROM idx_tokens WHERE owner_id IS NOT NULL;
UPDATE idx_tokens SET pair_id = (SELECT p.id FROM idx_pairs p WHERE p.owner_id = idx_tokens.owner_id AND p.contract_id = idx_tokens.contract_id)
  WHERE owner_id IS NOT NULL;
DROP INDEX idx_tokens_owner_contract_tr;
CREATE INDEX idx_tokens_pair_tr ON idx_tokens (pair_id, k_tr);
INSERT INTO idx_rank (list, lo, cnt)
  SELECT s * 8 + 5, CASE WHEN g = 0 THEN x'' ELSE min(k) END, count(*) FROM (
    SELECT pair_id AS s, k_tr AS k, (row_number() OVER (PARTITION BY pair_id ORDER BY k_tr) - 1) / 256 AS g
    FROM idx_tokens WHERE pair_id IS NOT NULL
  ) GROUP BY s, g;
`;

// ERC-1155 and EIP-2309 (docs/indexer.md, "Token standards"). A row of idx_tokens is now a *holding*: one per ERC-721
// token (as before) or one per (contract, id, owner) of an ERC-1155 id with a non-zero balance. k_cid is the key of
// the contract lists by id: k_id for ERC-721, k_id + owner address for ERC-1155 (several owners share an id).
// History rows gain a sub-index (a position inside a multi-token log) and an amount (NULL = one ERC-721 token).
const V3 = `
ALTER TABLE idx_contracts ADD COLUMN standard TEXT NOT NULL DEFAULT 'ERC721';
ALTER TABLE idx_tokens ADD COLUMN balance TEXT NOT NULL DEFAULT '1';
ALTER TABLE idx_tokens ADD COLUMN k_cid BLOB;
UPDATE idx_tokens SET k_cid = k_id;
DROP INDEX idx_tokens_by_contract;
DROP INDEX idx_tokens_contract_id;
CREATE UNIQUE INDEX idx_tokens_by_contract ON idx_tokens (contract_id, k_cid);
CREATE INDEX idx_tokens_contract_id ON idx_tokens (contract_id, k_cid) WHERE owner_id IS NOT NULL;
-- Rank buckets of the contract-by-id lists keep their lo keys: ERC-721 k_cid equals k_id.

-- ERC-1155 ids: supply (decimal) and uri, shared by every holder of the id.
CREATE TABLE idx_ids (
  contract_id INTEGER NOT NULL,
  k_id BLOB NOT NULL,
  supply TEXT NOT NULL,
  uri TEXT NOT NULL,
  PRIMARY KEY (contract_id, k_id)
) WITHOUT ROWID;

ALTER TABLE idx_transfers RENAME TO idx_transfers_v2;
DROP INDEX idx_transfers_token;
CREATE TABLE idx_transfers (
  block INTEGER NOT NULL,
  log_index INTEGER NOT NULL,
  sub INTEGER NOT NULL,
  contract_id INTEGER NOT NULL,
  k_id BLOB NOT NULL,
  from_id INTEGER,
  to_id INTEGER,
  amount TEXT,
  PRIMARY KEY (block, log_index, sub)
) WITHOUT ROWID;
INSERT INTO idx_transfers (block, log_index, sub, contract_id, k_id, from_id, to_id, amount)
  SELECT block, log_index, 0, contract_id, k_id, from_id, to_id, NULL FROM idx_transfers_v2;
DROP TABLE idx_transfers_v2;
CREATE INDEX idx_transfers_token ON idx_transfers (contract_id, k_id, block, log_index, sub);

-- EIP-2309 ranges longer than the cap: indexed up to the cap, reported on /health.
CREATE TABLE idx_truncated (
  block INTEGER NOT NULL,
  log_index INTEGER NOT NULL,
  contract TEXT NOT NULL,
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  indexed INTEGER NOT NULL,
  PRIMARY KEY (block, log_index)
) WITHOUT ROWID;
`;

export const INDEX_MIGRATIONS: readonly string[] = [V1, V2, V3];

export function migrateIndex(db: Db): void {
  migrate(db, 'indexer', INDEX_MIGRATIONS);
}
