// Per-clientId limits of two tracker instances on one PostgreSQL database: open trackings and subscriptions are
// counted in the database, so a client at its limit on one instance is at its limit on the other too.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../src/devchain/index.js';
import { silentLogger } from '../../src/lib/log.js';
import { RPC_LIMIT_EXCEEDED } from '../../src/sdk/tracker-wire.js';
import { closeSharedDatabase, openSharedDatabase, type SharedDatabase } from '../../src/service/db/service-database.js';
import { attachTracker, type AttachedTracker } from '../../src/service/tracker/index.js';
import { createPgTrackerStore } from '../../src/service/tracker/tracker-store-pg.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres-db.js';
import { RawTrackerClient, waitUntil } from '../support/tracker-harness.js';

let anvil: RunningAnvil;
let database: TestDatabase;
const instances: { server: Server; shared: SharedDatabase; tracker: AttachedTracker; base: string }[] = [];
const hash = () => `0x${randomBytes(32).toString('hex')}`;

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  database = await createTestDatabase('fleet_limits');
  for (let i = 0; i < 2; i++) {
    const shared = await openSharedDatabase(database.url, silentLogger);
    const server = createServer((_req, res) => res.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const tracker = await attachTracker(server, {
      store: await createPgTrackerStore(shared.pool, shared.instance),
      shared,
      nodeUrl: anvil.url,
      platform: 'ethereum',
      network: 'local',
      isClientId: async (id) => id === 'a' || id === 'b',
      log: silentLogger,
      maxOpenTrackingsPerClient: 3,
      maxSubscriptionsPerClient: 2,
    });
    instances.push({ server, shared, tracker, base: `ws://127.0.0.1:${(server.address() as { port: number }).port}/tracker/ethereum/local` });
  }
});

afterAll(async () => {
  for (const i of instances) {
    await i.tracker.stop();
    await new Promise((r) => i.server.close(r));
    await closeSharedDatabase(i.shared);
  }
  await anvil?.stop();
  await database?.drop();
});

it('counts one client\'s trackings and subscriptions across both instances, and elects one watcher', async () => {
  await waitUntil(() => instances.filter((i) => i.tracker.isWatcher()).length === 1, 'one watcher leader', 20_000);
  const [one, two] = instances;
  const a1 = await RawTrackerClient.connect(`${one!.base}?clientId=a`);
  const a2 = await RawTrackerClient.connect(`${two!.base}?clientId=a`);
  const b2 = await RawTrackerClient.connect(`${two!.base}?clientId=b`);
  const tracked = [hash(), hash(), hash()];
  expect((await a1.request('track_transaction', [tracked[0], { confirmation: 1, timeout: 60_000 }])).result).toBe(true);
  expect((await a1.request('track_transaction', [tracked[1], { confirmation: 1, timeout: 60_000 }])).result).toBe(true);
  expect((await a2.request('track_transaction', [tracked[2], { confirmation: 1, timeout: 60_000 }])).result).toBe(true);
  for (const c of [a1, a2]) {
    const over = await c.request('track_transaction', [hash(), { confirmation: 1, timeout: 60_000 }]);
    expect(over.error).toEqual({ code: RPC_LIMIT_EXCEEDED, message: expect.stringMatching(/^Limit exceeded: at most 3 transactions/) });
  }
  // Re-tracking a hash tracked through the other instance is not a new tracking; another client is unaffected.
  expect((await a2.request('track_transaction', [tracked[0], { confirmation: 2, timeout: 60_000 }])).result).toBe(true);
  expect((await b2.request('track_transaction', [hash(), { confirmation: 1, timeout: 60_000 }])).result).toBe(true);

  expect((await a1.request('tracker_subscribe', ['s1', 'transaction', null])).result).toBe('s1');
  expect((await a2.request('tracker_subscribe', ['s2', 'transaction', null])).result).toBe('s2');
  const third = await a1.request('tracker_subscribe', ['s3', 'transaction', null]);
  expect(third.error).toEqual({ code: RPC_LIMIT_EXCEEDED, message: expect.stringMatching(/^Limit exceeded: at most 2 subscriptions per clientId/) });
  expect((await a2.request('tracker_unsubscribe', ['s2'])).result).toBe(true);
  expect((await a1.request('tracker_subscribe', ['s3', 'transaction', null])).result).toBe('s3');
  for (const c of [a1, a2, b2]) await c.close();
});
