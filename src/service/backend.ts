// Where the data service keeps its state, chosen once: SQLite in the data dir (one instance) or the PostgreSQL database
// a fleet shares (`database`). openBackend opens every store on it; nothing else asks which backend it talks to.
import { join } from 'node:path';
import type { Logger } from '../lib/log.js';
import type { Shutdown } from '../lib/shutdown.js';
import { openDatabase, type Db } from '../lib/sqlite.js';
import { CLIENT_ID_CHANNEL, type AccountsStore } from './accounts/accounts-store.js';
import { openPostgresAccountsStore } from './accounts/postgres/accounts-store-postgres.js';
import { openSqliteAccountsStore } from './accounts/sqlite/accounts-store-sqlite.js';
import type { PgPool } from './db/pg-pool.js';
import { closeSharedDatabase, openSharedDatabase, type SharedDatabase } from './db/service-database.js';
import type { IndexStore } from './indexer/indexer-store.js';
import { openPostgresIndexStore } from './indexer/postgres/indexer-store-postgres.js';
import { migrateIndexPg } from './indexer/postgres/indexer-schema-postgres.js';
import { migrateIndex } from './indexer/sqlite/indexer-schema-sqlite.js';
import { openSqliteIndexStore } from './indexer/sqlite/indexer-store-sqlite.js';
import type { ListingReads } from './listing/listing-reads.js';
import { openPostgresListingReads } from './listing/postgres/listing-reads-postgres.js';
import { LISTING_PG_SCHEMA_STEPS } from './listing/postgres/listing-schema-postgres.js';
import { openPostgresListingWriter } from './listing/postgres/listing-writer-postgres.js';
import { openSqliteListingReads } from './listing/sqlite/listing-reads-sqlite.js';
import { LISTING_SCHEMA_STEPS } from './listing/sqlite/listing-schema-sqlite.js';
import type { TrackerStore } from './tracker/tracker-store.js';
import { openPostgresTrackerStore } from './tracker/postgres/tracker-store-postgres.js';
import { openSqliteTrackerStore } from './tracker/sqlite/tracker-store-sqlite.js';

/** `database`: postgres:// URL of the database a fleet shares; SQLite in `dataDir` unless set. */
export type BackendConfig = { database?: string; dataDir?: string; log: Logger };

export interface Backend {
  kind: 'sqlite' | 'postgres';
  /** The SQLite database of a single instance; null in a fleet (its state is all in PostgreSQL). */
  db: Db | null;
  /** The fleet's database (pool, LISTEN connection, this instance's name); null alone. */
  shared: SharedDatabase | null;
  accounts: AccountsStore;
  tracker: TrackerStore;
  /** The index the indexer writes (in a fleet, only the instance holding the indexer role does). */
  index: IndexStore;
  listing: ListingReads;
  /** Hands over each clientId another instance creates; alone there is none. */
  onClientIdCreated(learn: (clientId: string) => void): void;
}

/** Opens the stores; what it opened is closed by `shutdown`, also when a later step of start-up fails. */
export async function openBackend(config: BackendConfig, shutdown: Shutdown): Promise<Backend> {
  if (!config.database) {
    const db = openDatabase(join(config.dataDir!, 'service.sqlite'));
    shutdown.add(() => db.close());
    const [index, accounts, tracker, listing] = [sqliteIndexStore(db), openSqliteAccountsStore(db), openSqliteTrackerStore(db), openSqliteListingReads(db)];
    return { kind: 'sqlite', db, shared: null, accounts, tracker, index, listing, onClientIdCreated: () => {} };
  }
  const shared = await openSharedDatabase(config.database, config.log);
  shutdown.add(() => closeSharedDatabase(shared));
  const accounts = await openPostgresAccountsStore(shared.pool);
  let learn: (clientId: string) => void = () => {};
  shared.listener.on(CLIENT_ID_CHANNEL, (id) => learn(id));
  const tracker = await openPostgresTrackerStore(shared.pool, shared.instance);
  await shared.listener.ready();
  const [index, listing] = [await postgresIndexStore(shared.pool), openPostgresListingReads(shared.pool)];
  return { kind: 'postgres', db: null, shared, accounts, tracker, index, listing, onClientIdCreated: (f) => void (learn = f) };
}

// The index stores joined with the listing's part of the same backend, also for startIndexer's `db`, tests and benches.

/** The SQLite index (migrated) in `db`; `bucketSize` and `checkpointEveryMoves` for tests. */
export const sqliteIndexStore = (db: Db, bucketSize?: number, checkpointEveryMoves?: number): IndexStore =>
  openSqliteIndexStore(db, LISTING_SCHEMA_STEPS, bucketSize, checkpointEveryMoves);
export const migrateSqliteIndex = (db: Db): void => migrateIndex(db, LISTING_SCHEMA_STEPS);
export const postgresIndexStore = (pool: PgPool): Promise<IndexStore> => openPostgresIndexStore(pool, openPostgresListingWriter(pool));
export const migratePostgresIndex = (pool: PgPool): Promise<void> => migrateIndexPg(pool, LISTING_PG_SCHEMA_STEPS);
