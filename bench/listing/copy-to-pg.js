// Copies the seeded SQLite listing index into a PostgreSQL database with the fleet's schema, in batches of unnest
// inserts (COPY would need pg-copy-streams, no dependency), then VACUUMs and ANALYZEs it: the same holdings for the
// PostgreSQL side of the listing benchmark.
import { openDatabase } from '../../dist/lib/sqlite.js';
import { openPgPool } from '../../dist/service/db/pg-pool.js';
import { migratePostgresIndex } from '../../dist/service/backend.js';

/** Each listing table with its columns and their PostgreSQL types (the unnest casts), and which rows to leave behind. */
const TABLES = [
  // Not the feeder's tip: the service on PostgreSQL follows a fresh anvil (as server.js makes the SQLite one do), and
  // would take a tip past that chain's head for a reorganisation and roll the seeded contracts back.
  ['idx_state', { key: 'text', value: 'text' }, "key <> 'tip'"],
  ['idx_accounts', { id: 'bigint', address: 'text', token_count: 'bigint' }],
  [
    'idx_contracts',
    {
      id: 'bigint',
      address: 'text',
      addr: 'bytea',
      name: 'text',
      symbol: 'text',
      total_supply: 'text',
      has_uri: 'int',
      minted: 'bigint',
      burned: 'bigint',
      token_count: 'bigint',
      first_block: 'bigint',
      standard: 'text',
    },
  ],
  [
    'idx_tokens',
    {
      id: 'bigint',
      contract_id: 'bigint',
      token_id: 'text',
      owner_id: 'bigint',
      pair_id: 'bigint',
      k_tr: 'bytea',
      k_id: 'bytea',
      k_ct: 'bytea',
      k_cid: 'bytea',
      balance: 'text',
      uri: 'text',
    },
  ],
  ['idx_owner_contract', { owner_id: 'bigint', caddr: 'bytea', contract_id: 'bigint', n: 'bigint' }],
  ['idx_pairs', { id: 'bigint', owner_id: 'bigint', contract_id: 'bigint' }],
  ['idx_ids', { contract_id: 'bigint', k_id: 'bytea', supply: 'text', uri: 'text' }],
];

const BATCH = 20_000;

/** Returns the number of rows copied. */
export async function copyListingToPg(sqliteFile, url) {
  const db = openDatabase(sqliteFile);
  const pool = openPgPool(url);
  let rows = 0;
  try {
    await migratePostgresIndex(pool);
    for (const [table, columns, where] of TABLES) {
      const names = Object.keys(columns);
      const casts = names.map((n, i) => `$${i + 1}::${columns[n]}[]`).join(', ');
      const insert = `INSERT INTO ${table} (${names.join(', ')}) SELECT * FROM unnest(${casts})`;
      let batch = [];
      const flush = async () => {
        if (batch.length === 0) return;
        await pool.query(
          insert,
          names.map((n) => batch.map((r) => r[n])),
        );
        rows += batch.length;
        batch = [];
      };
      for (const r of db.prepare(`SELECT ${names.join(', ')} FROM ${table}${where ? ` WHERE ${where}` : ''}`).iterate()) {
        batch.push(r);
        if (batch.length === BATCH) await flush();
      }
      await flush();
    }
    // VACUUM too: fresh rows are not marked all-visible, so the listing's index-only scans would visit the table for
    // every entry they step over (5,000 heap fetches on the deep page), until autovacuum came by during the run.
    await pool.query('VACUUM ANALYZE');
  } finally {
    db.close();
    await pool.end();
  }
  return rows;
}
