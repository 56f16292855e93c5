// The watcher leader of a fleet learns trackings another instance stored from its notification; when reading them
// fails (the database refusing for a moment), the read is tried again until it works. The engine's sweep covers only
// trackings it holds, so without the retry such a tracking would wait for the next change of leader. A tracking this
// instance stores while it becomes the leader is learned too (its own notification is not read).
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { Logger } from '../../../src/lib/log.js';
import { silentLogger } from '../../../src/lib/log.js';
import { LOCK_CLASS, LOCKS } from '../../../src/service/db/pg-locks.js';
import { closeSharedDatabase, openSharedDatabase, type SharedDatabase } from '../../../src/service/db/service-database.js';
import { createDeliveryHub } from '../../../src/service/tracker/tracker-delivery-hub.js';
import { createTrackerEngine } from '../../../src/service/tracker/tracker-engine.js';
import { openPostgresTrackerStore } from '../../../src/service/tracker/postgres/tracker-store-postgres.js';
import type { TrackerStore } from '../../../src/service/tracker/tracker-store.js';
import { startSharedWatcher, type WatcherRole } from '../../../src/service/tracker/tracker-watcher-role.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import { FakeChain, hash } from '../../support/chain/tracker-fake-chain.js';
import { waitFor } from '../../support/poll.js';

let database: TestDatabase;
let shared: SharedDatabase;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  database = await createTestDatabase('fleet_relearn');
  shared = await openSharedDatabase(database.url, silentLogger);
});

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

afterAll(async () => {
  if (shared) await closeSharedDatabase(shared);
  await database?.drop();
});

it('reads again, with backoff, the trackings of another instance that it failed to read, and reports their receipts', async () => {
  const real = await openPostgresTrackerStore(shared.pool, shared.instance);
  let refusals = 2;
  const store: TrackerStore = {
    ...real,
    async loadTrackings(keys) {
      if (refusals > 0) {
        refusals--;
        throw new Error('Connection terminated due to connection timeout');
      }
      return real.loadTrackings(keys);
    },
  };
  const warnings: string[] = [];
  const log: Logger = { ...silentLogger, warn: (m: string) => void warnings.push(m), child: () => log };
  const { role, chain, receipts } = startRole(store, log);
  await waitFor('the watcher role', () => role.isLeader(), { timeoutMs: 20_000 });
  await role.whenIdle();
  await store.subscribe('c', 's', 60_000, Date.now());

  // Another instance stores the tracking; its notification reaches the leader, whose first two reads fail.
  const other = await openPostgresTrackerStore(shared.pool, 'another-instance');
  const tx = hash('tx-from-another-instance');
  await other.track('c', tx, 1, 60_000, Date.now());
  chain.mine('a', [tx]);
  await waitFor('the receipt of the tracking read on the third try', () => receipts.includes(tx), { timeoutMs: 20_000 });
  expect(refusals).toBe(0);
  expect(warnings.filter((w) => w.startsWith('could not read trackings stored by another instance'))).toEqual([
    'could not read trackings stored by another instance (trying again in 1 s): Connection terminated due to connection timeout',
    'could not read trackings stored by another instance (trying again in 2 s): Connection terminated due to connection timeout',
  ]);
});

it('learns a tracking it stored itself while it became the leader', async () => {
  // Another holder keeps the watcher lock until the tracking is being stored here.
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  stops.push(() => holder.end());
  await holder.query('SELECT pg_advisory_lock($1, $2)', [LOCK_CLASS, LOCKS.watcher]);

  const real = await openPostgresTrackerStore(shared.pool, shared.instance);
  let releaseTrack!: () => void;
  const trackMayGo = new Promise<void>((r) => (releaseTrack = r));
  let trackStarted!: () => void;
  const trackWaits = new Promise<void>((r) => (trackStarted = r));
  const store: TrackerStore = {
    ...real,
    async track(...args) {
      trackStarted();
      await trackMayGo;
      return real.track(...args);
    },
  };
  const { role, chain, receipts } = startRole(store, silentLogger);
  await store.subscribe('c', 's', 60_000, Date.now());
  const tx = hash('tx-stored-while-leading-began');
  const tracking = role.intake.track('c', tx, 1, 60_000, 100);
  await trackWaits;
  expect(role.isLeader()).toBe(false);

  // The lock comes free; this instance leads and its engine reads the open trackings before the row is stored.
  await holder.query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, LOCKS.watcher]);
  await waitFor('the watcher role', () => role.isLeader(), { timeoutMs: 20_000 });
  await role.whenIdle();
  releaseTrack();
  expect(await tracking).toBe(true);

  chain.mine('b', [tx]);
  await waitFor('the receipt of the tracking stored while leadership began', () => receipts.includes(tx), { timeoutMs: 20_000 });
});

/** A shared watcher over `store` on a fake chain; stopped after the test. Collects the receipts it delivers. */
function startRole(store: TrackerStore, log: Logger) {
  const chain = new FakeChain();
  const receipts: string[] = [];
  const hub = createDeliveryHub(store, log);
  const role: WatcherRole = startSharedWatcher(
    () =>
      createTrackerEngine({
        store,
        rpc: chain,
        log,
        pollMs: 20,
        onDeliveries(created) {
          for (const c of created) for (const e of c.entries) if (JSON.parse(e.payload).type === 'receipt') receipts.push(e.txKey);
        },
      }),
    store,
    shared,
    hub,
    log,
  );
  stops.push(
    () => hub.stop(),
    () => role.stop(),
  );
  return { role, chain, receipts };
}
