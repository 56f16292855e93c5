// Three `txdesk service` processes on one PostgreSQL database and one dev chain: one leader per role, a subscriber
// on one instance receives what a client tracks on another, and a SIGKILL of the watcher leader mid-stream hands the
// role to another instance (seen in /health) with every message still delivered at least once; an SDK given every
// instance's URL moves to another when the one it is connected to is killed.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAnvil, type RunningAnvil } from '../../src/devchain/devchain.js';
import { TransactionTracker, type TrackerMessage } from '@txdesk/tracker';
import { createTestDatabase, type TestDatabase } from '../support/service/postgres-db.js';
import {
  ensureCliBuilt,
  killServiceProcesses,
  serviceHealth,
  startServiceProcess,
  type ServiceProcess,
} from '../support/service/service-process.js';
import { DEV_KEYS, sendTransfer, signTransfer } from '../support/service/tracker-harness.js';
import { waitFor } from '../support/poll.js';

let anvil: RunningAnvil;
let provider: JsonRpcProvider;
let database: TestDatabase;
const dirs: string[] = [];
let fleet: ServiceProcess[] = [];
const trackers: TransactionTracker[] = [];

beforeAll(async () => {
  ensureCliBuilt();
  // Room for a block of 1,000 transfers (the default limit keeps dev blocks small on purpose).
  anvil = await startAnvil({ blockTimeSeconds: 1, gasLimit: 30_000_000 });
  provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true });
  database = await createTestDatabase('fleet');
  // Started together: they race for the migration lock and for both leaderships.
  fleet = await Promise.all(
    [0, 1, 2].map(() => {
      const dataDir = mkdtempSync(join(tmpdir(), 'txdesk-fleet-'));
      dirs.push(dataDir);
      return startServiceProcess({ nodeUrl: anvil.url, dataDir, database: database.url });
    }),
  );
});

