// Per-clientId limits of two tracker instances on one PostgreSQL database: open trackings and subscriptions are
// counted in the database, so a client at its limit on one instance is at its limit on the other too.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { RPC_LIMIT_EXCEEDED } from '@txdesk/tracker/tracker-wire';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import { startTrackerFleet, stopTrackerFleet, type FleetInstance } from '../../support/service/tracker-fleet.js';
import { RawTrackerClient } from '../../support/service/tracker-harness.js';
import { waitFor } from '../../support/poll.js';

let anvil: RunningAnvil;
let database: TestDatabase;
const instances: FleetInstance[] = [];
const hash = () => `0x${randomBytes(32).toString('hex')}`;

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  database = await createTestDatabase('fleet_limits');
  instances.push(
    ...(await startTrackerFleet(2, database.url, {
      nodeUrl: anvil.url,
      isClientId: async (id) => id === 'a' || id === 'b',
      maxOpenTrackingsPerClient: 3,
      maxSubscriptionsPerClient: 2,
    })),
  );
});

afterAll(async () => {
  await stopTrackerFleet(instances);
  await anvil?.stop();
  await database?.drop();
});

it("counts one client's trackings and subscriptions across both instances, and elects one watcher", async () => {
  await waitFor('one watcher leader', () => instances.filter((i) => i.tracker.isWatcher()).length === 1, { timeoutMs: 20_000 });
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
  expect(third.error).toEqual({
    code: RPC_LIMIT_EXCEEDED,
    message: expect.stringMatching(/^Limit exceeded: at most 2 subscriptions per clientId/),
  });
  expect((await a2.request('tracker_unsubscribe', ['s2'])).result).toBe(true);
  expect((await a1.request('tracker_subscribe', ['s3', 'transaction', null])).result).toBe('s3');
  for (const c of [a1, a2, b2]) await c.close();
});
