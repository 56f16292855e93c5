// A fleet of three `txdesk service` processes on one PostgreSQL database delivering to one webhook: the requests in
// flight to it never exceed WEBHOOK_CONCURRENCY across the fleet (not 8 per instance), and the client's deliveries per
// second stay within the default 50 plus the stated tolerance (not 50 per instance); every delivery still arrives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../../src/devchain/devchain.js';
import { silentLogger } from '../../../src/lib/log.js';
import { closeSharedDatabase, openSharedDatabase, type SharedDatabase } from '../../../src/service/db/service-database.js';
import { openPostgresTrackerStore } from '../../../src/service/tracker/postgres/tracker-store-postgres.js';
import type { TrackerStore } from '../../../src/service/tracker/tracker-store.js';
import { DEFAULT_WEBHOOK_DELIVERIES_PER_SECOND } from '../../../src/service/webhooks/webhook-service.js';
import { WEBHOOK_CONCURRENCY } from '../../../src/service/webhooks/webhook-delivery-policy.js';
import { createTestDatabase, type TestDatabase } from '../../support/service/postgres-db.js';
import { call } from '../../support/service/service-harness.js';
import { ensureCliBuilt, killServiceProcesses, startServiceProcess, type ServiceProcess } from '../../support/service/service-process.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../../support/service/webhook-receiver.js';
import { waitFor } from '../../support/poll.js';

const INSTANCES = 3;
const RATE = DEFAULT_WEBHOOK_DELIVERIES_PER_SECOND;
/**
 * The stated tolerance (docs/webhooks.md): over any span of T seconds a client gets at most RATE x T deliveries plus
 * one second's burst per instance (each spends its own bucket before the once-a-second exchange tells the others).
 */
const allowedIn = (seconds: number) => RATE * seconds + RATE * INSTANCES;

let anvil: RunningAnvil;
let database: TestDatabase;
let shared: SharedDatabase;
let tracker: TrackerStore;
let receiver: WebhookReceiver;
const dirs: string[] = [];
let fleet: ServiceProcess[] = [];
let clientId = '';

