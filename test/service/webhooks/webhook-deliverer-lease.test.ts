// The claim lease a webhook deliverer takes by default: the receiver's 10 s timeout plus a 20 s margin, so another
// instance of a fleet sends a killed instance's delivery only 30 s after it was claimed. The fleet's crash test
// (webhook-crash.test.ts) runs with a 1 s margin (TXDESK_WEBHOOK_LEASE_MARGIN_MS) to spend 19 s less waiting; this test
// shows the default on real SQLite stores and a real receiver that holds the request open.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../../src/lib/sqlite.js';
import { silentLogger } from '../../../src/lib/log.js';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';
import { openSqliteWebhookStore } from '../../../src/service/webhooks/sqlite/webhook-store-sqlite.js';
import {
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  LEASE_MARGIN_MS,
  startWebhookDeliverer,
  type WebhookDeliverer,
} from '../../../src/service/webhooks/webhook-deliverer.js';
import type { WebhookRow } from '../../../src/service/webhooks/webhook-store.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/service/webhook-receiver.js';
import { waitFor } from '../../support/poll.js';

const NOW = 1_700_000_000_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

it('claims a delivery for the timeout plus 20 s unless told otherwise', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'txdesk-lease-'));
  const db = openDatabase(join(dir, 'service.sqlite'));
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => void db.close(),
  );
  const tracker = openSqliteTrackerStore(db);
  const store = openSqliteWebhookStore(db);
  const receiver: WebhookReceiver = await startWebhookReceiver();
  cleanups.push(() => receiver.close());
  receiver.mode = { kind: 'hang' };
  // A new active webhook of tracker messages, as the webhook API stores one.
  const row: WebhookRow = {
    id: 'w1',
    clientId: 'c1',
    url: receiver.url,
    trackerMessages: true,
    addresses: [],
    secret: 'whsec_lease',
    state: 'active',
    previousSecret: null,
    previousSecretUntilMs: null,
    failingSinceMs: null,
    failures: 0,
    retryAtMs: null,
    lastError: null,
    lastAttemptMs: null,
    lastSuccessMs: null,
    activityBlock: 0,
    activityHash: null,
    activityMarks: [],
    createdAtMs: NOW,
  };
  await store.create(row);
  await tracker.commitRound(
    [],
    [],
    [{ clientId: 'c1', txHash: '0x' + '1'.repeat(64), type: 'pending', payload: '{"type":"pending","result":{}}' }],
    1,
  );

  const deliverer: WebhookDeliverer = startWebhookDeliverer({
    store,
    platform: 'ethereum',
    network: 'local',
    allowPrivate: true,
    perClientPerSecond: 50,
    alone: true,
    log: silentLogger,
    now: () => NOW,
  });
  cleanups.push(() => deliverer.stop());
  deliverer.nudge();
  await waitFor('the delivery sent to the receiver', () => receiver.requests.length > 0, { timeoutMs: 30_000, everyMs: 20 });
  const [claimed] = await store.pending('w1', 'c1', 0, 10);
  expect(DEFAULT_WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS).toBe(30_000);
  expect(claimed!.leaseUntilMs).toBe(NOW + DEFAULT_WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS);
});
