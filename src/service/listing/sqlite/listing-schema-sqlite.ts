// Tables of the listing index (see docs/indexer.md, "Storage"): tokens with byte-sortable order keys, counted rank
// buckets, counters, ERC-1155 ids. The listing owns them; whatever feeds it (the indexer) writes through ../listing-writer.ts.
//
// Each step is the listing's part of one shipped version of the index schema. The version is recorded under the
// module name 'indexer' (where the tables were defined before the listing owned them), so existing databases migrate
// on unchanged: `indexSchemaSteps` joins these steps with the feeder's own tables, step by step.

const V1 = `
-- Key-value state of the index: the generation readers watch ('gen'); the feeder keeps its tip here too.
CREATE TABLE idx_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);

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

-- One row per token ever seen; owner_id NULL = burned. k_* are the order keys of ../listing-keys.ts.
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

-- Counted buckets: each row counts the list entries with key in [lo, next lo). See listing-rank-sqlite.ts.
CREATE TABLE idx_rank (list INTEGER NOT NULL, lo BLOB NOT NULL, cnt INTEGER NOT NULL, PRIMARY KEY (list, lo)) WITHOUT ROWID;

-- Tokens per (owner, contract), keyed by the contract's address bytes so prefix sums follow contract_address order.
CREATE TABLE idx_owner_contract (
  owner_id INTEGER NOT NULL,
  caddr BLOB NOT NULL,
  contract_id INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (owner_id, caddr)
) WITHOUT ROWID;
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

// ERC-1155 (docs/indexer.md, "Token standards"). A row of idx_tokens is now a *holding*: one per ERC-721 token (as
// before) or one per (contract, id, owner) of an ERC-1155 id with a non-zero balance. k_cid is the key of the contract
// lists by id: k_id for ERC-721, k_id + owner address for ERC-1155 (several owners share an id).
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
`;

/** The listing's part of each version of the index schema, in order (never edit a shipped one; append). */
export const LISTING_SCHEMA_STEPS: readonly string[] = [V1, V2, V3];
