// Per-clientId limits of the tracker over its real WebSocket endpoint (small limits here; defaults 100,000 open
// trackings and 100 subscriptions): over the limit is JSON-RPC -32005 (the tracker's 429) with a sentence, re-tracking
// a hash already tracked is not counted twice, a freed slot can be used again, and another clientId is unaffected.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { RPC_LIMIT_EXCEEDED } from '@txdesk/tracker/tracker-wire';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import type { AttachedTracker } from '../../../src/service/tracker/tracker-attach.js';
import { attachTrackerOn } from '../../support/service/tracker-on-server.js';
import { RawTrackerClient } from '../../support/service/tracker-harness.js';

let anvil: RunningAnvil;
let server: Server;
let db: Db;
let tracker: AttachedTracker;
let dir: string;
let base: string;
const hash = () => `0x${randomBytes(32).toString('hex')}`;

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  dir = mkdtempSync(join(tmpdir(), 'txdesk-tracker-limits-'));
  db = openDatabase(join(dir, 'tracker.sqlite'));
  server = createServer((_req, res) => res.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `ws://127.0.0.1:${(server.address() as { port: number }).port}/tracker/ethereum/local`;
  tracker = await attachTrackerOn(server, {
    store: openSqliteTrackerStore(db),
    nodeUrl: anvil.url,
    isClientId: async (id) => id === 'a' || id === 'b',
    log: silentLogger,
    maxOpenTrackingsPerClient: 3,
    maxSubscriptionsPerClient: 2,
  });
});

afterAll(async () => {
  await tracker?.stop();
  await new Promise((r) => server?.close(r));
  db?.close();
  await anvil?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('refuses a fourth open tracking and a third subscription of one clientId with -32005; others are unaffected', async () => {
  const a = await RawTrackerClient.connect(`${base}?clientId=a`);
  const b = await RawTrackerClient.connect(`${base}?clientId=b`);
  const tracked = [hash(), hash(), hash()];
  for (const h of tracked) expect((await a.request('track_transaction', [h, { confirmation: 1, timeout: 60_000 }])).result).toBe(true);
  const over = await a.request('track_transaction', [hash(), { confirmation: 1, timeout: 60_000 }]);
  expect(over.error).toEqual({ code: RPC_LIMIT_EXCEEDED, message: expect.stringMatching(/^Limit exceeded: at most 3 transactions/) });
  // Tracking a hash again changes its options and is not a new tracking.
  expect((await a.request('track_transaction', [tracked[0], { confirmation: 2, timeout: 60_000 }])).result).toBe(true);
  expect((await b.request('track_transaction', [hash(), { confirmation: 1, timeout: 60_000 }])).result).toBe(true);

  expect((await a.request('tracker_subscribe', ['s1', 'transaction', null])).result).toBe('s1');
  expect((await a.request('tracker_subscribe', ['s2', 'transaction', null])).result).toBe('s2');
  const third = await a.request('tracker_subscribe', ['s3', 'transaction', null]);
  expect(third.error).toEqual({
    code: RPC_LIMIT_EXCEEDED,
    message: expect.stringMatching(/^Limit exceeded: at most 2 subscriptions per clientId/),
  });
  expect((await b.request('tracker_subscribe', ['s3', 'transaction', null])).result).toBe('s3');
  // Unsubscribing frees the slot.
  expect((await a.request('tracker_unsubscribe', ['s1'])).result).toBe(true);
  expect((await a.request('tracker_subscribe', ['s3', 'transaction', null])).result).toBe('s3');
  await a.close();
  await b.close();
});
