// Two tracker instances on one PostgreSQL database when the database drops every connection (a restart, a failover
// of the database, a network cut): the leader gives up its role, one instance takes it again, the LISTEN connections
// come back, and a transaction tracked on one instance still reaches the subscriber on the other.
import { JsonRpcProvider, Wallet } from 'ethers';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import { startTrackerFleet, stopTrackerFleet, type FleetInstance } from '../../support/service/tracker-fleet.js';
import { DEV_KEYS, RawTrackerClient, sendTransfer } from '../../support/service/tracker-harness.js';
import { waitFor } from '../../support/poll.js';

let anvil: RunningAnvil;
let provider: JsonRpcProvider;
let database: TestDatabase;
const instances: FleetInstance[] = [];

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true });
  database = await createTestDatabase('fleet_faults');
  instances.push(...(await startTrackerFleet(2, database.url, { nodeUrl: anvil.url, isClientId: async (id) => id === 'a' })));
});

afterAll(async () => {
  await stopTrackerFleet(instances);
  provider?.destroy();
  await anvil?.stop();
  await database?.drop();
});

const oneWatcher = () =>
  waitFor('exactly one watcher leader', () => instances.filter((i) => i.tracker.isWatcher()).length === 1, { timeoutMs: 20_000 });

/** Tracks a new transfer through `via` and waits for its receipt push at `sub`. */
async function trackAndReceive(via: RawTrackerClient, sub: RawTrackerClient, wallet: Wallet): Promise<void> {
  const tx = await sendTransfer(wallet);
  expect((await via.request('track_transaction', [tx.hash, { confirmation: 1, timeout: 60_000 }])).result).toBe(true);
  await waitFor(`the receipt of ${tx.hash} on the other instance`, () => sub.pushesOf('receipt', tx.hash).length > 0, {
    timeoutMs: 30_000,
  });
}

it('recovers from the database dropping every connection: one leader again, and delivery across instances', async () => {
  await oneWatcher();
  const [one, two] = instances;
  const tracking = await RawTrackerClient.connect(`${one!.base}?clientId=a`);
  const subscribed = await RawTrackerClient.connect(`${two!.base}?clientId=a`);
  expect((await subscribed.request('tracker_subscribe', ['s', 'transaction', null])).result).toBe('s');
  const wallet = new Wallet(DEV_KEYS[6]!, provider);
  await trackAndReceive(tracking, subscribed, wallet);

  // Every connection of both instances is ended by the server, as a database restart would.
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const ended = await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  await admin.end();
  expect(ended.rowCount).toBeGreaterThan(2);

  // The leader lost its lock with its connection: the role is taken again, by exactly one of the two.
  await oneWatcher();
  // The WebSockets stayed open; tracking on one and delivery on the other work again (retried while reconnecting).
  await waitFor(
    'delivery across instances after the reconnect',
    async () => {
      try {
        await trackAndReceive(tracking, subscribed, wallet);
        return true;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 60_000 },
  );
  await tracking.close();
  await subscribed.close();
});
