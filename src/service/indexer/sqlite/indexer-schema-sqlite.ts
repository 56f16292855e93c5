// The indexer's own tables on SQLite (checkpoints, transfer history, truncated ranges); the listing's tables (its
// sqlite/listing-schema-sqlite.ts, handed over by backend.ts) are joined step by step under one recorded version.
import { migrate, type Db } from '../../../lib/sqlite.js';
import { indexSchemaSteps } from '../../listing/listing-writer.js';

const V1 = `
-- Checkpoints for reorganisation checks: every block that carried a transfer plus every range boundary.
CREATE TABLE idx_blocks (number INTEGER PRIMARY KEY, hash TEXT NOT NULL, parent_hash TEXT);

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

const V2 = '';

// EIP-2309 and ERC-1155: history rows gain a sub-index (a position inside a multi-token log) and an amount
// (NULL = one ERC-721 token).
const V3 = `
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

// Moves by owner: the webhooks' address activity reads a watched account's moves from a block on through these
// (index-moves.ts), not every transfer of a block range. Partial: mints and burns (NULL) are most rows and never asked for.
export const V4_MOVES_BY_OWNER = `
CREATE INDEX idx_transfers_from ON idx_transfers (from_id, block) WHERE from_id IS NOT NULL;
CREATE INDEX idx_transfers_to ON idx_transfers (to_id, block) WHERE to_id IS NOT NULL;
`;

/** The indexer's part of each version of the SQLite index schema. */
export const INDEXER_SQLITE_STEPS: readonly string[] = [V1, V2, V3, V4_MOVES_BY_OWNER];

export function migrateIndex(db: Db, listingSteps: readonly string[]): void {
  migrate(db, 'indexer', indexSchemaSteps(INDEXER_SQLITE_STEPS, listingSteps));
}