beforeAll(async () => {
  ensureCliBuilt();
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  database = await createTestDatabase('webhook_fleet_limits');
  receiver = await startWebhookReceiver();
  fleet = await Promise.all(
    Array.from({ length: INSTANCES }, () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-webhook-limits-'));
      dirs.push(dataDir);
      return startServiceProcess({ nodeUrl: anvil.url, dataDir, database: database.url, extraArgs: ['--allow-private-webhooks'] });
    }),
  );
  // The test stores tracker messages for the client itself, as the watcher leader would: deliveries, not a chain, are
  // what this test is about.
  shared = await openSharedDatabase(database.url, silentLogger);
  tracker = await openPostgresTrackerStore(shared.pool, 'test');

  const p = fleet[0]!;
  const signup = await call(`${p.serviceUrl}/users/v1/signup`, {
    method: 'POST',
    body: {
      email: 'webhook-limits@example.com',
      password: 'correct horse battery staple',
      name: 'Webhook limits',
      organization: 'txdesk tests',
    },
  });
  expect(signup.status).toBe(201);
  clientId = signup.body.clientId;
  const secret = await call(`${p.serviceUrl}/users/v1/api-secret`, { method: 'POST', token: signup.body.jwtToken });
  expect(secret.status).toBe(201);
  const created = await call(`${p.serviceUrl}/tracker/v1/webhooks`, {
    method: 'POST',
    token: secret.body.apiSecret,
    body: { url: receiver.url },
  });
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => {
  killServiceProcesses();
  await Promise.all(fleet.map((p) => p.exited));
  if (shared) await closeSharedDatabase(shared);
  await receiver?.close();
  await anvil?.stop();
  await database?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let batch = 0;
/** Stores `n` messages for the client, each about its own transaction (so all may be in flight at once). */
async function storeMessages(n: number): Promise<Set<string>> {
  batch++;
  const hash = (i: number) => `0x${batch.toString(16).padStart(8, '0')}${i.toString(16).padStart(56, '0')}`;
  const messages = Array.from({ length: n }, (_, i) => ({
    clientId,
    txHash: hash(i),
    type: 'pending' as const,
    payload: `{"type":"pending","result":{"transactionHash":"${hash(i)}"}}`,
  }));
  await tracker.commitRound([], [], messages, Date.now());
  return new Set(messages.map((m) => m.txHash));
}

const hashOf = (r: ReceivedRequest): string => JSON.parse(r.body).payload.result.transactionHash;

/** Waits until every message of `hashes` was accepted by the receiver; returns the requests about them. */
async function deliveredAll(hashes: Set<string>, timeoutMs: number): Promise<ReceivedRequest[]> {
  await waitFor(
    `${hashes.size} deliveries accepted`,
    () =>
      new Set(
        receiver
          .accepted()
          .map((a) => hashOf(a.req))
          .filter((h) => hashes.has(h)),
      ).size === hashes.size,
    { timeoutMs: timeoutMs, everyMs: 100 },
  );
  return receiver.requests.filter((r) => hashes.has(hashOf(r)));
}

/** The most requests the receiver had open at once (from arrival to answer). */
function mostInFlight(requests: readonly ReceivedRequest[]): number {
  const edges = requests.flatMap((r) => [
    { at: r.atMs, d: 1 },
    { at: r.doneAtMs ?? Infinity, d: -1 },
  ]);
  // An answer and an arrival at the same millisecond: the answer first (the slot was free again).
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let open = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (open += e.d));
  return most;
}

/** The most requests that arrived within any span of `ms`. */
function mostWithin(requests: readonly ReceivedRequest[], ms: number): number {
  const at = requests.map((r) => r.atMs).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i]! - at[j]! >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** Webhook tries each instance made (its /metrics), to show that the fleet shared the work. */
async function sentByInstance(): Promise<number[]> {
  return Promise.all(
    fleet.map(async (p) => {
      const text = await (await fetch(`${p.serviceUrl}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('txdesk_webhook_deliveries_total') && l.includes('outcome="sent"'));
      return line ? Number(line.split(' ').pop()) : 0;
    }),
  );
}

it('keeps the requests in flight to one webhook within its limit across the fleet, however many instances send', async () => {
  // Slow answers: every instance finds deliveries waiting and free slots of its own all the time.
  receiver.mode = { kind: 'slow', delayMs: 700 };
  const hashes = await storeMessages(60);
  const requests = await deliveredAll(hashes, 120_000);
  const most = mostInFlight(requests);
  console.log(
    `webhook fleet limits: at most ${most} requests in flight across ${INSTANCES} instances (limit ${WEBHOOK_CONCURRENCY}); ` +
      `sent per instance ${(await sentByInstance()).join(', ')}`,
  );
  expect(most).toBeLessThanOrEqual(WEBHOOK_CONCURRENCY);
  expect(requests.filter((r) => r.answered !== 200)).toEqual([]);
}, 180_000);

it('keeps the client’s deliveries per second within the fleet-wide rate and its stated tolerance', async () => {
  // Quick answers: the limit in flight allows far more than the rate, so the rate is what holds deliveries back.
  receiver.mode = { kind: 'slow', delayMs: 20 };
  const hashes = await storeMessages(500);
  const requests = await deliveredAll(hashes, 120_000);
  const spanS = (Math.max(...requests.map((r) => r.atMs)) - Math.min(...requests.map((r) => r.atMs))) / 1000;
  const perSecond = mostWithin(requests, 1_000);
  const perThree = mostWithin(requests, 3_000);
  console.log(
    `webhook fleet limits: ${requests.length} deliveries in ${spanS.toFixed(1)} s (${(requests.length / spanS).toFixed(1)}/s, limit ${RATE}/s); ` +
      `most in 1 s ${perSecond}, in 3 s ${perThree}; at most ${mostInFlight(requests)} in flight; sent per instance ${(await sentByInstance()).join(', ')}`,
  );
  expect(mostWithin(requests, 1_000)).toBeLessThanOrEqual(allowedIn(1));
  expect(perThree).toBeLessThanOrEqual(allowedIn(3));
  expect(requests.length).toBeLessThanOrEqual(allowedIn(spanS));
  expect(mostInFlight(requests)).toBeLessThanOrEqual(WEBHOOK_CONCURRENCY);
}, 180_000);
