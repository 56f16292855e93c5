// The indexer's own tables on PostgreSQL (checkpoints, transfer history, truncated ranges), joined with the listing's
// tables (listing-schema-pg.ts) under one recorded version, as on SQLite (indexer-schema.ts).
import { migratePg } from '../db/pg-migrate.js';
import type { PgPool } from '../db/pg-pool.js';
import { LISTING_PG_SCHEMA_STEPS } from '../listing/listing-schema-pg.js';
import { indexSchemaSteps } from '../listing/listing-writer.js';

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

export const INDEX_PG_MIGRATIONS: readonly string[] = indexSchemaSteps([V1], LISTING_PG_SCHEMA_STEPS);

export async function migrateIndexPg(pool: PgPool): Promise<void> {
  await migratePg(pool, 'indexer', INDEX_PG_MIGRATIONS);
}
