// Where the data service keeps its state, chosen once: SQLite in the data dir (one instance) or the PostgreSQL database
// a fleet shares (`database`). openBackend opens every store on it, and each network's stores; nothing else asks which
// backend it talks to. The default network keeps its state beside the accounts (where a one-network service always
// kept it); every other network has a file (SQLite) or a schema (PostgreSQL) of its own.
import { join } from 'node:path';
import type { Logger } from '../lib/log.js';
import type { Shutdown } from '../lib/shutdown.js';
import { checkpointsOnThread } from '../lib/sqlite-checkpointer.js';
import { openDatabase, type Db } from '../lib/sqlite.js';
import { CLIENT_ID_CHANNEL, type AccountsStore } from './accounts/accounts-store.js';
import { openPostgresAccountsStore } from './accounts/postgres/accounts-store-postgres.js';
import { openSqliteAccountsStore } from './accounts/sqlite/accounts-store-sqlite.js';
import type { PgPool } from './db/pg-pool.js';
import { closeSharedDatabase, openNetworkDatabase, openSharedDatabase, type SharedDatabase } from './db/service-database.js';
import type { NetworkIdentityStore } from './network/network-identity.js';
import { openPostgresNetworkIdentity } from './network/postgres/network-identity-postgres.js';
import { openSqliteNetworkIdentity } from './network/sqlite/network-identity-sqlite.js';
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
import { openPostgresWebhookStore } from './webhooks/postgres/webhook-store-postgres.js';
import { openSqliteWebhookStore } from './webhooks/sqlite/webhook-store-sqlite.js';
import type { WebhookStore } from './webhooks/webhook-store.js';

/** `database`: postgres:// URL of the database a fleet shares; SQLite in `dataDir` unless set. */
export type BackendConfig = { database?: string; dataDir?: string; log: Logger };

export interface Backend {
  kind: 'sqlite' | 'postgres';
  /** The SQLite database of a single instance (accounts and the default network); null in a fleet. */
  db: Db | null;
  /** The fleet's database (pool, LISTEN connection, this instance's name); null alone. */
  shared: SharedDatabase | null;
  accounts: AccountsStore;
  /** Hands over each clientId another instance creates; alone there is none. */
  onClientIdCreated(learn: (clientId: string) => void): void;
  /** Opens one network's stores (`key` is "platform/network"); they close with the backend's `shutdown`. */
  openNetwork(key: string, isDefault: boolean): Promise<NetworkStores>;
}

export interface NetworkStores {
  /** The network's SQLite database; null in a fleet. */
  db: Db | null;
  /** The fleet's database as this network sees it (its schema, locks and channels); null alone. */
  shared: SharedDatabase | null;
  tracker: TrackerStore;
  /** Webhooks and their deliveries (rows of the tracker's outbox). */
  webhooks: WebhookStore;
  /** The index the indexer writes (in a fleet, only the instance holding the network's indexer role does). */
  index: IndexStore;
  listing: ListingReads;
  identity: NetworkIdentityStore;
  /** Where the state lives, for the sentence that stops a network whose store holds another chain. */
  where: string;
}

/** The SQLite file of a network other than the default, in the data dir. */
export const networkFileName = (key: string): string => `network-${key.replace('/', '-')}.sqlite`;

/** Opens the stores; what it opened is closed by `shutdown`, also when a later step of start-up fails. */
export async function openBackend(config: BackendConfig, shutdown: Shutdown): Promise<Backend> {
  if (!config.database) {
    const dataDir = config.dataDir!;
    const db = openDatabase(join(dataDir, 'service.sqlite'));
    shutdown.add(() => db.close());
    const openNetwork = async (key: string, isDefault: boolean): Promise<NetworkStores> => {
      const file = isDefault ? 'service.sqlite' : networkFileName(key);
      const ndb = isDefault ? db : openDatabase(join(dataDir, file));
      if (!isDefault) shutdown.add(() => ndb.close());
      // The tracker's rounds write on the main thread; the checkpoints they owe run on a thread (started when first owed).
      const checkpoints = checkpointsOnThread(join(dataDir, file), config.log);
      shutdown.add(() => checkpoints.stop());
      const [index, tracker, listing, identity] = [
        sqliteIndexStore(ndb),
        openSqliteTrackerStore(ndb, checkpoints.runOwed),
        openSqliteListingReads(ndb),
        openSqliteNetworkIdentity(ndb),
      ];
      const webhooks = openSqliteWebhookStore(ndb);
      return { db: ndb, shared: null, tracker, webhooks, index, listing, identity, where: `${file} in ${dataDir}` };
    };
    return { kind: 'sqlite', db, shared: null, accounts: openSqliteAccountsStore(db), onClientIdCreated: () => {}, openNetwork };
  }
  const shared = await openSharedDatabase(config.database, config.log);
  shutdown.add(() => closeSharedDatabase(shared));
  const accounts = await openPostgresAccountsStore(shared.pool);
  let learn: (clientId: string) => void = () => {};
  shared.listener.on(CLIENT_ID_CHANNEL, (id) => learn(id));
  const openNetwork = async (key: string, isDefault: boolean): Promise<NetworkStores> => {
    const net = isDefault ? shared : await openNetworkDatabase(shared, key);
    if (!isDefault) shutdown.add(() => net.pool.end());
    const tracker = await openPostgresTrackerStore(net.pool, net.instance, net.channel);
    const webhooks = await openPostgresWebhookStore(net.pool);
    await shared.listener.ready();
    const [index, listing, identity] = [
      await postgresIndexStore(net.pool, net.lockClass),
      openPostgresListingReads(net.pool),
      await openPostgresNetworkIdentity(net.pool),
    ];
    const schema = (await net.pool.query<{ s: string }>('SELECT current_schema() AS s')).rows[0]?.s ?? 'public';
    return { db: null, shared: net, tracker, webhooks, index, listing, identity, where: `the schema ${schema} of the database` };
  };
  return { kind: 'postgres', db: null, shared, accounts, onClientIdCreated: (f) => void (learn = f), openNetwork };
}

// The index stores joined with the listing's part of the same backend, also for startIndexer's `db`, tests and benches.

/** The SQLite index (migrated) in `db`; `bucketSize` and `checkpointEveryMoves` for tests. */
export const sqliteIndexStore = (db: Db, bucketSize?: number, checkpointEveryMoves?: number): IndexStore =>
  openSqliteIndexStore(db, LISTING_SCHEMA_STEPS, bucketSize, checkpointEveryMoves);
export const migrateSqliteIndex = (db: Db): void => migrateIndex(db, LISTING_SCHEMA_STEPS);
export const postgresIndexStore = (pool: PgPool, lockClass?: number): Promise<IndexStore> =>
  openPostgresIndexStore(pool, openPostgresListingWriter(pool), lockClass);
export const migratePostgresIndex = (pool: PgPool): Promise<void> => migrateIndexPg(pool, LISTING_PG_SCHEMA_STEPS);
