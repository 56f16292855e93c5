// The delivery hub over a real SQLite store: pushes reach the target and are flushed per batch, and acks are stored
// only once the watcher is idle (or after the cap), resolving after they are stored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/log.js';
import { openDatabase, type Db } from '../../../src/lib/sqlite.js';
import { createDeliveryHub, type DeliveryTarget } from '../../../src/service/tracker/tracker-delivery-hub.js';
import type { TrackerStore } from '../../../src/service/tracker/tracker-store.js';
import { openSqliteTrackerStore } from '../../../src/service/tracker/sqlite/tracker-store-sqlite.js';

let dir: string;
let db: Db;
let store: TrackerStore;
const log = createLogger('test', true);
const HASH = '0x' + 'ab'.repeat(32);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'txdesk-hub-'));
  db = openDatabase(join(dir, 'tracker.db'));
  store = openSqliteTrackerStore(db);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Stores one receipt message for client c1's subscription s1 and returns what the watcher would hand the hub. */
/** Lets the hub's store reads (promises) and the pushes after them run. */
const settled = () => new Promise((r) => setImmediate(r));

async function storeMessage() {
  await store.subscribe('c1', 's1', 60_000, 0);
  const { state } = await store.track('c1', HASH, 1, 60_000, 0);
  return store.commitRound([state], [], [{ clientId: 'c1', txHash: HASH, type: 'pending', payload: '{"type":"pending","result":{}}' }], 0);
}

function recordingTarget() {
  const log: string[] = [];
  const target: DeliveryTarget = { send: (frame) => log.push(frame), flush: () => log.push('flush') };
  return { log, target };
}

/** A hub with c1/s1 bound to a recording target and one message delivered to it. */
async function hubWithOneMessage(opts: Parameters<typeof createDeliveryHub>[2] = {}) {
  const hub = createDeliveryHub(store, log, opts);
  const { log: sent, target } = recordingTarget();
  hub.bind('c1', 's1', 60_000, target);
  const { created } = await storeMessage();
  hub.deliver(created, []);
  await settled();
  return { hub, sent, ackId: created[0]!.entries[0]!.ackId };
}

const storedDeliveries = () => (db.prepare('SELECT count(*) AS n FROM tracker_delivery').get() as { n: number }).n;

it('sends each pushed batch and then flushes the target once', async () => {
  const { hub, sent, ackId } = await hubWithOneMessage();
  expect(sent).toHaveLength(2);
  expect(JSON.parse(sent[0]!)).toMatchObject({ jsonrpc: '2.0', id: 's1', result: { ackId } });
  expect(sent[1]).toBe('flush');
  await hub.stop();
});

it('stores an ack only after the watcher goes idle, then resolves it', async () => {
  let idle!: () => void;
  const watcherIdle = new Promise<void>((resolve) => (idle = resolve));
  const { hub, ackId } = await hubWithOneMessage({ whenWatcherIdle: () => watcherIdle });
  let acked = false;
  const ack = hub.ack('c1', ackId).then(() => (acked = true));
  await new Promise((r) => setImmediate(r));
  expect(acked).toBe(false);
  expect(storedDeliveries()).toBe(1);
  expect(hub.stats().inFlight).toBe(0);
  idle();
  await ack;
  expect(storedDeliveries()).toBe(0);
  await hub.stop();
});

it('stores acks anyway when the watcher never goes idle', async () => {
  const { hub, ackId } = await hubWithOneMessage({ whenWatcherIdle: () => new Promise<void>(() => {}) });
  await hub.ack('c1', ackId);
  expect(storedDeliveries()).toBe(0);
  await hub.stop();
});

it('stores waiting acks when stopped', async () => {
  const { hub, ackId } = await hubWithOneMessage({ whenWatcherIdle: () => new Promise<void>(() => {}) });
  void hub.ack('c1', ackId);
  await hub.stop();
  expect(storedDeliveries()).toBe(0);
});

/** Stores `n` messages (one transaction each) for c1's subscription s1. */
async function storeBacklog(n: number, tag = 'b') {
  await store.subscribe('c1', 's1', 60_000, 0);
  const messages = Array.from({ length: n }, (_, i) => ({
    clientId: 'c1',
    txHash: `0x${tag}${String(i).padStart(63, '0')}`.slice(0, 66),
    type: 'pending' as const,
    payload: `{"type":"pending","result":{"i":${i}}}`,
  }));
  return store.commitRound([], [], messages, 0);
}

it('reads a backlog in pages: the outbox never holds more than two pages, and every message arrives once, in order', async () => {
  await storeBacklog(1_050);
  const hub = createDeliveryHub(store, log, { pageSize: 100 });
  const { log: sent, target } = recordingTarget();
  hub.bind('c1', 's1', 60_000, target);
  const seen: number[] = [];
  let maxQueued = 0;
  for (let guard = 0; guard < 2_000 && seen.length < 1_050; guard++) {
    await settled();
    const frames = sent.splice(0).filter((f) => f !== 'flush');
    maxQueued = Math.max(maxQueued, hub.stats().queued);
    for (const f of frames) {
      const r = JSON.parse(f).result as { ackId: string; payload: { result: { i: number } } };
      seen.push(r.payload.result.i);
      void hub.ack('c1', r.ackId);
    }
  }
  expect(seen).toEqual(Array.from({ length: 1_050 }, (_, i) => i));
  expect(maxQueued).toBeLessThanOrEqual(200);
  // New messages behind a backlog wait for their page, so order holds across the boundary too.
  const { created } = await storeBacklog(3, 'c');
  hub.deliver(created, []);
  await new Promise((r) => setTimeout(r, 300));
  expect(sent.filter((f) => f !== 'flush').map((f) => JSON.parse(f).result.payload.result.i)).toEqual([0, 1, 2]);
  await hub.stop();
});

it('deletes a subscription unused for the idle time, with its messages, and keeps bound and recent ones', async () => {
  let t = 1_000_000;
  const hub = createDeliveryHub(store, log, { now: () => t, subscriptionIdleMs: 7 * 86_400_000 });
  await storeBacklog(5);
  await store.subscribe('c1', 'bound', 60_000, 0);
  await store.subscribe('c1', 'recent', 60_000, 0);
  const { target } = recordingTarget();
  hub.bind('c1', 'bound', 60_000, target);
  t += 6 * 86_400_000;
  await store.subscribe('c1', 'recent', 60_000, t); // a resume six days later counts as use
  t += 2 * 86_400_000;
  expect(await hub.pruneIdle()).toBe(1);
  const subs = (db.prepare('SELECT subscription_id FROM tracker_subscription ORDER BY 1').all() as { subscription_id: string }[]).map(
    (r) => r.subscription_id,
  );
  expect(subs).toEqual(['bound', 'recent']);
  expect((db.prepare("SELECT count(*) AS n FROM tracker_delivery WHERE subscription_id = 's1'").get() as { n: number }).n).toBe(0);
  // The five messages were s1's only: they are gone too.
  expect((db.prepare('SELECT count(*) AS n FROM tracker_message').get() as { n: number }).n).toBe(0);
  await hub.stop();
});
