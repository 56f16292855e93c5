// The watcher leader of a fleet learns trackings another instance stored from its notification; when reading them
// fails (the database refusing for a moment), the read is tried again until it works. The engine's sweep covers only
// trackings it holds, so without the retry such a tracking would wait for the next change of leader.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Logger } from '../../src/lib/log.js';
import { silentLogger } from '../../src/lib/log.js';
import { closeSharedDatabase, openSharedDatabase, type SharedDatabase } from '../../src/service/db/service-database.js';
import { createDeliveryHub } from '../../src/service/tracker/tracker-delivery-hub.js';
import { createTrackerEngine } from '../../src/service/tracker/tracker-engine.js';
import { createPgTrackerStore } from '../../src/service/tracker/tracker-store-pg.js';
import type { TrackerStore } from '../../src/service/tracker/tracker-store.js';
import { startSharedWatcher, type WatcherRole } from '../../src/service/tracker/tracker-watcher-role.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres-db.js';
import { FakeChain, hash } from '../support/tracker-fake-chain.js';
import { waitUntil } from '../support/tracker-harness.js';

let database: TestDatabase;
let shared: SharedDatabase;
let role: WatcherRole | null = null;
let hub: ReturnType<typeof createDeliveryHub> | null = null;

beforeAll(async () => {
  database = await createTestDatabase('fleet_relearn');
  shared = await openSharedDatabase(database.url, silentLogger);
});

afterAll(async () => {
  await role?.stop();
  await hub?.stop();
  if (shared) await closeSharedDatabase(shared);
  await database?.drop();
});

it('reads again, with backoff, the trackings of another instance that it failed to read, and reports their receipts', async () => {
  const real = await createPgTrackerStore(shared.pool, shared.instance);
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
  const chain = new FakeChain();
  const receipts: string[] = [];
  hub = createDeliveryHub(store, log);
  role = startSharedWatcher(
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
  await waitUntil(() => role!.isLeader(), 'the watcher role', 20_000);
  await role.whenIdle();
  await store.subscribe('c', 's', 60_000, Date.now());

  // Another instance stores the tracking; its notification reaches the leader, whose first two reads fail.
  const other = await createPgTrackerStore(shared.pool, 'another-instance');
  const tx = hash('tx-from-another-instance');
  await other.track('c', tx, 1, 60_000, Date.now());
  chain.mine('a', [tx]);
  await waitUntil(() => receipts.includes(tx), 'the receipt of the tracking read on the third try', 20_000);
  expect(refusals).toBe(0);
  expect(warnings.filter((w) => w.startsWith('could not read trackings stored by another instance'))).toEqual([
    'could not read trackings stored by another instance (trying again in 1 s): Connection terminated due to connection timeout',
    'could not read trackings stored by another instance (trying again in 2 s): Connection terminated due to connection timeout',
  ]);
});