afterAll(async () => {
  await Promise.all(trackers.map((t) => t.close().catch(() => {})));
  killServiceProcesses();
  await Promise.all(fleet.map((p) => p.exited));
  provider?.destroy();
  await anvil?.stop();
  await database?.drop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The instances holding `role`, once exactly one of `among` does. */
async function leaderOf(role: 'watcher-leader' | 'indexer-leader', among: ServiceProcess[], timeoutMs = 30_000): Promise<ServiceProcess> {
  return waitFor(
    `exactly one ${role}`,
    async () => {
      const holders: ServiceProcess[] = [];
      for (const p of among) if ((await serviceHealth(p)).roles.includes(role)) holders.push(p);
      return holders.length === 1 ? holders[0] : undefined;
    },
    { timeoutMs: timeoutMs },
  );
}

async function signup(p: ServiceProcess, email: string): Promise<string> {
  const res = await fetch(`${p.serviceUrl}/users/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery staple', name: 'Fleet', organization: 'txdesk tests' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { clientId: string }).clientId;
}

function tracker(clientId: string, p: ServiceProcess): TransactionTracker {
  const t = new TransactionTracker(clientId, {
    platform: 'ethereum',
    network: 'local',
    url: p.serviceUrl,
    initialBackoffMs: 100,
    maxBackoffMs: 500,
  });
  trackers.push(t);
  return t;
}

/** Subscribes on `p`, acking everything; returns the messages seen (duplicates included). */
async function subscriber(clientId: string, p: ServiceProcess, subscriptionId: string): Promise<TrackerMessage[]> {
  const seen: TrackerMessage[] = [];
  const sub = tracker(clientId, p).subscribe('transaction', { subscriptionId, ackTimeout: 600_000 });
  sub.on('message', (m) => {
    seen.push(m);
    void m.ack();
  });
  await sub.ready;
  return seen;
}

/** Per transaction, its receipt arrived before its confirmation (order per transaction holds across instances). */
function expectReceiptBeforeConfirmation(seen: TrackerMessage[], hashes: string[]): void {
  for (const h of hashes) {
    const first = (type: string) => seen.findIndex((m) => m.data.type === type && m.data.result.transactionHash === h);
    expect(first('receipt')).toBeGreaterThanOrEqual(0);
    expect(first('receipt')).toBeLessThan(first('confirmation'));
  }
}

/** Sends transfers from `key` in batches, each tracked through `sender` (2 confirmations); `hashes` in order. */
async function trackedTransfers(sender: TransactionTracker, key: string) {
  const wallet = new Wallet(key, provider);
  let nonce = await wallet.getNonce('pending');
  const hashes: string[] = [];
  const sendBatch = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const tx = await sendTransfer(wallet, { nonce: nonce++ });
      hashes.push(tx.hash);
      await sender.trackTransaction(tx.hash, { timeout: 60_000, confirmation: 2 });
    }
  };
  return { hashes, sendBatch };
}

/**
 * `n` transfers from `key` tracked through `sender` (2 confirmations), then broadcast with interval mining paused and
 * mined as one block; returns their hashes in nonce order.
 */
async function oneBlockOfTransfers(sender: TransactionTracker, key: string, n: number): Promise<string[]> {
  const wallet = new Wallet(key, provider);
  const first = await wallet.getNonce('pending');
  const signed = await Promise.all(Array.from({ length: n }, (_, i) => signTransfer(wallet, { nonce: first + i })));
  await Promise.all(signed.map((t) => sender.trackTransaction(t.hash, { timeout: 120_000, confirmation: 2 })));
  await provider.send('evm_setIntervalMining', [0]);
  try {
    for (let i = 0; i < n; i += 250)
      await Promise.all(signed.slice(i, i + 250).map((t) => provider.send('eth_sendRawTransaction', [t.raw])));
    await provider.send('evm_mine', []);
  } finally {
    await provider.send('evm_setIntervalMining', [1]);
  }
  const mined = new Set((await provider.send('eth_getBlockByNumber', ['latest', false])).transactions as string[]);
  expect(
    signed.filter((t) => !mined.has(t.hash)),
    'the whole batch in one block',
  ).toEqual([]);
  return signed.map((t) => t.hash);
}

const hashesOf = (seen: TrackerMessage[], type: string) =>
  new Set(seen.filter((m) => m.data.type === type).map((m) => m.data.result.transactionHash));

it('runs one leader per role, reports roles, lag and outbox depth, delivers on B what a client tracks on A, and keeps no files', async () => {
  const watcher = await leaderOf('watcher-leader', fleet);
  await leaderOf('indexer-leader', fleet);
  const healths = await Promise.all(fleet.map(serviceHealth));
  for (const h of healths) {
    expect(h.store).toBe('postgres');
    expect(typeof h.outboxDepth).toBe('number');
    expect(h.indexLagBlocks === null).toBe(!h.roles.includes('indexer-leader'));
    if (h.roles.length === 0 || !h.roles.some((r) => r.endsWith('-leader'))) expect(h.roles).toEqual(['follower']);
  }

  // A and B are the two instances that do not watch: the message crosses the database twice.
  const [a, b] = fleet.filter((p) => p !== watcher) as [ServiceProcess, ServiceProcess];
  const clientId = await signup(a, 'fleet-ab@example.com');
  const seen = await subscriber(clientId, b, 'on-b');
  const sender = tracker(clientId, a);
  const wallet = new Wallet(DEV_KEYS[2]!, provider);
  const nonce = await wallet.getNonce('pending');
  const hashes: string[] = [];
  for (let i = 0; i < 5; i++) {
    const tx = await sendTransfer(wallet, { nonce: nonce + i });
    hashes.push(tx.hash);
    await sender.trackTransaction(tx.hash, { timeout: 60_000, confirmation: 1 });
  }
  await waitFor('receipts and confirmations on B', () => hashes.every((h) => hashesOf(seen, 'confirmation').has(h)), { timeoutMs: 60_000 });
  expect(hashesOf(seen, 'receipt')).toEqual(new Set(hashes));
  expectReceiptBeforeConfirmation(seen, hashes);
  // The instances keep no state of their own: the --data-dir each was given stays empty.
  for (const d of dirs) expect(readdirSync(d)).toEqual([]);
});

it('survives SIGKILL of the watcher leader mid-stream: another instance takes the role, every message arrives', async () => {
  const watcher = await leaderOf('watcher-leader', fleet);
  const [subscribeOn, trackOn] = fleet.filter((p) => p !== watcher) as [ServiceProcess, ServiceProcess];
  const clientId = await signup(trackOn, 'fleet-kill@example.com');
  const seen = await subscriber(clientId, subscribeOn, 'survivor');
  const sender = tracker(clientId, trackOn);
  // One block of 1,000 transfers, tracked before they are sent and mined together; the leader is killed as soon as the
  // first of its receipts reaches the subscriber, while it is still storing the rest of the block.
  const block = await oneBlockOfTransfers(sender, DEV_KEYS[3]!, 1_000);
  await waitFor('the first receipt of the 1,000-transfer block on the subscriber', () => hashesOf(seen, 'receipt').size > 0, {
    timeoutMs: 60_000,
    everyMs: 5,
  });
  expect(hashesOf(seen, 'receipt').size, 'killed before the block was delivered').toBeLessThan(1_000);
  watcher.child.kill('SIGKILL');
  await watcher.exited;
  fleet = fleet.filter((p) => p !== watcher);
  const { hashes, sendBatch } = await trackedTransfers(sender, DEV_KEYS[3]!);
  hashes.unshift(...block);
  // Tracked while the role moves: stored in the database, picked up by whoever leads next.
  await sendBatch(30);

  const survivors = [subscribeOn, trackOn];
  const next = await leaderOf('watcher-leader', survivors, 10_000);
  expect(survivors).toContain(next);
  // The indexer role is held by exactly one survivor too (it moved if the killed instance held it).
  await leaderOf('indexer-leader', survivors, 10_000);
  await waitFor(
    'a receipt and a confirmation for all 1,030 transactions',
    () => hashes.every((h) => hashesOf(seen, 'confirmation').has(h)),
    { timeoutMs: 120_000 },
  ).catch(async (e: Error) => {
    // Say how far it got, so a failure on a slow machine shows which side stalled (chain, watcher or delivery).
    const head = Number(await provider.send('eth_blockNumber', []));
    const states = await Promise.all(survivors.map((p) => serviceHealth(p).catch((x: Error) => x.message)));
    // For each transaction still missing: what the subscriber saw of it, and whether the chain mined it.
    const confirmed = hashesOf(seen, 'confirmation');
    const missing = await Promise.all(
      hashes
        .filter((h) => !confirmed.has(h))
        .slice(0, 5)
        .map(async (h) => {
          const mined = (await provider.send('eth_getTransactionReceipt', [h]).catch(() => null)) as { blockNumber?: string } | null;
          const types = seen.filter((m) => m.data.result.transactionHash === h).map((m) => m.data.type);
          return (
            `${h} (${hashes.indexOf(h) < block.length ? 'in the killed block' : 'tracked after the kill'}; ` +
            `seen ${types.join(',') || 'nothing'}; ${mined?.blockNumber ? `mined in block ${Number(mined.blockNumber)}` : 'not mined'})`
          );
        }),
    );
    throw new Error(
      `${e.message}: ${hashesOf(seen, 'receipt').size} receipts and ${confirmed.size} confirmations seen, head ` +
        `block ${head}, missing ${missing.join('; ')}, survivors ${JSON.stringify(states)}`,
    );
  });
  expect(hashesOf(seen, 'receipt')).toEqual(new Set(hashes));
  expectReceiptBeforeConfirmation(seen, hashes);
  // Everything was acked: nothing waits in the outbox any more.
  await waitFor('an empty outbox', async () => (await serviceHealth(next)).outboxDepth === 0);
});

it('survives SIGKILL of the instance an SDK client is connected to: the SDK moves to the next URL, nothing is lost', async () => {
  // Two instances are left; the client is connected to the one that does not watch, so only the connection moves.
  const watcher = await leaderOf('watcher-leader', fleet);
  const connectedTo = fleet.find((p) => p !== watcher)!;
  const urls = [connectedTo.serviceUrl, watcher.serviceUrl];
  const clientId = await signup(watcher, 'fleet-failover@example.com');
  const options = { platform: 'ethereum', network: 'local', url: urls, initialBackoffMs: 100, maxBackoffMs: 500 };
  const sender = new TransactionTracker(clientId, options);
  const listener = new TransactionTracker(clientId, options);
  trackers.push(sender, listener);

  const sent = await trackedTransfers(sender, DEV_KEYS[4]!);
  const hashes = sent.hashes;
  // Messages of the first transaction are held un-acked until the kill: they must come again after the move.
  const seen: TrackerMessage[] = [];
  const held: TrackerMessage[] = [];
  let holding = true;
  const sub = listener.subscribe('transaction', { subscriptionId: 'moves', ackTimeout: 600_000 });
  sub.on('message', (m) => {
    seen.push(m);
    if (holding && m.data.result.transactionHash === hashes[0]) held.push(m);
    else void m.ack();
  });
  await sub.ready;

  const { sendBatch } = sent;
  await sendBatch(20);
  await waitFor('the held receipt of the first transaction', () => held.some((m) => m.data.type === 'receipt'));
  const heldIds = new Set(held.map((m) => m.id));

  connectedTo.child.kill('SIGKILL');
  await connectedTo.exited;
  fleet = fleet.filter((p) => p !== connectedTo);
  holding = false;
  // Tracked while the SDK moves: queued by the SDK and sent to the next URL once connected.
  await sendBatch(10);

  await waitFor('a receipt and a confirmation for all 30 transactions', () => hashes.every((h) => hashesOf(seen, 'confirmation').has(h)), {
    timeoutMs: 90_000,
  });
  expect(hashesOf(seen, 'receipt')).toEqual(new Set(hashes));
  expectReceiptBeforeConfirmation(seen, hashes);
  // Every message held un-acked on the killed instance was delivered again, with the same id, by the other one.
  for (const id of heldIds) expect(seen.filter((m) => m.id === id).length).toBeGreaterThanOrEqual(2);
  await waitFor('an empty outbox', async () => (await serviceHealth(watcher)).outboxDepth === 0);
});
