// The indexer's own tables on PostgreSQL (checkpoints, transfer history, truncated ranges), joined with the listing's
// tables (handed over by backend.ts) under one recorded version, as on SQLite.
import { migratePg } from '../../db/pg-migrate.js';
import type { PgPool } from '../../db/pg-pool.js';
import { indexSchemaSteps } from '../../listing/listing-writer.js';

const V1 = `
CREATE TABLE idx_blocks (number BIGINT PRIMARY KEY, hash TEXT NOT NULL, parent_hash TEXT);

CREATE TABLE idx_transfers (
  block BIGINT NOT NULL,
  log_index INTEGER NOT NULL,
  sub INTEGER NOT NULL,
  contract_id BIGINT NOT NULL,
  k_id BYTEA NOT NULL,
  from_id BIGINT,
  to_id BIGINT,
  amount TEXT,
  PRIMARY KEY (block, log_index, sub)
);
CREATE INDEX idx_transfers_token ON idx_transfers (contract_id, k_id, block, log_index, sub);

CREATE TABLE idx_truncated (
  block BIGINT NOT NULL,
  log_index INTEGER NOT NULL,
  contract TEXT NOT NULL,
  from_id TEXT NOT NULL,
  to_id TEXT NOT NULL,
  indexed INTEGER NOT NULL,
  PRIMARY KEY (block, log_index)
);
`;

// Moves by owner for the webhooks' address activity (index-moves.ts), as on SQLite.
const V2_MOVES_BY_OWNER = `
CREATE INDEX idx_transfers_from ON idx_transfers (from_id, block) WHERE from_id IS NOT NULL;
CREATE INDEX idx_transfers_to ON idx_transfers (to_id, block) WHERE to_id IS NOT NULL;
`;

export async function migrateIndexPg(pool: PgPool, listingSteps: readonly string[]): Promise<void> {
  await migratePg(pool, 'indexer', indexSchemaSteps([V1, V2_MOVES_BY_OWNER], listingSteps));
}
