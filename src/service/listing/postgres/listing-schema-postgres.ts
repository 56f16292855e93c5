// The listing index's tables on PostgreSQL: the same rows and order keys as ../sqlite/listing-schema-sqlite.ts (bytea compares like
// SQLite's BLOB, byte by byte), without the counted rank buckets: pages seek with the (scope, key) indexes.
//
// Ids are assigned by the one writer (the indexer leader, under its lock), not by sequences: the writer applies a
// range in memory before it writes anything (listing-writer-postgres.ts) and needs the ids of new rows then.

const V1 = `
CREATE TABLE idx_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE idx_accounts (
  id BIGINT PRIMARY KEY,
  address TEXT NOT NULL UNIQUE,
  token_count BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE idx_contracts (
  id BIGINT PRIMARY KEY,
  address TEXT NOT NULL UNIQUE,
  addr BYTEA NOT NULL,
  name TEXT NOT NULL,
  symbol TEXT NOT NULL,
  total_supply TEXT,
  has_uri INTEGER NOT NULL,
  minted BIGINT NOT NULL DEFAULT 0,
  burned BIGINT NOT NULL DEFAULT 0,
  token_count BIGINT NOT NULL DEFAULT 0,
  first_block BIGINT NOT NULL,
  standard TEXT NOT NULL DEFAULT 'ERC721'
);

-- One row per holding: an ERC-721 token (owner_id NULL = burned) or an ERC-1155 (id, owner) with a balance.
CREATE TABLE idx_tokens (
  id BIGINT PRIMARY KEY,
  contract_id BIGINT NOT NULL,
  token_id TEXT NOT NULL,
  owner_id BIGINT,
  pair_id BIGINT,
  k_tr BYTEA NOT NULL,
  k_id BYTEA NOT NULL,
  k_ct BYTEA NOT NULL,
  k_cid BYTEA NOT NULL,
  balance TEXT NOT NULL DEFAULT '1',
  uri TEXT NOT NULL
);
CREATE UNIQUE INDEX idx_tokens_by_contract ON idx_tokens (contract_id, k_cid);
CREATE INDEX idx_tokens_owner_tr ON idx_tokens (owner_id, k_tr) INCLUDE (id) WHERE owner_id IS NOT NULL;
CREATE INDEX idx_tokens_owner_id ON idx_tokens (owner_id, k_id) INCLUDE (id) WHERE owner_id IS NOT NULL;
CREATE INDEX idx_tokens_owner_ct ON idx_tokens (owner_id, k_ct) INCLUDE (id) WHERE owner_id IS NOT NULL;
CREATE INDEX idx_tokens_contract_tr ON idx_tokens (contract_id, k_tr) INCLUDE (id) WHERE owner_id IS NOT NULL;
CREATE INDEX idx_tokens_contract_cid ON idx_tokens (contract_id, k_cid) INCLUDE (id) WHERE owner_id IS NOT NULL;
CREATE INDEX idx_tokens_pair_tr ON idx_tokens (pair_id, k_tr) INCLUDE (id) WHERE pair_id IS NOT NULL;

CREATE TABLE idx_owner_contract (
  owner_id BIGINT NOT NULL,
  caddr BYTEA NOT NULL,
  contract_id BIGINT NOT NULL,
  n BIGINT NOT NULL,
  PRIMARY KEY (owner_id, caddr)
);

CREATE TABLE idx_pairs (id BIGINT PRIMARY KEY, owner_id BIGINT NOT NULL, contract_id BIGINT NOT NULL, UNIQUE (owner_id, contract_id));

CREATE TABLE idx_ids (
  contract_id BIGINT NOT NULL,
  k_id BYTEA NOT NULL,
  supply TEXT NOT NULL,
  uri TEXT NOT NULL,
  PRIMARY KEY (contract_id, k_id)
);
`;

/** The listing's part of each version of the PostgreSQL index schema, in order (never edit a shipped one; append). */
export const LISTING_PG_SCHEMA_STEPS: readonly string[] = [V1];
